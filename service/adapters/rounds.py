"""Stored rounds as the API reads them: the round's query columns with its chain records.

A round document is rendered from its record's canonical bytes (and its void's, if any);
this repository finds them by id or by the list filters, newest first.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, or_, select, text
from sqlalchemy.orm import Session, aliased

from service.domain.audit import SETTLEMENT, RecordKind

from .models import ChainRecord, ChainSignature, LedgerLine, Round, as_stored, is_void, stored_time, within
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
    preset, table, reference, currency, created_at) and the sequence of the record it names.
    `created_at` is text where SQLite holds the moment in another form than the service
    writes (`stored_time`)."""

    columns: tuple[str, str, str | None, str | None, str, datetime | str]
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
                _R.kind == RecordKind.ROUND,
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


def _at_table_and_reference(q: Any, where: RoundFilter) -> Any:
    """A select of rounds narrowed to the filter's table and reference, where it has them."""
    if where.table is not None:
        q = q.where(Round.table_ref == where.table)
    if where.reference is not None:
        q = q.where(Round.reference == where.reference)
    return q


def _rounds_after(
    client_id: str, where: RoundFilter, after: tuple[datetime, str] | None, *columns: Any
) -> Any:
    """`columns` of the rounds that pass the filter's table, reference and period and come
    after the cursor, in page order (newest first by time, then id)."""
    q = _at_table_and_reference(
        select(*columns).where(Round.client_id == client_id, *within(Round.created_at, where.since, where.until)),
        where,
    )
    if after is not None:
        when, round_id = after
        q = q.where(or_(Round.created_at < when, and_(Round.created_at == when, Round.id < round_id)))
    return q.order_by(Round.created_at.desc(), Round.id.desc())


# Lines (or rounds) a batch reads at most (the first a page's worth, each next one twice the last).
PLAYER_BATCH = 1000
# A walk for a player's page: yields after each batch, returns the page's keys.
Walk = Generator[None, None, list[tuple[str, datetime]]]


def _first_done(walks: list[Walk]) -> list[tuple[str, datetime]]:
    """What the first of these walks to end returns, a batch of each in turn."""
    while True:
        for walk in walks:
            try:
                next(walk)
            except StopIteration as done:
                for other in walks:
                    other.close()
                return list(done.value)

# A player's currencies, one index probe each (the player's index is by currency first).
_PLAYER_CURRENCIES = text("""
WITH RECURSIVE found(currency) AS (
    SELECT min(currency) FROM ledger_lines WHERE client_id = :c AND player_id = :p
    UNION ALL
    SELECT (SELECT min(currency) FROM ledger_lines
             WHERE client_id = :c AND player_id = :p AND currency > found.currency)
      FROM found WHERE found.currency IS NOT NULL
)
SELECT currency FROM found WHERE currency IS NOT NULL
""")


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
        created = as_stored(Round.created_at, self.session.get_bind().dialect.name)
        row = self.session.execute(
            select(
                Round.game, Round.preset, Round.table_ref, Round.reference, Round.currency, created, Round.sequence,
            ).where(Round.client_id == client_id, Round.id == round_id)
        ).first()
        if row is None:
            return None
        return RoundCopies((row[0], row[1], row[2], row[3], row[4], stored_time(row[5])), row[6])

    def _keys(
        self, client_id: str, where: RoundFilter, limit: int, after: tuple[datetime, str] | None
    ) -> list[tuple[str, datetime]]:
        """The (id, created_at) of the page's rounds, newest first, at most `limit + 1`: an
        index range of the rounds (by table: the table's index) in page order."""
        rows = self.session.execute(_rounds_after(client_id, where, after, Round.id, Round.created_at).limit(limit + 1))
        return [(str(r[0]), r[1]) for r in rows]

    def _player_keys(
        self, client_id: str, where: RoundFilter, limit: int, after: tuple[datetime, str] | None
    ) -> list[tuple[str, datetime]]:
        """The (id, created_at) of the page's rounds the player played, newest first, at most
        `limit + 1`. The player's own lines are walked (`_by_lines`): a page costs a page of
        them, however long ago the player last played. With a table (or a reference), its
        rounds are walked too (`_by_rounds`), a batch of each in turn, and the first walk to
        fill the page (or to end) answers it: a page costs about twice the shorter walk, not
        the longer (a busy player seldom at the table, or a busy table the player seldom sits
        at; a reference names one round).
        Statements whose plan is plain (an index range with a limit, then look-ups by key):
        one statement joining the lines to their rounds was planned as a hash of every round
        of the client (116 ms a page at 50,000 rounds). A round whose line's time or sequence
        is not its own (a tampered copy; the verifier reports it) is left out by both."""
        walks = [self._by_lines(client_id, where, limit, after)]
        if where.table is not None or where.reference is not None:
            walks.append(self._by_rounds(client_id, where, limit, after))
        return _first_done(walks)

    def _by_lines(
        self, client_id: str, where: RoundFilter, limit: int, after: tuple[datetime, str] | None
    ) -> Walk:
        """In each of the player's currencies, the player's settlement lines (one a round)
        newest first by the player's index, then their rounds by key."""
        currencies = [
            str(row[0]) for row in self.session.execute(_PLAYER_CURRENCIES, {"c": client_id, "p": where.player})
        ]
        keys: list[tuple[str, datetime]] = []
        for currency in currencies:
            keys += yield from self._player_keys_in(client_id, where, currency, limit, after)
        keys.sort(key=lambda k: (k[1], k[0]), reverse=True)
        return keys[: limit + 1]

    def _player_keys_in(
        self, client_id: str, where: RoundFilter, currency: str, limit: int, after: tuple[datetime, str] | None
    ) -> Walk:
        """`_by_lines` in one currency: lines read newest first in batches of whole moments
        (a moment cut by the batch's end is read again with the next), until the rounds found
        fill the page."""
        lines = select(LedgerLine.sequence, LedgerLine.created_at).where(
            LedgerLine.client_id == client_id,
            LedgerLine.player_id == where.player,
            LedgerLine.currency == currency,
            LedgerLine.kind == SETTLEMENT,
            *within(LedgerLine.created_at, where.since, where.until),
        )
        newer = lines if after is None else lines.where(LedgerLine.created_at <= after[0])
        found: list[tuple[str, datetime]] = []
        # The page, the one past it, one that a cut may drop, and the cursor's own round (read
        # again: its moment is the batch's first).
        batch = limit + 2 + (after is not None)
        while len(found) <= limit:
            rows = list(self.session.execute(newer.order_by(LedgerLine.created_at.desc()).limit(batch)))
            exhausted = len(rows) < batch
            if not exhausted:
                cut = rows[-1][1]
                rows = [r for r in rows if r[1] != cut] or list(
                    self.session.execute(lines.where(LedgerLine.created_at == cut))
                )
            found += self._played(client_id, where, rows, after)
            if exhausted or len(found) > limit:
                break
            yield  # another batch to read: the other walk's turn first
            newer = lines.where(LedgerLine.created_at < rows[-1][1])
            batch = min(batch * 2, PLAYER_BATCH)
        return found

    def _by_rounds(
        self, client_id: str, where: RoundFilter, limit: int, after: tuple[datetime, str] | None
    ) -> Walk:
        """The rounds at the table (by the table's index) or of the reference (by its unique
        index) newest first, in batches, each batch's kept where the player has a settlement
        line at its sequence and time and its record names it (as `_played` keeps them)."""
        found: list[tuple[str, datetime]] = []
        batch = limit + 2
        while len(found) <= limit:
            q = _rounds_after(client_id, where, after, Round.id, Round.created_at, Round.sequence)
            rows = list(self.session.execute(q.limit(batch)))
            found += self._player_at(client_id, str(where.player), rows)
            if len(rows) < batch or len(found) > limit:
                break
            yield
            after = (rows[-1][1], str(rows[-1][0]))
            batch = min(batch * 2, PLAYER_BATCH)
        return found[: limit + 1]

    def _player_at(self, client_id: str, player: str, rounds: list[Any]) -> list[tuple[str, datetime]]:
        """The (id, created_at) of those of these rounds (id, created_at, sequence) the
        player played, in their order: two look-ups by key."""
        if not rounds:
            return []
        sequences = [int(r[2]) for r in rounds]
        at = {
            int(row[0]): row[1]
            for row in self.session.execute(
                select(LedgerLine.sequence, LedgerLine.created_at).where(
                    LedgerLine.client_id == client_id, LedgerLine.sequence.in_(sequences),
                    LedgerLine.player_id == player, LedgerLine.kind == SETTLEMENT,
                )
            )
        }
        if not at:
            return []
        named = self._round_ids_at(client_id, list(at))
        return [
            (str(r[0]), r[1]) for r in rounds if at.get(int(r[2])) == r[1] and named.get(int(r[2])) == str(r[0])
        ]

    def _round_ids_at(self, client_id: str, sequences: list[int]) -> dict[int, str]:
        """The round each of these sequences' chain records names, by its sequence (a look-up
        by key each)."""
        rows = self.session.execute(
            select(ChainRecord.round_id, ChainRecord.sequence).where(
                ChainRecord.client_id == client_id, ChainRecord.sequence.in_(sequences)
            )
        )
        return {int(r[1]): str(r[0]) for r in rows}

    def _played(
        self, client_id: str, where: RoundFilter, lines: list[Any], after: tuple[datetime, str] | None
    ) -> list[tuple[str, datetime]]:
        """The (id, created_at) of the rounds at these lines' (sequence, created_at) that pass
        the page's other filters and come after the cursor."""
        if not lines:
            return []
        at = {int(line[0]): line[1] for line in lines}
        # Two look-ups by key, each planned as one whatever the statistics say (joined, the
        # planner hashed every round of a small client's history).
        sequence_of = {round_id: sequence for sequence, round_id in self._round_ids_at(client_id, list(at)).items()}
        if not sequence_of:
            return []
        q = _at_table_and_reference(
            select(Round.id, Round.created_at, Round.sequence).where(
                Round.client_id == client_id, Round.id.in_(list(sequence_of))
            ),
            where,
        )
        return [
            (str(r[0]), r[1])
            for r in self.session.execute(q)
            if r[2] == sequence_of[str(r[0])]
            and r[1] == at[int(r[2])]
            and (after is None or r[1] < after[0] or (r[1] == after[0] and r[0] < after[1]))
        ]

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
        if where.player is not None:
            keys = self._player_keys(client_id, where, limit, after)
        else:
            keys = self._keys(client_id, where, limit, after)
        page = [str(k[0]) for k in keys[:limit]]
        found: dict[str, StoredRound] = {}
        if page:
            stored = self.session.execute(_select().where(Round.client_id == client_id, Round.id.in_(page)))
            found = {r.id: r for r in map(_stored, stored)}
        rows = self._complete(client_id, [found[i] for i in page if i in found])
        if len(keys) > limit:
            return rows, (keys[limit - 1][1], page[-1])
        return rows, None
