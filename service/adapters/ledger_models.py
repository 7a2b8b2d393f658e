"""Audit trail tables: the hash chain per client, ledger lines, voids, service secrets.

Rounds, ledger lines, chain records and voids are append-only: nothing in the code updates
or deletes them. The one mutable row is `chain_heads`, the per-client pointer that writers
lock so concurrent rounds of a client get a gap-free, unforked chain.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base, UTCDateTime

# SQLite only auto-increments an INTEGER PRIMARY KEY.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class ChainRecord(Base):
    """One hashed record (a round or a void) with the exact canonical bytes that were hashed.

    `round_id` has no foreign key on purpose: a deleted round must show up in verification
    as a record whose rows are missing, not be refused silently by the database.
    """

    __tablename__ = "chain_records"
    __table_args__ = (Index("ix_chain_records_round", "round_id", "kind"),)

    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"), primary_key=True)
    sequence: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(8))
    round_id: Mapped[str] = mapped_column(String(40))
    previous_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))
    canonical: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ChainHead(Base):
    """The last record of a client's chain; locked FOR UPDATE by every writer."""

    __tablename__ = "chain_heads"

    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"), primary_key=True)
    sequence: Mapped[int] = mapped_column(BigInteger)
    hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class LedgerLine(Base):
    """A booked line in minor units, dated when booked (a round's time, or its void's).

    `basis` is the kind a line counts as in reports: its own kind, or for a reversal the
    kind it reverses. `points` and `winnings` ride on settlement lines (negated on their
    reversals) so player reports never read round documents. `rounds` is +1 on a settlement
    line (a player's part in a round), -1 on its reversal, else 0; line 0 of a record is
    always the first player's, so per-round counts sum `rounds` over `line_no = 0`.
    """

    __tablename__ = "ledger_lines"
    __table_args__ = (
        UniqueConstraint("client_id", "sequence", "line_no", name="uq_ledger_lines_record_line"),
        Index("ix_ledger_lines_currency_time", "client_id", "currency", "created_at", "id"),
        Index("ix_ledger_lines_player_time", "client_id", "player_id", "currency", "created_at"),
        Index("ix_ledger_lines_round", "round_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    round_id: Mapped[str] = mapped_column(ForeignKey("rounds.id"))
    sequence: Mapped[int] = mapped_column(BigInteger)
    line_no: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    account: Mapped[str] = mapped_column(String(72))
    player_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    kind: Mapped[str] = mapped_column(String(16))
    basis: Mapped[str] = mapped_column(String(16))
    amount: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    table_ref: Mapped[str | None] = mapped_column(String(64), nullable=True)
    rounds: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(BigInteger)
    winnings: Mapped[int] = mapped_column(BigInteger)


class RoundVoid(Base):
    """A void: its own chained record; the round's `status` is derived from this row."""

    __tablename__ = "round_voids"

    round_id: Mapped[str] = mapped_column(ForeignKey("rounds.id"), primary_key=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    sequence: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(Text)
    engine_version: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ServiceSecret(Base):
    """Secrets every worker must share (the view-link key when VIEW_LINK_SECRET is unset)."""

    __tablename__ = "service_secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
