"""A list of deals by status reads its page from an index of that status

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06 16:15:00.000000

`GET /v1/deals?status=revealed` (or `used`, or `open`) read the client's deals newest first
by `ix_deals_client_created` and filtered them, so a page of a status that few deals have
read the client's whole history: 30 ms at 500,000 deals, growing with them. Three partial
indexes, one a status, each by (client, created_at, id), hold those deals alone. A deal's
insert writes one more index entry; its use or reveal moves it to another.

On PostgreSQL the indexes are built CONCURRENTLY: no lock stops the write path or a report.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = {
    "ix_deals_open": "ON deals (client_id, created_at, id) WHERE used_at IS NULL AND revealed_at IS NULL",
    "ix_deals_revealed": "ON deals (client_id, created_at, id) WHERE used_at IS NULL AND revealed_at IS NOT NULL",
    "ix_deals_used": "ON deals (client_id, created_at, id) WHERE used_at IS NOT NULL",
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
