"""What the write path hands the chain repository: a new record, its lines, a key claim.

The service builds these before it takes any lock (scoring, validation, the canonical
bytes up to the sequence); the repository only has to place the record at the head.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class LineRow:
    """A ledger line's report columns (the rest of the row is the record's)."""

    player_id: str | None
    kind: str
    basis: str
    amount: int
    points: int = 0
    winnings: int = 0


@dataclass(frozen=True, slots=True)
class RoundColumns:
    """The query columns of a new round (kind `round` records only)."""

    game: str
    preset: str
    table: str | None
    reference: str | None
    currency: str


@dataclass(frozen=True, slots=True)
class NewRecord:
    """A record ready to be chained: every byte but its sequence is fixed."""

    client_id: str
    kind: str
    round_id: str
    created_at: datetime
    unsealed: bytes
    currency: str
    table: str | None
    lines: tuple[LineRow, ...]
    round: RoundColumns | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """An Idempotency-Key claimed in the same transaction as the record it answers.

    The stored answer is rendered from `resource` (the round) when it is replayed.
    """

    method: str
    path: str
    key: str
    request_hash: str
    status_code: int
    resource: str
    expired_before: datetime


@dataclass(slots=True)
class Appended:
    """Where a record landed; filled in when its statement runs (at commit on PostgreSQL)."""

    sequence: int = 0
    hash: str = ""
    previous_hash: str = ""
    done: bool = field(default=False)
    kid: str | None = None  # the receipt, once signed (None without a signing key)
    signature: bytes | None = None


@dataclass(frozen=True, slots=True)
class Head:
    sequence: int
    hash: str
    created_at: datetime | None


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """A chain record as stored, with its receipt (None until signed)."""

    sequence: int
    kind: str
    round_id: str
    previous_hash: str
    hash: str
    canonical: bytes
    kid: str | None = None
    signature: bytes | None = None
