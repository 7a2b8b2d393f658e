"""Migration 0011 (games.turn_seconds) on rows the service wrote before it, on both engines.

The rows of `data/rows_at_0004.json` are loaded at 0004 and migrated to 0005 (as
test_db_migrate_0005 does), plus a game still in play whose moves carry no time; then 0011
runs. Old games read as untimed, the stored Big Two rounds still verify, and the game in
play goes on to a round that verifies.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, create_engine, insert, inspect
from test_db_migrate_0005 import DATA, _app, _as_0004, _headers, _load, _value, prepared_database

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade

OLD_GAME = DATA["tables"]["games"][0]  # finished by a bomb in five moves
IN_PLAY = "gm_01M8RB46GR73D0F4BYDX0709ZZ"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0005(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, _prepare)


def _prepare(url: str) -> None:
    _load(url)
    upgrade(url, "0005")
    row = copy.deepcopy(OLD_GAME)
    row.update(id=IN_PLAY, moves=row["moves"][:3], status="playing", winner=None, round_id=None, version=4)
    engine = create_engine(normalise_url(url))
    meta = MetaData()
    meta.reflect(engine)
    games = meta.tables["games"]
    with engine.begin() as conn:
        conn.execute(insert(games), [{k: _value(games.c[k], v) for k, v in row.items()}])
    engine.dispose()


def _columns(url: str) -> set[str]:
    engine = create_engine(normalise_url(url))
    try:
        return {c["name"] for c in inspect(engine).get_columns("games")}
    finally:
        engine.dispose()


def test_migration_0011_leaves_old_games_untimed_and_their_rounds_verifying(db_at_0005):
    upgrade(db_at_0005)
    assert "turn_seconds" in _columns(db_at_0005)
    app = _app(db_at_0005)
    http = app.test_client()
    owner = _headers("old-a")
    try:
        for game in DATA["tables"]["games"]:
            doc = http.get(f"/v1/banting/games/{game['id']}", headers=owner).get_json()
            assert (doc["status"], doc["turn_seconds"], doc["deadline"], doc["round"]) == (
                "finished", None, None, game["round_id"],
            )
            assert [(h["auto"], h["at"]) for h in doc["history"]] == [(False, None)] * len(game["moves"])
            # the round stored before turn timers re-scores to its stored document (no `auto`)
            verdict = http.get(f"/v1/rounds/{game['round_id']}/verify", headers=owner).get_json()
            assert verdict == {"ok": True, "differences": []}
            stored = http.get(f"/v1/rounds/{game['round_id']}", headers=owner).get_json()
            assert _as_0004(stored) == DATA["documents"][game["round_id"]]  # receipts (0008) add to it

        # The game in play when the service was upgraded goes on, untimed, to a round.
        doc: dict[str, Any] = http.get(f"/v1/banting/games/{IN_PLAY}", headers=owner).get_json()
        assert (doc["turn"], doc["turn_seconds"], len(doc["history"])) == ("d", None, 3)
        for body in ({"player": "d", "play": ["2h"]}, {"player": "a", "play": ["5c", "5d", "5h", "5s", "9d"]}):
            answer = http.post(f"/v1/banting/games/{IN_PLAY}/moves", json=body, headers=owner)
            assert answer.status_code == 200, answer.get_json()
            doc = answer.get_json()
        assert doc["status"] == "finished"
        assert [h["at"] is None for h in doc["history"]] == [True, True, True, False, False]
        round_doc = http.get(f"/v1/rounds/{doc['round']}", headers=owner).get_json()
        assert round_doc["turn_seconds"] is None and [h["auto"] for h in round_doc["history"]] == [False] * 5
        verdict = http.get(f"/v1/rounds/{doc['round']}/verify", headers=owner).get_json()
        assert verdict == {"ok": True, "differences": []}
        assert http.get("/v1/audit/verify", headers=owner).get_json()["ok"]
    finally:
        app.extensions["capsa"].db.dispose()


def test_migration_0011_goes_down_to_0005_and_up_again(db_at_0005):
    upgrade(db_at_0005)
    downgrade(db_at_0005, "0005")
    assert "turn_seconds" not in _columns(db_at_0005)
    upgrade(db_at_0005)
    assert "turn_seconds" in _columns(db_at_0005)
