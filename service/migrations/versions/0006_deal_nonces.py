"""deal nonces from a per-client counter

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 12:00:00.000000

`POST /v1/deals` took its nonce as the count of the client's deals: a scan that grows with
every deal, and two concurrent deals on PostgreSQL counted the same number and one of them
failed the unique nonce (409 without Retry-After after its retries). `clients.deals_made` is
the next nonce: a deal takes it with one `UPDATE ... RETURNING`, whose row lock orders
concurrent deals of one client (each waits only for the other's short transaction). Existing
clients start after their highest nonce. No hashed record changes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("clients", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deals_made", sa.BigInteger(), server_default="0", nullable=False))
    op.execute(
        "UPDATE clients SET deals_made = "
        "(SELECT coalesce(max(deals.nonce) + 1, 0) FROM deals WHERE deals.client_id = clients.id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("clients", schema=None) as batch_op:
        batch_op.drop_column("deals_made")
