"""A client's references in one table: a round and a game sent at once cannot both take one

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-07 18:30:00.000000

A reference is a client's, for one round: a Capsa Susun game takes its reference when it
starts, and its round carries it at settlement. Rounds and games kept their references in
their own tables, each unique there, and each side looked for the other's in a snapshot:
on PostgreSQL a round and a game started at the same moment could both be stored with one
reference, and the game could then never settle.

`client_references` holds every reference a round (`POST /v1/rounds`) or a game has
taken, its key (client, reference). The round's one statement and the game's transaction
both insert into it first: an insert meeting an uncommitted one of the same key waits for
its transaction, and the second to commit is refused (409). A game's own round, at
settlement, takes nothing: the game holds its reference already.

Filled here from the references of stored rounds and games (one row for a settled game
and its round).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "client_references",
        sa.Column("client_id", sa.String(32), nullable=False),
        sa.Column("reference", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("client_id", "reference", name="pk_client_references"),
    )
    op.execute(
        "INSERT INTO client_references (client_id, reference)"
        " SELECT client_id, reference FROM rounds WHERE reference IS NOT NULL"
        " UNION SELECT client_id, reference FROM susun_games WHERE reference IS NOT NULL"
    )


def downgrade() -> None:
    op.drop_table("client_references")
