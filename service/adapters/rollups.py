"""Ledger rollups: each client's totals per currency and group, up to a record sequence.

A fold (`service.services.ledger.rollups.fold`) claims the client's cursor row, sums the lines of
the records after it up to a later sequence with the ledger's own grouped queries (a range
of the lines' primary key), adds those sums to the stored rows in Python (exact integers of
any size) and moves the cursor, in one transaction. Reads take the rows and the cursor in
the report's snapshot, so they agree with the snapshot's chain head on every server.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, text, update
from sqlalchemy.orm import Session

from .ledger import SUMMARY_GROUPINGS, Grouping, LedgerRepository, Totals, _insert
from .models import ChainHead, LedgerLine, LedgerRollup, LedgerRollupCursor

# The groupings folded from the lines themselves (a kept zone's days are gathered from the
# quarters): what a check of the rollups recomputes.
ROLLUP_GROUPINGS = (*SUMMARY_GROUPINGS, Grouping.QUARTER)  # what `deltas` folds
TOTALS = tuple(f.name for f in fields(Totals) if f.name != "key")
_NONE = ""  # the stored key of the house's lines (by player) and of no table: ids are 1-64 characters
_KEY_BATCH = 500  # keys a statement names at most (SQLite's bound on parameters is far above)


def quarter_key(start: datetime) -> str:
    """A quarter hour's stored key: its UTC start, 'YYYY-MM-DDTHH:MM'."""
    return start.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")


def quarter_start(key: str) -> datetime:
    return datetime.strptime(key, "%Y-%m-%dT%H:%M").replace(tzinfo=UTC)


def added(a: Totals, b: Totals) -> Totals:
    """A group's totals over both runs of records (a's key)."""
    return Totals(a.key, *(getattr(a, name) + getattr(b, name) for name in TOTALS))


class RollupRepository:
    def __init__(self, session: Session, ledger: LedgerRepository) -> None:
        self.session = session
        self.ledger = ledger

    def cursor(self, client_id: str) -> int:
        """How far the client's rollups reach (0: nothing folded yet)."""
        found = self.session.scalar(select(LedgerRollupCursor.sequence).where(LedgerRollupCursor.client_id == client_id))
        return int(found or 0)

    def claim(self, client_id: str) -> int | None:
        """The cursor, locked until this transaction ends; None while another fold holds it
        (PostgreSQL: SKIP LOCKED, so a read never waits for another's fold; SQLite's write
        transactions are exclusive from their BEGIN IMMEDIATE)."""
        lock = select(LedgerRollupCursor.sequence).where(LedgerRollupCursor.client_id == client_id)
        found = self.session.execute(lock.with_for_update(skip_locked=True)).first()
        if found is None:
            if self.session.execute(lock).first() is not None:
                return None  # there, and locked
            self.session.execute(
                _insert(self.session, LedgerRollupCursor)
                .values(client_id=client_id, sequence=0)
                .on_conflict_do_nothing(index_elements=["client_id"])
            )
            found = self.session.execute(lock.with_for_update(skip_locked=True)).first()
            if found is None:
                return None  # another fold made it first and holds it
        return int(found[0])

    def advance(self, client_id: str, through: int) -> None:
        self.session.execute(
            update(LedgerRollupCursor).where(LedgerRollupCursor.client_id == client_id).values(sequence=through)
        )

    def reset(self, client_id: str) -> None:
        """Forget the client's rollups (its chain is behind them: a restore); the cursor goes to 0."""
        self.session.execute(delete(LedgerRollup).where(LedgerRollup.client_id == client_id))
        self.advance(client_id, 0)

    def behind(self, limit: int) -> list[str]:
        """Clients whose chain head is past their rollups' cursor, the furthest behind first."""
        lag = ChainHead.sequence - func.coalesce(LedgerRollupCursor.sequence, 0)
        q = (
            select(ChainHead.client_id)
            .outerjoin(LedgerRollupCursor, LedgerRollupCursor.client_id == ChainHead.client_id)
            .where(lag > 0)
            .order_by(lag.desc())
            .limit(limit)
        )
        return list(self.session.scalars(q))

    def deltas(self, client_id: str, after: int, through: int) -> dict[tuple[str, Grouping], list[Totals]]:
        """The sums of the lines of records after..through, per (currency, grouping): the
        ledger's own report queries over that range of the lines' primary key."""
        currencies = self.session.scalars(
            select(LedgerLine.currency)
            .where(LedgerLine.client_id == client_id, LedgerLine.sequence > after, LedgerLine.sequence <= through)
            .distinct()
        ).all()
        records = (after, through)
        out: dict[tuple[str, Grouping], list[Totals]] = {}
        for currency in currencies:
            for grouping in SUMMARY_GROUPINGS:
                out[currency, grouping] = self.ledger.summary(client_id, currency, None, None, grouping, None, records=records)
            out[currency, Grouping.QUARTER] = [
                Totals(quarter_key(start), *sums)
                for start, sums in self.ledger.quarters(client_id, currency, None, None, records)
            ]
        return out

    def currencies(self, client_id: str) -> list[str]:
        """The currencies the client's rollups hold rows of."""
        return list(self.session.scalars(
            select(LedgerRollup.currency).where(LedgerRollup.client_id == client_id).distinct()
        ))

    def read(self, client_id: str, currency: str, grouping: Grouping, key: str | None = None) -> list[Totals]:
        """The stored rows of a grouping (or the one `key`), by key; '' keys read as None."""
        params = {"client_id": client_id, "currency": currency, "grouping": grouping.value}
        if key is None:
            rows = self.session.connection().execute(_READ, params).all()
        else:
            rows = self.session.connection().execute(_READ_KEY, {**params, "key": key}).all()
        return [Totals(r[0] or None, *_exact(r[1:])) for r in rows]

    def zones(self, client_id: str) -> dict[str, list[str]]:
        """The zones whose days are kept, by currency."""
        q = select(LedgerRollup.currency, LedgerRollup.key).where(
            LedgerRollup.client_id == client_id, LedgerRollup.grouping == Grouping.ZONE.value
        )
        out: dict[str, list[str]] = {}
        for currency, key in self.session.execute(q.order_by(LedgerRollup.currency, LedgerRollup.key)):
            out.setdefault(currency, []).append(key)
        return out

    def _zone_rows(self, client_id: str, currency: str, zone: str) -> Any:
        """The condition on a zone's day rows: '_' is LIKE's wildcard (America/St_Johns), so
        it is escaped, and readers check the prefix exactly too."""
        return (
            (LedgerRollup.client_id == client_id)
            & (LedgerRollup.currency == currency)
            & (LedgerRollup.grouping == Grouping.ZONE_DAY.value)
            & LedgerRollup.key.like(_zone_pattern(zone), escape="!")
        )

    def forget_zone(self, client_id: str, currency: str, zone: str) -> None:
        """Stop keeping a zone's days: its marker and its day rows go."""
        self.session.execute(delete(LedgerRollup).where(self._zone_rows(client_id, currency, zone)))
        self.session.execute(delete(LedgerRollup).where(
            LedgerRollup.client_id == client_id, LedgerRollup.currency == currency,
            LedgerRollup.grouping == Grouping.ZONE.value, LedgerRollup.key == zone,
        ))

    def kept_days(self, client_id: str, currency: str, zone: str) -> list[Totals] | None:
        """A kept zone's days (keys: their dates), or None if its days are not kept."""
        if not self.read(client_id, currency, Grouping.ZONE, zone):
            return None
        prefix = zone + " "
        rows = self.session.connection().execute(_ZONE_DAY_ROWS, {
            "client_id": client_id, "currency": currency, "grouping": Grouping.ZONE_DAY.value,
            "prefix": _zone_pattern(zone),
        }).all()
        return [Totals(r[0][len(prefix):], *_exact(r[1:])) for r in rows if r[0].startswith(prefix)]

    def zone_days(self, client_id: str, currency: str, zone: tzinfo) -> list[Totals] | None:
        """The quarter-hour rows gathered into `zone`'s days by PostgreSQL (exact NUMERIC
        sums; one row a day comes back, not 96), each day a range of quarter keys whose
        bounds Python's zone database gives; None where that is not exact (SQLite, whose
        text totals SQL cannot add; a day some of whose quarters fall on another date, as
        at a transition back across midnight): the caller gathers the quarters itself."""
        if self.session.get_bind().dialect.name != "postgresql":
            return None
        params = {"client_id": client_id, "currency": currency, "grouping": Grouping.QUARTER.value}
        span: Any = self.session.connection().execute(_QUARTER_SPAN, params).one()
        low, high = span
        if low is None:
            return []
        ranges = _day_ranges(quarter_start(low).astimezone(zone).date(), quarter_start(high).astimezone(zone).date(), zone)
        if ranges is None:
            return None
        # Each quarter's day by a binary search of the days' first quarters (width_bucket),
        # in one pass over the client's quarters. Joined to a list of day ranges instead,
        # PostgreSQL compared every quarter with every day: 1.2 s for 671 days.
        bounds = [_quarter_number(lo) for _, lo, _ in ranges] + [_quarter_number(ranges[-1][2])]
        out = []
        row: Any
        for row in self.session.connection().execute(_ZONE_DAYS, {**params, "bounds": bounds}):
            bucket = int(row[0])
            if not 1 <= bucket <= len(ranges):
                return None  # a quarter outside the days (cannot be: low and high are in them)
            out.append(Totals(ranges[bucket - 1][0], *_exact(row[1:])))
        return out

    def add(self, client_id: str, currency: str, grouping: Grouping, sums: Iterable[Totals]) -> None:
        """Add `sums` to the stored rows of their keys (a row made for a new key)."""
        pending = {_NONE if t.key is None else str(t.key): t for t in sums}
        keys = list(pending)
        for low in range(0, len(keys), _KEY_BATCH):
            batch = keys[low : low + _KEY_BATCH]
            stored = {
                t.key or _NONE: t
                for t in self._rows(client_id, currency, grouping, batch)
            }
            changed: list[dict[str, Any]] = []
            made: list[dict[str, Any]] = []
            for key in batch:
                before = stored.get(key)
                total = pending[key] if before is None else added(before, pending[key])
                row = self._row(client_id, currency, grouping, key, total)
                (made if before is None else changed).append(row)
            if made:
                self.session.execute(insert(LedgerRollup), made)
            if changed:
                self.session.execute(update(LedgerRollup), changed)

    def _rows(self, client_id: str, currency: str, grouping: Grouping, keys: list[str]) -> list[Totals]:
        rows = self.session.connection().execute(_READ_KEYS, {
            "client_id": client_id, "currency": currency, "grouping": grouping.value, "keys": keys,
        })
        return [Totals(r[0], *_exact(r[1:])) for r in rows]

    @staticmethod
    def _row(client_id: str, currency: str, grouping: Grouping, key: str, total: Totals) -> dict[str, Any]:
        return {
            "client_id": client_id,
            "currency": currency,
            "grouping": grouping.value,
            "key": key,
            **{name: getattr(total, name) for name in TOTALS},
        }


_QUARTER = timedelta(minutes=15)

def _quarter_number(key: str) -> int:
    """A quarter key as the number _ZONE_DAYS compares: 'YYYY-MM-DDTHH:MM' -> YYYYMMDDHHMM."""
    return int(key.replace("-", "").replace("T", "").replace(":", ""))


_MINE = "client_id = :client_id AND currency = :currency AND grouping = :grouping"
# A grouping's rows (or one key's), as the driver gives them: the text of a statement
# compiled once, and each total made an int here (NUMERIC's Decimal on PostgreSQL, the
# decimal text on SQLite). Through the ORM's columns and ExactInteger, a by-day summary of
# 607 days spent half its read in SQLAlchemy's per-value processing, and a fresh worker's
# first all-time read compiled the statement (4 ms of a 17 ms answer).
_COLUMNS = "key, " + ", ".join(TOTALS)
_READ = text(f"SELECT {_COLUMNS} FROM ledger_rollups WHERE {_MINE} ORDER BY key")
_READ_KEY = text(f"SELECT {_COLUMNS} FROM ledger_rollups WHERE {_MINE} AND key = :key")
# The rows of some keys (a fold's, up to _KEY_BATCH), each a parameter.
_READ_KEYS = text(f"SELECT {_COLUMNS} FROM ledger_rollups WHERE {_MINE} AND key IN :keys").bindparams(
    bindparam("keys", expanding=True)
)
# A kept zone's days, by `_zone_pattern`.
_ZONE_DAY_ROWS = text(f"SELECT {_COLUMNS} FROM ledger_rollups WHERE {_MINE} AND key LIKE :prefix ESCAPE '!' ORDER BY key")


def _zone_pattern(zone: str) -> str:
    """LIKE's pattern of a zone's day keys, '<zone> ...', its '_' escaped by '!'."""
    return (zone + " ").replace("_", "!_") + "%"


def _exact(values: Iterable[Any]) -> list[int]:
    return [int(v) for v in values]


# The first and last quarter keys, each from one end of the primary key's range (min() and
# max() over a never-analysed table read every quarter: 63 ms for 38,546 of them).
_QUARTER_SPAN = text(
    f"SELECT (SELECT key FROM ledger_rollups WHERE {_MINE} ORDER BY key LIMIT 1),"
    f" (SELECT key FROM ledger_rollups WHERE {_MINE} ORDER BY key DESC LIMIT 1)"
)
# The quarters summed by the bucket of `bounds` (ascending quarter numbers) each falls in:
# bucket i holds bounds[i-1] <= number < bounds[i]. Numbers, not the text keys: over an
# array of text, width_bucket walks the elements to each probe (8 us a quarter here).
_ZONE_DAYS = text(
    "SELECT width_bucket(CAST(translate(key, '-T:', '') AS bigint), CAST(:bounds AS bigint[])) AS bucket, "
    + ", ".join(f"sum({name})" for name in TOTALS)
    + f" FROM ledger_rollups WHERE {_MINE} GROUP BY bucket ORDER BY bucket"
)


def _midnight(day: date, zone: tzinfo) -> datetime:
    """The first UTC quarter hour on `day` in `zone` (a midnight in a gap: the gap's end)."""
    start = datetime.combine(day, time(0), zone).astimezone(UTC)
    start = start.replace(minute=start.minute - start.minute % 15, second=0, microsecond=0)
    while start.astimezone(zone).date() < day:
        start += _QUARTER
    return start


def _day_ranges(first: date, last: date, zone: tzinfo) -> list[tuple[str, str, str]] | None:
    """(day, first quarter key, the next day's first quarter key) for each day first..last
    in `zone`; None when some quarter of a range falls on another date there."""
    out = []
    day, lo = first, _midnight(first, zone)
    while day <= last:
        following = day + timedelta(days=1)
        hi = _midnight(following, zone)
        if lo.astimezone(zone).utcoffset() != (hi - _QUARTER).astimezone(zone).utcoffset():
            q = lo  # a transition inside the day: every quarter checked
            while q < hi:
                if q.astimezone(zone).date() != day:
                    return None
                q += _QUARTER
        out.append((day.isoformat(), quarter_key(lo), quarter_key(hi)))
        day, lo = following, hi
    return out

