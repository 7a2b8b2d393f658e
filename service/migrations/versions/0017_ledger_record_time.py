"""Client-wide ledger windows read an index of one line per record, not of every line

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04 10:00:00.000000

`ix_ledger_lines_currency_time` (client, currency, time) held every ledger line: eight
index entries for a four-player round, about 0.8 KiB of WAL a round (of 8.9). Every line of
a record has its record's time and currency, so the client-wide reads find the period's
records by their line 0 instead. A page of lines (newest first, or over a period) reads
the new index in order and joins each record's lines by primary key
(`LedgerRepository._records_in`). A sum over a period (summaries, the quarter-hour sums of
zoned days) reads the first and the last sequence dated in the period there, and the lines
of that range by primary key; where the range holds other records too, each line is also
checked against the period (`_client_period`). `ix_ledger_lines_record_time` holds line 0
alone, one entry a record, with its sequence, so both reads need only the index. A
player's reads keep `ix_ledger_lines_player_time`; reads of the whole chain or of a range
of records use the primary key, as before.

On PostgreSQL the new index is built and the old one dropped CONCURRENTLY: no lock stops
the write path or a report.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NEW = "ix_ledger_lines_record_time"
OLD = "ix_ledger_lines_currency_time"
_NEW = f"{NEW} ON ledger_lines (client_id, currency, created_at, sequence) WHERE line_no = 0"
_OLD = f"{OLD} ON ledger_lines (client_id, currency, created_at)"


def upgrade() -> None:
    _swap(create=(NEW, _NEW), drop=OLD)


def downgrade() -> None:
    _swap(create=(OLD, _OLD), drop=NEW)


def _swap(create: tuple[str, str], drop: str) -> None:
    name, definition = create
    if op.get_bind().dialect.name != "postgresql":
        op.execute(f"CREATE INDEX {definition}")
        op.execute(f"DROP INDEX {drop}")
        return
    with op.get_context().autocommit_block():
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")  # an invalid one a failed run left
        op.execute(f"CREATE INDEX CONCURRENTLY {definition}")
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {drop}")
