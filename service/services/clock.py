"""Service-made identifiers and the service's clock.

Ids are a prefix and a ULID (sortable by creation time, 80 random bits). All service time
comes from one clock, `utcnow_ms()`, so tests move time with `use_clock(FixedClock(...))`
instead of sleeping.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from service.domain.audit import timestamp

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class Clock:
    """Wall-clock time in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock(Clock):
    """A clock that stands still until it is moved (tests)."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at

    def set(self, at: datetime) -> None:
        self.at = at

    def advance(self, **delta: float) -> datetime:
        self.at += timedelta(**delta)
        return self.at


_clock: Clock = Clock()


def use_clock(clock: Clock) -> Clock:
    """Make `clock` the service's clock; returns the one it replaces."""
    global _clock
    previous, _clock = _clock, clock
    return previous


def epoch_ms(at: datetime) -> int:
    """Milliseconds since the epoch of an aware moment, exactly (no float)."""
    return (at - _EPOCH) // timedelta(milliseconds=1)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def ulid(at: datetime) -> str:
    """26 Crockford base32 characters: 48 bits of milliseconds, then 80 random bits."""
    ms = int(at.timestamp() * 1000)
    value = (ms << 80) | secrets.randbits(80)
    out = []
    for _ in range(26):
        out.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(out))


def new_id(prefix: str, at: datetime) -> str:
    return f"{prefix}_{ulid(at)}"


def utcnow_ms() -> datetime:
    """Now in UTC, truncated to the millisecond that documents and hashes carry."""
    now = _clock.now()
    return now.replace(microsecond=now.microsecond - now.microsecond % 1000)


def rfc3339(at: datetime) -> str:
    """`2026-11-29T10:00:00.123Z`: the records' own form (`audit.timestamp`), of `at` in UTC."""
    return timestamp(at.astimezone(UTC))


def bound_text(at: datetime) -> str:
    """A period's bound as it was applied: `rfc3339`, but to the microsecond where the bound
    falls between two milliseconds (`...00.000500Z`), since cut to the millisecond it would
    name a bound that takes a line the answer left out."""
    at = at.astimezone(UTC)
    if at.microsecond % 1000 == 0:
        return timestamp(at)
    return at.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"
