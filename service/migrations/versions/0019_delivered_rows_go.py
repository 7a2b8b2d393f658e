"""A delivered webhook delivery's row is deleted: the rows delivered so far go, with `delivered_at`

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05 05:20:00.000000

The dispatcher used to mark a delivered delivery `delivered` (an UPDATE: on PostgreSQL a new
row version and a new entry in the table's key index for every event) and keep the row for
ever, so the queue grew with the history while only its pending and failed rows were ever
read again. From this version the dispatcher deletes the row when its event is delivered:
the attempt, in `webhook_attempts`, is the delivery's history (`GET
/v1/webhooks/{id}/deliveries`), the endpoint's cursor keeps the event from being queued
again, and a redelivery queues a new row. This migration deletes the rows already delivered
and drops `delivered_at`, which only they held.

Stop `capsa webhooks dispatch` while it runs: a dispatcher of the previous version writes
`delivered_at`, and each of its passes would fail from then on (its claims run out and the
events go again, with the same `webhook-id`, from the new version). Deliveries only wait.
On PostgreSQL the DELETE scans the table once in the migration's transaction; the write
path never reads the table. Downgrade adds the column back, empty.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("DELETE FROM webhook_deliveries WHERE state = 'delivered'")
    # SQLite drops a column in place since 3.35, which the service needs already (UPDATE
    # ... RETURNING: a deal's nonce, the SQLite dispatcher's claim); a batch copy of the
    # table would have to carry its partial indexes' predicates over.
    op.execute("ALTER TABLE webhook_deliveries DROP COLUMN delivered_at")


def downgrade() -> None:
    op.add_column("webhook_deliveries", sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True))
