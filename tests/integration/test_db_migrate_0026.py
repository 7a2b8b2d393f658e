"""Migration 0026 (a match's games are rows of their own), on both engines: a match the
service of today played (games finished, one voided, one in play) goes down to 0025 as the
JSON list the previous version kept, entries stored before voids were marked count, and up
again it answers as before and plays on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from banting_scripts import THREE, THREE_SCRIPT
from conftest import make_app, make_tenant
from sqlalchemy import create_engine, inspect, text
from test_db_migrate_0005 import prepared_database

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_head(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, lambda url: upgrade(url, "head"))


def _sql(url: str, statement: str, **params: Any) -> list[Any]:
    engine = create_engine(normalise_url(url))
    try:
        with engine.begin() as conn:
            result = conn.execute(text(statement), params)
            return list(result) if result.returns_rows else []
    finally:
        engine.dispose()


def _game(http: Any, tenant: Any, match_id: str) -> str:
    body = {"players": [{"id": pid, "hand": hand.split()} for pid, hand in THREE.items()]}
    started = http.post(f"/v1/banting/matches/{match_id}/games", json=body, headers=tenant.headers)
    assert started.status_code == 201, started.get_data(as_text=True)
    return str(started.get_json()["id"])


def _play(http: Any, tenant: Any, game_id: str, script: list[str]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for line in script:
        player, _, what = line.partition(": ")
        move = {"player": player, "pass": True} if what == "pass" else {"player": player, "play": what.split()}
        answer = http.post(f"/v1/banting/games/{game_id}/moves", json=move, headers=tenant.headers)
        assert answer.status_code == 200, (line, answer.get_data(as_text=True))
        doc = answer.get_json()
    return doc


def _match(http: Any, tenant: Any, match_id: str) -> dict[str, Any]:
    answer = http.get(f"/v1/banting/matches/{match_id}", headers=tenant.headers)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return dict(answer.get_json())


def test_migration_0026_moves_a_matchs_games_to_rows_and_back(db_at_head):
    app = make_app(db_at_head)
    try:
        http, tenant = app.test_client(), make_tenant(app)
        made = http.post("/v1/banting/matches", headers=tenant.headers, json={
            "currency": "IDR", "stake": "1000", "players": ["a", "b", "c"], "target_points": 10_000})
        match_id = made.get_json()["id"]
        rounds = [_play(http, tenant, _game(http, tenant, match_id), THREE_SCRIPT)["round"] for _ in range(3)]
        voided = http.post(f"/v1/rounds/{rounds[1]}/void", json={"reason": "misdeal"}, headers=tenant.headers)
        assert voided.status_code == 200, voided.get_data(as_text=True)
        in_play = _game(http, tenant, match_id)
        before = _match(http, tenant, match_id)
    finally:
        app.extensions["capsa"].db.dispose()
    assert [(g["n"], g["void"]) for g in before["games"]] == [(1, False), (2, True), (3, False)]
    assert before["games"][2]["totals"] == {p: 2 * before["games"][0]["points"][p] for p in "abc"}

    downgrade(db_at_head, "0025")
    engine = create_engine(normalise_url(db_at_head))
    try:
        assert "match_games" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()
    [(stored,)] = _sql(db_at_head, "SELECT games FROM matches WHERE id = :id", id=match_id)
    stored = json.loads(stored) if isinstance(stored, str) else stored
    assert stored == before["games"]  # the list the previous version kept, entry for entry
    # An entry stored before voids were marked has no `void`, and counts.
    del stored[0]["void"]
    _sql(db_at_head, "UPDATE matches SET games = :games WHERE id = :id", games=json.dumps(stored), id=match_id)

    upgrade(db_at_head, "head")
    app = make_app(db_at_head)
    try:
        http = app.test_client()
        assert _match(http, tenant, match_id) == before
        every = http.get(f"/v1/banting/matches/{match_id}/games", headers=tenant.headers).get_json()
        assert every == {"items": before["games"][::-1], "next_cursor": None}
        _play(http, tenant, in_play, THREE_SCRIPT)
        after = _match(http, tenant, match_id)
        assert (after["played"], after["games"][3]["totals"]) == (4, {p: 3 * before["games"][0]["points"][p] for p in "abc"})
    finally:
        app.extensions["capsa"].db.dispose()
