"""Migration 0021 (a Big Two game's turn deadline, and the sweeper's index of them), on both
engines: the games in play get the deadline of their turn in play, from their moves (or
their start), the untimed and the finished none; the sweeper's look-up then finds the due
ones; it goes down to 0020 (the column and index gone) and up again."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, create_engine, inspect
from test_db_migrate_0005 import prepared_database

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade
from service.adapters.uow import Database

START = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
MOVE_AT = START + timedelta(seconds=7)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0020(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, lambda url: upgrade(url, "0020"))


def _games(url: str) -> None:
    """Four games of one client at 0020: timed in play with a dated move, timed in play
    without a move, untimed in play, timed and finished."""
    engine = create_engine(normalise_url(url))
    sqlite = engine.dialect.name == "sqlite"

    def at(when: datetime) -> datetime:
        return when.replace(tzinfo=None) if sqlite else when

    try:
        meta = MetaData()
        meta.reflect(engine, only=["clients", "games"])
        clients, games = meta.tables["clients"], meta.tables["games"]
        move = {"player": "a", "play": ["3d"], "at": MOVE_AT.isoformat().replace("+00:00", "Z"), "auto": False}
        base: dict[str, Any] = {
            "client_id": "cl_1", "rules_json": {}, "currency": "IDR", "stake": 1000, "table_ref": None,
            "players": ["a", "b"], "hands": [[], []], "deal_id": None, "version": 1, "winner": None,
            "round_id": None, "created_at": at(START), "updated_at": at(START), "match_id": None, "leader": None,
        }
        with engine.begin() as conn:
            client = {c.name: None for c in clients.columns}
            client.update(id="cl_1", name="old", created_at=at(START))
            conn.execute(clients.insert(), [{k: v for k, v in client.items() if v is not None or clients.c[k].nullable}])
            conn.execute(games.insert(), [
                {**base, "id": "gm_moved", "moves": [move], "status": "playing", "turn_seconds": 30},
                {**base, "id": "gm_fresh", "moves": [], "status": "playing", "turn_seconds": 60},
                {**base, "id": "gm_untimed", "moves": [move], "status": "playing", "turn_seconds": None},
                {**base, "id": "gm_over", "moves": [move], "status": "finished", "turn_seconds": 30},
            ])
    finally:
        engine.dispose()


def _deadlines(url: str) -> dict[str, datetime | None]:
    from sqlalchemy import select

    from service.adapters.models import Game

    db = Database(normalise_url(url))
    try:
        with db.unit_of_work() as uow:
            return {g: d for g, d in uow.session.execute(select(Game.id, Game.deadline))}
    finally:
        db.dispose()


def test_migration_0021_gives_the_games_in_play_their_turns_deadline(db_at_0020):
    _games(db_at_0020)
    upgrade(db_at_0020, "0021")
    assert _deadlines(db_at_0020) == {
        "gm_moved": MOVE_AT + timedelta(seconds=30),
        "gm_fresh": START + timedelta(seconds=60),
        "gm_untimed": None,
        "gm_over": None,
    }
    db = Database(normalise_url(db_at_0020))
    try:
        with db.unit_of_work() as uow:
            assert uow.games.due(START + timedelta(seconds=59), 10) == [
                (MOVE_AT + timedelta(seconds=30), "cl_1", "gm_moved")
            ]
    finally:
        db.dispose()
    engine = create_engine(normalise_url(db_at_0020))
    try:
        assert "ix_games_deadline" in {i["name"] for i in inspect(engine).get_indexes("games")}
    finally:
        engine.dispose()
    downgrade(db_at_0020, "0020")
    engine = create_engine(normalise_url(db_at_0020))
    try:
        assert "deadline" not in {c["name"] for c in inspect(engine).get_columns("games")}
    finally:
        engine.dispose()
    upgrade(db_at_0020, "head")
    assert _deadlines(db_at_0020)["gm_fresh"] == START + timedelta(seconds=60)
