"""Migration 0029 (a client's references in one table), on both engines: filled with the
references of stored rounds and games, one row for a settled game and its round, none for
rounds and games without one; the table goes on 0028 and comes back on 0029."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text
from test_db_migrate_0005 import prepared_database

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade

ROUND = ("INSERT INTO rounds (id, client_id, sequence, game, preset, table_ref, reference, currency, created_at)"
         " VALUES (:id, :c, :s, 'susun', 'capsa-susun-id', NULL, :r, 'IDR', '2026-12-07 00:00:00')")
GAME = ("INSERT INTO susun_games (id, client_id, rules_json, currency, stake, table_ref, reference, players, hands,"
        " deal_id, submissions, arrange_seconds, deadline, version, status, round_id, settled_at, created_at,"
        " updated_at) VALUES (:id, :c, '{}', 'IDR', 1000, NULL, :r, '[]', '[]', :deal, '{}', 60,"
        " '2026-12-07 00:01:00', 1, :status, :round, NULL, '2026-12-07 00:00:00', '2026-12-07 00:00:00')")


def _stored_at_0028(url: str) -> None:
    upgrade(url, "0028")
    engine = create_engine(normalise_url(url))
    try:
        with engine.begin() as conn:
            for client in ("one", "two"):
                conn.execute(text("INSERT INTO clients (id, name, created_at) VALUES (:c, :c, '2026-12-07 00:00:00')"),
                             {"c": client})
            conn.execute(text(ROUND), {"id": "rnd_a", "c": "one", "s": 1, "r": "r-1"})
            conn.execute(text(ROUND), {"id": "rnd_b", "c": "one", "s": 2, "r": None})
            conn.execute(text(ROUND), {"id": "rnd_c", "c": "two", "s": 1, "r": "r-1"})  # another client's
            conn.execute(text(ROUND), {"id": "rnd_d", "c": "one", "s": 3, "r": "g-1"})  # a settled game's round
            for deal in ("dl_1", "dl_2", "dl_3"):
                conn.execute(text("INSERT INTO deals (id, client_id, nonce, server_seed, commitment, client_seed,"
                                  " players, hands, created_at) VALUES (:d, 'one', :n, :seed, 'c', 's', '[]', '[]',"
                                  " '2026-12-07 00:00:00')"), {"d": deal, "n": int(deal[-1]), "seed": b"\x00" * 32})
            conn.execute(text(GAME), {"id": "sg_1", "c": "one", "r": "g-1", "deal": "dl_1", "status": "settled",
                                      "round": "rnd_d"})
            conn.execute(text(GAME), {"id": "sg_2", "c": "one", "r": "g-2", "deal": "dl_2", "status": "arranging",
                                      "round": None})
            conn.execute(text(GAME), {"id": "sg_3", "c": "one", "r": None, "deal": "dl_3", "status": "arranging",
                                      "round": None})
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0028(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, _stored_at_0028)


def _references(url: str) -> set[tuple[str, str]] | None:
    engine = create_engine(normalise_url(url))
    try:
        if "client_references" not in inspect(engine).get_table_names():
            return None
        with engine.connect() as conn:
            return {(c, r) for c, r in conn.execute(text("SELECT client_id, reference FROM client_references"))}
    finally:
        engine.dispose()


def test_the_references_of_stored_rounds_and_games_are_taken_and_the_table_goes_down_and_up(db_at_0028):
    taken = {("one", "r-1"), ("two", "r-1"), ("one", "g-1"), ("one", "g-2")}
    upgrade(db_at_0028, "0029")
    assert _references(db_at_0028) == taken
    downgrade(db_at_0028, "0028")
    assert _references(db_at_0028) is None
    upgrade(db_at_0028, "0029")
    assert _references(db_at_0028) == taken
