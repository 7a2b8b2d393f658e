"""Arranging a Capsa Susun hand, with no storage: evaluate one arrangement, suggest the best."""

from __future__ import annotations

from typing import Any

from service.domain.susun.round import evaluate_arrangement_request
from service.domain.susun.suggest.search import suggest_request


def evaluate(body: dict[str, Any]) -> dict[str, Any]:
    """`POST /v1/arrangements/evaluate`."""
    return evaluate_arrangement_request(body)


def suggest(body: dict[str, Any]) -> dict[str, Any]:
    """`POST /v1/arrangements/suggest`: the best legal settings of a hand."""
    return suggest_request(body)
