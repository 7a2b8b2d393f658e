"""Big Two matches: games tied together until a player reaches the target points

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 12:00:00.000000

A match holds its rule set, money, players, target and the standings after each finished
game (`games`, appended in the transaction of the move that ends the game). A game of a
match names it (`games.match_id`) and, under `first_lead` `previous_winner`, the player that
leads it (`games.leader`). Existing games and stored rounds are untouched: both columns are
null for them, and a round's request names a match or a leader only when it has one.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("rules_json", sa.JSON(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("table_ref", sa.String(length=64), nullable=True),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("target_points", sa.Integer(), nullable=False),
        sa.Column("games", sa.JSON(), nullable=False),
        sa.Column("current_game", sa.String(length=40), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], name=op.f("fk_matches_client_id_clients")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.create_index("ix_matches_client_created", ["client_id", "created_at"], unique=False)
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("match_id", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("leader", sa.String(length=64), nullable=True))
        batch_op.create_foreign_key(op.f("fk_games_match_id_matches"), "matches", ["match_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("fk_games_match_id_matches"), type_="foreignkey")
        batch_op.drop_column("leader")
        batch_op.drop_column("match_id")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index("ix_matches_client_created")
    op.drop_table("matches")
