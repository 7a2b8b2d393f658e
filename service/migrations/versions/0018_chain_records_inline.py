"""A chain record's canonical bytes stay in its row, compressed, instead of in TOAST

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-04 10:30:00.000000

A four-player round's canonical bytes are about 5.4 KB, 1.9 KB once PostgreSQL compresses
them: over the 2 KB at which a row is toasted, so each went out of line to the TOAST table,
with a TOAST index entry and a second row header, about 150 bytes of WAL a round more
than the same bytes kept in the row. With the column's storage MAIN, PostgreSQL still
compresses the bytes but moves them out of line only when the row would not otherwise fit
in a page (about 8 KB), so every record written from now on keeps them in its own row, and
reading a record's bytes (verify, export, a round's document) no longer goes through the
TOAST index. The row's short texts (ids and hashes, never worth compressing) become PLAIN:
left EXTENDED, the toaster, still over its 2 KB target after compressing, would move each
of them out of line instead (four TOAST rows a round, measured).

A catalog change only: rows already written stay as they are, and no lock is held for
longer than the change itself. Nothing changes on SQLite, which keeps every value in its
row.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


SHORT = ("client_id", "kind", "round_id", "previous_hash", "hash")


def upgrade() -> None:
    _storage(canonical="MAIN", short="PLAIN")


def downgrade() -> None:
    _storage(canonical="EXTENDED", short="EXTENDED")


def _storage(canonical: str, short: str) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("SET LOCAL lock_timeout = '5s'")
    changes = [f"ALTER COLUMN {column} SET STORAGE {short}" for column in SHORT]
    op.execute(f"ALTER TABLE chain_records {', '.join(changes)}, ALTER COLUMN canonical SET STORAGE {canonical}")
