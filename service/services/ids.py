"""Service-made identifiers: a prefix and a ULID (sortable by creation time, 80 random bits)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


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
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond - now.microsecond % 1000)


def rfc3339(at: datetime) -> str:
    """`2026-11-29T10:00:00.123Z`."""
    at = at.astimezone(UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"
