"""Read-only game services: rule presets and arrangement evaluation (no storage)."""

from __future__ import annotations

from typing import Any

from service.domain.rules import list_presets
from service.domain.susun.round import evaluate_arrangement_request
from service.domain.susun.suggest.search import suggest_request


def rules() -> dict[str, Any]:
    """`GET /v1/rules`: every preset with its game, description and every parameter."""
    items = []
    for rule_set, description in list_presets():
        doc = rule_set.to_json()
        items.append(
            {
                "preset": doc["preset"],
                "version": doc["version"],
                "game": rule_set.game,
                "description": description,
                "params": doc["params"],
            }
        )
    return {"items": items}


def evaluate(body: dict[str, Any]) -> dict[str, Any]:
    """`POST /v1/arrangements/evaluate`."""
    return evaluate_arrangement_request(body)


def suggest(body: dict[str, Any]) -> dict[str, Any]:
    """`POST /v1/arrangements/suggest`: the best legal settings of a hand."""
    return suggest_request(body)
