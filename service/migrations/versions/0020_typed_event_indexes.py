"""A typed page of events reads an index of its own records: the voids, the Big Two rounds

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05 07:30:00.000000

`GET /v1/events?type=round.voided` and `?type=banting.game.finished` read the client's
records after their cursor one by one (each with its round's game) until a page of that
type was found: voids are few, and for a client whose rounds are mostly Capsa Susun's so
are Big Two rounds, so a page cost a read of the rest of the chain (at millions of records,
past the statement timeout). Two partial indexes, each by (client, sequence), hold those
rows alone: `ix_chain_records_voids` the void records, `ix_rounds_banting` the Big Two
rounds; a page reads a page of them (and the Big Two rounds' records by key). A Capsa
Susun round writes an entry in neither; a void, and a Big Two round (stored when its game
ends, after a game's worth of moves), write one more. `uq_chain_records_void`, which finds
a round's void by round, stays.

On PostgreSQL the indexes are built CONCURRENTLY: no lock stops the write path or a report.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = {
    "ix_chain_records_voids": "ON chain_records (client_id, sequence) WHERE kind = 'void'",
    "ix_rounds_banting": "ON rounds (client_id, sequence) WHERE game = 'banting'",
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        for name, definition in INDEXES.items():
            op.execute(f"CREATE INDEX {name} {definition}")
        return
    with op.get_context().autocommit_block():
        for name, definition in INDEXES.items():
            op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")  # an invalid one a failed run left
            op.execute(f"CREATE INDEX CONCURRENTLY {name} {definition}")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        for name in INDEXES:
            op.execute(f"DROP INDEX {name}")
        return
    with op.get_context().autocommit_block():
        for name in INDEXES:
            op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
