"""A deal's server seed can be committed to before the client's seed is sent

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06 15:00:00.000000

`POST /v1/deals` drew the server seed in the request that brought the client's seed, so the
service knew the client's seed when it chose its own: a client had to trust that it did
not draw seeds until it liked the hands. `deal_commitments` holds a server seed drawn, and
a nonce taken, before the client's seed exists (`POST /v1/deals/commitments`); a deal made
from one names it (`commitment_id`) and says when it was drawn (`committed_at`). New
columns are null for the deals made before, as for every deal made without a commitment.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deal_commitments",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("nonce", sa.BigInteger(), nullable=False),
        sa.Column("server_seed", sa.LargeBinary(), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_by", sa.String(length=40), nullable=True),
        sa.ForeignKeyConstraint(["client_id"], ["clients.id"], name=op.f("fk_deal_commitments_client_id_clients")),
        sa.PrimaryKeyConstraint("client_id", "id", name=op.f("pk_deal_commitments")),
        sa.UniqueConstraint("client_id", "nonce", name="uq_deal_commitments_client_nonce"),
    )
    with op.batch_alter_table("deals", schema=None) as batch_op:
        batch_op.add_column(sa.Column("commitment_id", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("committed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("deals", schema=None) as batch_op:
        batch_op.drop_column("committed_at")
        batch_op.drop_column("commitment_id")
    op.drop_table("deal_commitments")
