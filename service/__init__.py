"""Capsa scoring service: Capsa Susun / Chinese Poker and Capsa Banting (Big Two)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

from service.domain.version import ENGINE_VERSION

__all__ = ["ENGINE_VERSION", "create_app"]


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The Flask app (imported lazily: the domain must load without Flask)."""
    from .api.app import create_app as factory

    return factory(config)
