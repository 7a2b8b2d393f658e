"""Rounds: score (preview), score and store, fetch one, list; documents as API.md "Rounds"."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.adapters.errors import UniqueViolation
from service.adapters.models import Round
from service.adapters.uow import Database, RoundFilter, UnitOfWork, decode_cursor, encode_cursor
from service.domain.errors import FieldError
from service.domain.round import ScoredRound, score_round_request

from .errors import Conflict, InvalidInput, NotFound
from .idempotency import StoredResponse, run_once
from .ids import new_id, rfc3339, utcnow_ms
from .jsondoc import dump


@dataclass(frozen=True)
class Created:
    """The stored answer of `POST /v1/rounds` and, for metrics, the preset it was scored with."""

    response: StoredResponse
    preset: str | None


def preview(body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """`POST /v1/score`: the document without storing anything, and its preset."""
    scored = score_round_request(body)
    return scored.document, scored.preset


def render(round_: Round) -> dict[str, Any]:
    """The stored round as its API document."""
    return render_document(round_.id, round_.created_at, round_.status, round_.document)


def render_document(
    round_id: str, created_at: datetime, status: str, score: dict[str, Any]
) -> dict[str, Any]:
    """The score document plus id, time and status, in API.md's key order."""
    doc: dict[str, Any] = {
        "id": round_id,
        "game": score["game"],
        "created_at": rfc3339(created_at),
    }
    for name, value in score.items():
        if name == "game":
            continue
        doc[name] = value
        if name == "engine_version":
            doc["status"] = status
            doc["void"] = None
    doc.setdefault("status", status)
    doc.setdefault("void", None)
    doc["audit"] = None
    return doc


def create(
    db: Database,
    client_id: str,
    body: dict[str, Any],
    raw: str,
    idempotency_key: str | None,
    path: str = "/v1/rounds",
) -> Created:
    """`POST /v1/rounds`: score, store in one transaction, answer; at most once per key."""
    scored: list[ScoredRound] = []

    def action(uow: UnitOfWork) -> StoredResponse:
        # Scored inside the claim, so a rejected body frees the key for a corrected retry.
        result = score_round_request(body)
        scored.append(result)
        document = _store(uow, client_id, result, raw)
        return StoredResponse(201, dump(document), location=f"/v1/rounds/{document['id']}")

    response = run_once(db, client_id, "POST", path, idempotency_key, body, action)
    return Created(response, scored[0].preset if scored else None)


def _store(uow: UnitOfWork, client_id: str, scored: ScoredRound, raw: str) -> dict[str, Any]:
    """Insert the round and its player and pair rows; return its document."""
    now = utcnow_ms()
    round_id = new_id("rnd", now)
    document = scored.document
    row = {
        "id": round_id,
        "client_id": client_id,
        "game": str(document["game"]),
        "preset": scored.preset,
        "table_ref": scored.table,
        "reference": scored.reference,
        "currency": scored.currency,
        "status": "settled",
        "engine_version": str(document["engine_version"]),
        "request_raw": raw,
        "request_json": scored.request,
        "rules_json": document["rules"],
        "document": document,
        "house_fee": scored.house_fee,
        "created_at": now,
    }
    players = [
        {
            "round_id": round_id,
            "seat": seat,
            "player_id": p.id,
            "points": p.points,
            "result": p.result,
            "winnings": p.winnings,
            "fee": p.fee,
            "net": p.net,
        }
        for seat, p in enumerate(scored.players)
    ]
    pairs = [
        {
            "round_id": round_id,
            "position": i,
            "player_a": p.a,
            "player_b": p.b,
            "stake": p.stake,
            "points": p.points,
            "amount": p.amount,
            "outcome": p.outcome,
        }
        for i, p in enumerate(scored.pairs)
    ]
    try:
        # A used reference is found by the unique constraint: no query before the insert.
        uow.rounds.insert(row, players, pairs)
    except UniqueViolation as exc:
        if scored.reference is not None and exc.constraint == "uq_rounds_client_reference":
            raise _reference_conflict(scored.reference) from exc
        raise
    return render_document(round_id, now, "settled", document)


def _reference_conflict(reference: str) -> Conflict:
    return Conflict(
        f"reference {reference!r} is already used by another round of this client",
        errors=[FieldError("reference", "already used; find it with GET /v1/rounds?reference=")],
    )


def get(db: Database, client_id: str, round_id: str) -> dict[str, Any]:
    with db.unit_of_work() as uow:
        round_ = uow.rounds.get(client_id, round_id)
        if round_ is None:
            raise NotFound(f"no round {round_id!r}")
        return render(round_)


def list_(
    db: Database,
    client_id: str,
    *,
    table: str | None = None,
    player: str | None = None,
    reference: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> dict[str, Any]:
    """A page of the client's rounds, newest first by (created_at, id)."""
    after = None
    if cursor is not None:
        try:
            after = decode_cursor(cursor)
        except ValueError as exc:
            raise InvalidInput(
                "the cursor is not one this service gave",
                errors=[FieldError("query.cursor", "not a cursor from this service")],
            ) from exc
    where = RoundFilter(table, player, reference, since, until)
    with db.unit_of_work() as uow:
        rows, next_after = uow.rounds.list(client_id, where, limit, after)
        items = [render(r) for r in rows]
    return {
        "items": items,
        "next_cursor": None if next_after is None else encode_cursor(*next_after),
    }
