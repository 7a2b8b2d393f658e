"""A chain head says whether its writer signs: the dispatcher waits for receipts by it

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-07 15:45:00.000000

On PostgreSQL a round's receipt is stored after its record, by its worker's next write
(`pending_receipts`), and the webhook dispatcher holds a young record's event back until
the receipt is there. It learned that a client's records are signed only from a receipt
already stored, so a new client's first events went out without theirs.
`chain_heads.signing` is set by every PostgreSQL write of the chain, true when the writer
holds a signing key: the first record's event waits like every other. SQLite stores a
receipt with its record and leaves it false.

Set here to whether the client has a receipt, what the dispatcher went by until now. The
column has a constant default: adding it rewrites no row on either engine; on PostgreSQL
under a short lock (lock_timeout 5 s), as every write locks its client's head.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("SET LOCAL lock_timeout = '5s'")  # behind the writes in flight, not for long
    op.add_column("chain_heads", sa.Column("signing", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.execute(
        "UPDATE chain_heads SET signing = true WHERE EXISTS "
        "(SELECT 1 FROM chain_signatures s WHERE s.client_id = chain_heads.client_id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("chain_heads") as batch:
        batch.drop_column("signing")
