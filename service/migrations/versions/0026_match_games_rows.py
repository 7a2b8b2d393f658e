"""A match's games are rows of their own; the match keeps its count and totals

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-06 18:00:00.000000

`matches.games` held every finished game's entry as one JSON list, which the move that ends a
game read, copied and wrote back whole, as a void did: at 10,000 games (a match to 10,000
points can run that long) a game's last move cost 200 ms of the worker's CPU and wrote 1.7 MB,
and `GET /v1/banting/matches/{id}` answered all of it. Each entry is now a `match_games` row
(the points and the standings after the game a column a seat, so that a void takes its points
off every later game's standings in one UPDATE); the match keeps `played` and `totals`, the
players' totals over the games that count.

The upgrade moves every match's list into rows, the standings after each game taken again
over the games that count (what a void has always stored); entries written before voids were
marked have no `void` and count. The downgrade writes the lists back from the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SEATS = 4
BATCH = 1000


def _matches(games: bool) -> sa.TableClause:
    columns = [sa.column("client_id", sa.String), sa.column("id", sa.String), sa.column("players", sa.JSON)]
    if games:
        columns.append(sa.column("games", sa.JSON))
    else:
        columns += [sa.column("played", sa.Integer), sa.column("totals", sa.JSON)]
    return sa.table("matches", *columns)


_ENTRIES = sa.table(
    "match_games",
    sa.column("client_id", sa.String),
    sa.column("match_id", sa.String),
    sa.column("n", sa.Integer),
    sa.column("game_id", sa.String),
    sa.column("round_id", sa.String),
    sa.column("winner", sa.String),
    sa.column("void", sa.Boolean),
    *(sa.column(f"points_{seat}", sa.BigInteger) for seat in range(SEATS)),
    *(sa.column(f"total_{seat}", sa.BigInteger) for seat in range(SEATS)),
)


def upgrade() -> None:
    op.create_table(
        "match_games",
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("match_id", sa.String(length=40), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=40), nullable=False),
        sa.Column("round_id", sa.String(length=40), nullable=False),
        sa.Column("winner", sa.String(length=64), nullable=False),
        sa.Column("void", sa.Boolean(), nullable=False),
        *(sa.Column(f"points_{seat}", sa.BigInteger(), nullable=seat >= 2) for seat in range(SEATS)),
        *(sa.Column(f"total_{seat}", sa.BigInteger(), nullable=seat >= 2) for seat in range(SEATS)),
        sa.ForeignKeyConstraint(
            ["client_id", "match_id"], ["matches.client_id", "matches.id"], name="fk_match_games_match_id_matches"
        ),
        sa.PrimaryKeyConstraint("client_id", "match_id", "n", name=op.f("pk_match_games")),
    )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("played", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("totals", sa.JSON(), nullable=True))
    bind = op.get_bind()
    old, new = _matches(games=True), _matches(games=False)
    for key in bind.execute(sa.select(old.c.client_id, old.c.id)).all():  # a match's list in memory at a time
        row = bind.execute(sa.select(old).where(old.c.client_id == key[0], old.c.id == key[1])).mappings().one()
        players = list(row["players"])
        running = dict.fromkeys(players, 0)
        entries: list[dict[str, Any]] = []
        for n, entry in enumerate(row["games"], start=1):
            void = bool(entry.get("void", False))
            points = {pid: int(entry["points"][pid]) for pid in players}
            if not void:
                running = {pid: running[pid] + points[pid] for pid in players}
            values: dict[str, Any] = {
                "client_id": row["client_id"], "match_id": row["id"], "n": n, "game_id": entry["game"],
                "round_id": entry["round"], "winner": entry["winner"], "void": void,
            }
            for seat in range(SEATS):
                pid = players[seat] if seat < len(players) else None
                values[f"points_{seat}"] = None if pid is None else points[pid]
                values[f"total_{seat}"] = None if pid is None else running[pid]
            entries.append(values)
        for start in range(0, len(entries), BATCH):
            bind.execute(sa.insert(_ENTRIES), entries[start:start + BATCH])
        bind.execute(
            sa.update(new)
            .where(new.c.client_id == row["client_id"], new.c.id == row["id"])
            .values(played=len(entries), totals=running)
        )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.alter_column("played", server_default=None)
        batch_op.alter_column("totals", existing_type=sa.JSON(), nullable=False)
        batch_op.drop_column("games")


def downgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("games", sa.JSON(), nullable=True))
    bind = op.get_bind()
    old = _matches(games=True)
    for row in bind.execute(sa.select(old.c.client_id, old.c.id, old.c.players)).mappings().all():
        players = list(row["players"])
        rows = bind.execute(
            sa.select(_ENTRIES)
            .where(_ENTRIES.c.client_id == row["client_id"], _ENTRIES.c.match_id == row["id"])
            .order_by(_ENTRIES.c.n)
        ).mappings()
        games = [
            {
                "n": e["n"], "game": e["game_id"], "round": e["round_id"], "winner": e["winner"], "void": e["void"],
                "points": {pid: e[f"points_{seat}"] for seat, pid in enumerate(players)},
                "totals": {pid: e[f"total_{seat}"] for seat, pid in enumerate(players)},
            }
            for e in rows
        ]
        bind.execute(
            sa.update(old).where(old.c.client_id == row["client_id"], old.c.id == row["id"]).values(games=games)
        )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.alter_column("games", existing_type=sa.JSON(), nullable=False)
        batch_op.drop_column("totals")
        batch_op.drop_column("played")
    op.drop_table("match_games")
