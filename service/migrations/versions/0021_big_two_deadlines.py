"""A Big Two game keeps when its turn in play runs out, and the sweeper reads the due ones

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-05 15:00:00.000000

`capsa sweep` read every timed Big Two game in play, of every client, on every pass, and
each one again to see whether its turn had run out: a client holding 30,000 games with a
day's turn each made a pass take 8.6 s (every client's timers, and the Susun settlements and
rollups after them, waiting). `games.deadline` is when the turn in play runs out (the last
dated move's time, or the game's start, plus `turn_seconds`; null when untimed or ended),
written with each game's moves, and `ix_games_deadline` holds the games that have one:
a pass reads the due games only, by deadline.

The games in play are given their deadline here, from their moves. Stop `capsa sweep`
while it runs (a sweeper of the previous version never writes the column); a game moved
by a service of the previous version meanwhile keeps the deadline it had, and is played
for on its next access as always. On PostgreSQL the index is built CONCURRENTLY.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_games_deadline"
DEFINITION = "ON games (deadline, client_id, id) WHERE deadline IS NOT NULL"


def _time(value: Any) -> datetime:
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _deadline(moves: Any, created_at: Any, turn_seconds: Any) -> datetime:
    """`timers.turn_deadline` of a game in play, from its stored row."""
    listed = json.loads(moves) if isinstance(moves, str) else moves
    started = _time(created_at)
    for move in reversed(listed or []):
        if move.get("at"):
            started = _time(move["at"])
            break
    return started + timedelta(seconds=int(turn_seconds))


def upgrade() -> None:
    bind = op.get_bind()
    op.add_column("games", sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
    rows = bind.execute(sa.text(
        "SELECT client_id, id, moves, created_at, turn_seconds FROM games"
        " WHERE status = 'playing' AND turn_seconds IS NOT NULL"
    )).all()
    sqlite = bind.dialect.name != "postgresql"
    update = sa.text("UPDATE games SET deadline = :due WHERE client_id = :c AND id = :g").bindparams(
        sa.bindparam("due", type_=sa.DateTime(timezone=True))
    )
    for client_id, game_id, moves, created_at, turn_seconds in rows:
        due = _deadline(moves, created_at, turn_seconds)
        # as the service writes it: naive UTC on SQLite (`UTCDateTime`)
        bind.execute(update, {"due": due.replace(tzinfo=None) if sqlite else due, "c": client_id, "g": game_id})
    if sqlite:
        op.execute(f"CREATE INDEX {INDEX} {DEFINITION}")
        return
    # the column and the deadlines are committed first, then the index is built
    with op.get_context().autocommit_block():
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")
        op.execute(f"CREATE INDEX CONCURRENTLY {INDEX} {DEFINITION}")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")
    else:
        op.execute(f"DROP INDEX {INDEX}")
    op.drop_column("games", "deadline")
