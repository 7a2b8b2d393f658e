"""Settlement events: what `GET /v1/events` lists and what every webhook delivery carries.

An event is a chain record seen through a type (`service.domain.webhooks`). Its body,
`{type, timestamp, data}`, is rendered from the stored records only, so it is the same on
every retry and in the list: `round.settled` carries the round document as
`GET /v1/rounds/{id}` answered when it was stored (settled), `round.voided` the document
after the void, and `banting.game.finished` the game as `GET /v1/banting/games/{id}`
answers it. `timestamp` is the record's time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from service.adapters.uow import Database, UnitOfWork
from service.adapters.webhooks import EventRecord
from service.domain import webhooks as hooks
from service.domain.audit import RecordKind
from service.domain.banting.rules import BANTING
from service.domain.errors import FieldError
from service.services.banting import games
from service.services.errors import InvalidInput, NotFound
from service.services.jsondoc import dump
from service.services.rounds.documents import audit_of_record, round_document, void_info

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
LIGHT_LIMIT = 100  # a page of more events is a heavy read (0.3-0.5 ms of CPU an event, a four-player round's)


@dataclass(frozen=True, slots=True)
class Event:
    id: str
    type: str
    timestamp: str
    data: dict[str, Any]
    sequence: int

    def body(self) -> bytes:
        """The delivery body: `{type, timestamp, data}`."""
        return dump({"type": self.type, "timestamp": self.timestamp, "data": self.data})

    def document(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "timestamp": self.timestamp, "data": self.data}


@dataclass(frozen=True, slots=True)
class Position:
    """Where an event sits in the client's order: its record's sequence, then its rank."""

    sequence: int
    rank: int
    type: str
    round_id: str


def render(db: Database, uow: UnitOfWork, client_id: str, found: list[EventRecord], types: Sequence[Sequence[str]]) -> list[Event]:
    """The events of these records (for each record, the types asked for)."""
    parsed = [orjson.loads(f.record.canonical) for f in found]
    voided = [f.record.round_id for f in found if f.record.kind == RecordKind.VOID]
    rounds_of = uow.webhooks.round_records(client_id, voided)
    # The receipts as GET answers them: a record stored before its key is signed now.
    records = uow.signatures.complete(client_id, [f.record for f in found])
    signed_rounds = dict(zip(rounds_of, uow.signatures.complete(client_id, list(rounds_of.values())), strict=True))
    out = []
    for r, doc, wanted in zip(records, parsed, types, strict=True):
        assert r is not None
        for type_ in wanted:
            if type_ == hooks.SETTLED:
                data = round_document(r.round_id, doc, audit_of_record(r))
            elif type_ == hooks.VOIDED:
                base = signed_rounds.get(r.round_id)
                if base is None:  # a round record missing: the verifier reports it
                    continue
                data = round_document(
                    r.round_id,
                    orjson.loads(base.canonical),
                    audit_of_record(base),
                    void_info(doc, audit_of_record(r)),
                )
            else:
                data = games.get(db, client_id, str(doc["request"]["game"]))
            out.append(Event(hooks.event_id(r.round_id, type_), type_, str(doc["created_at"]), data, r.sequence))
    return out


_KIND: dict[str, tuple[RecordKind, str | None]] = {
    hooks.SETTLED: (RecordKind.ROUND, None),
    hooks.FINISHED: (RecordKind.ROUND, BANTING),
    hooks.VOIDED: (RecordKind.VOID, None),
}


def position(uow: UnitOfWork, client_id: str, event_id: str, field: str) -> Position:
    """Where `event_id` is in the client's events; 404 (or 422 naming `field` when it is a
    query parameter) for an id that is not one of its events."""
    ref = hooks.parse_event_id(event_id)
    sequence: int | None = None
    if ref is not None:
        if ref.type == hooks.VOIDED:
            sequence = uow.webhooks.void_sequence(client_id, ref.round_id)
        else:
            found = uow.webhooks.round_sequence(client_id, ref.round_id)
            if found is not None and (ref.type == hooks.SETTLED or found[1] == BANTING):
                sequence = found[0]
    if ref is None or sequence is None:
        if field.startswith("query."):
            raise InvalidInput(
                f"no event {event_id!r} of this client",
                errors=[FieldError(field, f"{event_id!r} is not an event id of this client")],
            )
        raise NotFound(f"no event {event_id!r}")
    return Position(sequence, hooks.RANK[ref.type], ref.type, ref.round_id)


def list_events(
    db: Database, client_id: str, after: str | None = None, type_: str | None = None, limit: int = DEFAULT_LIMIT
) -> dict[str, Any]:
    """`GET /v1/events`: the client's events oldest first, after the event `after`."""
    with db.unit_of_work() as uow:
        start, rank = 1, -1
        if after is not None:
            at = position(uow, client_id, after, "query.after")
            start, rank = at.sequence, at.rank
        kind, game = _KIND[type_] if type_ is not None else (None, None)
        # Each record has one or two events: limit + 1 records always fill a page.
        found = uow.webhooks.events(client_id, start, kind, game, limit + 2)
        records, types = [], []
        count = 0
        for f in found:
            wanted = [
                t for t in hooks.types_of(f.record.kind, f.game)
                if (type_ is None or t == type_) and (f.record.sequence > start or hooks.RANK[t] > rank)
            ]
            if not wanted:
                continue
            records.append(f)
            types.append(wanted)
            count += len(wanted)
            if count > limit:
                break
        events = render(db, uow, client_id, records, types)
    has_more = len(events) > limit
    return {"items": [e.document() for e in events[:limit]], "has_more": has_more}


def get_event(db: Database, client_id: str, event_id: str) -> Event:
    """One event of the client; 404 when it is not one."""
    with db.unit_of_work() as uow:
        at = position(uow, client_id, event_id, "id")
        found = uow.webhooks.event_record(client_id, at.sequence)
        if found is None:
            raise NotFound(f"no event {event_id!r}")
        events = render(db, uow, client_id, [found], [[at.type]])
    if not events:
        raise NotFound(f"no event {event_id!r}")
    return events[0]
