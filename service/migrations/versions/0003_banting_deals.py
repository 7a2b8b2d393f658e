"""deals and Big Two games

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 09:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deals",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("nonce", sa.BigInteger(), nullable=False),
        sa.Column("server_seed", sa.LargeBinary(), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("client_seed", sa.Text(), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("hands", sa.JSON(), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("used_by", sa.String(length=40), nullable=True),
        sa.Column("revealed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], name=op.f("fk_deals_client_id_clients")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deals")),
        sa.UniqueConstraint("client_id", "nonce", name="uq_deals_client_nonce"),
    )
    with op.batch_alter_table("deals", schema=None) as batch_op:
        batch_op.create_index("ix_deals_client_created", ["client_id", "created_at"], unique=False)

    op.create_table(
        "games",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("rules_json", sa.JSON(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("table_ref", sa.String(length=64), nullable=True),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("hands", sa.JSON(), nullable=False),
        sa.Column("deal_id", sa.String(length=40), nullable=True),
        sa.Column("moves", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("winner", sa.String(length=64), nullable=True),
        sa.Column("round_id", sa.String(length=40), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], name=op.f("fk_games_client_id_clients")),
        sa.ForeignKeyConstraint(["deal_id"], ["deals.id"], name=op.f("fk_games_deal_id_deals")),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name=op.f("fk_games_round_id_rounds")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index("ix_games_client_created", ["client_id", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_client_created")
    op.drop_table("games")
    with op.batch_alter_table("deals", schema=None) as batch_op:
        batch_op.drop_index("ix_deals_client_created")
    op.drop_table("deals")
