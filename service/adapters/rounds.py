"""Stored rounds as the API reads them: the round's query columns with its chain records.

A round document is rendered from its record's canonical bytes (and its void's, if any);
this repository finds them by id or by the list filters, newest first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, exists, or_, select
from sqlalchemy.orm import Session, aliased

from .models import ChainRecord, ChainSignature, LedgerLine, Round, is_void
from .records import StoredRecord

if TYPE_CHECKING:
    from .signatures import SignatureRepository

_R = aliased(ChainRecord, name="rec")
_V = aliased(ChainRecord, name="void")
_RS = aliased(ChainSignature, name="rec_sig")
_VS = aliased(ChainSignature, name="void_sig")


@dataclass(frozen=True, slots=True)
class RoundFilter:
    table: str | None = None
    player: str | None = None
    reference: str | None = None
    since: datetime | None = None
    until: datetime | None = None


@dataclass(frozen=True, slots=True)
class StoredRound:
    """A round's id and time, its record, and its void's record if it was voided."""

    id: str
    created_at: datetime
    game: str
    preset: str
    table: str | None
    reference: str | None
    currency: str
    record: StoredRecord
    void: StoredRecord | None

    @property
    def columns(self) -> tuple[str, str, str | None, str | None, str, datetime]:
        """(game, preset, table, reference, currency, created_at): the copies the verifier checks."""
        return (self.game, self.preset, self.table, self.reference, self.currency, self.created_at)


@dataclass(frozen=True, slots=True)
class RoundCopies:
    """A round row as the verifier compares it with a record: its query columns (game,
    preset, table, reference, currency, created_at) and the sequence of the record it names."""

    columns: tuple[str, str, str | None, str | None, str, datetime]
    sequence: int


def _columns() -> list[Any]:
    return [
        Round.id,
        Round.created_at,
        Round.game,
        Round.preset,
        Round.table_ref,
        Round.reference,
        Round.currency,
        _R.sequence,
        _R.kind,
        _R.round_id,
        _R.previous_hash,
        _R.hash,
        _R.canonical,
        _RS.kid,
        _RS.signature,
        _V.sequence,
        _V.kind,
        _V.round_id,
        _V.previous_hash,
        _V.hash,
        _V.canonical,
        _VS.kid,
        _VS.signature,
    ]


def _select() -> Any:
    return (
        select(*_columns())
        # The round's record is at its sequence, and must name it (else the round is not
        # found here, and the chain verifier reports the sequence that does not match).
        .join(
            _R,
            and_(
                _R.client_id == Round.client_id,
                _R.sequence == Round.sequence,
                _R.round_id == Round.id,
                _R.kind == "round",
            ),
        )
        .outerjoin(_RS, and_(_RS.client_id == _R.client_id, _RS.sequence == _R.sequence))
        .outerjoin(_V, and_(_V.round_id == Round.id, is_void(_V), _V.client_id == Round.client_id))
        .outerjoin(_VS, and_(_VS.client_id == _V.client_id, _VS.sequence == _V.sequence))
    )


def _record(row: Any) -> StoredRecord:
    return StoredRecord(row[0], row[1], row[2], row[3], row[4], row[5], row[6], None if row[7] is None else bytes(row[7]))


def _stored(row: Any) -> StoredRound:
    void = None if row[15] is None else _record(row[15:23])
    return StoredRound(row[0], row[1], row[2], row[3], row[4], row[5], row[6], _record(row[7:15]), void)


class RoundRepository:
    def __init__(self, session: Session, signatures: SignatureRepository | None = None) -> None:
        self.session = session
        self.signatures = signatures

    def _complete(self, client_id: str, rounds: list[StoredRound]) -> list[StoredRound]:
        """Rounds whose records (or voids) lack a receipt get it made (see `signatures`)."""
        if self.signatures is None or all(
            r.record.signature is not None and (r.void is None or r.void.signature is not None) for r in rounds
        ):
            return rounds
        records = self.signatures.complete(client_id, [x for r in rounds for x in (r.record, r.void)])
        out = []
        for n, r in enumerate(rounds):
            record, void = records[2 * n], records[2 * n + 1]
            assert record is not None
            out.append(replace(r, record=record, void=void))
        return out

    def get(self, client_id: str, round_id: str) -> StoredRound | None:
        row = self.session.execute(
            _select().where(Round.id == round_id, Round.client_id == client_id)
        ).first()
        return None if row is None else self._complete(client_id, [_stored(row)])[0]

    def copies_of(self, client_id: str, round_id: str) -> RoundCopies | None:
        """The round row of this id, whatever record it names (`StoredRound` needs its own)."""
        row = self.session.execute(
            select(
                Round.game, Round.preset, Round.table_ref, Round.reference, Round.currency, Round.created_at,
                Round.sequence,
            ).where(Round.client_id == client_id, Round.id == round_id)
        ).first()
        return None if row is None else RoundCopies((row[0], row[1], row[2], row[3], row[4], row[5]), row[6])

    def list(
        self,
        client_id: str,
        where: RoundFilter,
        limit: int,
        after: tuple[datetime, str] | None,
    ) -> tuple[list[StoredRound], tuple[datetime, str] | None]:
        """Newest first by (created_at, id); returns the page and the position after it.

        Two statements: the page's keys from the rounds alone (an index range in page order
        that stops at the page's end), then those rounds with their records by key. In one
        statement the planner misjudged the join of each round to its record (three equal
        columns, one row: it believed the client had a single round), hashed every round of
        the client and sorted them all for the page: 64 ms at 20,000 rounds with statistics,
        growing with the history. A round whose record does not name it is left out of its
        page (the chain verifier reports it), as before; the position after the page is
        still the page's last key."""
        q = select(Round.id, Round.created_at).where(Round.client_id == client_id)
        if where.table is not None:
            q = q.where(Round.table_ref == where.table)
        if where.reference is not None:
            q = q.where(Round.reference == where.reference)
        if where.player is not None:
            # The player's lines are at the round's sequence (the ledger's primary key).
            q = q.where(
                exists().where(
                    LedgerLine.client_id == Round.client_id,
                    LedgerLine.sequence == Round.sequence,
                    LedgerLine.player_id == where.player,
                )
            )
        if where.since is not None:
            q = q.where(Round.created_at >= where.since)
        if where.until is not None:
            q = q.where(Round.created_at < where.until)
        if after is not None:
            when, round_id = after
            q = q.where(
                or_(
                    Round.created_at < when,
                    and_(Round.created_at == when, Round.id < round_id),
                )
            )
        keys = self.session.execute(q.order_by(Round.created_at.desc(), Round.id.desc()).limit(limit + 1)).all()
        page = [str(k[0]) for k in keys[:limit]]
        found: dict[str, StoredRound] = {}
        if page:
            stored = self.session.execute(_select().where(Round.client_id == client_id, Round.id.in_(page)))
            found = {r.id: r for r in map(_stored, stored)}
        rows = self._complete(client_id, [found[i] for i in page if i in found])
        if len(keys) > limit:
            return rows, (keys[limit - 1][1], page[-1])
        return rows, None
