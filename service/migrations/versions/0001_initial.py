"""initial schema: clients, keys, rounds, idempotency

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-29 12:17:38.755412
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "clients",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_clients")),
        sa.UniqueConstraint("name", name=op.f("uq_clients_name")),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("scope", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_api_keys_client_id_clients")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_api_keys_key_hash")),
        sa.UniqueConstraint("prefix", name=op.f("uq_api_keys_prefix")),
    )
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_keys_client_id"), ["client_id"], unique=False)

    op.create_table(
        "idempotency_records",
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
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_idempotency_records_client_id_clients")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_idempotency_records")),
        sa.UniqueConstraint(
            "client_id", "method", "path", "key", name="uq_idempotency_client_method_path_key"
        ),
    )
    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_idempotency_records_created_at"), ["created_at"], unique=False
        )

    op.create_table(
        "rounds",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("preset", sa.String(length=64), nullable=False),
        sa.Column("table_ref", sa.String(length=64), nullable=True),
        sa.Column("reference", sa.String(length=64), nullable=True),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("engine_version", sa.String(length=32), nullable=False),
        sa.Column("request_raw", sa.Text(), nullable=False),
        sa.Column("request_json", sa.JSON(), nullable=False),
        sa.Column("rules_json", sa.JSON(), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("house_fee", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_rounds_client_id_clients")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
        sa.UniqueConstraint("client_id", "reference", name="uq_rounds_client_reference"),
    )
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.create_index(
            "ix_rounds_client_created", ["client_id", "created_at", "id"], unique=False
        )
        batch_op.create_index("ix_rounds_client_table", ["client_id", "table_ref"], unique=False)

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
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name=op.f("fk_round_pairs_round_id_rounds")
        ),
        sa.PrimaryKeyConstraint("round_id", "position", name=op.f("pk_round_pairs")),
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
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name=op.f("fk_round_players_round_id_rounds")
        ),
        sa.PrimaryKeyConstraint("round_id", "seat", name=op.f("pk_round_players")),
    )
    with op.batch_alter_table("round_players", schema=None) as batch_op:
        batch_op.create_index("ix_round_players_player", ["player_id", "round_id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("round_players", schema=None) as batch_op:
        batch_op.drop_index("ix_round_players_player")

    op.drop_table("round_players")
    op.drop_table("round_pairs")
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.drop_index("ix_rounds_client_table")
        batch_op.drop_index("ix_rounds_client_created")

    op.drop_table("rounds")
    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_idempotency_records_created_at"))

    op.drop_table("idempotency_records")
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_keys_client_id"))

    op.drop_table("api_keys")
    op.drop_table("clients")
