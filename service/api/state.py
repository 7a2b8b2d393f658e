"""What the app factory puts in `app.extensions`, and accessors for views."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from flask import current_app, g

from service.adapters.uow import Database
from service.services.clients import KeyCache, Principal
from service.services.idempotency import Purger
from service.services.readiness import Probe

from .observability import Metrics


@dataclass
class Capsa:
    db: Database
    metrics: Metrics
    keys: KeyCache
    ready: Probe
    purger: Purger | None = None
    spec: Callable[[], str] | None = None  # writes the OpenAPI document (`spec_yaml`)

    @cached_property
    def spec_yaml(self) -> str:
        """The OpenAPI document served at /openapi.yaml, written when first asked for: it
        took 0.4 s of CPU at every start of a worker (and of every app a test makes), for a
        document few requests ask for."""
        return self.spec() if self.spec is not None else ""


def state() -> Capsa:
    capsa: Capsa = current_app.extensions["capsa"]
    return capsa


def db() -> Database:
    return state().db


def principal() -> Principal:
    p: Principal = g.principal
    return p
