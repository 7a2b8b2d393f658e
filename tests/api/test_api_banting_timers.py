"""Big Two turn timers and hints over HTTP, on SQLite and PostgreSQL: auto moves on access,
dated at their deadlines; late moves; a player who never moves; the hint endpoint.

Time is the service's injectable clock (the `clock` fixture): tests move it, never sleep.
"""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from banting_scripts import FOUR
from httpkit import fields_of, pages, problem
from test_api_audit import sql
from test_api_banting import game_body, send, start, state

from service.services.banting import timers

T0 = "2026-11-29T10:00"
START = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)  # the clock fixture's time


def timed(http: Any, tenant: Any, seconds: int = 30, hands: dict[str, str] = FOUR, **kw: Any) -> dict[str, Any]:
    return start(http, tenant, hands, turn_seconds=seconds, **kw)


def hint(http: Any, tenant: Any, game_id: str, player: str, headers: dict[str, str] | None = None) -> Any:
    return http.post(
        f"/v1/banting/games/{game_id}/hint", json={"player": player}, headers=headers or tenant.headers
    )


def moves(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(h["player"], h["play"] or "pass", h["auto"], h["at"]) for h in doc["history"]]


# -- the timer on a game --------------------------------------------------------------------


def test_a_timed_game_shows_its_timer_and_the_first_turns_deadline(http, tenant, clock):
    doc = timed(http, tenant, 45)
    assert (doc["turn_seconds"], doc["deadline"], doc["turn"]) == (45, f"{T0}:45.000Z", "a")
    assert state(http, tenant, doc["id"]) == doc


@pytest.mark.parametrize("bad", [0, -5, 86_401, "30", 30.5, True])
def test_a_turn_timer_outside_1_to_86400_whole_seconds_is_422_naming_it(http, tenant, bad):
    response = http.post("/v1/banting/games", json=game_body(FOUR, turn_seconds=bad), headers=tenant.headers)
    body = problem(response, 422, "validation")
    assert fields_of(body) == {"turn_seconds"}


def test_a_leader_who_times_out_plays_the_hint_dated_at_its_deadline(http, tenant, clock):
    game = timed(http, tenant)
    answer = hint(http, tenant, game["id"], "a").get_json()
    assert answer["deadline"] == game["deadline"] == f"{T0}:30.000Z"
    suggested = answer["move"]
    clock.advance(seconds=29.999)
    assert state(http, tenant, game["id"])["history"] == []  # not yet
    clock.advance(seconds=0.001)
    after = state(http, tenant, game["id"])
    # The leader may not pass, so the service plays the hint (it must hold the 3d).
    assert moves(after) == [("a", suggested["play"], True, f"{T0}:30.000Z")]
    assert "3d" in suggested["play"]
    assert (after["turn"], after["deadline"], after["version"]) == ("b", "2026-11-29T10:01:00.000Z", 2)


def test_overdue_turns_chain_from_the_previous_moves_time_and_pass_where_allowed(http, tenant, clock):
    game = timed(http, tenant)
    clock.advance(seconds=5)
    assert send(http, tenant, game["id"], "a: 3d").status_code == 200  # at :05, by hand
    clock.advance(seconds=100)  # :05 + 100 s: b (:35), c (01:05) and d (01:35) ran out
    after = state(http, tenant, game["id"])
    assert moves(after) == [
        ("a", ["3d"], False, f"{T0}:05.000Z"),
        ("b", "pass", True, f"{T0}:35.000Z"),
        ("c", "pass", True, "2026-11-29T10:01:05.000Z"),
        ("d", "pass", True, "2026-11-29T10:01:35.000Z"),
    ]
    # Everyone else passed: a leads again, its turn from d's auto pass.
    assert (after["turn"], after["leader"], after["deadline"]) == ("a", "a", "2026-11-29T10:02:05.000Z")
    assert after["table_play"] is None


def test_a_move_after_the_players_deadline_is_422_turn_timed_out_and_changes_nothing(http, tenant, clock):
    game = timed(http, tenant)
    send(http, tenant, game["id"], "a: 3d")
    clock.advance(seconds=31)
    late = problem(send(http, tenant, game["id"], "b: 9c"), 422, "illegal-move")
    assert late["detail"].startswith("turn timed out: 'b''s turn ended at 2026-11-29T10:00:30.000Z")
    assert fields_of(late) == {"player"}
    after = state(http, tenant, game["id"])
    assert moves(after)[1:] == [("b", "pass", True, f"{T0}:30.000Z")]
    assert after["turn"] == "c"
    # Its hint is refused the same way, and c (in turn) may still move.
    assert problem(hint(http, tenant, game["id"], "b"), 422, "illegal-move")["detail"].startswith("turn timed out")
    assert send(http, tenant, game["id"], "c: 7h").status_code == 200


def test_a_late_move_with_an_if_match_is_still_turn_timed_out_not_412(http, tenant, clock):
    game = timed(http, tenant)
    seen = send(http, tenant, game["id"], "a: 3d").get_json()["version"]
    clock.advance(seconds=30)
    late = problem(send(http, tenant, game["id"], "b: 9c", **{"If-Match": f'"{seen}"'}), 422, "illegal-move")
    assert late["detail"].startswith("turn timed out")


def test_a_move_on_a_version_the_auto_moves_made_stale_is_412(http, tenant, clock):
    game = timed(http, tenant)
    send(http, tenant, game["id"], "a: 3d")
    seen = state(http, tenant, game["id"])["version"]
    clock.advance(seconds=30)  # b's turn runs out; c decided on the version before it
    stale = problem(send(http, tenant, game["id"], "c: 7h", **{"If-Match": f'"{seen}"'}), 412, "precondition-failed")
    assert fields_of(stale) == {"header.If-Match"}
    after = state(http, tenant, game["id"])
    assert (after["version"], after["turn"], len(after["history"])) == (seen + 1, "c", 2)


def test_an_untimed_game_never_moves_by_itself(http, tenant, clock):
    game = start(http, tenant, FOUR)
    clock.advance(days=3)
    assert state(http, tenant, game["id"]) == game


def test_concurrent_reads_at_the_deadline_store_the_auto_moves_once(app, tenant, clock):
    http = app.test_client()
    game = timed(http, tenant)
    send(http, tenant, game["id"], "a: 3d")
    clock.advance(seconds=65)  # b and c ran out
    barrier = threading.Barrier(8)
    answers: list[Any] = []
    lock = threading.Lock()

    def read() -> None:
        client = app.test_client()
        barrier.wait(10)
        response = client.get(f"/v1/banting/games/{game['id']}", headers=tenant.read_headers)
        with lock:
            answers.append(response)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [r.status_code for r in answers] == [200] * 8
    docs = [r.get_json() for r in answers]
    assert all(d == docs[0] for d in docs)
    assert [(p, what, auto) for p, what, auto, _ in moves(docs[0])] == [
        ("a", ["3d"], False), ("b", "pass", True), ("c", "pass", True),
    ]
    assert docs[0]["version"] == 3  # one write for the move, one for the catch-up


def test_the_sweeper_hook_plays_every_overdue_game_without_a_request(app, http, tenant, clock):
    first, second = timed(http, tenant), timed(http, tenant, 120)
    clock.advance(seconds=31)
    made = timers.sweep(app.extensions["capsa"].db)
    assert made >= 1  # the first game's turn, and any other test's timed game that is due
    with app.extensions["capsa"].db.unit_of_work() as uow:
        stored = {g: uow.games.get(tenant.id, g).moves for g in (first["id"], second["id"])}  # type: ignore[union-attr]
    assert [m.auto for m in stored[first["id"]]] == [True]
    assert stored[second["id"]] == ()  # its first turn lasts 120 s
    assert timers.sweep(app.extensions["capsa"].db) == 0  # the clock stands still: nothing more is due
    assert state(http, tenant, first["id"])["history"][0]["auto"] is True


def _stored_deadline(app: Any, tenant: Any, game_id: str) -> datetime | None:
    from sqlalchemy import select

    from service.adapters.models import Game

    with app.extensions["capsa"].db.unit_of_work() as uow:
        value = uow.session.scalar(select(Game.deadline).where(Game.client_id == tenant.id, Game.id == game_id))
    return None if value is None else value.astimezone(UTC)


def test_a_sweep_reads_the_due_games_only_whoever_holds_games_in_play(app, http, tenant, other_tenant, clock, monkeypatch):
    """One client's games whose turns run on (a day each) cost the pass nothing: it read
    every timed game in play, and each again, before the games kept their deadline."""
    waiting = [timed(http, other_tenant, 86_400)["id"] for _ in range(12)]
    due = timed(http, tenant, 10)["id"]
    clock.advance(seconds=12)
    tried: list[str] = []
    catch_up = timers.catch_up
    monkeypatch.setattr(timers, "catch_up", lambda db, c, g: tried.append(g) or catch_up(db, c, g))
    played = timers.play_overdue(app.extensions["capsa"].db)
    assert due in tried and not set(waiting) & set(tried)
    assert (tenant.id, due, 1) in played
    # the game keeps its next deadline: the next turn's, from the auto move's time
    assert _stored_deadline(app, tenant, due) == START + timedelta(seconds=20)
    assert _stored_deadline(app, other_tenant, waiting[0]) == START + timedelta(seconds=86_400)


def test_a_sweep_plays_every_due_game_once_a_batch_at_a_time(app, http, tenant, clock, monkeypatch):
    games = [timed(http, tenant, 5)["id"] for _ in range(5)]
    clock.advance(seconds=6)
    tried: list[str] = []
    catch_up = timers.catch_up
    monkeypatch.setattr(timers, "catch_up", lambda db, c, g: tried.append(g) or catch_up(db, c, g))
    played = timers.play_overdue(app.extensions["capsa"].db, batch=2)
    assert sorted(g for g in tried if g in games) == sorted(games) and len(set(tried)) == len(tried)
    assert {g for _, g, made in played if made == 1} >= set(games)
    assert {_stored_deadline(app, tenant, g) for g in games} == {START + timedelta(seconds=10)}  # the auto move at 5 s


def test_a_finished_game_has_no_deadline_left(http, app, tenant, clock):
    game = timed(http, tenant, 20)
    clock.advance(seconds=3600)  # every turn runs out: the service plays the game to its end
    assert state(http, tenant, game["id"])["status"] == "finished"
    assert _stored_deadline(app, tenant, game["id"]) is None


# -- a player who never moves ---------------------------------------------------------------


def test_a_game_where_one_player_never_moves_still_finishes_with_its_auto_moves_marked(http, tenant, clock):
    """a, b and c play the hints by hand within their time; d never answers."""
    game = timed(http, tenant, 20, rules={"preset": "capsa-banting-id", "params": {"fee_rate": "0"}})
    gid = game["id"]
    doc = game
    for _ in range(200):
        if doc["status"] == "finished":
            break
        if doc["turn"] == "d":
            clock.advance(seconds=20)
            doc = state(http, tenant, gid)
            continue
        clock.advance(seconds=3)
        suggested = hint(http, tenant, gid, doc["turn"])
        assert suggested.status_code == 200, suggested.get_json()
        response = http.post(f"/v1/banting/games/{gid}/moves", json=suggested.get_json()["move"], headers=tenant.headers)
        assert response.status_code == 200, response.get_json()
        doc = response.get_json()
    assert doc["status"] == "finished" and doc["winner"] in {"a", "b", "c"}
    d_moves = [h for h in doc["history"] if h["player"] == "d"]
    assert d_moves and all(h["auto"] and h["pass"] for h in d_moves)  # d never leads: it always passes
    assert not any(h["auto"] for h in doc["history"] if h["player"] != "d")
    times = [datetime.fromisoformat(h["at"]) for h in doc["history"]]
    for before, h, at in zip([START, *times], doc["history"], times, strict=False):
        assert at - before == timedelta(seconds=20 if h["auto"] else 3), h  # auto: at the deadline

    stored = http.get(f"/v1/rounds/{doc['round']}", headers=tenant.headers).get_json()
    assert stored["history"] == doc["history"] and stored["turn_seconds"] == 20
    assert list(stored["history"][0]) == ["n", "player", "play", "pass", "auto", "at"]  # as in the state
    d = next(p for p in stored["players"] if p["id"] == "d")
    assert (d["cards_left"], d["points"], d["result"]) == (13, -39, "-39000")  # 13 cards: x3
    verdict = http.get(f"/v1/rounds/{doc['round']}/verify", headers=tenant.read_headers).get_json()
    assert verdict == {"ok": True, "differences": []}
    assert http.get("/v1/audit/verify", headers=tenant.read_headers).get_json()["ok"]
    # The round's page for people marks each auto move, and only those.
    link = http.post(f"/v1/rounds/{doc['round']}/view-link", headers=tenant.read_headers).get_json()["url"]
    page = http.get(link.replace("http://localhost", "")).get_data(as_text=True)
    assert page.count('class="auto-move"') == len(d_moves)
    rows = re.findall(r'<tr class="move([^"]*)" data-n="(\d+)"', page)
    assert [int(n) for c, n in rows if " auto" in c] == [h["n"] for h in d_moves]


def test_a_game_nobody_plays_finishes_on_one_read_and_settles(http, tenant, clock):
    game = timed(http, tenant, 10)
    clock.advance(hours=1)
    doc = state(http, tenant, game["id"])
    assert doc["status"] == "finished" and doc["round"] is not None
    assert all(h["auto"] for h in doc["history"])
    times = [h["at"] for h in doc["history"]]
    assert times == sorted(times) and times[0] == f"{T0}:10.000Z"
    assert len(set(times)) == len(times)  # one deadline after another, 10 s apart
    verdict = http.get(f"/v1/rounds/{doc['round']}/verify", headers=tenant.headers).get_json()
    assert verdict["ok"]



def test_the_finished_filter_lists_a_game_its_overdue_auto_moves_finish(http, tenant, clock):
    game = timed(http, tenant, 10)
    other = timed(http, tenant, 86400)
    clock.advance(hours=1)  # the first game's auto moves finish it; nothing has read it yet
    finished = http.get("/v1/banting/games?status=finished", headers=tenant.headers).get_json()
    assert [(g["id"], g["status"]) for g in finished["items"]] == [(game["id"], "finished")]
    assert finished["items"][0]["round"] is not None
    playing = http.get("/v1/banting/games?status=playing", headers=tenant.headers).get_json()
    assert [g["id"] for g in playing["items"]] == [other["id"]]


def test_the_finished_filter_never_shows_a_game_in_play_whose_stored_deadline_is_stale(app, http, tenant, clock):
    # A game moved by a server before migration 0021 keeps a deadline column that is not its
    # turn's: it matches the filter's look-up but is not due, and is still in play.
    game = timed(http, tenant, 86400)
    sql(app, "UPDATE games SET deadline = :at WHERE id = :g", at=START - timedelta(days=1), g=game["id"])
    finished = http.get("/v1/banting/games?status=finished", headers=tenant.headers).get_json()
    assert finished["items"] == []

# -- hints ----------------------------------------------------------------------------------


def test_the_hint_is_a_move_body_the_moves_endpoint_accepts(http, tenant):
    game = start(http, tenant, FOUR)
    response = hint(http, tenant, game["id"], "a")
    assert response.status_code == 200
    # a holds 3d 4c 5c 5d 5h 5s 6c 8c 9d Tc Qc Kd Ad: the diamond flush with the 3d sheds
    # four ranks, more than any other play containing it (docs/rules.md, the hint heuristic).
    assert response.get_json() == {
        "game": game["id"],
        "version": 1,
        "move": {"player": "a", "play": ["3d", "5d", "9d", "Kd", "Ad"]},
        "combination": "flush",
        "deadline": None,
    }
    assert state(http, tenant, game["id"]) == game  # nothing stored
    moved = http.post(f"/v1/banting/games/{game['id']}/moves", json=response.get_json()["move"], headers=tenant.headers)
    assert moved.status_code == 200 and moved.get_json()["table_play"]["combination"] == "flush"


def test_a_hint_follows_with_the_cheapest_single_and_takes_a_winning_bomb(http, tenant):
    game = start(http, tenant, FOUR)
    for line in ("a: 3d", "b: pass", "c: 7h"):
        send(http, tenant, game["id"], line)
    # d: 2c 2d 2h 2s 7d 8s 9s Td Ts Js Qs Ks As on a 7h: the 8s sheds a rank with the
    # lowest card that beats (units 9 -> 8, spend 1.6 x (5/12)^2).
    body = hint(http, tenant, game["id"], "d").get_json()
    assert (body["move"], body["combination"], body["version"]) == ({"player": "d", "play": ["8s"]}, "single", 4)
    send(http, tenant, game["id"], "d: 2h")
    # a's four 5s bomb the 2h, and under capsa-banting-id a bomb ends the game: the referee
    # says a wins, so the hint takes it (the lowest kicker, 4c).
    body = hint(http, tenant, game["id"], "a").get_json()
    assert body["move"] == {"player": "a", "play": ["4c", "5d", "5c", "5h", "5s"]}
    assert body["combination"] == "four_of_a_kind"


def test_a_timed_out_follower_passes_and_its_hint_body_would_pass_the_same_way(http, tenant, clock):
    game = timed(http, tenant)
    for line in ("a: 3d", "b: pass", "c: 7h", "d: 2h"):
        send(http, tenant, game["id"], line)
    clock.advance(seconds=30)  # a may pass (it holds the bomb, but a pass is allowed): it passes
    after = state(http, tenant, game["id"])
    assert moves(after)[-1] == ("a", "pass", True, f"{T0}:30.000Z")


def test_a_hint_needs_a_write_key_and_the_players_turn(http, tenant, other_tenant):
    game = start(http, tenant, FOUR)
    problem(hint(http, tenant, game["id"], "a", headers=tenant.read_headers), 403, "forbidden")
    problem(hint(http, other_tenant, game["id"], "a"), 404, "not-found")
    problem(hint(http, tenant, "gm_nope", "a"), 404, "not-found")
    turn = problem(hint(http, tenant, game["id"], "b"), 422, "illegal-move")
    assert turn["detail"] == "not your turn: it is the turn of 'a'" and fields_of(turn) == {"player"}
    stranger = problem(hint(http, tenant, game["id"], "z"), 422, "illegal-move")
    assert stranger["detail"].startswith("not your turn: 'z' is not in this game")
    missing = http.post(f"/v1/banting/games/{game['id']}/hint", json={}, headers=tenant.headers)
    assert fields_of(problem(missing, 422, "validation")) == {"player"}
    extra = http.post(f"/v1/banting/games/{game['id']}/hint", json={"player": "a", "x": 1}, headers=tenant.headers)
    assert fields_of(problem(extra, 422, "validation")) == {"x"}


def test_a_hint_on_a_finished_game_is_409(http, tenant):
    from banting_scripts import BOMB_SCRIPT
    from test_api_banting import play

    game = start(http, tenant, FOUR)
    play(http, tenant, game["id"], BOMB_SCRIPT)
    problem(hint(http, tenant, game["id"], "b"), 409, "conflict")


def test_a_list_page_plays_the_due_turns_of_a_bounded_number_of_games_and_resumes_after_them(
    http, tenant, clock, monkeypatch
):
    """The list shows each game as a GET of it would, its due auto moves played first (a
    game over by them is no longer `playing`); a page holding more such games than
    CATCH_UP_PER_PAGE ends before the next one, its cursor resuming there."""
    from service.services.banting import games as banting_games

    monkeypatch.setattr(banting_games, "CATCH_UP_PER_PAGE", 2, raising=False)
    made = []
    for _ in range(3):
        made.append(timed(http, tenant, 30))
        clock.advance(milliseconds=1)
    newest_first = [g["id"] for g in reversed(made)]
    clock.advance(hours=1)  # every turn of every game ran out: each game plays itself to its end
    h = tenant.read_headers
    first = http.get("/v1/banting/games?status=playing&limit=10", headers=h).get_json()
    assert first["items"] == [] and first["next_cursor"] is not None  # two played out, filtered
    rest = http.get(f"/v1/banting/games?status=playing&limit=10&cursor={first['next_cursor']}", headers=h).get_json()
    assert rest == {"items": [], "next_cursor": None}
    listed = http.get("/v1/banting/games?limit=10", headers=h).get_json()
    assert [g["id"] for g in listed["items"]] == newest_first and listed["next_cursor"] is None
    for g in listed["items"]:
        assert g["status"] == "finished" and g["round"] and g["deadline"] is None
        assert g == http.get(f"/v1/banting/games/{g['id']}", headers=h).get_json()


def test_a_list_page_stops_playing_due_turns_once_its_cpu_budget_is_spent_and_resumes_there(
    http, tenant, clock, monkeypatch
):
    """Ten timed games of one suit each cost a page 0.8-1.4 s of CPU: once PAGE_WORK_CPU_S
    has gone (here at once: each page catches up its first game only), the page ends before
    the next game to catch up, and the cursor resumes there."""
    from service.services import cursors

    monkeypatch.setattr(cursors, "PAGE_WORK_CPU_S", 0.0)
    made = []
    for _ in range(3):
        made.append(timed(http, tenant, 30))
        clock.advance(milliseconds=1)
    newest_first = [g["id"] for g in reversed(made)]
    clock.advance(hours=1)
    seen = []
    for page in pages(http, "/v1/banting/games?limit=10", tenant.read_headers):
        assert [g["status"] for g in page["items"]] == ["finished"]
        seen += page["items"]
    assert [g["id"] for g in seen] == newest_first
