"""An endpoint enabled again resumes every delivery it missed

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05 16:40:00.000000

`PATCH /v1/webhooks/{id} {"enabled": true}` promises to resume an endpoint with everything
it missed, but only cleared its failure mark: the deliveries that had failed for good while
it was failing stayed failed, and those waiting for a late step of the retry schedule (up to
a day away) kept waiting. Enabling now sets `webhooks.resume_before` to its time, and the
dispatcher makes that endpoint's deliveries queued before it due at once, with a fresh
retry schedule, a batch a pass (a three-day backlog is not one statement in a request),
then clears it. A nullable column: no table is rewritten.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("webhooks", sa.Column("resume_before", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("webhooks", "resume_before")
