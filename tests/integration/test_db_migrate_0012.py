"""Migration 0012 (client_id in every key) on rows the service wrote before it, on both engines.

The rows of `data/rows_at_0004.json` are loaded at 0004 and migrated to 0011 (as
test_db_migrate_0011 does), plus what later schemas hold: an endpoint of each client with a
delivery and an attempt, and a match whose game names it. Then 0012 runs: every row is
still there, the keys and references name the client, a reference across clients is
refused, the old rounds still verify, and it goes down to 0011 and up again.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, create_engine, func, insert, inspect, select, update
from sqlalchemy.exc import IntegrityError
from test_db_migrate_0005 import DATA, _app, _headers, _load, prepared_database

from service.adapters.db import make_engine, normalise_url
from service.adapters.migrate import downgrade, upgrade

A, B = (c["id"] for c in DATA["tables"]["clients"])
GAME = DATA["tables"]["games"][0]
DEAL = DATA["tables"]["deals"][0]  # old-a's
AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
KEYS = {
    "rounds": ["client_id", "id"],
    "deals": ["client_id", "id"],
    "games": ["client_id", "id"],
    "matches": ["client_id", "id"],
    "susun_games": ["client_id", "id"],
    "webhooks": ["client_id", "id"],
    "webhook_deliveries": ["client_id", "webhook_id", "event_id"],
}
REFERENCES = {
    ("games", "fk_games_deal_id_deals"): (["client_id", "deal_id"], "deals", ["client_id", "id"]),
    ("games", "fk_games_round_id_rounds"): (["client_id", "round_id"], "rounds", ["client_id", "id"]),
    ("games", "fk_games_match_id_matches"): (["client_id", "match_id"], "matches", ["client_id", "id"]),
    ("susun_games", "fk_susun_games_deal_id_deals"): (["client_id", "deal_id"], "deals", ["client_id", "id"]),
    ("susun_games", "fk_susun_games_round_id_rounds"): (["client_id", "round_id"], "rounds", ["client_id", "id"]),
}


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0011(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, _prepare)


def _tables(url: str) -> tuple[Any, dict[str, Any]]:
    engine = make_engine(url)  # SQLite checks foreign keys on the service's connections only
    meta = MetaData()
    meta.reflect(engine)
    return engine, meta.tables


def _prepare(url: str) -> None:
    _load(url)
    upgrade(url, "0011")
    engine, t = _tables(url)
    with engine.begin() as conn:
        for client, n in ((A, 1), (B, 2)):
            conn.execute(insert(t["webhooks"]), [{
                "id": f"wh_{n}", "client_id": client, "url": f"https://example.com/{n}", "events": ["round.created"],
                "description": None, "enabled": True, "disabled_reason": None, "secret": f"whsec_{n}",
                "previous_secret": None, "previous_secret_until": None, "cursor": 1, "failing_since": None,
                "created_at": AT, "updated_at": AT,
            }])
            conn.execute(insert(t["webhook_deliveries"]), [{
                "webhook_id": f"wh_{n}", "event_id": f"evt_{n}", "client_id": client, "sequence": 1,
                "event_type": "round.created", "event_at": AT, "state": "delivered", "attempts": 1,
                "next_attempt_at": AT, "claim": None, "last_status": 204, "last_error": None,
                "delivered_at": AT, "created_at": AT,
            }])
            conn.execute(insert(t["webhook_attempts"]), [{
                "webhook_id": f"wh_{n}", "event_id": f"evt_{n}", "attempted_at": AT, "outcome": "delivered",
                "status_code": 204, "latency_ms": 3, "error": None,
            }])
        conn.execute(insert(t["matches"]), [{
            "id": "mt_1", "client_id": A, "rules_json": {}, "currency": "USD", "stake": 100, "table_ref": None,
            "players": ["a", "b", "c", "d"], "target_points": 10, "games": [], "current_game": GAME["id"],
            "version": 1, "status": "playing", "created_at": AT, "updated_at": AT,
        }])
        conn.execute(update(t["games"]).where(t["games"].c.id == GAME["id"]).values(match_id="mt_1"))
    engine.dispose()


def _counts(url: str) -> dict[str, int]:
    engine, t = _tables(url)
    try:
        with engine.connect() as conn:
            return {
                name: int(conn.execute(select(func.count()).select_from(t[name])).scalar_one())
                for name in sorted(t) if name != "alembic_version"
            }
    finally:
        engine.dispose()


def _keys(url: str) -> tuple[dict[str, list[str]], dict[tuple[str, str], Any], list[str]]:
    engine = create_engine(normalise_url(url))
    try:
        schema = inspect(engine)
        keys = {name: schema.get_pk_constraint(name)["constrained_columns"] for name in [*KEYS, "webhook_attempts"]}
        references = {
            (name, fk["name"]): (fk["constrained_columns"], fk["referred_table"], fk["referred_columns"])
            for name in ("games", "susun_games")
            for fk in schema.get_foreign_keys(name)
            if fk["referred_table"] != "clients"
        }
        void = next(ix for ix in schema.get_indexes("chain_records") if ix["name"] == "uq_chain_records_void")
        return keys, references, void["column_names"]
    finally:
        engine.dispose()


def test_migration_0012_keeps_every_row_and_puts_client_id_in_every_key_and_reference(db_at_0011):
    before = _counts(db_at_0011)
    upgrade(db_at_0011, "0012")
    assert _counts(db_at_0011) == before
    keys, references, void = _keys(db_at_0011)
    postgresql = db_at_0011.startswith("postgresql")
    # SQLite numbers attempts only through an INTEGER PRIMARY KEY: it keeps `id` alone there.
    assert keys == {**KEYS, "webhook_attempts": ["client_id", "id"] if postgresql else ["id"]}
    assert references == REFERENCES
    assert void == ["client_id", "round_id"]
    engine, t = _tables(db_at_0011)
    try:
        with engine.connect() as conn:
            attempts = conn.execute(select(t["webhook_attempts"].c.webhook_id, t["webhook_attempts"].c.client_id))
            assert sorted(attempts) == [("wh_1", A), ("wh_2", B)]  # each attempt its endpoint's client
            game = conn.execute(select(t["games"].c.match_id).where(t["games"].c.id == GAME["id"])).scalar_one()
            assert game == "mt_1"
        # A game of old-b cannot name old-a's deal any more (it could by id alone).
        row = {**{c.name: None for c in t["games"].c}, "id": "gm_b", "client_id": B, "rules_json": {},
               "currency": "USD", "stake": 1, "players": [], "hands": [], "moves": [], "version": 1,
               "status": "playing", "created_at": AT, "updated_at": AT, "deal_id": DEAL["id"]}
        with pytest.raises(IntegrityError), engine.begin() as conn:
            conn.execute(insert(t["games"]), [row])
        with engine.begin() as conn:
            conn.execute(insert(t["games"]), [{**row, "client_id": A}])
    finally:
        engine.dispose()

    app = _app(db_at_0011)
    http = app.test_client()
    try:
        for name in DATA["keys"]:
            report = http.get("/v1/audit/verify", headers=_headers(name)).get_json()
            assert report["ok"], (name, report)
        owner = _headers("old-a")
        assert http.get(f"/v1/banting/games/{GAME['id']}", headers=owner).get_json()["round"] == GAME["round_id"]
        assert http.get(f"/v1/banting/games/{GAME['id']}", headers=_headers("old-b")).status_code == 404
        verdict = http.get(f"/v1/rounds/{GAME['round_id']}/verify", headers=owner).get_json()
        assert verdict == {"ok": True, "differences": []}
        attempts = http.get("/v1/webhooks/wh_1/deliveries", headers=owner).get_json()["items"]
        assert [(a["event_id"], a["outcome"]) for a in attempts] == [("evt_1", "delivered")]
        assert http.get("/v1/webhooks/wh_2/deliveries", headers=owner).status_code == 404
    finally:
        app.extensions["capsa"].db.dispose()


def test_migration_0012_goes_down_to_0011_and_up_again_with_the_rows(db_at_0011):
    before = _counts(db_at_0011)
    upgrade(db_at_0011, "0012")
    downgrade(db_at_0011, "0011")
    assert _counts(db_at_0011) == before
    keys, references, void = _keys(db_at_0011)
    assert keys == {name: cols[1:] for name, cols in {**KEYS, "webhook_attempts": ["client_id", "id"]}.items()}
    assert {k: v[0] for k, v in references.items()} == {k: v[0][1:] for k, v in REFERENCES.items()}
    assert void == ["round_id"]
    upgrade(db_at_0011, "0012")
    assert _counts(db_at_0011) == before
    assert _keys(db_at_0011)[1] == REFERENCES
