"""A game that takes a reference moves its client's chain head: a round racing it is refused

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-07 18:00:00.000000

A reference is a client's, for one round: a Capsa Susun game takes its reference when it
starts, and its round carries it at settlement. On PostgreSQL a round is stored by one
statement, which refuses a reference a game holds by looking in its own snapshot; a game
started at the same moment, not yet committed, was not in it. Both were stored, and the
game could never settle (its round's reference was taken).

`chain_heads.reference_epoch` is bumped by every game that starts with a reference, in its
own transaction, before it looks for rounds holding the reference. A round with a
reference advances the head only if the epoch is still the one its snapshot read: a game
committed meanwhile makes the statement refuse itself whole, and the round is tried again
on a fresh snapshot, where it sees the game. SQLite serialises its writers and needs none
of it; the column is there too, for one schema.

The column has a constant default: adding it rewrites no row on either engine; on
PostgreSQL under a short lock (lock_timeout 5 s), as every write locks its client's head.
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
    if op.get_bind().dialect.name == "postgresql":
        op.execute("SET LOCAL lock_timeout = '5s'")  # behind the writes in flight, not for long
    op.add_column("chain_heads", sa.Column("reference_epoch", sa.BigInteger(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("chain_heads") as batch:
        batch.drop_column("reference_epoch")
