"""Opaque list cursors: a position (a time and the keys after it) as URL-safe base64 JSON;
and the lists' page sizes.

A cursor the service did not make is a 422 on `query.cursor`, whatever it holds: not
base64, not JSON, the wrong shape, a time out of range, an integer beyond 64 bits, a NUL
or a lone surrogate in a string.
"""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from service.domain.errors import FieldError
from service.services.errors import InvalidInput

# Page sizes of the lists (`limit`): the default and the most a page may hold.
DEFAULT_PAGE, MAX_PAGE = 50, 500  # rounds, deals, Susun games, ledger lines, delivery attempts
STATEMENT_PAGE = 100  # a statement's lines (JSON)
GAME_PAGE, MAX_GAME_PAGE = 20, 100  # Big Two games: each state is replayed from its moves

_INT64 = 2**63
_KEY = re.compile(r"[A-Za-z0-9_]{1,64}")
# What encode_cursor writes (isoformat of a UTC time): fromisoformat alone is lenient and
# takes, say, a NUL before the offset.
_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{6})?\+00:00")


class Keyed(Protocol):
    """A listed row: its id and creation time (the lists' newest-first position)."""

    @property
    def id(self) -> str: ...

    @property
    def created_at(self) -> datetime: ...


Row = TypeVar("Row", bound=Keyed)


# The CPU a list page spends bringing its rows up to date (its first row's work is done
# whatever it costs): under slow rules a game costs 0.1-0.25 s, and ten of them held a
# worker for 1-2.5 s.
PAGE_WORK_CPU_S = 0.5


def page_with_work(
    rows: Sequence[Row], needs_work: Callable[[Row], bool], most: int, next_after: tuple[datetime, str] | None
) -> tuple[list[Row], list[str], tuple[datetime, str] | None]:
    """A page whose rows are brought up to date before they are shown (an overdue game
    settled, a timed game's due turns played), at most `most` of them: a page holding more
    ends before the next one, and its next position is then its last row's. The rows, the
    ids of those to bring up to date, and the next position."""
    rows = list(rows)
    due = [r.id for r in rows if needs_work(r)]
    if len(due) > most:
        rows, next_after = ended_before(rows, due[most])
        due = due[:most]
    return rows, due, next_after


def ended_before(rows: list[Row], row_id: str) -> tuple[list[Row], tuple[datetime, str]]:
    """The page cut before the row `row_id` (not the first), and its next position: its new last row's."""
    cut = next(i for i, r in enumerate(rows) if r.id == row_id)
    return rows[:cut], (rows[cut - 1].created_at, rows[cut - 1].id)


def worked_page(
    rows: list[Row], due: list[str], next_after: tuple[datetime, str] | None, work: Callable[[str], object]
) -> tuple[list[Row], list[str], tuple[datetime, str] | None]:
    """`work` on each due row in turn, the first whatever it costs, each next one only while
    this thread has spent less than PAGE_WORK_CPU_S of CPU on them; where the budget ran
    out, the page ends before the first row not worked. The rows, those worked, and the
    next position."""
    start = time.thread_time()
    for n, row_id in enumerate(due):
        if n and time.thread_time() - start >= PAGE_WORK_CPU_S:
            rows, next_after = ended_before(rows, row_id)
            return rows, due[:n], next_after
        work(row_id)
    return rows, due, next_after


def encode_cursor(created_at: datetime, *keys: int | str) -> str:
    raw = json.dumps([created_at.astimezone(UTC).isoformat(), *keys], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def bad_cursor() -> InvalidInput:
    return InvalidInput(
        "the cursor is not one this service gave",
        errors=[FieldError("query.cursor", "not a cursor from this service")],
    )


def decode_cursor(cursor: str, *kinds: type) -> tuple[Any, ...]:
    """`(created_at, *keys)` of a cursor whose keys have these types (int or str)."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value = json.loads(raw.decode("utf-8"))
    except Exception as exc:  # any garbage is the same client error
        raise bad_cursor() from exc
    if not isinstance(value, list) or len(value) != 1 + len(kinds) or not isinstance(value[0], str):
        raise bad_cursor()
    if not _TIME.fullmatch(value[0]):
        raise bad_cursor()
    try:
        when = datetime.fromisoformat(value[0])
        if when.tzinfo is None:
            raise ValueError("naive")
        when = when.astimezone(UTC)
    except (ValueError, OverflowError) as exc:
        raise bad_cursor() from exc
    keys: list[Any] = []
    for kind, item in zip(kinds, value[1:]):
        if kind is int:
            if type(item) is not int or not -_INT64 <= item < _INT64:
                raise bad_cursor()
        elif not isinstance(item, str) or not _KEY.fullmatch(item):
            raise bad_cursor()
        keys.append(item)
    return (when, *keys)
