"""Voiding a stored round: a new chained record with reversing ledger lines, once.

Whatever keeps standings from rounds hears of a void in the void's own transaction
(`on_voided`: a Big Two match, subscribed by `service.services.banting`), so the round
modules never import what listens.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson

from service.adapters.errors import KeyTaken, LockTimeout, SecondVoid
from service.adapters.rounds import StoredRound
from service.adapters.uow import Database, UnitOfWork
from service.domain.errors import FieldError
from service.domain.version import ENGINE_VERSION
from service.services import idempotency
from service.services.clock import utcnow_ms
from service.services.errors import Conflict, NotFound, Unavailable
from service.services.idempotency import StoredResponse
from service.services.jsondoc import dump
from service.services.rounds import store as rounds
from service.services.rounds.documents import audit_of_record, void_info
from service.services.rounds.records import void_record

MAX_REASON = 500  # characters of a void's reason


@dataclass(frozen=True)
class VoidedRound:
    """A round being voided, in the void's transaction: its client and the round as stored."""

    client_id: str
    round: StoredRound

    @cached_property
    def request(self) -> Mapping[str, Any]:
        """The round's request, as its record holds it."""
        request: Mapping[str, Any] = orjson.loads(self.round.record.canonical)["request"]
        return request


@dataclass(frozen=True)
class VoidListener:
    """What hears of voids: `concerns(voided)` says whether `act(uow, voided)` is called."""

    concerns: Callable[[VoidedRound], bool]
    act: Callable[[UnitOfWork, VoidedRound], None]


_listeners: list[VoidListener] = []


def on_voided(concerns: Callable[[VoidedRound], bool], act: Callable[[UnitOfWork, VoidedRound], None]) -> None:
    """Call `act(uow, voided)` in the transaction of every void that `concerns`, after the
    void's record has taken the client's chain head."""
    listener = VoidListener(concerns, act)
    if listener not in _listeners:
        _listeners.append(listener)


def void_path(round_id: str) -> str:
    return f"/v1/rounds/{round_id}/void"


def void(db: Database, client_id: str, round_id: str, reason: str, idempotency_key: str | None = None) -> StoredResponse:
    """`POST /v1/rounds/{id}/void`: a new chained record with reversing lines; 409 twice.

    With an Idempotency-Key, a retry of a void that succeeded gets its 200 again."""
    body = {"reason": reason}
    path = void_path(round_id)
    with db.unit_of_work() as uow:
        stored = uow.rounds.get(client_id, round_id)
        if stored is None:  # another client's round too
            raise NotFound(f"no round {round_id!r}")
        booked = uow.ledger.lines_of(client_id, stored.record.sequence)
    now = utcnow_ms()
    claim = None
    if idempotency_key is not None:
        claim = idempotency.claim("POST", path, idempotency_key, body, round_id, 200, now)
    built = void_record(
        client_id,
        round_id=round_id,
        created_at=now,
        reason=reason,
        booked=booked,
        currency=stored.currency,
        table=stored.table,
        engine_version=ENGINE_VERSION,
    )
    voided = VoidedRound(client_id, stored)
    acting = [listener.act for listener in _listeners if listener.concerns(voided)]
    try:
        with db.unit_of_work(write=True) as uow:
            if acting:
                # The record first, at once (the chain head), then what the listeners lock:
                # the order of a Big Two game's last move, which records its round before
                # its match hears of it. The other way round, the two deadlocked.
                uow.begin()
            appended = uow.chain.append(built.new, claim=claim)
            for act in acting:
                act(uow, voided)
            uow.commit()
    except KeyTaken:
        assert claim is not None and idempotency_key is not None
        replayed = idempotency.replay(
            db, client_id, "POST", path, idempotency_key, claim.request_hash, _voided(client_id)
        )
        if replayed is not None:
            return replayed
        raise _already_void(round_id) from None
    except SecondVoid as exc:
        raise _already_void(round_id) from exc
    except LockTimeout as exc:
        if claim is not None and exc.on_key:
            raise idempotency.in_flight() from exc
        busy = "the client's chain" + (", or what the void updates with it (a match's standings)," if acting else "")
        raise Unavailable(f"{busy} is busy; retry", retry_after=1) from exc
    # The void's own place in the chain and receipt (also GET /v1/audit/records/{sequence}).
    void = void_info(built.document, audit_of_record(appended))
    document = rounds.render(stored, void=void)
    return StoredResponse(200, dump(document))


def _voided(client_id: str) -> idempotency.Renderer:
    def render_voided(uow: Any, found: Any) -> StoredResponse:
        stored = uow.rounds.get(client_id, found.resource)
        if stored is None:
            raise NotFound("the round this Idempotency-Key voided no longer exists")
        return StoredResponse(found.status_code, dump(rounds.render(stored)))

    return render_voided


def _already_void(round_id: str) -> Conflict:
    return Conflict(
        f"round {round_id!r} is already void",
        errors=[FieldError("path.round_id", "already void; a round is voided once")],
    )


__all__ = ["MAX_REASON", "VoidedRound", "on_voided", "void", "void_path"]
