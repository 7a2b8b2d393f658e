"""SQLAlchemy 2 typed models; money is always integer minor units (BigInteger)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes on every engine (SQLite stores no zone: keep naive UTC there)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Client(Base):
    """An operator: owns keys, rounds and idempotency records."""

    __tablename__ = "clients"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())

    keys: Mapped[list[ApiKey]] = relationship(back_populates="client")


class ApiKey(Base):
    """An API key, stored as its SHA-256 only; `prefix` is the short visible part."""

    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"), index=True)
    prefix: Mapped[str] = mapped_column(String(16), unique=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    scope: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)

    client: Mapped[Client] = relationship(back_populates="keys")


class Round(Base):
    """A scored round: what was asked, with which rules and engine, and the result document."""

    __tablename__ = "rounds"
    __table_args__ = (
        UniqueConstraint("client_id", "reference", name="uq_rounds_client_reference"),
        Index("ix_rounds_client_created", "client_id", "created_at", "id"),
        Index("ix_rounds_client_table", "client_id", "table_ref"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    game: Mapped[str] = mapped_column(String(16))
    preset: Mapped[str] = mapped_column(String(64))
    table_ref: Mapped[str | None] = mapped_column(String(64), nullable=True)
    reference: Mapped[str | None] = mapped_column(String(64), nullable=True)
    currency: Mapped[str] = mapped_column(String(3))
    status: Mapped[str] = mapped_column(String(16), default="settled")
    engine_version: Mapped[str] = mapped_column(String(32))
    request_raw: Mapped[str] = mapped_column(Text)
    request_json: Mapped[dict[str, Any]] = mapped_column(JSON)
    rules_json: Mapped[dict[str, Any]] = mapped_column(JSON)
    document: Mapped[dict[str, Any]] = mapped_column(JSON)
    house_fee: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())

    players: Mapped[list[RoundPlayer]] = relationship(
        back_populates="round", order_by="RoundPlayer.seat", cascade="all, delete-orphan"
    )
    pairs: Mapped[list[RoundPair]] = relationship(
        back_populates="round", order_by="RoundPair.position", cascade="all, delete-orphan"
    )


class RoundPlayer(Base):
    """One player's line of a round, queryable by player id."""

    __tablename__ = "round_players"
    __table_args__ = (Index("ix_round_players_player", "player_id", "round_id"),)

    round_id: Mapped[str] = mapped_column(ForeignKey("rounds.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(String(64))
    points: Mapped[int] = mapped_column(BigInteger)
    result: Mapped[int] = mapped_column(BigInteger)
    winnings: Mapped[int] = mapped_column(BigInteger)
    fee: Mapped[int] = mapped_column(BigInteger)
    net: Mapped[int] = mapped_column(BigInteger)

    round: Mapped[Round] = relationship(back_populates="players")


class RoundPair(Base):
    """One head-to-head settlement of a round, from player `a`'s side."""

    __tablename__ = "round_pairs"

    round_id: Mapped[str] = mapped_column(ForeignKey("rounds.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_a: Mapped[str] = mapped_column(String(64))
    player_b: Mapped[str] = mapped_column(String(64))
    stake: Mapped[int] = mapped_column(BigInteger)
    points: Mapped[int] = mapped_column(BigInteger)
    amount: Mapped[int] = mapped_column(BigInteger)
    outcome: Mapped[str] = mapped_column(String(16))

    round: Mapped[Round] = relationship(back_populates="pairs")


class IdempotencyRecord(Base):
    """An Idempotency-Key use: in flight while its request runs, then the stored 2xx answer."""

    __tablename__ = "idempotency_records"
    __table_args__ = (
        UniqueConstraint("client_id", "method", "path", "key", name="uq_idempotency_client_method_path_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    method: Mapped[str] = mapped_column(String(8))
    path: Mapped[str] = mapped_column(String(255))
    key: Mapped[str] = mapped_column(String(255))
    request_hash: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16))
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    content_type: Mapped[str | None] = mapped_column(String(64), nullable=True)
    location: Mapped[str | None] = mapped_column(String(255), nullable=True)
    response_body: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


# -- Capsa Banting and deals (issue 6) -------------------------------------------------------


class Deal(Base):
    """A provably fair deal: the seed stays secret until the deal is used or revealed."""

    __tablename__ = "deals"
    __table_args__ = (
        UniqueConstraint("client_id", "nonce", name="uq_deals_client_nonce"),
        Index("ix_deals_client_created", "client_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    nonce: Mapped[int] = mapped_column(BigInteger)
    server_seed: Mapped[bytes] = mapped_column(LargeBinary)
    commitment: Mapped[str] = mapped_column(String(64))
    client_seed: Mapped[str] = mapped_column(Text)
    players: Mapped[list[str]] = mapped_column(JSON)
    hands: Mapped[list[list[str]]] = mapped_column(JSON)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    used_by: Mapped[str | None] = mapped_column(String(40), nullable=True)
    revealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Game(Base):
    """A Big Two game in play: mutable, every move bumps `version` (optimistic concurrency).

    `hands` are the dealt hands (server side only); the state is `moves` replayed on them.
    """

    __tablename__ = "games"
    __table_args__ = (Index("ix_games_client_created", "client_id", "created_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    rules_json: Mapped[dict[str, Any]] = mapped_column(JSON)
    currency: Mapped[str] = mapped_column(String(3))
    stake: Mapped[int] = mapped_column(BigInteger)
    table_ref: Mapped[str | None] = mapped_column(String(64), nullable=True)
    players: Mapped[list[str]] = mapped_column(JSON)
    hands: Mapped[list[list[str]]] = mapped_column(JSON)
    deal_id: Mapped[str | None] = mapped_column(ForeignKey("deals.id"), nullable=True)
    moves: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    winner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    round_id: Mapped[str | None] = mapped_column(ForeignKey("rounds.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
