"""Webhook deliveries: each endpoint's due deliveries in order, and the claimed ones apart

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03 23:30:00.000000

The dispatcher claims each endpoint's oldest due deliveries up to its free slots
(`webhook_queue.Pass.claim`): `ix_webhook_deliveries_endpoint_due` gives them in order by a
range scan that stops at the slots (one per endpoint), where the old claim ranked every
pending delivery of every endpoint by `ix_webhook_deliveries_due`, which goes. The claims
held now are counted from `ix_webhook_deliveries_claimed`, which holds the claimed rows
only. On PostgreSQL the indexes are built and the old one dropped CONCURRENTLY: no lock
stops the write path or a running dispatcher.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DUE = "ix_webhook_deliveries_endpoint_due"
CLAIMED = "ix_webhook_deliveries_claimed"
OLD = "ix_webhook_deliveries_due"
_DUE = f"{DUE} ON webhook_deliveries (client_id, webhook_id, next_attempt_at, sequence, event_id) WHERE state = 'pending'"
_CLAIMED = f"{CLAIMED} ON webhook_deliveries (client_id, webhook_id) WHERE claim IS NOT NULL"
_OLD = f"{OLD} ON webhook_deliveries (next_attempt_at) WHERE state = 'pending'"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        op.execute(f"CREATE INDEX {_DUE}")
        op.execute(f"CREATE INDEX {_CLAIMED}")
        op.execute(f"DROP INDEX {OLD}")
        return
    with op.get_context().autocommit_block():
        for index, create in ((DUE, _DUE), (CLAIMED, _CLAIMED)):
            op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {index}")  # an invalid one a failed run left
            op.execute(f"CREATE INDEX CONCURRENTLY {create}")
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {OLD}")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        op.execute(f"CREATE INDEX {_OLD}")
        op.execute(f"DROP INDEX {CLAIMED}")
        op.execute(f"DROP INDEX {DUE}")
        return
    with op.get_context().autocommit_block():
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {OLD}")
        op.execute(f"CREATE INDEX CONCURRENTLY {_OLD}")
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {CLAIMED}")
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {DUE}")
