"""What every reporting answer says about how far it reaches (`as_of`), and cursors that pin it.

A report reads one snapshot (`service.adapters.replicas.report`); its `as_of` is the
client's chain head in that snapshot: `{"sequence": N, "at": <the head record's time>,
"source": "replica" | "primary"}`, and `Capsa-As-Of: sequence=N; at=...; source=...` on CSV and NDJSON
answers. A cursor carries its first page's as_of, so later pages keep it and read nothing
past sequence N. Cursors made before as_of existed (three items) still work: such a page
takes the as_of of its own snapshot.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from service.adapters.replicas import AsOf as AsOf  # the API names these through this module
from service.adapters.replicas import ReportSource as ReportSource
from service.domain.audit import MAX_SEQUENCE
from service.services.clock import rfc3339
from service.services.cursors import bad_cursor, decode_cursor, encode_cursor

AS_OF_HEADER = "Capsa-As-Of"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NO_TIME = -1  # an empty chain's as_of has no time


def as_of_json(as_of: AsOf) -> dict[str, Any]:
    return {
        "sequence": as_of.sequence,
        "at": None if as_of.at is None else rfc3339(as_of.at),
        "source": as_of.source.value,
    }


def as_of_header(as_of: AsOf) -> str:
    """`sequence=N; at=<RFC 3339>; source=replica|primary` (no `at` for an empty chain)."""
    at = "" if as_of.at is None else f"; at={rfc3339(as_of.at)}"
    return f"sequence={as_of.sequence}{at}; source={as_of.source.value}"


def _micros(at: datetime | None) -> int:
    if at is None:
        return _NO_TIME
    return (at.astimezone(UTC) - _EPOCH) // timedelta(microseconds=1)


def encode_line_cursor(position: tuple[datetime, int, int], as_of: AsOf) -> str:
    """A ledger line's position and the as_of of the page that made it."""
    return encode_cursor(*position, as_of.sequence, _micros(as_of.at))


MAX_LINE_NO = 2**31 - 2  # a line's number is a 32-bit integer; the one after it must be too


def _check_position(sequence: int, line_no: int) -> None:
    """A line's place as the service writes it: numbers the database's columns hold, with
    room for the next (a hand-made one past them was a 500 from the database)."""
    if not (0 <= sequence < MAX_SEQUENCE and 0 <= line_no <= MAX_LINE_NO):
        raise bad_cursor()


def decode_line_cursor(cursor: str | None) -> tuple[tuple[datetime, int, int] | None, AsOf | None]:
    """(position, pinned as_of) of a cursor; an old three-item cursor pins nothing."""
    if cursor is None:
        return None, None
    try:
        when, sequence, line_no, through, micros = decode_cursor(cursor, int, int, int, int)
    except Exception:
        when, sequence, line_no = decode_cursor(cursor, int, int)  # made before as_of: 422 if not that either
        _check_position(sequence, line_no)
        return (when, sequence, line_no), None
    _check_position(sequence, line_no)
    if not 0 <= through < MAX_SEQUENCE or micros < _NO_TIME:
        raise bad_cursor()
    try:
        at = None if micros == _NO_TIME else _EPOCH + timedelta(microseconds=micros)
    except OverflowError as exc:
        raise bad_cursor() from exc
    return (when, sequence, line_no), AsOf(through, at, ReportSource.PRIMARY)
