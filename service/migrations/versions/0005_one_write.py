"""one round, one write: each fact stored once, the chain record as the source of truth

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 09:00:00.000000

A stored round was kept about five times (the raw request, the normalised request, the
rules, the document, and the hashed record) and written in 10-17 round trips. From here:

- `chain_records.canonical` (the hashed bytes) is the one copy of a round's or void's
  request, rules, document and lines. `rounds` keeps only its query columns; the
  JSON columns, `status` (a void is its own record) and `house_fee` go. `round_players`
  (a player filter now reads the ledger) and `round_pairs` (never read) are dropped, and
  `round_voids` with them: a void is the record of kind `void`, one per round at most
  (unique `(round_id, kind)`).
- `ledger_lines` keeps its report columns, keyed by (client, sequence, line_no): a line's
  round is its record's. `account` (derived from `player_id`), `rounds` (derived from kind
  and basis), `round_id` and the surrogate id go, and so do its foreign keys (every line is
  checked against its hashed record by the verifier instead, at no cost per write).
- `rounds`' reference and table indexes skip the rows without one (no index entry, no WAL).
- `chain_heads.previous_hash`, so the statement that advances the head returns it, and a
  head for every client (made with the client from now on).
- `idempotency_records` lose their in-flight state and their surrogate id (the key is the
  primary key): a claim is now written in the same transaction as the answer. Rounds are
  replayed from their record (`resource`), other answers from the stored bytes, as before.
  Markers still in flight are dropped.
- PostgreSQL: the balance check runs once per statement and record on the lines the
  statement wrote (transition tables), instead of once per line; `capsa_refuse()` lets the
  one-statement write abort itself when its key or deal was taken. SQLite: a trigger
  refuses a chain record whose lines do not sum to zero.

Every stored record keeps its bytes, so every hash stays valid. The downgrade rebuilds the
dropped columns and tables from the records.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# A migration keeps its own copy of what it writes: it must not change when the code does.
GENESIS = "0" * 64

# -- PostgreSQL: statement-level balance check, refusal ---------------------------------------

# 0002's compression of the round's JSON columns, for the columns the downgrade adds back (a
# server built without lz4 keeps pglz, as 0002 did).
ROUND_COLUMNS_LZ4 = """
DO $$
BEGIN
    ALTER TABLE rounds ALTER COLUMN document SET COMPRESSION lz4,
                       ALTER COLUMN request_json SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
    NULL;
END $$
"""

BALANCED_FUNCTION = """
CREATE FUNCTION ledger_records_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bad record;
BEGIN
    -- The lines a statement wrote or removed, per record: their sum must not move. Every
    -- record starts empty (sum 0), so every record's lines always sum to zero.
    IF TG_OP = 'INSERT' THEN
        SELECT client_id, sequence, SUM(amount) AS total INTO bad FROM new_lines
         GROUP BY client_id, sequence HAVING SUM(amount) <> 0 LIMIT 1;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT client_id, sequence, -SUM(amount) AS total INTO bad FROM old_lines
         GROUP BY client_id, sequence HAVING SUM(amount) <> 0 LIMIT 1;
    ELSE
        SELECT client_id, sequence, SUM(amount) AS total INTO bad FROM (
            SELECT client_id, sequence, amount FROM new_lines
            UNION ALL SELECT client_id, sequence, -amount FROM old_lines) AS moved
         GROUP BY client_id, sequence HAVING SUM(amount) <> 0 LIMIT 1;
    END IF;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger lines of record % of client % would sum to %, not 0',
            bad.sequence, bad.client_id, bad.total
            USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_lines_balanced';
    END IF;
    RETURN NULL;
END $$
"""
BALANCED_TRIGGERS = (
    "CREATE TRIGGER ledger_lines_balanced_insert AFTER INSERT ON ledger_lines"
    " REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION ledger_records_balanced()",
    "CREATE TRIGGER ledger_lines_balanced_update AFTER UPDATE ON ledger_lines"
    " REFERENCING OLD TABLE AS old_lines NEW TABLE AS new_lines FOR EACH STATEMENT"
    " EXECUTE FUNCTION ledger_records_balanced()",
    "CREATE TRIGGER ledger_lines_balanced_delete AFTER DELETE ON ledger_lines"
    " REFERENCING OLD TABLE AS old_lines FOR EACH STATEMENT EXECUTE FUNCTION ledger_records_balanced()",
)
REFUSE_FUNCTION = """
CREATE FUNCTION capsa_refuse(code text) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    -- The one-statement write aborts itself with this code (CP001: Idempotency-Key taken,
    -- CP002: deal used), so a refused request writes nothing.
    RAISE EXCEPTION 'capsa refused the write: %', code USING ERRCODE = code;
END $$
"""
# 0004's per-line deferred check, for the downgrade.
OLD_BALANCED_FUNCTION = """
CREATE FUNCTION ledger_lines_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total numeric;
BEGIN
    EXECUTE 'SELECT COALESCE(SUM(amount), 0) FROM ledger_lines WHERE client_id = $1 AND sequence = $2'
       INTO total USING NEW.client_id, NEW.sequence;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger lines of record % of client % sum to %, not 0',
            NEW.sequence, NEW.client_id, total
            USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_lines_balanced';
    END IF;
    RETURN NULL;
END $$
"""
OLD_BALANCED_TRIGGER = """
CREATE CONSTRAINT TRIGGER ledger_lines_balanced
AFTER INSERT OR UPDATE ON ledger_lines
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION ledger_lines_balanced()
"""

# -- SQLite: the database refuses a record whose lines do not sum to zero ---------------------

SQLITE_BALANCED_TRIGGER = """
CREATE TRIGGER ledger_lines_balanced AFTER INSERT ON chain_records
WHEN (SELECT COALESCE(SUM(amount), 0) FROM ledger_lines
       WHERE client_id = NEW.client_id AND sequence = NEW.sequence) <> 0
BEGIN
    SELECT RAISE(ABORT, 'ledger_lines_balanced: the lines of this record do not sum to zero');
END
"""


def _ledger_columns() -> list[sa.Column[object]]:
    return [
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("sequence", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("line_no", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("basis", sa.String(length=16), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("table_ref", sa.String(length=64), nullable=True),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("winnings", sa.BigInteger(), nullable=False),
    ]


_LEDGER_COPY = (
    "client_id, sequence, line_no, created_at, player_id, kind, basis, amount, currency,"
    " table_ref, points, winnings"
)


def _ledger_indexes() -> None:
    op.create_index("ix_ledger_lines_currency_time", "ledger_lines", ["client_id", "currency", "created_at"])
    op.create_index(
        "ix_ledger_lines_player_time",
        "ledger_lines",
        ["client_id", "player_id", "currency", "created_at"],
        sqlite_where=sa.text("player_id IS NOT NULL"),
        postgresql_where=sa.text("player_id IS NOT NULL"),
    )


def upgrade() -> None:
    pg = op.get_bind().dialect.name == "postgresql"
    if pg:
        op.execute("DROP TRIGGER IF EXISTS ledger_lines_balanced ON ledger_lines")
        op.execute("DROP FUNCTION IF EXISTS ledger_lines_balanced()")

    # Chain heads: the hash before the head, and a head for every client.
    op.add_column("chain_heads", sa.Column("previous_hash", sa.String(length=64), nullable=True))
    op.execute(
        "UPDATE chain_heads SET previous_hash = COALESCE((SELECT c.previous_hash FROM chain_records c"
        " WHERE c.client_id = chain_heads.client_id AND c.sequence = chain_heads.sequence),"
        f" '{GENESIS}')"
    )
    op.execute(
        "INSERT INTO chain_heads (client_id, sequence, hash, previous_hash, created_at)"
        f" SELECT id, 0, '{GENESIS}', '{GENESIS}', NULL FROM clients"
        " WHERE id NOT IN (SELECT client_id FROM chain_heads)"
    )
    with op.batch_alter_table("chain_heads") as batch:
        batch.alter_column("previous_hash", existing_type=sa.String(length=64), nullable=False)

    # A round names its record's sequence (while the old round index still finds it).
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("sequence", sa.BigInteger(), nullable=True))
    op.execute(
        "UPDATE rounds SET sequence = (SELECT c.sequence FROM chain_records c WHERE c.round_id = rounds.id"
        " AND c.kind = 'round' AND c.client_id = rounds.client_id)"
    )
    with op.batch_alter_table("rounds") as batch:
        batch.alter_column("sequence", existing_type=sa.BigInteger(), nullable=False)

    # Chain records: the bytes are the record. A round's record is found by the round's
    # sequence; only voids are indexed by round, which also allows one void per round.
    with op.batch_alter_table("chain_records") as batch:
        batch.drop_index("ix_chain_records_round")
        batch.drop_column("created_at")
    op.create_index(
        "uq_chain_records_void",
        "chain_records",
        ["round_id"],
        unique=True,
        sqlite_where=sa.text("kind = 'void'"),
        postgresql_where=sa.text("kind = 'void'"),
    )

    # What the records hold and nothing reads.
    op.drop_index("ix_round_players_player", table_name="round_players")
    op.drop_table("round_players")
    op.drop_table("round_pairs")
    op.drop_table("round_voids")

    # Ledger lines: report columns only, keyed by their record.
    if pg:
        op.execute("DROP INDEX ix_ledger_lines_round")
        op.execute("DROP INDEX ix_ledger_lines_currency_time")
        op.execute("DROP INDEX ix_ledger_lines_player_time")
        op.execute(
            "ALTER TABLE ledger_lines DROP CONSTRAINT fk_ledger_lines_client_id_clients,"
            " DROP CONSTRAINT fk_ledger_lines_round_id_rounds, DROP CONSTRAINT pk_ledger_lines,"
            " DROP CONSTRAINT uq_ledger_lines_record_line,"
            " DROP COLUMN id, DROP COLUMN account, DROP COLUMN rounds, DROP COLUMN round_id"
        )
        op.execute(
            "ALTER TABLE ledger_lines ADD CONSTRAINT pk_ledger_lines PRIMARY KEY (client_id, sequence, line_no)"
        )
    else:
        op.create_table(
            "ledger_lines_0005",
            *_ledger_columns(),
            sa.PrimaryKeyConstraint("client_id", "sequence", "line_no", name="pk_ledger_lines"),
        )
        op.execute(f"INSERT INTO ledger_lines_0005 ({_LEDGER_COPY}) SELECT {_LEDGER_COPY} FROM ledger_lines")
        op.drop_table("ledger_lines")
        op.rename_table("ledger_lines_0005", "ledger_lines")
    _ledger_indexes()

    # Rounds: the query columns.
    with op.batch_alter_table("rounds") as batch:
        batch.drop_index("ix_rounds_client_table")
        batch.drop_constraint("uq_rounds_client_reference", type_="unique")
        for column in ("status", "engine_version", "request_raw", "request_json", "rules_json", "document", "house_fee"):
            batch.drop_column(column)
    op.create_index(
        "ix_rounds_client_table",
        "rounds",
        ["client_id", "table_ref", "created_at"],
        sqlite_where=sa.text("table_ref IS NOT NULL"),
        postgresql_where=sa.text("table_ref IS NOT NULL"),
    )
    op.create_index(
        "uq_rounds_client_reference",
        "rounds",
        ["client_id", "reference"],
        unique=True,
        sqlite_where=sa.text("reference IS NOT NULL"),
        postgresql_where=sa.text("reference IS NOT NULL"),
    )

    # Idempotency: no in-flight state; rounds replay from their record.
    op.execute("DELETE FROM idempotency_records WHERE state <> 'done' OR status_code IS NULL")
    if pg:
        op.execute(
            "ALTER TABLE idempotency_records DROP CONSTRAINT uq_idempotency_client_method_path_key,"
            " DROP CONSTRAINT pk_idempotency_records, DROP COLUMN id, DROP COLUMN state,"
            " ADD COLUMN resource varchar(40), ALTER COLUMN status_code SET NOT NULL"
        )
        op.execute(
            "ALTER TABLE idempotency_records ADD CONSTRAINT pk_idempotency_records"
            " PRIMARY KEY (client_id, method, path, key)"
        )
    else:  # SQLite keeps no constraint names to drop by: the table is made again
        op.create_table(
            "idempotency_0005",
            sa.Column("client_id", sa.String(length=32), nullable=False),
            sa.Column("method", sa.String(length=8), nullable=False),
            sa.Column("path", sa.String(length=255), nullable=False),
            sa.Column("key", sa.String(length=255), nullable=False),
            sa.Column("request_hash", sa.String(length=64), nullable=False),
            sa.Column("status_code", sa.Integer(), nullable=False),
            sa.Column("resource", sa.String(length=40), nullable=True),
            sa.Column("content_type", sa.String(length=64), nullable=True),
            sa.Column("location", sa.String(length=255), nullable=True),
            sa.Column("response_body", sa.LargeBinary(), nullable=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.ForeignKeyConstraint(["client_id"], ["clients.id"], name="fk_idempotency_records_client_id_clients"),
            sa.PrimaryKeyConstraint("client_id", "method", "path", "key", name="pk_idempotency_records"),
        )
        columns = "client_id, method, path, key, request_hash, status_code, content_type, location, response_body, created_at"
        op.execute(f"INSERT INTO idempotency_0005 ({columns}) SELECT {columns} FROM idempotency_records")
        op.drop_index("ix_idempotency_records_created_at", table_name="idempotency_records")
        op.drop_table("idempotency_records")
        op.rename_table("idempotency_0005", "idempotency_records")
        op.create_index("ix_idempotency_records_created_at", "idempotency_records", ["created_at"])

    if pg:
        op.execute(BALANCED_FUNCTION)
        for trigger in BALANCED_TRIGGERS:
            op.execute(trigger)
        op.execute(REFUSE_FUNCTION)
    else:
        op.execute(SQLITE_BALANCED_TRIGGER)


# -- downgrade: rebuild what 0004 kept from the records -----------------------------------------


def _minor(amount: str) -> int:
    """A document's money string in minor units (it carries exactly the minor digits)."""
    return int(amount.replace(".", ""))


def downgrade() -> None:
    bind = op.get_bind()
    pg = bind.dialect.name == "postgresql"
    if pg:
        for name in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS ledger_lines_balanced_{name} ON ledger_lines")
        op.execute("DROP FUNCTION IF EXISTS ledger_records_balanced()")
        op.execute("DROP FUNCTION IF EXISTS capsa_refuse(text)")
    else:
        op.execute("DROP TRIGGER IF EXISTS ledger_lines_balanced")

    # Idempotency: rounds answered from their record cannot be replayed by 0004: drop them.
    op.execute("DELETE FROM idempotency_records WHERE response_body IS NULL")
    # PostgreSQL names must be unique while both tables exist; SQLite keeps names per table.
    pk, fk = ("pk_idempotency_0004", "fk_idempotency_0004_client_id_clients") if pg else (
        "pk_idempotency_records", "fk_idempotency_records_client_id_clients")
    op.create_table(
        "idempotency_0004",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("method", sa.String(length=8), nullable=False),
        sa.Column("path", sa.String(length=255), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("content_type", sa.String(length=64), nullable=True),
        sa.Column("location", sa.String(length=255), nullable=True),
        sa.Column("response_body", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], name=fk),
        sa.PrimaryKeyConstraint("id", name=pk),
    )
    columns = "client_id, method, path, key, request_hash, status_code, content_type, location, response_body, created_at"
    op.execute(
        f"INSERT INTO idempotency_0004 ({columns}, state) SELECT {columns}, 'done' FROM idempotency_records"
        " ORDER BY created_at"
    )
    op.drop_index("ix_idempotency_records_created_at", table_name="idempotency_records")
    op.drop_table("idempotency_records")
    op.rename_table("idempotency_0004", "idempotency_records")
    if pg:
        op.execute("ALTER TABLE idempotency_records RENAME CONSTRAINT pk_idempotency_0004 TO pk_idempotency_records")
        op.execute(
            "ALTER TABLE idempotency_records RENAME CONSTRAINT fk_idempotency_0004_client_id_clients"
            " TO fk_idempotency_records_client_id_clients"
        )
        op.execute("ALTER SEQUENCE idempotency_0004_id_seq RENAME TO idempotency_records_id_seq")
    with op.batch_alter_table("idempotency_records") as batch:
        batch.create_unique_constraint("uq_idempotency_client_method_path_key", ["client_id", "method", "path", "key"])
        batch.create_index("ix_idempotency_records_created_at", ["created_at"])

    # Rounds: the columns back, filled from the records below.
    op.drop_index("ix_rounds_client_table", table_name="rounds")
    op.drop_index("uq_rounds_client_reference", table_name="rounds")
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("sequence")
        batch.create_unique_constraint("uq_rounds_client_reference", ["client_id", "reference"])
        batch.add_column(sa.Column("status", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("engine_version", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("request_raw", sa.Text(), nullable=True))
        batch.add_column(sa.Column("request_json", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("rules_json", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("document", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("house_fee", sa.BigInteger(), nullable=True))
        batch.create_index("ix_rounds_client_table", ["client_id", "table_ref"])
    if pg:
        op.execute(ROUND_COLUMNS_LZ4)  # as 0002 made them (the columns came back without it)

    op.create_table(
        "round_voids",
        sa.Column("round_id", sa.String(length=40), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("sequence", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("engine_version", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], name="fk_round_voids_client_id_clients"),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name="fk_round_voids_round_id_rounds"),
        sa.PrimaryKeyConstraint("round_id", name="pk_round_voids"),
    )
    op.create_table(
        "round_pairs",
        sa.Column("round_id", sa.String(length=40), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("player_a", sa.String(length=64), nullable=False),
        sa.Column("player_b", sa.String(length=64), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name="fk_round_pairs_round_id_rounds"),
        sa.PrimaryKeyConstraint("round_id", "position", name="pk_round_pairs"),
    )
    op.create_table(
        "round_players",
        sa.Column("round_id", sa.String(length=40), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("result", sa.BigInteger(), nullable=False),
        sa.Column("winnings", sa.BigInteger(), nullable=False),
        sa.Column("fee", sa.BigInteger(), nullable=False),
        sa.Column("net", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name="fk_round_players_round_id_rounds"),
        sa.PrimaryKeyConstraint("round_id", "seat", name="pk_round_players"),
    )
    op.create_index("ix_round_players_player", "round_players", ["player_id", "round_id"])

    op.drop_index("uq_chain_records_void", table_name="chain_records")
    with op.batch_alter_table("chain_records") as batch:
        batch.add_column(sa.Column("created_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_chain_records_round", ["round_id", "kind"])

    _rebuild_from_records(bind)

    with op.batch_alter_table("chain_records") as batch:
        batch.alter_column("created_at", existing_type=sa.DateTime(timezone=True), nullable=False)
    with op.batch_alter_table("rounds") as batch:
        for column, type_ in (
            ("status", sa.String(length=16)),
            ("engine_version", sa.String(length=32)),
            ("request_raw", sa.Text()),
            ("request_json", sa.JSON()),
            ("rules_json", sa.JSON()),
            ("document", sa.JSON()),
            ("house_fee", sa.BigInteger()),
        ):
            batch.alter_column(column, existing_type=type_, nullable=False)

    # Ledger lines: the surrogate id, account, rounds and the foreign keys back.
    op.drop_index("ix_ledger_lines_player_time", table_name="ledger_lines")
    op.drop_index("ix_ledger_lines_currency_time", table_name="ledger_lines")
    account = "CASE WHEN player_id IS NULL THEN 'house' ELSE 'player:' || player_id END"
    rounds = "CASE WHEN kind = 'settlement' THEN 1 WHEN kind = 'reversal' AND basis = 'settlement' THEN -1 ELSE 0 END"
    round_of = (
        "(SELECT c.round_id FROM chain_records c"
        " WHERE c.client_id = ledger_lines.client_id AND c.sequence = ledger_lines.sequence)"
    )
    if pg:
        op.execute("ALTER TABLE ledger_lines DROP CONSTRAINT pk_ledger_lines")
        op.execute(
            "ALTER TABLE ledger_lines ADD COLUMN account varchar(72), ADD COLUMN rounds integer,"
            " ADD COLUMN round_id varchar(40), ADD COLUMN id bigserial"
        )
        op.execute(f"UPDATE ledger_lines SET account = {account}, rounds = {rounds}, round_id = {round_of}")
        op.execute(
            "ALTER TABLE ledger_lines ALTER COLUMN account SET NOT NULL, ALTER COLUMN rounds SET NOT NULL,"
            " ALTER COLUMN round_id SET NOT NULL,"
            " ADD CONSTRAINT pk_ledger_lines PRIMARY KEY (id),"
            " ADD CONSTRAINT uq_ledger_lines_record_line UNIQUE (client_id, sequence, line_no),"
            " ADD CONSTRAINT fk_ledger_lines_client_id_clients FOREIGN KEY (client_id) REFERENCES clients (id),"
            " ADD CONSTRAINT fk_ledger_lines_round_id_rounds FOREIGN KEY (round_id) REFERENCES rounds (id)"
        )
    else:
        op.create_table(
            "ledger_lines_0004",
            sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
            *_ledger_columns(),
            sa.Column("round_id", sa.String(length=40), nullable=False),
            sa.Column("account", sa.String(length=72), nullable=False),
            sa.Column("rounds", sa.Integer(), nullable=False),
            sa.ForeignKeyConstraint(["client_id"], ["clients.id"], name="fk_ledger_lines_client_id_clients"),
            sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name="fk_ledger_lines_round_id_rounds"),
            sa.PrimaryKeyConstraint("id", name="pk_ledger_lines"),
            sa.UniqueConstraint("client_id", "sequence", "line_no", name="uq_ledger_lines_record_line"),
        )
        op.execute(
            f"INSERT INTO ledger_lines_0004 ({_LEDGER_COPY}, round_id, account, rounds)"
            f" SELECT {_LEDGER_COPY}, {round_of}, {account}, {rounds} FROM ledger_lines"
            " ORDER BY created_at, sequence, line_no"
        )
        op.drop_table("ledger_lines")
        op.rename_table("ledger_lines_0004", "ledger_lines")
    op.create_index("ix_ledger_lines_currency_time", "ledger_lines", ["client_id", "currency", "created_at", "id"])
    op.create_index("ix_ledger_lines_player_time", "ledger_lines", ["client_id", "player_id", "currency", "created_at"])
    op.create_index("ix_ledger_lines_round", "ledger_lines", ["round_id"])

    with op.batch_alter_table("chain_heads") as batch:
        batch.drop_column("previous_hash")
    if pg:
        op.execute(OLD_BALANCED_FUNCTION)
        op.execute(OLD_BALANCED_TRIGGER)


def _rebuild_from_records(bind: sa.engine.Connection) -> None:
    """Fill 0004's round columns, players, pairs, voids and record times from the records."""
    from datetime import datetime

    meta = sa.MetaData()
    rounds = sa.Table("rounds", meta, autoload_with=bind)
    players = sa.Table("round_players", meta, autoload_with=bind)
    pairs = sa.Table("round_pairs", meta, autoload_with=bind)
    voids = sa.Table("round_voids", meta, autoload_with=bind)
    records = sa.Table("chain_records", meta, autoload_with=bind)
    rows = bind.execute(
        sa.select(records.c.client_id, records.c.sequence, records.c.kind, records.c.round_id, records.c.canonical)
    ).all()
    voided = {r.round_id for r in rows if r.kind == "void"}
    for client_id, sequence, kind, round_id, canonical in rows:
        record = json.loads(bytes(canonical))  # type: ignore[call-overload]  # a reflected row's bytes
        created = datetime.fromisoformat(record["created_at"].replace("Z", "+00:00"))
        stored_created = created.replace(tzinfo=None) if bind.dialect.name == "sqlite" else created
        bind.execute(
            records.update()
            .where(records.c.client_id == client_id, records.c.sequence == sequence)
            .values(created_at=stored_created)
        )
        if kind == "void":
            reason = record["request"]["reason"]
            bind.execute(
                voids.insert().values(
                    round_id=round_id,
                    client_id=client_id,
                    sequence=sequence,
                    reason=reason,
                    engine_version=record["engine_version"],
                    created_at=stored_created,
                )
            )
            continue
        document, request = record["result"], record["request"]
        bind.execute(
            rounds.update()
            .where(rounds.c.id == round_id)
            .values(
                status="void" if round_id in voided else "settled",
                engine_version=record["engine_version"],
                request_raw=json.dumps(request, separators=(",", ":"), ensure_ascii=False),
                request_json=request,
                rules_json=document["rules"],
                document=document,
                house_fee=_minor(document["house_fee"]),
            )
        )
        for seat, p in enumerate(document["players"]):
            bind.execute(
                players.insert().values(
                    round_id=round_id,
                    seat=seat,
                    player_id=p["id"],
                    points=p["points"],
                    result=_minor(p["result"]),
                    winnings=_minor(p["winnings"]),
                    fee=_minor(p["fee"]),
                    net=_minor(p["net"]),
                )
            )
        for position, q in enumerate(document["pairs"]):
            bind.execute(
                pairs.insert().values(
                    round_id=round_id,
                    position=position,
                    player_a=q["players"][0],
                    player_b=q["players"][1],
                    stake=_minor(q["stake"]),
                    points=q["points"],
                    amount=_minor(q["amount"]),
                    outcome=q["outcome"],
                )
            )
