"""A void finds its match's game by its round, and the dispatchers find deleted endpoints, by index

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-06 20:30:00.000000

A void of a match game's round looked its game up among the match's `match_games` rows by
`round_id`, which no index holds: every game of the match read (10,000 in a long match).
`ix_match_games_round` (client, round), unique: a round is at most one game of one match.

Every dispatcher looks for endpoints deleted with a backlog once a minute
(`disabled_reason = 'deleted'`), which read every client's endpoints. `ix_webhooks_deleted`
holds those alone, and is empty when none is being purged.

On PostgreSQL both are built CONCURRENTLY: no lock stops the write path or a match.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = {
    "ix_match_games_round": "UNIQUE INDEX {} ON match_games (client_id, round_id)",
    "ix_webhooks_deleted": "INDEX {} ON webhooks (client_id, id) WHERE disabled_reason = 'deleted'",
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        for name, definition in INDEXES.items():
            op.execute(f"CREATE {definition.format(name)}")
        return
    with op.get_context().autocommit_block():
        for name, definition in INDEXES.items():
            op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")  # an invalid one a failed run left
            op.execute(f"CREATE {definition.replace('INDEX', 'INDEX CONCURRENTLY', 1).format(name)}")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        for name in INDEXES:
            op.execute(f"DROP INDEX {name}")
        return
    with op.get_context().autocommit_block():
        for name in INDEXES:
            op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
