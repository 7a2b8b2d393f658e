"""audit trail: hash chain, ledger lines, voids, service secrets; balanced-lines guard

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 08:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

# PostgreSQL refuses, at commit, a transaction in which the lines of one record do not sum
# to zero (SQLite runs the same check in code before commit: it has no deferred triggers).
BALANCED_FUNCTION = """
CREATE FUNCTION ledger_lines_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total numeric;
BEGIN
    SELECT COALESCE(SUM(amount), 0) INTO total FROM ledger_lines
     WHERE client_id = NEW.client_id AND sequence = NEW.sequence;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger lines of record % of client % sum to %, not 0',
            NEW.sequence, NEW.client_id, total
            USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_lines_balanced';
    END IF;
    RETURN NULL;
END $$
"""
BALANCED_TRIGGER = """
CREATE CONSTRAINT TRIGGER ledger_lines_balanced
AFTER INSERT OR UPDATE ON ledger_lines
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION ledger_lines_balanced()
"""

# The verifier reads every record's JSON columns and canonical bytes: lz4 decompresses them
# several times faster than the default pglz (a server built without lz4 keeps pglz).
LZ4_COLUMNS = """
DO $$
BEGIN
    ALTER TABLE rounds ALTER COLUMN document SET COMPRESSION lz4,
                       ALTER COLUMN request_json SET COMPRESSION lz4;
    ALTER TABLE chain_records ALTER COLUMN canonical SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
    NULL;
END $$
"""


def upgrade() -> None:
    op.create_table(
        "chain_records",
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("sequence", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("round_id", sa.String(length=40), nullable=False),
        sa.Column("previous_hash", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("canonical", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_chain_records_client_id_clients")
        ),
        sa.PrimaryKeyConstraint("client_id", "sequence", name=op.f("pk_chain_records")),
    )
    with op.batch_alter_table("chain_records", schema=None) as batch_op:
        batch_op.create_index("ix_chain_records_round", ["round_id", "kind"], unique=False)

    op.create_table(
        "chain_heads",
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("sequence", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_chain_heads_client_id_clients")
        ),
        sa.PrimaryKeyConstraint("client_id", name=op.f("pk_chain_heads")),
    )

    op.create_table(
        "ledger_lines",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("round_id", sa.String(length=40), nullable=False),
        sa.Column("sequence", sa.BigInteger(), nullable=False),
        sa.Column("line_no", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("account", sa.String(length=72), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("basis", sa.String(length=16), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("table_ref", sa.String(length=64), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("winnings", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_ledger_lines_client_id_clients")
        ),
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name=op.f("fk_ledger_lines_round_id_rounds")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_lines")),
        sa.UniqueConstraint(
            "client_id", "sequence", "line_no", name="uq_ledger_lines_record_line"
        ),
    )
    with op.batch_alter_table("ledger_lines", schema=None) as batch_op:
        batch_op.create_index(
            "ix_ledger_lines_currency_time",
            ["client_id", "currency", "created_at", "id"],
            unique=False,
        )
        batch_op.create_index(
            "ix_ledger_lines_player_time",
            ["client_id", "player_id", "currency", "created_at"],
            unique=False,
        )
        batch_op.create_index("ix_ledger_lines_round", ["round_id"], unique=False)

    op.create_table(
        "round_voids",
        sa.Column("round_id", sa.String(length=40), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("sequence", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("engine_version", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_round_voids_client_id_clients")
        ),
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name=op.f("fk_round_voids_round_id_rounds")
        ),
        sa.PrimaryKeyConstraint("round_id", name=op.f("pk_round_voids")),
    )

    op.create_table(
        "service_secrets",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_service_secrets")),
    )

    if op.get_bind().dialect.name == "postgresql":
        op.execute(BALANCED_FUNCTION)
        op.execute(BALANCED_TRIGGER)
        op.execute(LZ4_COLUMNS)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS ledger_lines_balanced ON ledger_lines")
        op.execute("DROP FUNCTION IF EXISTS ledger_lines_balanced()")
    op.drop_table("service_secrets")
    op.drop_table("round_voids")
    with op.batch_alter_table("ledger_lines", schema=None) as batch_op:
        batch_op.drop_index("ix_ledger_lines_round")
        batch_op.drop_index("ix_ledger_lines_player_time")
        batch_op.drop_index("ix_ledger_lines_currency_time")
    op.drop_table("ledger_lines")
    op.drop_table("chain_heads")
    with op.batch_alter_table("chain_records", schema=None) as batch_op:
        batch_op.drop_index("ix_chain_records_round")
    op.drop_table("chain_records")
