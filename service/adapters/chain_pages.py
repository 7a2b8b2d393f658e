"""Reading a client's chain in sequence order for the verifier, page by page.

Every stored record is read once. A page is two reads: the records, each with the round
row it names (for a void, the voided round's, which names the round's record), and a digest
of each record's ledger lines: the lines' variable columns as one text, and the bounds of
the columns every line of a record shares (time, currency, table). The verifier compares the digest with the hashed record in one string
comparison per record; a record that does not match has its lines read in full, to say
where. On PostgreSQL both reads are binary COPY streams (the database builds the digests
on its own core), and two connections fetch the next pages while the caller checks this
one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, text

from service.domain.audit import timestamp

# An index look-up of the round per record (LATERAL), in the primary key's order: a hash
# join would read the whole chain for every page.
_PG_RECORDS = """
SELECT c.sequence, c.kind, c.round_id, c.previous_hash, c.hash, c.canonical,
       r.game, r.preset, r.table_ref, r.reference, r.currency,
       to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), r.sequence
  FROM chain_records c
  LEFT JOIN LATERAL (
        SELECT game, preset, table_ref, reference, currency, created_at, sequence FROM rounds
         WHERE rounds.id = c.round_id AND rounds.client_id = c.client_id LIMIT 1) r ON true
 WHERE c.client_id = %(c)s AND c.sequence >= %(lo)s AND c.sequence < %(hi)s
 ORDER BY c.sequence
"""
# The lines come in key order from a sorted subquery, so the aggregate needs no sort of
# its own per record. Should a plan ever feed them otherwise, the texts differ and the
# record is compared line by line instead: slower, never wrong.
_PG_DIGESTS = """
SELECT l.sequence,
       string_agg(concat_ws(',', coalesce('+' || l.player_id, ''), l.kind, l.basis, l.amount, l.points, l.winnings), ';'),
       count(*), min(l.line_no), max(l.line_no),
       to_char(min(l.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       to_char(max(l.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       min(l.currency), max(l.currency), min(l.table_ref), max(l.table_ref), count(l.table_ref)
  FROM (SELECT * FROM ledger_lines
         WHERE client_id = %(c)s AND sequence >= %(lo)s AND sequence < %(hi)s
         ORDER BY client_id, sequence, line_no) l
 GROUP BY l.sequence
 ORDER BY l.sequence
"""
_RECORD_TYPES = ["int8", "text", "text", "text", "text", "bytea", "text", "text", "text", "text", "text", "text",
                 "int8"]
_DIGEST_TYPES = ["int8", "text", "int8", "int4", "int4", "text", "text", "text", "text", "text", "text", "int8"]

# SQLite has no LATERAL; its planner looks rounds up by primary key on its own.
_SQLITE_RECORDS = """
SELECT c.sequence, c.kind, c.round_id, c.previous_hash, c.hash, c.canonical,
       r.game, r.preset, r.table_ref, r.reference, r.currency, r.created_at, r.sequence
  FROM chain_records c
  LEFT JOIN rounds r ON r.id = c.round_id AND r.client_id = c.client_id
 WHERE c.client_id = :c AND c.sequence >= :lo AND c.sequence < :hi
 ORDER BY c.sequence
"""
_SQLITE_LINES = """
SELECT sequence, line_no, created_at, player_id, kind, basis, amount, currency, table_ref, points, winnings
  FROM ledger_lines
 WHERE client_id = :c AND sequence >= :lo AND sequence < :hi
 ORDER BY sequence, line_no
"""


@dataclass(slots=True)
class PageRecord:
    sequence: int
    kind: str
    round_id: str
    previous_hash: str
    hash: str
    canonical: bytes
    # (game, preset, table_ref, reference, currency, created_at as the records write it) of
    # the round the record names, and that round's sequence (its own record's, for a void)
    round_row: tuple[Any, ...] | None
    round_sequence: int | None


@dataclass(frozen=True, slots=True)
class LinesDigest:
    """A record's lines: `text` is `+player,kind,basis,amount,points,winnings` per line (the
    house's player empty, money in minor units), `;` between lines, in line order;
    the rest bound what every line of the record must share.

    The text is compared whole with one built from the hashed record, whose values never
    hold `,` or `;` (identifiers are validated, kinds and numbers are fixed vocabularies):
    a live value holding one adds a separator, so equal texts mean equal columns."""

    text: str
    count: int
    first_line: int
    last_line: int
    times: tuple[str, str]
    currencies: tuple[str, str]
    tables: tuple[str | None, str | None]
    tables_set: int


@dataclass(slots=True)
class Page:
    records: list[PageRecord]
    digests: dict[int, LinesDigest] = field(default_factory=dict)


def pages(engine: Engine, client_id: str, start: int, stop: int, size: int) -> Iterator[Page]:
    """Pages of [start, stop), in order, until a page has no record."""
    if engine.dialect.name == "postgresql":
        yield from _pg_pages(engine, client_id, start, stop, size)
        return
    for low in range(start, stop, size):
        params = {"c": client_id, "lo": low, "hi": min(low + size, stop)}
        with engine.connect() as conn:
            rows = conn.execute(text(_SQLITE_RECORDS), params).all()
            page = Page([_record(r, _sqlite_stamp(r[11])) for r in rows])
            lines: dict[int, list[tuple[Any, ...]]] = {}
            for line in conn.execute(text(_SQLITE_LINES), params):
                lines.setdefault(line[0], []).append(tuple(line))
        page.digests = {seq: digest_of(group) for seq, group in lines.items()}
        yield page
        if not rows:
            return


def digest_of(lines: Sequence[Sequence[Any]]) -> LinesDigest:
    """The digest of a record's lines as `ledger.copies_of` reads them: (sequence, line_no,
    created_at, player_id, kind, basis, amount, currency, table_ref, points, winnings)."""
    texts = [
        f"{'' if line[3] is None else '+' + line[3]},{line[4]},{line[5]},{line[6]},{line[9]},{line[10]}"
        for line in lines
    ]
    times = [_stamp(line[2]) for line in lines]
    tables = [line[8] for line in lines if line[8] is not None]
    return LinesDigest(
        ";".join(texts),
        len(lines),
        min(line[1] for line in lines),
        max(line[1] for line in lines),
        (min(times), max(times)),
        (min(line[7] for line in lines), max(line[7] for line in lines)),
        (min(tables), max(tables)) if tables else (None, None),
        len(tables),
    )


def _stamp(value: Any) -> str:
    return timestamp(value) if isinstance(value, datetime) else timestamp(_sqlite_time(value))


def _sqlite_time(value: Any) -> datetime:
    """SQLite keeps naive UTC text."""
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return when.replace(tzinfo=UTC)


def _sqlite_stamp(value: Any) -> str | None:
    return None if value is None else timestamp(_sqlite_time(value))


def _record(row: Sequence[Any], created: Any) -> PageRecord:
    round_row = None if row[6] is None else (row[6], row[7], row[8], row[9], row[10], created)
    return PageRecord(row[0], row[1], row[2], row[3], row[4], bytes(row[5]), round_row, row[12])


def _copy(conn: Any, sql: str, params: dict[str, Any], types: list[str]) -> list[tuple[Any, ...]]:
    with conn.cursor().copy(f"COPY ({sql}) TO STDOUT (FORMAT binary)", params) as copy:
        copy.set_types(types)
        return list(copy.rows())


def _pg_pages(engine: Engine, client_id: str, start: int, stop: int, size: int) -> Iterator[Page]:
    raws = [engine.raw_connection() for _ in range(2)]
    free = list(raws)

    def fetch(low: int) -> Page:
        fairy = free.pop()
        try:
            conn = fairy.driver_connection
            params = {"c": client_id, "lo": low, "hi": min(low + size, stop)}
            page = Page([_record(r, r[11]) for r in _copy(conn, _PG_RECORDS, params, _RECORD_TYPES)])
            for d in _copy(conn, _PG_DIGESTS, params, _DIGEST_TYPES):
                page.digests[d[0]] = LinesDigest(d[1], d[2], d[3], d[4], (d[5], d[6]), (d[7], d[8]), (d[9], d[10]), d[11])
            conn.rollback()  # type: ignore[union-attr]  # psycopg's connection, typed Optional by SQLAlchemy
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
