"""Rounds: score (preview), score and store, fetch one, list; documents as API.md "Rounds"."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.adapters.errors import UniqueViolation
from service.adapters.ledger import AuditRepository
from service.adapters.models import Round
from service.adapters.uow import Database, RoundFilter, UnitOfWork, decode_cursor, encode_cursor
from service.domain.errors import FieldError
from service.domain.susun.round import ScoredRound, score_round_request

from . import deals
from .documents import render_document
from .errors import Conflict, InvalidInput, NotFound
from .idempotency import StoredResponse, run_once
from .ids import rfc3339
from .jsondoc import dump
from .recording import audit_json, record_round


@dataclass(frozen=True)
class Created:
    """The stored answer of `POST /v1/rounds` and, for metrics, the preset it was scored with."""

    response: StoredResponse
    preset: str | None


def preview(
    body: dict[str, Any], db: Database | None = None, client_id: str | None = None
) -> tuple[dict[str, Any], str]:
    """`POST /v1/score`: the document without storing anything, and its preset.

    With a `deal`, the cards are checked against it (with `db`), but the deal is not used.
    """
    scored = score_round_request(body)
    if scored.request.get("deal") is not None and db is not None and client_id is not None:
        with db.unit_of_work() as uow:
            deals.check_round_cards(deals.dealt(uow, client_id, scored.request["deal"]), scored.request)
    return scored.document, scored.preset


def render(
    round_: Round,
    audit: dict[str, Any] | None = None,
    void: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The stored round as its API document (`status` derived from its void, if any)."""
    return render_document(
        round_.id, round_.created_at, round_.status, round_.document, audit=audit, void=void
    )


def render_stored(uow: UnitOfWork, rows: list[Round]) -> list[dict[str, Any]]:
    """Documents of stored rounds with their audit and void (two queries for the lot)."""
    repo = AuditRepository(uow.session)
    ids = [r.id for r in rows]
    audits, voids = repo.audits(ids), repo.voids(ids)
    out = []
    for r in rows:
        a, v = audits.get(r.id), voids.get(r.id)
        out.append(
            render(
                r,
                None if a is None else audit_json(a.sequence, a.hash, a.previous_hash),
                None if v is None else {"at": rfc3339(v.at), "reason": v.reason},
            )
        )
    return out


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
        if result.request.get("deal") is not None:
            deals.check_round_cards(deals.dealt(uow, client_id, result.request["deal"]), result.request)
        document = _store(uow, client_id, result, raw)
        if result.request.get("deal") is not None:
            deals.use(uow, result.request["deal"], document["id"])  # 409 when used before
        return StoredResponse(201, dump(document), location=f"/v1/rounds/{document['id']}")

    response = run_once(db, client_id, "POST", path, idempotency_key, body, action)
    return Created(response, scored[0].preset if scored else None)


def _store(uow: UnitOfWork, client_id: str, scored: ScoredRound, raw: str) -> dict[str, Any]:
    """Record the round (rows, ledger lines, chain record); return its document."""
    document = scored.document
    try:
        # A used reference is found by the unique constraint: no query before the insert.
        return record_round(
            uow,
            client_id,
            game=str(document["game"]),
            preset=scored.preset,
            currency=scored.currency,
            table=scored.table,
            reference=scored.reference,
            request=scored.request,
            document=document,
            players=scored.players,
            pairs=scored.pairs,
            house_fee=scored.house_fee,
            raw=raw,
            engine_version=str(document["engine_version"]),
        )
    except UniqueViolation as exc:
        if scored.reference is not None and exc.constraint == "uq_rounds_client_reference":
            raise _reference_conflict(scored.reference) from exc
        raise


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
        return render_stored(uow, [round_])[0]


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
        items = render_stored(uow, rows)
    return {
        "items": items,
        "next_cursor": None if next_after is None else encode_cursor(*next_after),
    }
