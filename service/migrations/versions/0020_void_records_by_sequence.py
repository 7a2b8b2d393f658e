"""A client's void records are found in sequence order by an index of their own

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05 07:30:00.000000

`GET /v1/events?type=round.voided` read the client's records after its cursor one by one
until a page of voids was found: voids are few, so a page cost a read of the rest of the
chain (at millions of records, past the statement timeout). `ix_chain_records_voids`
holds the void records alone, by (client, sequence): a page of voids reads a page. Rounds
write no entry in it (partial, as `uq_chain_records_void`, which finds a round's void by
round and stays).

On PostgreSQL the index is built CONCURRENTLY: no lock stops the write path or a report.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_chain_records_voids"
_DEFINITION = f"{NAME} ON chain_records (client_id, sequence) WHERE kind = 'void'"


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
