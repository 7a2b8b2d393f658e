"""A Big Two move is one transaction, on SQLite and PostgreSQL, counted by SQLAlchemy's
`begin` events on the service's engine: a plain move, a keyed one, one after auto moves
came due, the move that ends a game of a match (its round, chain record and standings).
Before this, a move opened three transactions (a look-up, a catch-up read, the move) and
four when auto moves were due (their own write). What the one transaction keeps: the auto
moves stand when the move is then refused, 404 comes before 403 and before any header is
read, and a read key writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from banting_scripts import BOMB_SCRIPT, FOUR
from httpkit import fields_of, problem
from sqlalchemy import event
from test_api_banting import move_body, send, start, state

T0 = "2026-11-29T10:00"


@contextmanager
def transactions(app: Any) -> Iterator[list[str]]:
    """The transactions begun on the service's engine inside the block (one entry each)."""
    engine = app.extensions["capsa"].db.engine
    begun: list[str] = []

    def on_begin(conn: Any) -> None:
        begun.append("begin")

    event.listen(engine, "begin", on_begin)
    try:
        yield begun
    finally:
        event.remove(engine, "begin", on_begin)


def counted(app: Any, request: Callable[[], Any]) -> tuple[Any, int]:
    with transactions(app) as begun:
        response = request()
    return response, len(begun)


def stored_moves(app: Any, tenant: Any, game_id: str) -> list[tuple[str, bool, str | None]]:
    """The game's moves as stored (read directly: a GET would apply due auto moves)."""
    with app.extensions["capsa"].db.unit_of_work() as uow:
        game = uow.games.get(tenant.id, game_id)
        assert game is not None
        return [(m.player, m.auto, m.at_text) for m in game.moves]


def test_the_counter_sees_each_transaction(app, http, tenant):
    game = start(http, tenant, FOUR)
    response, n = counted(app, lambda: http.get(f"/v1/banting/games/{game['id']}", headers=tenant.headers))
    assert (response.status_code, n) == (200, 1)  # one read


def test_a_move_is_one_transaction_keyed_or_not(app, http, tenant):
    game = start(http, tenant, FOUR)
    response, n = counted(app, lambda: send(http, tenant, game["id"], "a: 3d"))
    assert (response.status_code, n) == (200, 1)
    keyed, n = counted(app, lambda: send(http, tenant, game["id"], "b: pass", **{"Idempotency-Key": "tx-1"}))
    assert (keyed.status_code, n) == (200, 1)
    assert keyed.get_json()["version"] == 3


def test_a_move_after_auto_moves_came_due_is_one_transaction_and_two_versions(app, http, tenant, clock):
    game = start(http, tenant, FOUR, turn_seconds=30)
    send(http, tenant, game["id"], "a: 3d")
    clock.advance(seconds=31)  # b ran out at :30 (a pass); c is in turn
    response, n = counted(app, lambda: send(http, tenant, game["id"], "c: 7h"))
    assert (response.status_code, n) == (200, 1)
    doc = response.get_json()
    # The auto move is a version of its own, then the move: as when they were two transactions.
    assert doc["version"] == 4
    assert [(h["player"], h["auto"], h["at"]) for h in doc["history"]] == [
        ("a", False, f"{T0}:00.000Z"), ("b", True, f"{T0}:30.000Z"), ("c", False, f"{T0}:31.000Z"),
    ]


def test_the_move_that_ends_a_game_of_a_match_is_one_transaction(app, http, tenant):
    match = http.post("/v1/banting/matches", json={
        "currency": "IDR", "stake": "1000", "players": list(FOUR), "target_points": 500,
    }, headers=tenant.headers).get_json()
    game = http.post(f"/v1/banting/matches/{match['id']}/games", json={
        "players": [{"id": p, "hand": h.split()} for p, h in FOUR.items()],
    }, headers=tenant.headers).get_json()
    for line in BOMB_SCRIPT[:-1]:
        assert send(http, tenant, game["id"], line).status_code == 200
    last, n = counted(app, lambda: send(http, tenant, game["id"], BOMB_SCRIPT[-1]))
    assert (last.status_code, n) == (200, 1)
    doc = last.get_json()
    assert doc["status"] == "finished" and doc["round"] is not None
    standings = http.get(f"/v1/banting/matches/{match['id']}", headers=tenant.headers).get_json()
    assert [(g["game"], g["round"]) for g in standings["games"]] == [(game["id"], doc["round"])]
    assert standings["current_game"] is None and standings["version"] == 3
    assert http.get(f"/v1/rounds/{doc['round']}", headers=tenant.headers).status_code == 200


def test_auto_moves_stand_when_the_move_is_refused_in_the_same_transaction(app, http, tenant, clock):
    game = start(http, tenant, FOUR, turn_seconds=30)
    seen = send(http, tenant, game["id"], "a: 3d").get_json()["version"]
    clock.advance(seconds=30)  # b runs out; c decided on the version before it
    stale, n = counted(app, lambda: send(http, tenant, game["id"], "c: 7h", **{"If-Match": f'"{seen}"'}))
    assert fields_of(problem(stale, 412, "precondition-failed")) == {"header.If-Match"} and n == 1
    assert stored_moves(app, tenant, game["id"]) == [("a", False, f"{T0}:00.000Z"), ("b", True, f"{T0}:30.000Z")]
    # A refused move (422) keeps them too, and so does a move on a game they ended (409).
    late = problem(send(http, tenant, game["id"], "b: 9c"), 422, "illegal-move")
    assert late["detail"].startswith("turn timed out")
    clock.advance(hours=1)
    finished = problem(send(http, tenant, game["id"], "c: 7h"), 409, "conflict")
    assert fields_of(finished) == {"path.game_id"}
    after = stored_moves(app, tenant, game["id"])
    assert len(after) > 2 and all(auto for _, auto, _ in after[1:])
    assert state(http, tenant, game["id"])["status"] == "finished"


def test_a_key_that_answered_replays_and_the_auto_moves_due_since_stand(app, http, tenant, clock):
    game = start(http, tenant, FOUR, turn_seconds=30)
    first = send(http, tenant, game["id"], "a: 3d", **{"Idempotency-Key": "tx-replay"})
    clock.advance(seconds=31)  # b runs out after the first answer
    again, n = counted(app, lambda: send(http, tenant, game["id"], "a: 3d", **{"Idempotency-Key": "tx-replay"}))
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_data() == first.get_data()
    assert n == 2  # the move's transaction finds the key answered; the replay reads it
    assert stored_moves(app, tenant, game["id"])[1] == ("b", True, f"{T0}:30.000Z")


def test_another_clients_game_is_404_before_the_scope_and_the_headers_are_read(app, http, tenant, other_tenant):
    game = start(http, tenant, FOUR)
    bad_key = {"Idempotency-Key": "a\tb", "If-Match": "nope"}
    path = f"/v1/banting/games/{game['id']}/moves"
    for headers in (other_tenant.headers, other_tenant.read_headers):
        problem(http.post(path, json=move_body("a: 3d"), headers={**headers, **bad_key}), 404, "not-found")
    problem(http.post(path, json=move_body("a: 3d"), headers={**tenant.read_headers, **bad_key}), 403, "forbidden")
    refused = problem(http.post(path, json=move_body("a: 3d"), headers={**tenant.headers, **bad_key}), 422, "validation")
    assert fields_of(refused) == {"header.Idempotency-Key"}


def test_a_read_key_on_an_overdue_game_is_403_and_writes_nothing(app, http, tenant, clock):
    game = start(http, tenant, FOUR, turn_seconds=30)
    clock.advance(seconds=45)
    denied = http.post(f"/v1/banting/games/{game['id']}/moves", json=move_body("b: pass"), headers=tenant.read_headers)
    problem(denied, 403, "forbidden")
    assert stored_moves(app, tenant, game["id"]) == []
