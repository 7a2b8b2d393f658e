"""Rounds: score (preview), score and store, fetch one, list.

Storing a round is the service's main job. Everything that does not need the chain head
happens first, outside any transaction: validating and scoring the body (one pass, in the
domain), checking the cards against a deal, building the record's canonical bytes up to
its sequence. Then one write places it at the head of the client's chain, with its
Idempotency-Key claim and the deal's use in the same transaction (on PostgreSQL: one
statement, one round trip).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from service.adapters.errors import DealUsed, KeyTaken, LockTimeout, ReferenceHeld, ReferenceUsed
from service.adapters.idempotency import KeyRecord
from service.adapters.rounds import RoundFilter, StoredRound
from service.adapters.uow import Database, UnitOfWork
from service.domain.errors import FieldError
from service.domain.susun.round import score_round_request
from service.services import deals, idempotency
from service.services.clock import new_id, utcnow_ms
from service.services.cursors import decode_cursor, encode_cursor
from service.services.errors import Conflict, InvalidInput, NotFound, Unavailable
from service.services.idempotency import StoredResponse
from service.services.jsondoc import dump
from service.services.rounds.documents import audit_of_record, round_document, score_document, void_info
from service.services.rounds.records import BuiltRecord, scored_round_record

PATH = "/v1/rounds"


@dataclass(frozen=True)
class Created:
    """The answer of `POST /v1/rounds` and, for metrics, the preset of the round it stored
    (None for a replay: it stored nothing)."""

    response: StoredResponse
    preset: str | None


def preview(
    body: dict[str, Any], db: Database | None = None, client_id: str | None = None, *, writer: bool = True
) -> tuple[dict[str, Any], str]:
    """`POST /v1/score`: the document without storing anything, and its preset.

    With a `deal`, the cards are checked against it (with `db`), but the deal is not used;
    for a read key (`writer` false) an error names no card of a hand it may not see.
    """
    scored = score_round_request(body)
    deal_id = scored.request["deal"]
    if deal_id is not None and db is not None and client_id is not None:
        with db.unit_of_work() as uow:
            deals.check_round_cards(deals.dealt(uow, client_id, deal_id, writer=writer), scored.request)
    return score_document(scored.document), scored.preset


def create(db: Database, client_id: str, body: dict[str, Any], idempotency_key: str | None) -> Created:
    """`POST /v1/rounds`: score, store in one write, answer; at most once per key."""
    scored = score_round_request(body)
    deal_id = scored.request["deal"]
    if deal_id is not None:
        with db.unit_of_work() as uow:
            deals.check_round_cards(deals.dealt(uow, client_id, deal_id), scored.request)
    now = utcnow_ms()
    round_id = new_id("rnd", now)
    built = scored_round_record(client_id, scored, round_id=round_id, created_at=now)
    claim = None
    if idempotency_key is not None:
        claim = idempotency.claim("POST", PATH, idempotency_key, body, round_id, 201, now)
    try:
        document = _store(db, built, claim, deal_id, scored.reference)
    except KeyTaken:
        assert claim is not None and idempotency_key is not None
        for _ in range(2):
            stored = idempotency.replay(
                db, client_id, "POST", PATH, idempotency_key, claim.request_hash, _as_created(client_id)
            )
            if stored is not None:
                return Created(stored, None)
            # Purged between the two looks, or expired by the replay's clock but not by the
            # claim's (a retry at the end of the key's 24 h): claimed again, as of now.
            claim = idempotency.claim("POST", PATH, idempotency_key, body, round_id, 201, utcnow_ms())
            try:
                document = _store(db, built, claim, deal_id, scored.reference)
                break
            except KeyTaken:
                continue
        else:
            raise idempotency.in_flight() from None
    response = StoredResponse(201, dump(document), location=f"{PATH}/{round_id}")
    return Created(response, scored.preset)


def _store(
    db: Database, built: BuiltRecord, claim: Any, deal_id: str | None, reference: str | None
) -> dict[str, Any]:
    try:
        with db.unit_of_work(write=True) as uow:
            appended = uow.chain.append(built.new, claim=claim, deal=deal_id, take_reference=True)
            uow.commit()
    except DealUsed as exc:
        raise deals.conflict_now(db, built.new.client_id, str(deal_id)) from exc
    except (ReferenceHeld, ReferenceUsed) as exc:
        if reference is None:
            raise
        raise _reference_conflict(reference, by_game=_held_by_game(db, built.new.client_id, reference)) from exc
    except LockTimeout as exc:
        if claim is not None and exc.on_key:
            raise idempotency.in_flight() from exc
        if exc.on_reference:  # its holder commits (409 on the retry) or rolls back (201)
            raise Unavailable(f"another request taking reference {reference!r} is still running; retry",
                              retry_after=1) from exc
        raise Unavailable("the client's chain is busy; retry", retry_after=1) from exc
    return built.rendered(appended)


def _held_by_game(db: Database, client_id: str, reference: str) -> bool:
    """Whether a Capsa Susun game holds the reference a round was refused (else a round does)."""
    with db.unit_of_work() as uow:
        return uow.susun_games.reference_taken(client_id, reference)


def _as_created(client_id: str) -> idempotency.Renderer:
    """A stored round's 201 again, as it was when created (not voided)."""

    def render_created(uow: UnitOfWork, found: KeyRecord) -> StoredResponse:
        stored = None if found.resource is None else uow.rounds.get(client_id, found.resource)
        if stored is None:
            raise NotFound("the round this Idempotency-Key created no longer exists")
        document = render(stored, with_void=False)
        return StoredResponse(found.status_code, dump(document), location=f"{PATH}/{stored.id}")

    return render_created


def _reference_conflict(reference: str, by_game: bool = False) -> Conflict:
    if by_game:  # its round takes the reference when it settles
        return Conflict(
            f"reference {reference!r} is held by a Capsa Susun game of this client",
            errors=[FieldError("reference", "held by a game, whose round takes it when the game settles")],
        )
    return Conflict(
        f"reference {reference!r} is already used by another round of this client",
        errors=[FieldError("reference", "already used; find it with GET /v1/rounds?reference=")],
    )


def render(stored: StoredRound, with_void: bool = True, void: dict[str, Any] | None = None) -> dict[str, Any]:
    """The API document of a stored round, from its record's bytes (and its void's)."""
    record = stored.record
    if void is None and with_void and stored.void is not None:
        void = void_info(orjson.loads(stored.void.canonical), audit_of_record(stored.void))
    return round_document(stored.id, orjson.loads(record.canonical), audit_of_record(record), void)


def get(db: Database, client_id: str, round_id: str) -> dict[str, Any]:
    with db.unit_of_work() as uow:
        stored = uow.rounds.get(client_id, round_id)
    if stored is None:
        raise NotFound(f"no round {round_id!r}")
    return render(stored)


def get_stored(db: Database, client_id: str, round_id: str) -> StoredRound:
    with db.unit_of_work() as uow:
        stored = uow.rounds.get(client_id, round_id)
    if stored is None:
        raise NotFound(f"no round {round_id!r}")
    return stored


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
        when, round_id = decode_cursor(cursor, str)
        after = (when, round_id)
    if since is not None and until is not None and until < since:
        raise InvalidInput(
            "until is before since", errors=[FieldError("query.until", "must not be before since")]
        )
    where = RoundFilter(table, player, reference, since, until)
    with db.unit_of_work() as uow:
        rows, next_after = uow.rounds.list(client_id, where, limit, after)
    return {
        "items": [render(r) for r in rows],
        "next_cursor": None if next_after is None else encode_cursor(next_after[0], next_after[1]),
    }
