"""A client's Big Two rounds are found in sequence order by an index of their own

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-05 08:00:00.000000

`GET /v1/events?type=banting.game.finished` read the client's records after its cursor one
by one, each with its round's game, until a page of Big Two rounds was found: for a client
whose rounds are mostly Capsa Susun's, a page cost the chain up to its next games.
`ix_rounds_banting` holds the Big Two rounds alone, by (client, sequence): a page reads a
page of them, then their records by key. Capsa Susun rounds write no entry in it; a Big
Two round, stored when its game ends (after a game's worth of moves), writes one more.

On PostgreSQL the index is built CONCURRENTLY: no lock stops the write path or a report.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_rounds_banting"
_DEFINITION = f"{NAME} ON rounds (client_id, sequence) WHERE game = 'banting'"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        op.execute(f"CREATE INDEX {_DEFINITION}")
        return
    with op.get_context().autocommit_block():
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {NAME}")  # an invalid one a failed run left
        op.execute(f"CREATE INDEX CONCURRENTLY {_DEFINITION}")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        op.execute(f"DROP INDEX {NAME}")
        return
    with op.get_context().autocommit_block():
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {NAME}")
