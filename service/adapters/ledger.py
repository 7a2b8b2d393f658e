"""Ledger reports and the service's shared secrets.

Reports are SQL aggregates over the ledger lines' own indexed columns; nothing here reads
a round's canonical record to add it up. A line's account is `player:<player_id>`, or
`house` where `player_id` is null.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from enum import StrEnum
from typing import Any, NamedTuple

from sqlalchemy import Date, Integer, SQLColumnExpression, String, case, cast, func, literal, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, aliased
from sqlalchemy.sql.elements import ColumnElement

from service.domain.audit import HOUSE, PLAYER_PREFIX

from .models import ChainRecord, LedgerLine, as_stored, stored_time, within


class Grouping(StrEnum):
    """How lines are summed: a summary's three groupings (`SUMMARY_GROUPINGS`), and the
    rollups' own besides (`rollups.ROLLUP_GROUPINGS`)."""

    PLAYER = "player"
    TABLE = "table"
    DAY = "day"  # a UTC date
    QUARTER = "quarter"  # a UTC quarter hour: gathered into any zone's days at read
    ZONE = "zone"  # a zone whose days are kept (key: its name; totals 0): a marker
    ZONE_DAY = "zoneday"  # a kept zone's date: key '<zone> <YYYY-MM-DD>'


# What `GET /v1/ledger/summary` groups by (`group_by`), the first its default.
SUMMARY_GROUPINGS = (Grouping.PLAYER, Grouping.TABLE, Grouping.DAY)


@dataclass(frozen=True, slots=True)
class BookedLine:
    """A stored line's report columns, in line order."""

    player_id: str | None
    kind: str
    basis: str
    amount: int
    points: int
    winnings: int


class LineCopy(NamedTuple):
    """A stored line as the verifier compares it with its record's bytes, by the names its
    differences report (`ledger_lines[0].player`). A tuple: the SQLite scan folds thousands a
    second. `created_at` is a datetime, or SQLite's naive UTC text as its raw scan reads it
    (`stored_time`: text in another form than the service writes stays text)."""

    sequence: int
    line_no: int
    created_at: datetime | str
    player: str | None
    kind: str
    basis: str
    amount: int
    currency: str
    table: str | None
    points: int
    winnings: int


@dataclass(frozen=True, slots=True)
class Totals:
    key: str | None
    rounds: int
    points: int
    result: int
    winnings: int
    fees: int
    net: int
    house: int


def by_key(totals: Totals) -> tuple[bool, str]:
    """The order of a summary's rows: NULL (the house, no table) first, then the keys by code
    point, on every engine and whatever the database's collation (an ICU one put 'a' before
    'B'; rows summed from the rollups are sorted here, and must come in the same order)."""
    return (totals.key is not None, str(totals.key or ""))


@dataclass(frozen=True, slots=True)
class Entry:
    round_id: str
    sequence: int
    line_no: int
    created_at: datetime
    account: str
    kind: str
    amount: int
    currency: str

    @property
    def position(self) -> tuple[datetime, int, int]:
        """Where the line sorts, (created_at, sequence, line_no): what a cursor holds."""
        return self.created_at, self.sequence, self.line_no


_SPLIT = 10**9


def _key(value: Any) -> str | None:
    return value.isoformat() if isinstance(value, date) else value


def _insert(session: Session, table: Any) -> Any:
    dialect = session.get_bind().dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)


def rounds_counted() -> ColumnElement[Any]:
    """+1 for a settlement line (a player's part in a round), -1 for its reversal, else 0."""
    return case(
        (LedgerLine.kind == "settlement", 1),
        ((LedgerLine.kind == "reversal") & (LedgerLine.basis == "settlement"), -1),
        else_=0,
    )


class LedgerRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    @property
    def dialect(self) -> str:
        return self.session.get_bind().dialect.name

    def lines_of(self, client_id: str, sequence: int) -> list[BookedLine]:
        """The lines of one record, in line order."""
        rows = self.session.execute(
            select(
                LedgerLine.player_id,
                LedgerLine.kind,
                LedgerLine.basis,
                LedgerLine.amount,
                LedgerLine.points,
                LedgerLine.winnings,
            )
            .where(LedgerLine.client_id == client_id, LedgerLine.sequence == sequence)
            .order_by(LedgerLine.line_no)
        ).all()
        return [BookedLine(*r) for r in rows]

    def copies_of(self, client_id: str, sequence: int) -> list[LineCopy]:
        """The lines of one record as the verifier compares them, in line order."""
        rows = self.session.execute(
            select(
                LedgerLine.sequence,
                LedgerLine.line_no,
                as_stored(LedgerLine.created_at, self.dialect),
                LedgerLine.player_id,
                LedgerLine.kind,
                LedgerLine.basis,
                LedgerLine.amount,
                LedgerLine.currency,
                LedgerLine.table_ref,
                LedgerLine.points,
                LedgerLine.winnings,
            )
            .where(LedgerLine.client_id == client_id, LedgerLine.sequence == sequence)
            .order_by(LedgerLine.line_no)
        ).all()
        return [LineCopy._make(r)._replace(created_at=stored_time(r[2])) for r in rows]

    # -- reports ---------------------------------------------------------------------------

    def _period(
        self, q: Any, client_id: str, currency: str, since: datetime | None, until: datetime | None
    ) -> Any:
        return q.where(
            LedgerLine.client_id == client_id, LedgerLine.currency == currency, *within(LedgerLine.created_at, since, until)
        )

    def _records_in(
        self, q: Any, client_id: str, currency: str, since: datetime | None, until: datetime | None
    ) -> tuple[Any, Any]:
        """`q` (over ledger_lines) narrowed to the client's records in `currency` dated in the
        period, found by their line 0, and that line's table (for ordering by it).

        Every line of a record has its record's time and currency, so this is `_period` for
        a client-wide page of lines: it reads the index of line 0 alone (migration 0017), one
        entry per record instead of one per line (a round writes one entry there, not eight),
        in order, and joins each record's lines by primary key."""
        first = aliased(LedgerLine, name="first_line")
        q = q.join_from(
            LedgerLine,
            first,
            (first.client_id == LedgerLine.client_id) & (first.sequence == LedgerLine.sequence) & (first.line_no == 0),
        ).where(
            first.client_id == client_id, first.currency == currency, LedgerLine.client_id == client_id,
            *within(first.created_at, since, until),
        )
        return q, first

    def _client_period(
        self, q: Any, client_id: str, currency: str, since: datetime | None, until: datetime | None
    ) -> Any:
        """`_period` for a client-wide sum over a period, by primary key: the lines of the
        records from the first to the last sequence dated in the period (found in line 0's
        index, migration 0017). A chain's sequences have no gaps, so when the period holds
        as many records as that range has sequences, the range is exactly its records and
        the primary key alone selects their lines (no line's time is read, and the planner
        counts the lines right). Otherwise (the range also holds records in another currency,
        records without lines, or records dated outside the period) every line is checked
        against the period too. Without a period, the whole chain (or a range of records)."""
        if since is None and until is None:
            return self._period(q, client_id, currency, since, until)
        first = aliased(LedgerLine, name="first_line")
        window = [
            first.client_id == client_id, first.currency == currency, first.line_no == 0,
            *within(first.created_at, since, until),
        ]
        # `+ 0`: an aggregate over the period's entries, not min()'s walk of the primary key
        # in sequence order (the planner's shortcut, which reads every record before it).
        low, high, dated = self.session.execute(
            select(func.min(first.sequence + 0), func.max(first.sequence + 0), func.count()).where(*window)
        ).one()
        if not dated:  # an empty range (not `false()`, which SQLAlchemy would fold the client into)
            low, high = 1, 0
        q = q.where(LedgerLine.sequence >= low, LedgerLine.sequence <= high)
        if dated == high - low + 1:  # every record of the range, and no other, is in the period
            return self._period(q, client_id, currency, None, None)
        return self._period(q, client_id, currency, since, until)

    def _sums(self, rounds: ColumnElement[Any]) -> list[ColumnElement[Any]]:
        """The seven totals of Totals (rounds .. house), as columns; read them with _totals.

        PostgreSQL sums bigint into numeric, which cannot overflow. SQLite's sum() raises
        "integer overflow" past 2^63 (ten rounds near the 10^18 amount bound), so there each
        total is two sums, of amount / 10^9 and amount % 10^9 (both truncate toward zero, so
        q x 10^9 + r is the amount), each far from the bound, added up here exactly."""
        player = LedgerLine.player_id.is_not(None)
        total = self._summed
        return [
            *total(rounds),
            *total(LedgerLine.points),
            *total(case((LedgerLine.basis == "settlement", LedgerLine.amount), else_=0)),
            *total(LedgerLine.winnings),
            *total(case(((LedgerLine.basis == "fee") & player, -LedgerLine.amount), else_=0)),
            *total(case((player, LedgerLine.amount), else_=0)),
            *total(case((player, literal(0)), else_=LedgerLine.amount)),
        ]

    def _summed(self, expr: SQLColumnExpression[Any]) -> list[ColumnElement[Any]]:
        """sum(expr), 0 when there is nothing: one column, or two on SQLite (see `_sums`)."""
        if self.dialect == "sqlite":
            return [func.coalesce(func.sum(expr // _SPLIT), 0), func.coalesce(func.sum(expr % _SPLIT), 0)]
        return [func.coalesce(func.sum(expr), 0)]

    def _totals(self, values: Sequence[Any]) -> list[int]:
        """The seven integers of the columns `_sums` made."""
        if self.dialect != "sqlite":
            return [int(v) for v in values]
        return [int(q) * _SPLIT + int(r) for q, r in zip(values[0::2], values[1::2])]

    def player_totals(
        self,
        client_id: str,
        player: str,
        currency: str,
        since: datetime | None,
        until: datetime | None,
        records: tuple[int, int] | None = None,
    ) -> Totals:
        """`records` (after, through): only the lines of the records in that sequence range."""
        q = select(*self._sums(rounds_counted())).where(LedgerLine.player_id == player)
        row = self.session.execute(_of_records(self._period(q, client_id, currency, since, until), records)).one()
        return Totals(player, *self._totals(row))

    def summary(
        self,
        client_id: str,
        currency: str,
        since: datetime | None,
        until: datetime | None,
        group_by: Grouping,
        zone: tzinfo | None = None,
        records: tuple[int, int] | None = None,
    ) -> list[Totals]:
        """Rows per group; for `player` the house's lines form the group with key None.
        `records` (after, through): only the lines of the records in that sequence range.

        By day in a `zone` other than UTC, the lines are summed per UTC quarter hour in SQL
        and the quarters gathered into the zone's days here: every offset in force since
        October 1979 (Kiritimati's UTC-10:40 ended then) is a whole number of quarter hours,
        so a quarter of a round the service stamped lies in one local day, and both engines
        cut days with Python's own time-zone database."""
        if group_by == Grouping.DAY and zone is not None and not is_utc(zone):
            return self._days_in(client_id, currency, since, until, zone, records)
        if group_by == Grouping.PLAYER:
            key: SQLColumnExpression[Any] = LedgerLine.player_id
            rounds: ColumnElement[Any] = rounds_counted()
        else:
            key = LedgerLine.table_ref if group_by == Grouping.TABLE else self._day()
            # Line 0 of a record is its first player's: one count per round (or reversal).
            rounds = case((LedgerLine.line_no == 0, rounds_counted()), else_=0)
        q = select(key, *self._sums(rounds)).group_by(key)
        q = _of_records(self._client_period(q, client_id, currency, since, until), records)
        rows = self.session.execute(q).all()
        return sorted((Totals(_key(r[0]), *self._totals(r[1:])) for r in rows), key=by_key)

    def _days_in(
        self,
        client_id: str,
        currency: str,
        since: datetime | None,
        until: datetime | None,
        zone: tzinfo,
        records: tuple[int, int] | None = None,
    ) -> list[Totals]:
        days: dict[str, list[int]] = {}
        for start, totals in self.quarters(client_id, currency, since, until, records):
            sums = days.setdefault(start.astimezone(zone).date().isoformat(), [0] * 7)
            for n, value in enumerate(totals):  # exact whatever the engine
                sums[n] += value
        return [Totals(day, *days[day]) for day in sorted(days)]

    def quarters(
        self,
        client_id: str,
        currency: str,
        since: datetime | None,
        until: datetime | None,
        records: tuple[int, int] | None = None,
    ) -> list[tuple[datetime, list[int]]]:
        """(UTC start, the seven totals) per quarter hour with lines, counting a round once
        (line 0), as the summary by day does."""
        quarter = self._quarter()
        rounds = case((LedgerLine.line_no == 0, rounds_counted()), else_=0)
        q = select(quarter, *self._sums(rounds)).group_by(quarter)
        rows = self.session.execute(_of_records(self._client_period(q, client_id, currency, since, until), records))
        return [(_quarter_start(row[0]), self._totals(row[1:])) for row in rows]

    def _quarter(self) -> ColumnElement[Any]:
        """The UTC quarter hour a line falls in."""
        if self.dialect == "postgresql":
            return func.date_bin(text("interval '15 minutes'"), LedgerLine.created_at, text("timestamptz '2000-01-01Z'"))
        # naive UTC text on SQLite: 'YYYY-MM-DD HH' and the quarter 0-3
        minute = cast(func.substr(LedgerLine.created_at, 15, 2), Integer)
        return func.substr(LedgerLine.created_at, 1, 13).op("||")(" ").op("||")(cast(minute // 15, String))

    def _day(self) -> ColumnElement[Any]:
        if self.dialect == "postgresql":
            # date() of the UTC wall time: cheaper per row than to_char; keys become text below.
            return cast(func.timezone("UTC", LedgerLine.created_at), Date)
        return func.substr(LedgerLine.created_at, 1, 10)  # naive UTC text on SQLite

    def entries(
        self,
        client_id: str,
        currency: str,
        *,
        player: str | None,
        sequences: Sequence[int] | None,
        since: datetime | None,
        until: datetime | None,
        after: tuple[datetime, int, int] | None,
        limit: int,
        offset: int = 0,
        through: int | None = None,
    ) -> list[Entry]:
        """Lines newest first by (created_at, sequence, line_no); `sequences`: only those
        records' lines (a round's and its void's); `through`: only records up to that
        sequence (a cursor's as_of). A line's round is its record's."""
        q = select(
            ChainRecord.round_id,
            LedgerLine.sequence,
            LedgerLine.line_no,
            LedgerLine.created_at,
            LedgerLine.player_id,
            LedgerLine.kind,
            LedgerLine.amount,
            LedgerLine.currency,
        ).join(
            ChainRecord,
            (ChainRecord.client_id == LedgerLine.client_id) & (ChainRecord.sequence == LedgerLine.sequence),
        )
        # A player's lines by the player's index; the client's by line 0's (a record's lines
        # share its time), so the newest page is an index read either way.
        if player is not None:
            q = self._period(q, client_id, currency, since, until).where(LedgerLine.player_id == player)
            at, sequence_of = LedgerLine.created_at, LedgerLine.sequence
        else:
            q, first = self._records_in(q, client_id, currency, since, until)
            at, sequence_of = first.created_at, first.sequence
        if sequences is not None:
            q = q.where(LedgerLine.sequence.in_(list(sequences)))
        if through is not None:
            q = q.where(LedgerLine.sequence <= through)
        if after is not None:
            when, sequence, line_no = after
            q = q.where(
                at <= when,  # what the index can range over
                (at < when)
                | (sequence_of < sequence)
                | ((sequence_of == sequence) & (LedgerLine.line_no < line_no)),
            )
        q = q.order_by(at.desc(), sequence_of.desc(), LedgerLine.line_no.desc()).limit(limit)
        if offset:
            q = q.offset(offset)
        return [
            Entry(r[0], r[1], r[2], r[3], HOUSE if r[4] is None else PLAYER_PREFIX + r[4], r[5], r[6], r[7])
            for r in self.session.execute(q)
        ]


    # -- statements --------------------------------------------------------------------------

    def balance(
        self,
        client_id: str,
        player: str,
        currency: str,
        before: datetime | None,
        since: datetime | None = None,
        before_line: tuple[datetime, int, int] | None = None,
        through: int | None = None,
    ) -> int:
        """The sum of the player's lines dated before `before` (and from `since`), or, with
        `before_line`, before that line in statement order (created_at, sequence, line_no);
        `through`: of the records up to that sequence only. Exact past 2^63 on SQLite too
        (two sums, as `_sums` does)."""
        q = select(*self._summed(LedgerLine.amount)).where(
            LedgerLine.client_id == client_id, LedgerLine.currency == currency, LedgerLine.player_id == player
        )
        if through is not None:
            q = q.where(LedgerLine.sequence <= through)
        q = q.where(*within(LedgerLine.created_at, since, before))
        if before_line is not None:
            when, sequence, line_no = before_line
            q = q.where(
                LedgerLine.created_at <= when,
                (LedgerLine.created_at < when)
                | (LedgerLine.sequence < sequence)
                | ((LedgerLine.sequence == sequence) & (LedgerLine.line_no < line_no)),
            )
        return self._totals(self.session.execute(q).one())[0]

    def statement_lines(
        self,
        client_id: str,
        player: str,
        currency: str,
        since: datetime | None,
        until: datetime | None,
        after: tuple[datetime, int, int] | None,
        limit: int,
        offset: int = 0,
        through: int | None = None,
    ) -> list[Entry]:
        """The player's lines oldest first by (created_at, sequence, line_no), after `after`
        (and `offset` lines on); `through`: of the records up to that sequence only."""
        q = select(
            ChainRecord.round_id,
            LedgerLine.sequence,
            LedgerLine.line_no,
            LedgerLine.created_at,
            LedgerLine.player_id,
            LedgerLine.kind,
            LedgerLine.amount,
            LedgerLine.currency,
        ).join(
            ChainRecord,
            (ChainRecord.client_id == LedgerLine.client_id) & (ChainRecord.sequence == LedgerLine.sequence),
        )
        q = self._period(q, client_id, currency, since, until).where(LedgerLine.player_id == player)
        if through is not None:
            q = q.where(LedgerLine.sequence <= through)
        if after is not None:
            when, sequence, line_no = after
            q = q.where(
                LedgerLine.created_at >= when,
                (LedgerLine.created_at > when)
                | (LedgerLine.sequence > sequence)
                | ((LedgerLine.sequence == sequence) & (LedgerLine.line_no > line_no)),
            )
        q = q.order_by(LedgerLine.created_at, LedgerLine.sequence, LedgerLine.line_no).limit(limit)
        if offset:
            q = q.offset(offset)
        return [
            Entry(r[0], r[1], r[2], r[3], PLAYER_PREFIX + r[4], r[5], r[6], r[7]) for r in self.session.execute(q)
        ]


# The time zone database's names of UTC itself: their days are UTC days, always.
UTC_NAMES = frozenset({
    "UTC", "Etc/UTC", "UCT", "Etc/UCT", "Universal", "Etc/Universal", "Zulu", "Etc/Zulu",
    "GMT", "Etc/GMT", "GMT0", "Etc/GMT0", "GMT+0", "Etc/GMT+0", "GMT-0", "Etc/GMT-0", "Greenwich", "Etc/Greenwich",
})


def is_utc(zone: tzinfo) -> bool:
    """Whether days in `zone` are UTC days (summed by date in SQL; other zones by quarter
    hour, and kept among a currency's 8 zones): UTC under any of its names."""
    return zone.utcoffset(datetime(2000, 1, 1)) is None or getattr(zone, "key", None) in UTC_NAMES


def _of_records(q: Any, records: tuple[int, int] | None) -> Any:
    """`q` over the lines of the records after `records[0]` up to `records[1]` (the primary
    key's range), or all of them."""
    if records is None:
        return q
    after, through = records
    return q.where(LedgerLine.sequence > after, LedgerLine.sequence <= through)


def _quarter_start(value: Any) -> datetime:
    """A quarter key as either engine returns it, as an aware UTC datetime."""
    if isinstance(value, datetime):
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    hour, _, quarter = str(value).rpartition(" ")
    return datetime.fromisoformat(hour + ":00").replace(tzinfo=UTC) + timedelta(minutes=15 * int(quarter))
