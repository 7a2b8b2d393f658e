"""A deal a game used is published at the game's end, not its start

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-05 21:40:00.000000

A game that used a deal set the deal's `revealed_at` when it started, though its seed and
hands are withheld until the game has ended: an auditor reading the deal took every hand
for public during play. The game's end now publishes it (`revealed_at` is the round's time),
and the deals games used are put right: `revealed_at` is their game's end (a Big Two game's
round, a Capsa Susun game's settlement), or null while the game is in play. Rows only, by
primary key; down puts back the start.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BIG_TWO = """
UPDATE deals SET revealed_at = (
    SELECT r.created_at FROM games g JOIN rounds r ON r.client_id = g.client_id AND r.id = g.round_id
     WHERE g.client_id = deals.client_id AND g.id = deals.used_by)
 WHERE EXISTS (SELECT 1 FROM games g WHERE g.client_id = deals.client_id AND g.id = deals.used_by)
"""
_SUSUN = """
UPDATE deals SET revealed_at = (
    SELECT s.settled_at FROM susun_games s WHERE s.client_id = deals.client_id AND s.id = deals.used_by)
 WHERE EXISTS (SELECT 1 FROM susun_games s WHERE s.client_id = deals.client_id AND s.id = deals.used_by)
"""
_BACK = """
UPDATE deals SET revealed_at = used_at
 WHERE EXISTS (SELECT 1 FROM games g WHERE g.client_id = deals.client_id AND g.id = deals.used_by)
    OR EXISTS (SELECT 1 FROM susun_games s WHERE s.client_id = deals.client_id AND s.id = deals.used_by)
"""


def upgrade() -> None:
    op.execute(_BIG_TWO)
    op.execute(_SUSUN)


def downgrade() -> None:
    op.execute(_BACK)
