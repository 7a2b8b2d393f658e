"""server-run Capsa Susun games

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 11:45:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "susun_games",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("rules_json", sa.JSON(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("table_ref", sa.String(length=64), nullable=True),
        sa.Column("reference", sa.String(length=64), nullable=True),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("hands", sa.JSON(), nullable=False),
        sa.Column("deal_id", sa.String(length=40), nullable=True),
        sa.Column("submissions", sa.JSON(), nullable=False),
        sa.Column("arrange_seconds", sa.Integer(), nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("round_id", sa.String(length=40), nullable=True),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], name=op.f("fk_susun_games_client_id_clients")),
        sa.ForeignKeyConstraint(["deal_id"], ["deals.id"], name=op.f("fk_susun_games_deal_id_deals")),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name=op.f("fk_susun_games_round_id_rounds")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_susun_games")),
        sa.UniqueConstraint("client_id", "reference", name="uq_susun_games_client_reference"),
    )
    with op.batch_alter_table("susun_games", schema=None) as batch_op:
        batch_op.create_index("ix_susun_games_client_created", ["client_id", "created_at"], unique=False)
        # The sweeper's query: games still arranging, oldest deadline first.
        batch_op.create_index("ix_susun_games_status_deadline", ["status", "deadline"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("susun_games", schema=None) as batch_op:
        batch_op.drop_index("ix_susun_games_status_deadline")
        batch_op.drop_index("ix_susun_games_client_created")
    op.drop_table("susun_games")
