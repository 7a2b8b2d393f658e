"""Big Two turn timers: games.turn_seconds

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 12:00:00.000000

A nullable column: games started before it are untimed, and no stored round changes (the
turn timer lives on the game row; a timed game's round carries it in its request).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("turn_seconds", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("turn_seconds")
