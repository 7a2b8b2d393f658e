"""What the app factory puts in `app.extensions`, and accessors for views."""

from __future__ import annotations

from dataclasses import dataclass

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
    spec_yaml: str | None = None


def state() -> Capsa:
    capsa: Capsa = current_app.extensions["capsa"]
    return capsa


def db() -> Database:
    return state().db


def principal() -> Principal:
    p: Principal = g.principal
    return p
