"""Big Two matches and rule variants over HTTP: games tied together until a target, standings per
game, the previous winner leading, If-Match and Idempotency-Key as on games, contradictions,
the rules listing with sources."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from banting_scripts import THREE, THREE_SCRIPT
from httpkit import fields_of, problem
from test_api_banting import TWO, TWO_SCRIPT, move_body, play, send, state

from service.adapters.banting import MatchRepository
from service.services.banting import matches as match_service

# Game 2 deals TWO the other way round: b holds 3d, so only previous_winner lets a lead.
SWAPPED = {"a": TWO["b"], "b": TWO["a"]}
SECOND_SCRIPT = [
    "a: 3c", "b: 2h", "a: pass", "b: 3d 4c 5h 6s 7d", "a: pass", "b: Qc Qd Qs", "a: pass",
    "b: 8h", "a: pass", "b: 9h", "a: pass", "b: Jh", "a: pass", "b: Kh",
]  # fmt: skip
YAWNOC_NEXT = {"preset": "big-two-yawnoc", "params": {"first_lead": "previous_winner"}}


def match_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"rules": YAWNOC_NEXT, "currency": "IDR", "stake": "1000", "table": "table-9",
                            "players": ["a", "b"], "target_points": 50}
    body.update(overrides)
    return body


def new_match(http: Any, tenant: Any, **overrides: Any) -> dict[str, Any]:
    response = http.post("/v1/banting/matches", json=match_body(**overrides), headers=tenant.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    doc = dict(response.get_json())
    assert response.headers["Location"] == f"/v1/banting/matches/{doc['id']}"
    assert response.headers["ETag"] == '"1"'
    return doc


def next_game(http: Any, tenant: Any, match_id: str, hands: dict[str, str], **headers: str) -> Any:
    body = {"players": [{"id": pid, "hand": hand.split()} for pid, hand in hands.items()]}
    return http.post(f"/v1/banting/matches/{match_id}/games", json=body, headers={**tenant.headers, **headers})


def match(http: Any, tenant: Any, match_id: str) -> dict[str, Any]:
    response = http.get(f"/v1/banting/matches/{match_id}", headers=tenant.headers)
    assert response.status_code == 200
    return dict(response.get_json())


def test_a_match_ties_games_together_with_standings_after_each_and_ends_at_the_target(http, tenant):
    m = new_match(http, tenant)
    assert (m["status"], m["players"], m["games"], m["winners"], m["next_leader"]) == (
        "playing", [{"id": "a", "points": 0}, {"id": "b", "points": 0}], [], [], None)
    first = next_game(http, tenant, m["id"], TWO)
    assert first.status_code == 201 and first.get_json()["match"] == m["id"]
    game1 = play(http, tenant, first.get_json()["id"], TWO_SCRIPT)
    # b never played: 13 cards x 3 = 39 points; yawnoc's net is T - n x l: a +39, b -39.
    rnd = http.get(f"/v1/rounds/{game1['round']}", headers=tenant.headers).get_json()
    assert [(p["id"], p["points"], p["result"], p["fee"]) for p in rnd["players"]] == [
        ("a", 39, "39000", "0"), ("b", -39, "-39000", "0")]
    after1 = match(http, tenant, m["id"])
    assert after1["games"] == [{"n": 1, "game": game1["id"], "round": game1["round"], "winner": "a", "void": False,
                                "points": {"a": 0, "b": 39}, "totals": {"a": 0, "b": 39}}]
    assert (after1["status"], after1["next_leader"], after1["current_game"]) == ("playing", "a", None)
    # Game 2: a won game 1 and leads, though b holds the 3d.
    second = next_game(http, tenant, m["id"], SWAPPED, **{"If-Match": f'"{after1["version"]}"'})
    assert second.status_code == 201, second.get_data(as_text=True)
    assert (second.get_json()["turn"], second.get_json()["leader"]) == ("a", "a")
    busy = next_game(http, tenant, m["id"], TWO)
    assert fields_of(problem(busy, 409, "conflict")) == {"path.match_id"}
    game2 = play(http, tenant, second.get_json()["id"], SECOND_SCRIPT)
    after2 = match(http, tenant, m["id"])
    # a is left with 12 cards: x2 = 24; totals a 24, b 39, below the target of 50.
    assert after2["games"][1]["points"] == {"a": 24, "b": 0}
    assert after2["games"][1]["totals"] == {"a": 24, "b": 39}
    assert after2["players"] == [{"id": "a", "points": 24}, {"id": "b", "points": 39}]
    assert (after2["status"], after2["next_leader"]) == ("playing", "b")
    # Each game is its own stored round, and it verifies (re-scored with its leader).
    verdict = http.get(f"/v1/rounds/{game2['round']}/verify", headers=tenant.read_headers).get_json()
    assert verdict == {"ok": True, "differences": []}


def test_a_match_ends_once_a_total_reaches_the_target_and_the_lowest_total_wins(http, tenant):
    m = new_match(http, tenant, target_points=39, rules="big-two-hk")
    game = play(http, tenant, next_game(http, tenant, m["id"], TWO).get_json()["id"], TWO_SCRIPT)
    done = match(http, tenant, m["id"])
    assert (done["status"], done["winners"], done["next_leader"]) == ("finished", ["a"], None)
    assert done["games"][0]["round"] == game["round"]
    assert fields_of(problem(next_game(http, tenant, m["id"], TWO), 409, "conflict")) == {"path.match_id"}


def test_lowest_card_leads_every_game_without_previous_winner(http, tenant):
    m = new_match(http, tenant, rules="big-two-yawnoc")
    play(http, tenant, next_game(http, tenant, m["id"], TWO).get_json()["id"], TWO_SCRIPT)
    second = next_game(http, tenant, m["id"], SWAPPED).get_json()
    assert second["turn"] == "b" and match(http, tenant, m["id"])["next_leader"] is None


def test_a_stale_if_match_is_412_and_starts_no_game(http, tenant):
    m = new_match(http, tenant)
    stale = next_game(http, tenant, m["id"], TWO, **{"If-Match": '"7"'})
    assert fields_of(problem(stale, 412, "precondition-failed")) == {"header.If-Match"}
    assert match(http, tenant, m["id"])["current_game"] is None


def test_the_same_idempotency_key_replays_the_match_and_its_game(http, tenant):
    headers = {**tenant.headers, "Idempotency-Key": "match-1"}
    first = http.post("/v1/banting/matches", json=match_body(), headers=headers)
    again = http.post("/v1/banting/matches", json=match_body(), headers=headers)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_data() == first.get_data()
    match_id = first.get_json()["id"]
    one = next_game(http, tenant, match_id, TWO, **{"Idempotency-Key": "g-1"})
    two = next_game(http, tenant, match_id, TWO, **{"Idempotency-Key": "g-1"})
    assert two.get_data() == one.get_data() and match(http, tenant, match_id)["version"] == 2


def test_a_game_must_seat_the_match_players_in_order(http, tenant):
    m = new_match(http, tenant)
    answer = problem(next_game(http, tenant, m["id"], {"b": TWO["b"], "a": TWO["a"]}), 422, "validation")
    assert fields_of(answer) == {"players[0].id", "players[1].id"}


def test_bad_match_bodies_are_422_naming_the_field(http, tenant):
    for body, field in (
        (match_body(players=["a", "a"]), "players[1]"),
        (match_body(target_points=0), "target_points"),
        (match_body(rules="capsa-susun-id"), "rules"),
    ):
        response = http.post("/v1/banting/matches", json=body, headers=tenant.headers)
        assert response.status_code == 422 and field in fields_of(response.get_json()), body


def test_contradictory_rules_are_422_naming_both_and_store_nothing(http, tenant):
    rules = {"preset": "capsa-banting-id", "params": {"double_at": 500, "triple_at": 13}}
    response = http.post("/v1/banting/matches", json=match_body(rules=rules), headers=tenant.headers)
    assert fields_of(problem(response, 422, "validation")) == {"rules.params.double_at", "rules.params.triple_at"}
    game = {"currency": "IDR", "stake": "1000", "rules": rules,
            "players": [{"id": p, "hand": h.split()} for p, h in TWO.items()]}
    response = http.post("/v1/banting/games", json=game, headers=tenant.headers)
    assert fields_of(problem(response, 422, "validation")) == {"rules.params.double_at", "rules.params.triple_at"}


def test_another_clients_match_is_not_found_and_a_read_key_cannot_start_a_game(http, tenant, other_tenant):
    m = new_match(http, tenant)
    problem(http.get(f"/v1/banting/matches/{m['id']}", headers=other_tenant.headers), 404, "not-found")
    problem(next_game(http, other_tenant, m["id"], TWO), 404, "not-found")
    body = {"players": [{"id": p, "hand": h.split()} for p, h in TWO.items()]}
    response = http.post(f"/v1/banting/matches/{m['id']}/games", json=body, headers=tenant.read_headers)
    problem(response, 403, "forbidden")


def test_a_variant_plays_over_http_a_pass_skips_one_turn_under_big_two_tw(http, tenant):
    game = {"currency": "IDR", "stake": "1000", "rules": "big-two-tw",
            "players": [{"id": p, "hand": h.split()} for p, h in THREE.items()]}
    doc = http.post("/v1/banting/games", json=game, headers=tenant.headers).get_json()
    assert doc["rules"]["params"]["pass_locks"] == "turn" and doc["turn"] == "b"
    # THREE_SCRIPT's first five moves: under pass_locks trick the turn would go back to b here.
    after = play(http, tenant, doc["id"], THREE_SCRIPT[:5])
    assert (after["turn"], after["table_play"]["player"]) == ("a", "b")
    after = play(http, tenant, doc["id"], ["a: pass"])
    assert (after["turn"], after["table_play"]) == ("b", None)
    refused = http.post(f"/v1/banting/games/{doc['id']}/moves", json=move_body("a: 3h"), headers=tenant.headers)
    assert problem(refused, 422, "illegal-move")["errors"][0]["message"].startswith("not your turn")
    assert state(http, tenant, doc["id"])["version"] == 7


def test_version_1_is_still_served_and_stores_its_exact_parameters(http, tenant):
    v1 = {"preset": "capsa-banting-id", "version": 1}
    game = {"currency": "IDR", "stake": "1000", "rules": v1,
            "players": [{"id": p, "hand": h.split()} for p, h in TWO.items()]}
    doc = http.post("/v1/banting/games", json=game, headers=tenant.headers).get_json()
    assert doc["rules"] == {"preset": "capsa-banting-id", "version": 1, "params": {
        "suit_order": "dchs", "flush_order": "suit_first", "straights_with_two": False, "bomb_ends_game": True,
        "double_at": 10, "triple_at": 13, "fee_rate": "0.03", "fee_basis": "winnings"}}
    final = play(http, tenant, doc["id"], TWO_SCRIPT)
    assert http.get(f"/v1/rounds/{final['round']}/verify", headers=tenant.headers).get_json()["ok"]
    bad = {**game, "rules": {**v1, "params": {"pass_locks": "turn"}}}
    answer = problem(http.post("/v1/banting/games", json=bad, headers=tenant.headers), 422, "unknown-rules")
    assert fields_of(answer) == {"rules.params.pass_locks"}


def test_the_rules_listing_names_every_big_two_preset_with_every_parameter_and_its_source(http, tenant):
    items = {i["preset"]: i for i in http.get("/v1/rules", headers=tenant.headers).get_json()["items"]}
    banting = {name for name, i in items.items() if i["game"] == "banting"}
    assert banting == {"capsa-banting-id", "pusoy-dos", "big-two-hk", "big-two-tw", "big-two-yawnoc"}
    assert items["capsa-banting-id"]["version"] == 3  # the latest, listed last
    for name in banting:
        assert set(items[name]["sources"]) == set(items[name]["params"]) and items[name]["source"], name
    assert "yawnoc/big-two-scorer" in items["big-two-yawnoc"]["source"]
    assert "AdoryVo/big-two" in items["pusoy-dos"]["sources"]["bombs"]


def void(http: Any, tenant: Any, round_id: str, **headers: str) -> Any:
    return http.post(f"/v1/rounds/{round_id}/void", json={"reason": "misdeal"}, headers={**tenant.headers, **headers})


def test_a_voided_game_no_longer_counts_and_the_match_it_finished_plays_on(http, tenant):
    m = new_match(http, tenant, target_points=39, rules="big-two-hk")
    game = play(http, tenant, next_game(http, tenant, m["id"], TWO).get_json()["id"], TWO_SCRIPT)
    done = match(http, tenant, m["id"])
    assert (done["status"], done["winners"], done["players"]) == (
        "finished", ["a"], [{"id": "a", "points": 0}, {"id": "b", "points": 39}])
    assert void(http, tenant, game["round"], **{"Idempotency-Key": "v-1"}).status_code == 200
    after = match(http, tenant, m["id"])
    # The game stays listed, marked void; its points count in no total, and the target is
    # no longer reached: the match plays on, and nobody has won it.
    assert after["games"] == [{"n": 1, "game": game["id"], "round": game["round"], "winner": "a", "void": True,
                               "points": {"a": 0, "b": 39}, "totals": {"a": 0, "b": 0}}]
    assert (after["status"], after["winners"], after["next_leader"], after["current_game"]) == (
        "playing", [], None, None)
    assert after["players"] == [{"id": "a", "points": 0}, {"id": "b", "points": 0}]
    assert after["version"] == done["version"] + 1
    # A retried void is answered again and changes the match no further.
    assert void(http, tenant, game["round"], **{"Idempotency-Key": "v-1"}).status_code == 200
    assert match(http, tenant, m["id"]) == after
    replay = next_game(http, tenant, m["id"], TWO, **{"If-Match": f'"{after["version"]}"'})
    assert replay.status_code == 201, replay.get_data(as_text=True)
    play(http, tenant, replay.get_json()["id"], TWO_SCRIPT)
    again = match(http, tenant, m["id"])
    assert [(g["n"], g["void"], g["totals"]) for g in again["games"]] == [
        (1, True, {"a": 0, "b": 0}), (2, False, {"a": 0, "b": 39})]
    assert (again["status"], again["winners"]) == ("finished", ["a"])


def test_after_a_void_the_winner_of_the_last_game_that_counts_leads_the_next(http, tenant):
    m = new_match(http, tenant)
    game1 = play(http, tenant, next_game(http, tenant, m["id"], TWO).get_json()["id"], TWO_SCRIPT)
    game2 = play(http, tenant, next_game(http, tenant, m["id"], SWAPPED).get_json()["id"], SECOND_SCRIPT)
    assert match(http, tenant, m["id"])["next_leader"] == "b"
    assert void(http, tenant, game2["round"]).status_code == 200
    after = match(http, tenant, m["id"])
    assert [(g["void"], g["totals"]) for g in after["games"]] == [
        (False, {"a": 0, "b": 39}), (True, {"a": 0, "b": 39})]
    assert (after["players"], after["next_leader"]) == ([{"id": "a", "points": 0}, {"id": "b", "points": 39}], "a")
    # With no game left that counts, the lowest card leads again: b holds the 3d here.
    assert void(http, tenant, game1["round"]).status_code == 200
    assert match(http, tenant, m["id"])["next_leader"] is None
    third = next_game(http, tenant, m["id"], SWAPPED).get_json()
    assert third["turn"] == "b"


def test_the_match_document_finds_its_next_leader_among_the_games_it_shows_else_reads_it(
    app, http, tenant, monkeypatch
):
    """The document read the match's games twice: the latest it shows, then the winner of
    the last game that counts, though that game is nearly always among those shown. It now
    reads the winner only when none of the games shown counts and earlier ones exist."""
    from sqlalchemy import event

    seen: list[str] = []
    engine = app.extensions["capsa"].db.engine

    def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    def games_read() -> tuple[str | None, int]:
        seen.clear()
        event.listen(engine, "before_cursor_execute", note)
        try:
            leader = match(http, tenant, m["id"])["next_leader"]
        finally:
            event.remove(engine, "before_cursor_execute", note)
        return leader, sum("match_games" in s for s in seen)

    monkeypatch.setattr(match_service, "SHOWN_GAMES", 1)
    m = new_match(http, tenant)
    play(http, tenant, next_game(http, tenant, m["id"], TWO).get_json()["id"], TWO_SCRIPT)
    game2 = play(http, tenant, next_game(http, tenant, m["id"], SWAPPED).get_json()["id"], SECOND_SCRIPT)
    assert games_read() == ("b", 1)  # game 2 is shown and counts
    assert void(http, tenant, game2["round"]).status_code == 200
    assert games_read() == ("a", 2)  # the one shown is void: game 1's winner is read


def test_an_if_match_that_names_no_version_is_422_saying_a_match_version(http, tenant):
    m = new_match(http, tenant)
    bad = problem(next_game(http, tenant, m["id"], TWO, **{"If-Match": "garbage"}), 422, "validation")
    assert bad["errors"] == [{"field": "header.If-Match", "message": 'must be a match version, such as "7", got "garbage"'}]
    assert match(http, tenant, m["id"])["current_game"] is None


@pytest.mark.postgres
def test_a_void_and_the_move_that_ends_the_next_game_take_their_locks_in_one_order(app, http, tenant, monkeypatch):
    """The last move of a game locks the client's chain (its round) before its match; a void
    of an earlier game of that match takes them in the same order. Here the void is held once
    it has updated the match while the move comes in: the move waits for the chain, then
    goes on. Taken the other way round (the match while the void's record waited for its
    commit), the two deadlocked and the void was answered 503."""
    if app.extensions["capsa"].db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite serialises writers with BEGIN IMMEDIATE; the race is PostgreSQL's")
    m = new_match(http, tenant)
    game1 = play(http, tenant, next_game(http, tenant, m["id"], TWO).get_json()["id"], TWO_SCRIPT)
    game2 = next_game(http, tenant, m["id"], SWAPPED).get_json()["id"]
    play(http, tenant, game2, SECOND_SCRIPT[:-1])
    held, release = threading.Event(), threading.Event()
    restate = MatchRepository.void_game

    def holding(self: MatchRepository, *args: Any, **kwargs: Any) -> bool:
        done = restate(self, *args, **kwargs)
        held.set()
        release.wait(10)
        return done

    monkeypatch.setattr(MatchRepository, "void_game", holding)
    answers: dict[str, Any] = {}

    def void_first() -> None:
        answers["void"] = void(app.test_client(), tenant, game1["round"])

    def last_move() -> None:
        answers["move"] = send(app.test_client(), tenant, game2, SECOND_SCRIPT[-1])

    voiding = threading.Thread(target=void_first)
    voiding.start()
    assert held.wait(10)
    moving = threading.Thread(target=last_move)
    moving.start()
    moving.join(0.5)  # it waits for the chain (well within the 2 s lock timeout), or deadlocks
    release.set()
    voiding.join(10)
    moving.join(10)
    assert answers["void"].status_code == 200, answers["void"].get_data(as_text=True)
    assert answers["move"].status_code == 200, answers["move"].get_data(as_text=True)
    after = match(http, tenant, m["id"])
    assert [(g["void"], g["totals"]) for g in after["games"]] == [
        (True, {"a": 0, "b": 0}), (False, {"a": 24, "b": 0})]


@pytest.mark.postgres
def test_a_void_a_match_game_on_a_deal_and_a_round_on_that_deal_at_once_deadlock_nothing(app, http, tenant, monkeypatch):
    """Writers lock a deal before the chain (a round that names it), the chain before a match
    (a void of a match's game, a game's last move), so a match's next game takes its deal
    before its match. The other way round (the match, then the deal), these three at once
    made a cycle, and PostgreSQL cancelled one: here the next game is held between its locks
    while the void and the round come in."""
    if app.extensions["capsa"].db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite serialises writers with BEGIN IMMEDIATE; the race is PostgreSQL's")
    from test_api_deals import make_deal, susun_round

    m = new_match(http, tenant)
    game1 = play(http, tenant, next_game(http, tenant, m["id"], TWO).get_json()["id"], TWO_SCRIPT)
    made = make_deal(http, tenant, "a b")
    held, release = threading.Event(), threading.Event()
    setup = match_service.games.setup

    def holding(*args: Any, **kwargs: Any) -> Any:
        held.set()
        release.wait(10)
        return setup(*args, **kwargs)

    monkeypatch.setattr(match_service.games, "setup", holding)
    answers: dict[str, Any] = {}

    def start() -> None:
        body = {"players": [{"id": "a"}, {"id": "b"}], "deal": made["id"]}
        answers["game"] = app.test_client().post(f"/v1/banting/matches/{m['id']}/games", json=body,
                                                 headers=tenant.headers)

    def void_first() -> None:
        answers["void"] = void(app.test_client(), tenant, game1["round"])

    def round_on_the_deal() -> None:
        answers["round"] = app.test_client().post("/v1/rounds", json=susun_round(made), headers=tenant.headers)

    threads = [threading.Thread(target=start)]
    threads[0].start()
    assert held.wait(10)
    for target in (void_first, round_on_the_deal):
        threads.append(threading.Thread(target=target))
        threads[-1].start()
        threads[-1].join(0.4)  # each waits for a lock another holds
    release.set()
    for t in threads:
        t.join(15)
    assert answers["game"].status_code == 201, answers["game"].get_data(as_text=True)
    assert answers["void"].status_code == 200, answers["void"].get_data(as_text=True)
    # The round waited for the deal, which the game had used by then and is playing: as a
    # round sent after the game starts is told.
    assert fields_of(problem(answers["round"], 409, "deal-in-play")) == {"deal"}


def finish_games(app: Any, tenant: Any, match_id: str, count: int) -> None:
    """`count` finished games written as a game's last move writes them (b loses n % 3 in
    game n), without playing them: a long match in a moment."""
    from service.domain.banting import match as domain
    from service.services.clock import utcnow_ms

    with app.extensions["capsa"].db.unit_of_work(write=True) as uow:
        for _ in range(count):
            record = uow.matches.get(tenant.id, match_id)
            n = record.played + 1
            entry, totals, status = domain.add_game(
                record.players, record.totals, record.played, record.target_points,
                f"gm_{n:026d}", f"rnd_{n:026d}", "a", {"a": 0, "b": n % 3})
            assert uow.matches.end_game(record, entry, totals, status, utcnow_ms())
        uow.commit()


def games_page(http: Any, tenant: Any, match_id: str, **query: Any) -> Any:
    return http.get(f"/v1/banting/matches/{match_id}/games", query_string=query, headers=tenant.read_headers)


def test_a_long_match_shows_its_latest_100_games_and_its_list_pages_through_every_one(app, http, tenant):
    m = new_match(http, tenant, target_points=10_000)
    finish_games(app, tenant, m["id"], 130)
    doc = match(http, tenant, m["id"])
    b_total = sum(n % 3 for n in range(1, 131))
    assert (doc["played"], doc["players"], doc["version"]) == (130, [{"id": "a", "points": 0}, {"id": "b", "points": b_total}], 131)
    assert [g["n"] for g in doc["games"]] == list(range(31, 131))
    assert doc["games"][-1] == {"n": 130, "game": f"gm_{130:026d}", "round": f"rnd_{130:026d}", "winner": "a",
                                "void": False, "points": {"a": 0, "b": 1}, "totals": {"a": 0, "b": b_total}}
    seen, cursor, pages = [], None, 0
    while True:
        response = games_page(http, tenant, m["id"], limit=50, **({"cursor": cursor} if cursor else {}))
        assert response.status_code == 200, response.get_data(as_text=True)
        page = response.get_json()
        seen += page["items"]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == 3 and [g["n"] for g in seen] == list(range(130, 0, -1))
    assert [g["totals"]["b"] for g in reversed(seen)] == [sum(k % 3 for k in range(1, n + 1)) for n in range(1, 131)]
    assert seen[:len(doc["games"])] == doc["games"][::-1]


def test_a_void_in_a_long_match_takes_its_points_off_the_standings_after_every_later_game(app, http, tenant):
    from service.services.clock import utcnow_ms

    m = new_match(http, tenant, target_points=10_000)
    finish_games(app, tenant, m["id"], 120)
    with app.extensions["capsa"].db.unit_of_work(write=True) as uow:
        record = uow.matches.get(tenant.id, m["id"])
        entry = uow.matches.entry_of_round(record, f"rnd_{50:026d}")
        assert entry is not None and entry.points == {"a": 0, "b": 2}
        totals, status = match_service.domain.void_game(record.players, record.totals, record.target_points, entry)
        assert uow.matches.void_game(record, entry, totals, status, utcnow_ms())
        uow.commit()
    every = games_page(http, tenant, m["id"], limit=500).get_json()["items"][::-1]
    running = 0
    for g in every:
        running += 0 if g["n"] == 50 else g["n"] % 3
        assert (g["void"], g["totals"]["b"]) == (g["n"] == 50, running), g
    assert match(http, tenant, m["id"])["players"][1]["points"] == running


def test_the_games_list_of_a_match_refuses_what_it_does_not_know(app, http, tenant, other_tenant):
    m = new_match(http, tenant)
    other = new_match(http, other_tenant)
    finish_games(app, other_tenant, other["id"], 3)
    cursor = games_page(http, other_tenant, other["id"], limit=1).get_json()["next_cursor"]
    assert games_page(http, tenant, m["id"]).get_json() == {"items": [], "next_cursor": None}
    assert fields_of(problem(games_page(http, tenant, m["id"], cursor=cursor), 422, "validation")) == {"query.cursor"}
    assert fields_of(problem(games_page(http, tenant, m["id"], limit=501), 422, "validation")) == {"query.limit"}
    assert fields_of(problem(games_page(http, tenant, m["id"], after=3), 422, "validation")) == {"query.after"}
    problem(games_page(http, tenant, other["id"]), 404, "not-found")
    problem(games_page(http, tenant, "mt_nothing"), 404, "not-found")


@pytest.mark.parametrize("seed", range(4))
def test_voids_in_any_order_leave_each_games_standings_the_totals_of_the_games_up_to_it_that_count(app, tenant, seed):
    """The standings after each game against their definition, through the repository's
    one-UPDATE void (a column a seat), for 2 to 4 players and voids in any order."""
    import random

    from service.domain.banting import match as domain
    from service.services.clock import utcnow_ms

    rng = random.Random(seed)
    players = ["a", "b", "c", "d"][: rng.choice((2, 3, 4))]
    db = app.extensions["capsa"].db
    made = match_service.create(db, tenant.id, {"currency": "IDR", "stake": "1000", "players": players,
                                                "target_points": 10_000}, None)
    match_id = json.loads(made.body)["id"]
    count = rng.randint(1, 30)
    with db.unit_of_work(write=True) as uow:
        for n in range(1, count + 1):
            record = uow.matches.get(tenant.id, match_id)
            entry, totals, status = domain.add_game(players, record.totals, record.played, 10_000, f"g{n}", f"r{n}",
                                                    players[0], {p: rng.randint(0, 13) for p in players})
            assert uow.matches.end_game(record, entry, totals, status, utcnow_ms())
        for victim in rng.sample(range(1, count + 1), min(3, count)):
            record = uow.matches.get(tenant.id, match_id)
            entry = uow.matches.entry_of_round(record, f"r{victim}")
            totals, status = domain.void_game(players, record.totals, 10_000, entry)
            assert uow.matches.void_game(record, entry, totals, status, utcnow_ms())
            entries = uow.matches.entries(record, None, 100)[::-1]
            for i, e in enumerate(entries):
                counted = [x for x in entries[: i + 1] if not x.void]
                assert e.totals == {p: sum(x.points[p] for x in counted) for p in players}, (seed, i)
            assert entries[victim - 1].void
            assert uow.matches.get(tenant.id, match_id).totals == entries[-1].totals
        uow.commit()


def test_a_match_document_is_one_snapshot_though_a_game_ends_between_its_reads(app, http, tenant, monkeypatch):
    """The match row (`played`, totals, version) and its latest games are read in one
    snapshot: a game that ends between the two reads is in neither."""
    m = new_match(http, tenant, target_points=10_000)
    finish_games(app, tenant, m["id"], 2)
    entries = MatchRepository.entries
    ended: list[bool] = []

    def one_more_in_between(self: MatchRepository, *args: Any, **kwargs: Any) -> Any:
        if not ended:
            ended.append(True)
            finish_games(app, tenant, m["id"], 1)
        return entries(self, *args, **kwargs)

    monkeypatch.setattr(MatchRepository, "entries", one_more_in_between)
    doc = match(http, tenant, m["id"])
    assert ended and (doc["played"], [g["n"] for g in doc["games"]], doc["version"]) == (2, [1, 2], 3)
    monkeypatch.setattr(MatchRepository, "entries", entries)
    assert match(http, tenant, m["id"])["played"] == 3
