"""SQLAlchemy 2 typed models; money is always integer minor units (BigInteger).

Each fact is stored once. A stored round or void is its chain record: the canonical bytes
that were hashed hold its request, resolved rules, score document and ledger lines. The
other tables keep only what a query, an index or a constraint needs (ids, client, game,
preset, table, reference, currency, time; the ledger lines' report columns), and the audit
verifier checks every one of those copies against the hashed bytes.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Numeric,
    PrimaryKeyConstraint,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    literal_column,
    text,
    type_coerce,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

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


class StoredBytes(TypeDecorator[bytes]):
    """Bytes as stored. SQLite keeps a value of any type in any column: bytes put back as
    text (an UPDATE with a string literal, `CAST(canonical AS TEXT)`) are read as their
    UTF-8 bytes, which the verifier hashes like any others, not as a TypeError that made
    every read of the record a 500."""

    impl = LargeBinary
    cache_ok = True

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        return as_bytes


def as_bytes(value: Any) -> bytes | None:
    """A stored bytes value, whatever type SQLite kept it as (`StoredBytes`)."""
    if value is None:
        return None
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


# The one form SQLite keeps a time in: naive UTC text, as UTCDateTime binds it.
_SQLITE_TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}")


def stored_time(value: Any) -> datetime | str:
    """A stored time as the audit verifier compares it with a record's. On SQLite the text
    is read as it is (select it with `as_stored`): only the one form the service writes is a
    time. The same moment written another way (`T` for the space, an offset) stays text and
    so differs from every record's time: the reports compare and cut the text, so such a
    row would be counted on another day, or outside a period, with its record intact."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    text = str(value)
    if _SQLITE_TIME.fullmatch(text):
        try:
            return datetime.fromisoformat(text).replace(tzinfo=UTC)
        except ValueError:
            pass
    return text


def as_stored(column: Any, dialect: str) -> Any:
    """`column` (a time) selected as stored, for `stored_time`: SQLite's text unparsed."""
    return type_coerce(column, String) if dialect == "sqlite" else column


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Client(Base):
    """An operator: owns keys, rounds, its hash chain and idempotency records."""

    __tablename__ = "clients"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # The next deal's nonce (migration 0006): taken by an UPDATE, never counted.
    deals_made: Mapped[int] = mapped_column(BigInteger, server_default="0")


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


class ChainRecord(Base):
    """One hashed record (a round or a void) with the exact canonical bytes that were hashed.

    The canonical bytes are the source of truth. `kind` and `round_id` are copies kept for
    look-ups: a round finds its record by its `sequence`, and its void by `round_id` (the
    only records indexed by round, and at most one per round).
    `round_id` has no foreign key on purpose: a deleted round must show up in verification
    as a record whose rows are missing, not be refused silently by the database. Nor has
    `client_id` (migration 0016): a record is written only from its client's chain head,
    which has one, and a check per round that cannot fail cost PostgreSQL a query and a
    row lock on the client.
    """

    __tablename__ = "chain_records"
    __table_args__ = (
        # Partial: an index entry per round would cost WAL on every write for look-ups a
        # round's own sequence already answers.
        Index(
            "uq_chain_records_void",
            "client_id",
            "round_id",
            unique=True,
            sqlite_where=text("kind = 'void'"),
            postgresql_where=text("kind = 'void'"),
        ),
        # The voids in sequence order (migration 0020): a page of `round.voided` events.
        Index(
            "ix_chain_records_voids",
            "client_id",
            "sequence",
            sqlite_where=text("kind = 'void'"),
            postgresql_where=text("kind = 'void'"),
        ),
    )

    client_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    sequence: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(8))
    round_id: Mapped[str] = mapped_column(String(40))
    previous_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))
    canonical: Mapped[bytes] = mapped_column(StoredBytes)


def within(column: Any, since: datetime | None, until: datetime | None) -> list[Any]:
    """A period's conditions on `column`: from `since` (included) to `until` (excluded),
    either end open when None."""
    conditions = []
    if since is not None:
        conditions.append(column >= since)
    if until is not None:
        conditions.append(column < until)
    return conditions


def is_void(records: Any = ChainRecord) -> Any:
    """`kind = 'void'` written as a literal, so the planner may use the partial index on
    voids (a bound parameter would leave a cached generic plan unable to)."""
    return records.kind == literal_column("'void'")


class ChainHead(Base):
    """The last record of a client's chain, made with the client; every writer locks it.

    `previous_hash` is the hash before the head's, so the statement that advances the head
    on PostgreSQL can return both without reading the record first.
    """

    __tablename__ = "chain_heads"

    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"), primary_key=True)
    sequence: Mapped[int] = mapped_column(BigInteger)
    hash: Mapped[str] = mapped_column(String(64))
    previous_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # Set by every PostgreSQL write of the chain: whether its writer holds a signing key, so
    # that receipts of its records may be stored after them (`pending_receipts`) and the
    # webhook dispatcher waits for those of young records (migration 0028). SQLite stores a
    # receipt with its record and leaves it false.
    signing: Mapped[bool] = mapped_column(Boolean, server_default=false())


class ClientReference(Base):
    """A reference a round (`POST /v1/rounds`) or a Capsa Susun game has taken: the one
    place both sides insert into first, so the second of two at once waits for the first
    and is refused (migration 0029). A game's round at settlement takes none of its own."""

    __tablename__ = "client_references"

    client_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    reference: Mapped[str] = mapped_column(String(64), primary_key=True)


class ChainSignature(Base):
    """A record's receipt: the Ed25519 signature of its place in the chain, made once.

    Written beside the record, not in it, so the hashed bytes never change; no foreign key,
    for the same reason as `round_id`'s (a record deleted under its receipt must show up in
    verification). `kid` names the key in the keyring (`GET /v1/audit/keys`).
    """

    __tablename__ = "chain_signatures"

    client_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    sequence: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    kid: Mapped[str] = mapped_column(String(16))
    signature: Mapped[bytes] = mapped_column(LargeBinary)


class Round(Base):
    """A stored round's query columns (its facts are in its chain record, kind `round`, at
    `sequence` in the client's chain). No foreign key to its client, as its record has none
    (migration 0016): it is written only with that record."""

    __tablename__ = "rounds"
    __table_args__ = (
        # Partial: most rounds carry no reference or no table, and an index entry per write
        # costs WAL for nothing.
        Index(
            "uq_rounds_client_reference",
            "client_id",
            "reference",
            unique=True,
            sqlite_where=text("reference IS NOT NULL"),
            postgresql_where=text("reference IS NOT NULL"),
        ),
        PrimaryKeyConstraint("client_id", "id"),
        Index("ix_rounds_client_created", "client_id", "created_at", "id"),
        # Big Two rounds in sequence order (migration 0020): a page of
        # `banting.game.finished` events. Capsa Susun rounds write no entry in it.
        Index(
            "ix_rounds_banting",
            "client_id",
            "sequence",
            sqlite_where=text("game = 'banting'"),
            postgresql_where=text("game = 'banting'"),
        ),
        Index(
            "ix_rounds_client_table",
            "client_id",
            "table_ref",
            "created_at",
            sqlite_where=text("table_ref IS NOT NULL"),
            postgresql_where=text("table_ref IS NOT NULL"),
        ),
    )

    id: Mapped[str] = mapped_column(String(40))
    client_id: Mapped[str] = mapped_column(String(32))
    sequence: Mapped[int] = mapped_column(BigInteger)
    game: Mapped[str] = mapped_column(String(16))
    preset: Mapped[str] = mapped_column(String(64))
    table_ref: Mapped[str | None] = mapped_column(String(64), nullable=True)
    reference: Mapped[str | None] = mapped_column(String(64), nullable=True)
    currency: Mapped[str] = mapped_column(String(3))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class LedgerLine(Base):
    """A booked line in minor units, dated when booked (a round's time, or its void's).

    A line belongs to the record at its (client, sequence): its round is that record's. The
    account is `player:<player_id>`, or `house` where `player_id` is null. `basis` is the
    kind a line counts as in reports: its own kind, or for a reversal the kind it reverses.
    `points` and `winnings` ride on settlement lines (negated on their reversals) so player
    reports never read round documents. Line 0 of a record is always the first player's.
    The lines of one record sum to zero: the database refuses anything else.
    """

    __tablename__ = "ledger_lines"
    __table_args__ = (
        # Line 0 alone (migration 0017): client-wide periods find their records by it, and a
        # round writes one entry here instead of one per line.
        Index(
            "ix_ledger_lines_record_time",
            "client_id",
            "currency",
            "created_at",
            "sequence",
            sqlite_where=text("line_no = 0"),
            postgresql_where=text("line_no = 0"),
        ),
        Index(
            "ix_ledger_lines_player_time",
            "client_id",
            "player_id",
            "currency",
            "created_at",
            sqlite_where=text("player_id IS NOT NULL"),
            postgresql_where=text("player_id IS NOT NULL"),
        ),
    )

    client_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    sequence: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    line_no: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    player_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    kind: Mapped[str] = mapped_column(String(16))
    basis: Mapped[str] = mapped_column(String(16))
    amount: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    table_ref: Mapped[str | None] = mapped_column(String(64), nullable=True)
    points: Mapped[int] = mapped_column(BigInteger)
    winnings: Mapped[int] = mapped_column(BigInteger)


class IdempotencyRecord(Base):
    """A used Idempotency-Key, written in the same transaction as what it answered.

    There is no in-flight state: a key claimed by a request still running is that request's
    uncommitted row, which other requests wait for (PostgreSQL) or cannot see (SQLite
    serialises writers). `resource` names what the answer is rendered from (a round) when
    `response_body` is null; other answers are stored as sent. No foreign key to the client
    (migration 0016): a key is claimed only for the client its API key just authenticated.
    """

    __tablename__ = "idempotency_records"

    client_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    method: Mapped[str] = mapped_column(String(8), primary_key=True)
    path: Mapped[str] = mapped_column(String(255), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    resource: Mapped[str | None] = mapped_column(String(40), nullable=True)
    content_type: Mapped[str | None] = mapped_column(String(64), nullable=True)
    location: Mapped[str | None] = mapped_column(String(255), nullable=True)
    response_body: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class ServiceSecret(Base):
    """Secrets every worker must share (the view-link key when VIEW_LINK_SECRET is unset)."""

    __tablename__ = "service_secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


# -- Capsa Banting and deals ------------------------------------------------------------------


# The deals of each status (`GET /v1/deals?status=`), as `DealRepository.page` asks for them.
DEAL_STATUS_INDEXES = {
    "ix_deals_open": "used_at IS NULL AND revealed_at IS NULL",
    "ix_deals_revealed": "used_at IS NULL AND revealed_at IS NOT NULL",
    "ix_deals_used": "used_at IS NOT NULL",
}


class Deal(Base):
    """A provably fair deal: the seed stays secret until the deal is used or revealed."""

    __tablename__ = "deals"
    __table_args__ = (
        PrimaryKeyConstraint("client_id", "id"),
        UniqueConstraint("client_id", "nonce", name="uq_deals_client_nonce"),
        Index("ix_deals_client_created", "client_id", "created_at"),
        # A list by status reads its page from its own index (migration 0025).
        *(
            Index(name, "client_id", "created_at", "id", sqlite_where=text(where), postgresql_where=text(where))
            for name, where in DEAL_STATUS_INDEXES.items()
        ),
    )

    id: Mapped[str] = mapped_column(String(40))
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
    # Made from a commitment drawn before the client's seed was sent (null: the seed was
    # drawn in this deal's own request), and when that commitment was drawn.
    commitment_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    committed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class DealCommitment(Base):
    """A server seed drawn, and its nonce taken, before the client's seed is known: the
    commitment a client holds before it chooses its seed, used by one deal at most."""

    __tablename__ = "deal_commitments"
    __table_args__ = (
        PrimaryKeyConstraint("client_id", "id"),
        UniqueConstraint("client_id", "nonce", name="uq_deal_commitments_client_nonce"),
    )

    id: Mapped[str] = mapped_column(String(40))
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    nonce: Mapped[int] = mapped_column(BigInteger)
    server_seed: Mapped[bytes] = mapped_column(LargeBinary)
    commitment: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_by: Mapped[str | None] = mapped_column(String(40), nullable=True)  # the deal made from it


class Game(Base):
    """A Big Two game in play: mutable, every move bumps `version` (optimistic concurrency).

    `hands` are the dealt hands (server side only); the state is `moves` replayed on them.
    A finished game's round (with the moves and hands in its request) is its chain record.
    """

    __tablename__ = "games"
    __table_args__ = (
        PrimaryKeyConstraint("client_id", "id"),
        # Migration 0012: every reference names the client (a deal, round or match of
        # another client cannot be named, and under Citus the rows share a node).
        ForeignKeyConstraint(
            ["client_id", "deal_id"], ["deals.client_id", "deals.id"], name="fk_games_deal_id_deals"
        ),
        ForeignKeyConstraint(
            ["client_id", "round_id"], ["rounds.client_id", "rounds.id"], name="fk_games_round_id_rounds"
        ),
        ForeignKeyConstraint(
            ["client_id", "match_id"], ["matches.client_id", "matches.id"], name="fk_games_match_id_matches"
        ),
        Index("ix_games_client_created", "client_id", "created_at"),
        # Migration 0021: the timed games in play by deadline, the sweeper's look-up of the
        # turns that ran out (every client's games: an index of the due ones only).
        Index(
            "ix_games_deadline",
            "deadline",
            "client_id",
            "id",
            sqlite_where=text("deadline IS NOT NULL"),
            postgresql_where=text("deadline IS NOT NULL"),
        ),
    )

    id: Mapped[str] = mapped_column(String(40))
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    rules_json: Mapped[dict[str, Any]] = mapped_column(JSON)
    currency: Mapped[str] = mapped_column(String(3))
    stake: Mapped[int] = mapped_column(BigInteger)
    table_ref: Mapped[str | None] = mapped_column(String(64), nullable=True)
    players: Mapped[list[str]] = mapped_column(JSON)
    hands: Mapped[list[list[str]]] = mapped_column(JSON)
    deal_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    moves: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    winner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    round_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # Seconds per turn; null: untimed. Overdue turns are played for on the next access.
    turn_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Migration 0021: when the turn in play runs out (`timers.turn_deadline`); null when
    # untimed or ended. Written with the moves.
    deadline: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # Migration 0010: the match the game belongs to, and who leads it (first_lead previous_winner).
    match_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    leader: Mapped[str | None] = mapped_column(String(64), nullable=True)


class Match(Base):
    """A Big Two match (migration 0010): games of one table until a player reaches
    `target_points`. Migration 0026: `played` finished games, each a `match_games` row, and
    `totals`, the players' totals over those that count (a game's end writes one row and
    this one, whatever the match's length; the JSON list of every game it rewrote before
    cost 200 ms at 10,000 games)."""

    __tablename__ = "matches"
    __table_args__ = (
        PrimaryKeyConstraint("client_id", "id"),
        Index("ix_matches_client_created", "client_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40))
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    rules_json: Mapped[dict[str, Any]] = mapped_column(JSON)
    currency: Mapped[str] = mapped_column(String(3))
    stake: Mapped[int] = mapped_column(BigInteger)
    table_ref: Mapped[str | None] = mapped_column(String(64), nullable=True)
    players: Mapped[list[str]] = mapped_column(JSON)
    target_points: Mapped[int] = mapped_column(Integer)
    played: Mapped[int] = mapped_column(Integer)
    totals: Mapped[dict[str, int]] = mapped_column(JSON)
    current_game: Mapped[str | None] = mapped_column(String(40), nullable=True)
    version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


# A match has 2 to 4 players (Big Two's): a game's points and the totals after it are a
# column a seat, so that a void takes a game's points off every later game's totals in one
# UPDATE on both engines.
MATCH_SEATS = 4


class MatchGame(Base):
    """A finished game of a match (migration 0026): its number `n` from 1, game, round and
    winner; `void` once its round is voided; `points_<seat>` each seat's points from it and
    `total_<seat>` the standings after it over the games that count (null past the match's
    players)."""

    __tablename__ = "match_games"
    __table_args__ = (
        PrimaryKeyConstraint("client_id", "match_id", "n"),
        ForeignKeyConstraint(
            ["client_id", "match_id"], ["matches.client_id", "matches.id"], name="fk_match_games_match_id_matches"
        ),
        # Migration 0027: a void finds the game of its round by index (a round is one game
        # of one match at most), not among every game of the match.
        Index("ix_match_games_round", "client_id", "round_id", unique=True),
    )

    client_id: Mapped[str] = mapped_column(String(32))
    match_id: Mapped[str] = mapped_column(String(40))
    n: Mapped[int] = mapped_column(Integer)
    game_id: Mapped[str] = mapped_column(String(40))
    round_id: Mapped[str] = mapped_column(String(40))
    winner: Mapped[str] = mapped_column(String(64))
    void: Mapped[bool] = mapped_column(Boolean)
    points_0: Mapped[int] = mapped_column(BigInteger)
    points_1: Mapped[int] = mapped_column(BigInteger)
    points_2: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    points_3: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    total_0: Mapped[int] = mapped_column(BigInteger)
    total_1: Mapped[int] = mapped_column(BigInteger)
    total_2: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    total_3: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class SusunGame(Base):
    """A server-run Capsa Susun game: hands dealt, arrangements collected until the deadline.

    `submissions` maps a player id to what it sent (`arrangement` or `surrender`) and when;
    every change bumps `version`. Settling scores the round and records it as a chain
    record (`round_id`), in the transaction that moves `status` from arranging to settled.
    """

    __tablename__ = "susun_games"
    __table_args__ = (
        PrimaryKeyConstraint("client_id", "id"),
        ForeignKeyConstraint(
            ["client_id", "deal_id"], ["deals.client_id", "deals.id"], name="fk_susun_games_deal_id_deals"
        ),
        ForeignKeyConstraint(
            ["client_id", "round_id"], ["rounds.client_id", "rounds.id"], name="fk_susun_games_round_id_rounds"
        ),
        UniqueConstraint("client_id", "reference", name="uq_susun_games_client_reference"),
        Index("ix_susun_games_client_created", "client_id", "created_at"),
        Index("ix_susun_games_status_deadline", "status", "deadline"),
    )

    id: Mapped[str] = mapped_column(String(40))
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    rules_json: Mapped[dict[str, Any]] = mapped_column(JSON)
    currency: Mapped[str] = mapped_column(String(3))
    stake: Mapped[int] = mapped_column(BigInteger)
    table_ref: Mapped[str | None] = mapped_column(String(64), nullable=True)
    reference: Mapped[str | None] = mapped_column(String(64), nullable=True)
    players: Mapped[list[str]] = mapped_column(JSON)
    hands: Mapped[list[list[str]]] = mapped_column(JSON)
    deal_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    submissions: Mapped[dict[str, Any]] = mapped_column(JSON)
    arrange_seconds: Mapped[int] = mapped_column(Integer)
    deadline: Mapped[datetime] = mapped_column(UTCDateTime())
    version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    round_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    settled_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


# -- webhooks (the outbox is the chain: these are the dispatcher's state) ------------------------


class Webhook(Base):
    """An endpoint of a client and the event types it takes.

    `cursor` is the last chain sequence of the client the dispatcher has queued deliveries
    for; the secret signs every delivery, `previous_secret` too until `previous_secret_until`
    (a rotation). `failing_since` is the first failure since the last success.
    """

    __tablename__ = "webhooks"
    __table_args__ = (
        PrimaryKeyConstraint("client_id", "id"),
        Index("ix_webhooks_client_created", "client_id", "created_at"),
        # Migration 0027: the endpoints deleted with a backlog, which the dispatchers purge
        # (their minute's look-up reads these alone, not every client's endpoints).
        Index(
            "ix_webhooks_deleted",
            "client_id",
            "id",
            sqlite_where=text("disabled_reason = 'deleted'"),
            postgresql_where=text("disabled_reason = 'deleted'"),
        ),
    )

    id: Mapped[str] = mapped_column(String(40))
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"))
    url: Mapped[str] = mapped_column(String(2048))
    events: Mapped[list[str]] = mapped_column(JSON)
    description: Mapped[str | None] = mapped_column(String(500), nullable=True)
    enabled: Mapped[bool] = mapped_column(Boolean)
    disabled_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)
    secret: Mapped[str] = mapped_column(String(80))
    previous_secret: Mapped[str | None] = mapped_column(String(80), nullable=True)
    previous_secret_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    cursor: Mapped[int] = mapped_column(BigInteger)
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # Migration 0022: when it was enabled again; its deliveries queued before this are made
    # due at once by the dispatcher, a batch a pass, and then it is cleared. Read only there.
    resume_before: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class WebhookDelivery(Base):
    """One event queued for one endpoint: `pending` until delivered, when the row is deleted
    (migration 0019; its attempts stay in `webhook_attempts`), or `failed` for good, kept
    until a redelivery makes it due again, its endpoint is deleted, or its last attempt is
    deleted past the attempts' retention (`WEBHOOK_ATTEMPTS_KEEP`).

    While a dispatcher holds it, `next_attempt_at` is the end of its lease and `claim` its
    token: a dispatcher that dies leaves the delivery due again when the lease ends.
    """

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        PrimaryKeyConstraint("client_id", "webhook_id", "event_id"),
        # Each endpoint's due deliveries in claim order, and the claimed ones (migration 0015).
        Index(
            "ix_webhook_deliveries_endpoint_due",
            "client_id", "webhook_id", "next_attempt_at", "sequence", "event_id",
            sqlite_where=text("state = 'pending'"),
            postgresql_where=text("state = 'pending'"),
        ),
        Index(
            "ix_webhook_deliveries_claimed",
            "client_id", "webhook_id",
            sqlite_where=text("claim IS NOT NULL"),
            postgresql_where=text("claim IS NOT NULL"),
        ),
    )

    webhook_id: Mapped[str] = mapped_column(String(40))
    event_id: Mapped[str] = mapped_column(String(64))
    client_id: Mapped[str] = mapped_column(String(32))
    sequence: Mapped[int] = mapped_column(BigInteger)
    event_type: Mapped[str] = mapped_column(String(32))
    event_at: Mapped[datetime] = mapped_column(UTCDateTime())
    state: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime())
    claim: Mapped[str | None] = mapped_column(String(32), nullable=True)
    last_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class WebhookAttempt(Base):
    """One HTTP attempt of a delivery: when, the outcome, the status, the latency, the error.

    The key is (client_id, id) on PostgreSQL (migration 0012); SQLite keeps `id` alone as
    its INTEGER PRIMARY KEY, the only column it numbers by itself (it is never sharded).
    """

    __tablename__ = "webhook_attempts"
    __table_args__ = (
        PrimaryKeyConstraint("client_id", "id"),
        Index("ix_webhook_attempts_webhook", "client_id", "webhook_id", "id"),
    )

    client_id: Mapped[str] = mapped_column(String(32))
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"), autoincrement=True)
    webhook_id: Mapped[str] = mapped_column(String(40))
    event_id: Mapped[str] = mapped_column(String(64))
    attempted_at: Mapped[datetime] = mapped_column(UTCDateTime())
    outcome: Mapped[str] = mapped_column(String(16))
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    latency_ms: Mapped[int] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(255), nullable=True)


class DispatcherLease(Base):
    """The lease the one active SQLite dispatcher holds and renews."""

    __tablename__ = "dispatcher_leases"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    holder: Mapped[str] = mapped_column(String(64))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ExactInteger(TypeDecorator[int]):
    """An integer of any size, exact on every engine: NUMERIC(40, 0) on PostgreSQL, its
    decimal text on SQLite (whose integers stop at 2^63). A rollup's total is the sum of
    up to millions of amounts of up to 10^18 minor units each."""

    impl = Numeric(40, 0)
    cache_ok = True

    def load_dialect_impl(self, dialect: Any) -> Any:
        return dialect.type_descriptor(String(40) if dialect.name == "sqlite" else Numeric(40, 0))

    def process_bind_param(self, value: int | None, dialect: Any) -> Any:
        if value is None:
            return None
        return str(int(value)) if dialect.name == "sqlite" else int(value)

    def process_result_value(self, value: Any, dialect: Any) -> int | None:
        return None if value is None else int(value)


class LedgerRollup(Base):
    """A client's ledger totals per currency and group, over the records up to its cursor
    (`ledger_rollup_cursors`): what an all-time report adds the later records' lines to.

    `grouping` is what `key` names: `player` (a player id; '' for the house's lines),
    `table` (a table; '' for none), `day` (a UTC date) or `quarter` (a UTC quarter hour,
    'YYYY-MM-DDTHH:MM', gathered into a zone's days at read). Rounds count as each report
    counts them: per settlement line by player, per record (line 0) otherwise."""

    __tablename__ = "ledger_rollups"

    client_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    currency: Mapped[str] = mapped_column(String(3), primary_key=True)
    grouping: Mapped[str] = mapped_column(String(8), primary_key=True)
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    rounds: Mapped[int] = mapped_column(ExactInteger())
    points: Mapped[int] = mapped_column(ExactInteger())
    result: Mapped[int] = mapped_column(ExactInteger())
    winnings: Mapped[int] = mapped_column(ExactInteger())
    fees: Mapped[int] = mapped_column(ExactInteger())
    net: Mapped[int] = mapped_column(ExactInteger())
    house: Mapped[int] = mapped_column(ExactInteger())


class LedgerRollupCursor(Base):
    """How far a client's rollups reach: every line of its records 1..`sequence` is in
    them, none after. One fold at a time moves it (the row is its lock)."""

    __tablename__ = "ledger_rollup_cursors"

    client_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    sequence: Mapped[int] = mapped_column(BigInteger)
