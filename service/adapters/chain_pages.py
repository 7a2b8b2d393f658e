"""Reading a client's chain in sequence order for the verifier, page by page.

Each page is two reads (three when it holds a void of an older round): the records with
the round row each names (for a void, the voided round's row and its record's sequence),
and the lines of those records. Every stored record is read once. On PostgreSQL both are
binary COPY streams (a row costs a fraction of what a query's row does), and two
connections fetch the next pages while the caller checks this one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import groupby
from operator import itemgetter
from typing import Any

from sqlalchemy import Engine, text

# Index look-ups per record (LATERAL, and a subquery only for voids), in the primary key's
# order: a hash join would read the whole chain for every page.
_RECORDS = """
SELECT c.sequence, c.kind, c.round_id, c.previous_hash, c.hash, c.canonical, {hash_ok},
       r.game, r.preset, r.table_ref, r.reference, r.currency, r.created_at,
       CASE WHEN c.kind = 'void' THEN
         (SELECT o.sequence FROM chain_records o
           WHERE o.round_id = c.round_id AND o.kind = 'round' AND o.client_id = c.client_id)
       END
  FROM chain_records c
  LEFT JOIN LATERAL (
        SELECT game, preset, table_ref, reference, currency, created_at FROM rounds
         WHERE rounds.id = c.round_id AND rounds.client_id = c.client_id LIMIT 1) r ON true
 WHERE c.client_id = {c} AND c.sequence >= {lo} AND c.sequence < {hi}
 ORDER BY c.sequence
"""
# A line as the verifier compares it: (sequence, line_no, created_at, player_id, kind,
# basis, amount, currency, table_ref, points, winnings).
# SQLite has no LATERAL; its planner looks rounds up by primary key on its own.
_SQLITE_RECORDS = """
SELECT c.sequence, c.kind, c.round_id, c.previous_hash, c.hash, c.canonical, NULL,
       r.game, r.preset, r.table_ref, r.reference, r.currency, r.created_at,
       CASE WHEN c.kind = 'void' THEN
         (SELECT o.sequence FROM chain_records o
           WHERE o.round_id = c.round_id AND o.kind = 'round' AND o.client_id = c.client_id)
       END
  FROM chain_records c
  LEFT JOIN rounds r ON r.id = c.round_id AND r.client_id = c.client_id
 WHERE c.client_id = :c AND c.sequence >= :lo AND c.sequence < :hi
 ORDER BY c.sequence
"""
_LINES = """
SELECT sequence, line_no, created_at, player_id, kind, basis, amount, currency, table_ref,
       points, winnings
  FROM ledger_lines
 WHERE client_id = {c} AND sequence >= {lo} AND sequence < {hi}
 ORDER BY sequence, line_no
"""
_LINES_OF = """
SELECT sequence, line_no, created_at, player_id, kind, basis, amount, currency, table_ref,
       points, winnings
  FROM ledger_lines
 WHERE client_id = {c} AND sequence IN ({seqs})
 ORDER BY sequence, line_no
"""
_RECORD_TYPES = ["int8", "text", "text", "text", "text", "bytea", "bool", "text", "text", "text", "text", "text",
                 "timestamptz", "int8"]
_LINE_TYPES = ["int8", "int4", "timestamptz", "text", "text", "text", "int8", "text", "text", "int8", "int8"]


@dataclass(slots=True)
class PageRecord:
    sequence: int
    kind: str
    round_id: str
    previous_hash: str
    hash: str
    canonical: bytes
    hash_ok: bool | None
    round_row: tuple[Any, ...] | None
    original_sequence: int | None


@dataclass(slots=True)
class Page:
    records: list[PageRecord]
    # sequence -> its lines (see _LINES), in line order
    lines: dict[int, list[tuple[Any, ...]]] = field(default_factory=dict)


def _group(rows: Iterable[tuple[Any, ...]], into: dict[int, list[tuple[Any, ...]]]) -> None:
    for sequence, group in groupby(rows, key=itemgetter(0)):
        into[sequence] = list(group)


def _record(row: Sequence[Any], created: Any) -> PageRecord:
    round_row = None if row[7] is None else (row[7], row[8], row[9], row[10], row[11], created)
    return PageRecord(row[0], row[1], row[2], row[3], row[4], bytes(row[5]), row[6], round_row, row[13])


_SQLITE = {"c": ":c", "lo": ":lo", "hi": ":hi"}
_PG = {"c": "%(c)s", "lo": "%(lo)s", "hi": "%(hi)s"}


def pages(engine: Engine, client_id: str, start: int, stop: int, size: int) -> Iterator[Page]:
    """Pages of [start, stop), in order, until a page has no record."""
    if engine.dialect.name == "postgresql":
        yield from _pg_pages(engine, client_id, start, stop, size)
        return
    records_sql = text(_SQLITE_RECORDS)
    lines_sql = text(_LINES.format(**_SQLITE))
    for low in range(start, stop, size):
        params = {"c": client_id, "lo": low, "hi": min(low + size, stop)}
        with engine.connect() as conn:
            rows = conn.execute(records_sql, params).all()
            page = Page([_record(r, _sqlite_time(r[12])) for r in rows])
            _group([_sqlite_line(r) for r in conn.execute(lines_sql, params)], page.lines)
            missing = _missing(page)
            if missing:
                sql = text(_LINES_OF.format(seqs=", ".join(map(str, missing)), **_SQLITE))
                _group([_sqlite_line(r) for r in conn.execute(sql, params)], page.lines)
        yield page
        if not rows:
            return


def _sqlite_time(value: Any) -> datetime | None:
    """SQLite keeps naive UTC text."""
    if value is None:
        return None
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return when.replace(tzinfo=UTC)


def _sqlite_line(row: Sequence[Any]) -> tuple[Any, ...]:
    return (*row[:2], _sqlite_time(row[2]), *row[3:])


def _copy(conn: Any, sql: str, params: dict[str, Any], types: list[str]) -> list[tuple[Any, ...]]:
    with conn.cursor().copy(f"COPY ({sql}) TO STDOUT (FORMAT binary)", params) as copy:
        copy.set_types(types)
        return list(copy.rows())


def _missing(page: Page) -> list[int]:
    """Sequences of rounds voided in the page whose lines the page does not hold."""
    return sorted(
        {int(r.original_sequence) for r in page.records if r.original_sequence is not None} - set(page.lines)
    )


def _pg_pages(engine: Engine, client_id: str, start: int, stop: int, size: int) -> Iterator[Page]:
    records_sql = _RECORDS.format(hash_ok="NULL::boolean", **_PG)
    lines_sql = _LINES.format(**_PG)
    raws = [engine.raw_connection() for _ in range(2)]
    free = list(raws)

    def fetch(low: int) -> Page:
        fairy = free.pop()
        try:
            conn = fairy.driver_connection
            params = {"c": client_id, "lo": low, "hi": min(low + size, stop)}
            rows = _copy(conn, records_sql, params, _RECORD_TYPES)
            page = Page([_record(r, r[12]) for r in rows])
            _group(_copy(conn, lines_sql, params, _LINE_TYPES), page.lines)
            missing = _missing(page)
            if missing:
                sql = _LINES_OF.format(seqs=", ".join(map(str, missing)), **_PG)
                _group(_copy(conn, sql, params, _LINE_TYPES), page.lines)
            conn.rollback()
            return page
        finally:
            free.append(fairy)

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            lows = iter(range(start, stop, size))
            pending = [pool.submit(fetch, low) for _, low in zip(range(2), lows)]
            while pending:
                page = pending.pop(0).result()
                nxt = next(lows, None)
                if page.records and nxt is not None:
                    pending.append(pool.submit(fetch, nxt))
                yield page
                if not page.records:
                    for f in pending:
                        f.cancel()
                    return
    finally:
        for fairy in raws:
            fairy.close()
