"""Capsa scoring service: Capsa Susun / Chinese Poker and Capsa Banting (Big Two).

The Flask app comes from `service.api.app.create_app` (gunicorn: `service.api.wsgi:app`);
the package itself imports nothing, so the domain loads without Flask."""

from __future__ import annotations

from service.domain.version import ENGINE_VERSION

__all__ = ["ENGINE_VERSION"]
