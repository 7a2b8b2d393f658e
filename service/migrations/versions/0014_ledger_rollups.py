"""Ledger rollups: all-time totals kept in the database, by record sequence

Revision ID: 0014
Revises: 0012
Create Date: 2026-12-02 00:40:00.000000

`ledger_rollups` holds each client's totals per currency and group (player, table, UTC
day, UTC quarter hour) over its records up to `ledger_rollup_cursors.sequence`; an
all-time report reads them plus the lines of the records after that sequence
(service/services/ledger/rollups.py). Both tables start empty: the first fold (on a read, or
`capsa sweep`) folds the existing history in bounded batches. New tables only, so the
migration takes no lock on the write path's tables.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from service.adapters.models import ExactInteger

revision: str = "0014"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TOTALS = ("rounds", "points", "result", "winnings", "fees", "net", "house")


def upgrade() -> None:
    op.create_table(
        "ledger_rollups",
        sa.Column("client_id", sa.String(32), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("grouping", sa.String(8), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        *(sa.Column(name, ExactInteger(), nullable=False) for name in TOTALS),
        sa.PrimaryKeyConstraint("client_id", "currency", "grouping", "key", name="pk_ledger_rollups"),
    )
    op.create_table(
        "ledger_rollup_cursors",
        sa.Column("client_id", sa.String(32), nullable=False),
        sa.Column("sequence", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("client_id", name="pk_ledger_rollup_cursors"),
    )


def downgrade() -> None:
    op.drop_table("ledger_rollup_cursors")
    op.drop_table("ledger_rollups")
