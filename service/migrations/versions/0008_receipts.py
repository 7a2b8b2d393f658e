"""receipts: an Ed25519 signature per chain record, stored once beside it

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 12:00:00.000000

`chain_signatures` keeps one receipt per record: (client, sequence) -> (kid, signature).
No stored byte of any record changes, so every hash stays valid. Records stored before
this migration have no receipt yet: they are signed once, with the first key, by the step
that follows the schema change whenever a key exists (`capsa db upgrade` with
SIGNING_KEY_FILE set, or `capsa keys create`), and by the service on first read.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chain_signatures",
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("sequence", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("kid", sa.String(length=16), nullable=False),
        sa.Column("signature", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("client_id", "sequence", name="pk_chain_signatures"),
    )


def downgrade() -> None:
    op.drop_table("chain_signatures")
