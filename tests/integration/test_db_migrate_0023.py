"""Migration 0023 (a deal a game used is published at the game's end), on both engines: the
deals of games, stored at 0022 with `revealed_at` at the game's start, get their game's end
(a Big Two game's round time, a Capsa Susun game's settlement), or null while the game is
in play; a deal no game used keeps its own; down puts back the start, and up again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app, make_tenant
from sqlalchemy import create_engine, text
from test_db_migrate_0005 import prepared_database

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0022(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database the service of today fills (its rows need today's schema), taken down to
    0022 by the test once they are stored."""
    yield from prepared_database(request.param, tmp_path, lambda url: upgrade(url, "head"))


def _revealed(url: str) -> dict[str, Any]:
    engine = create_engine(normalise_url(url))
    try:
        with engine.connect() as conn:
            return {r[0]: r[1] for r in conn.execute(text("SELECT id, revealed_at FROM deals"))}
    finally:
        engine.dispose()


def _stamp(value: Any) -> str | None:
    from datetime import UTC, datetime

    from service.domain.audit import timestamp

    if value is None:
        return None
    if isinstance(value, str):  # SQLite's text
        value = datetime.fromisoformat(value)
    return timestamp(value if value.tzinfo else value.replace(tzinfo=UTC))


def test_migration_0023_publishes_a_games_deal_at_its_end(db_at_0022, clock):
    app = make_app(db_at_0022)
    try:
        http, tenant = app.test_client(), make_tenant(app)
        post = lambda path, body: http.post(path, json=body, headers=tenant.headers)  # noqa: E731
        deal_of = lambda players: post("/v1/deals", {"players": players, "client_seed": "s"}).get_json()["id"]  # noqa: E731
        terms = {"currency": "IDR", "stake": "1000"}
        big_two = {"playing": deal_of(["a", "b"]), "played": deal_of(["a", "b"])}
        playing = post("/v1/banting/games", {**terms, "deal": big_two["playing"],
                                             "players": [{"id": "a"}, {"id": "b"}]}).get_json()
        played = post("/v1/banting/games", {**terms, "deal": big_two["played"],
                                            "players": [{"id": "a"}, {"id": "b"}]}).get_json()
        assert playing["status"] == "playing"
        arranging = post("/v1/susun/games", {**terms, "players": ["a", "b"], "arrange_seconds": 600}).get_json()
        settling = post("/v1/susun/games", {**terms, "players": ["a", "b"], "arrange_seconds": 30}).get_json()
        revealed = deal_of(["a", "b"])
        assert http.post(f"/v1/deals/{revealed}/reveal", headers=tenant.headers).status_code == 200
        clock.advance(seconds=45)
        while played["status"] == "playing":
            hint = post(f"/v1/banting/games/{played['id']}/hint", {"player": played["turn"]}).get_json()
            played = post(f"/v1/banting/games/{played['id']}/moves", hint["move"]).get_json()
        settled = http.get(f"/v1/susun/games/{settling['id']}", headers=tenant.headers).get_json()
        assert settled["status"] == "settled"
        ended_at = http.get(f"/v1/rounds/{played['round']}", headers=tenant.headers).get_json()["created_at"]
    finally:
        app.extensions["capsa"].db.dispose()
    start, end = "2026-11-29T10:00:00.000Z", "2026-11-29T10:00:45.000Z"
    deals = {**big_two, "arranging": arranging["deal"],
             "settling": settling["deal"], "revealed": revealed}
    downgrade(db_at_0022, "0022")
    engine = create_engine(normalise_url(db_at_0022))
    try:  # the rows as 0022's code wrote them: a game's deal revealed at the game's start
        with engine.begin() as conn:
            conn.execute(text("UPDATE deals SET revealed_at = used_at WHERE used_at IS NOT NULL"))
    finally:
        engine.dispose()
    at = lambda: {name: _stamp(_revealed(db_at_0022)[deal]) for name, deal in deals.items()}  # noqa: E731
    assert at() == {"playing": start, "played": start, "arranging": start, "settling": start, "revealed": start}
    upgrade(db_at_0022, "0023")
    assert ended_at == end
    assert at() == {"playing": None, "played": end, "arranging": None, "settling": end, "revealed": start}
    downgrade(db_at_0022, "0022")
    assert at() == {"playing": start, "played": start, "arranging": start, "settling": start, "revealed": start}
    upgrade(db_at_0022, "head")
    assert at() == {"playing": None, "played": end, "arranging": None, "settling": end, "revealed": start}
