"""Capsa Banting (Big Two) over HTTP: scripted games to a stored round, illegal moves, If-Match,
idempotent moves, concurrent moves, evaluate, scopes."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from banting_scripts import BOMB_SCRIPT, FOUR, ILLEGAL, THREE, THREE_SCRIPT
from httpkit import fields_of, problem

from service.domain.cards import DECK

TWO = {
    "a": "3d 4c 5h 6s 7d 8h 9h Jh Kh 2h Qc Qd Qs",
    "b": "3c 4d 5d 6d 8d 9d Td Jd Kd 2c 2s As Ah",
}
TWO_SCRIPT = ["a: 3d 4c 5h 6s 7d", "b: pass", "a: 8h 9h Jh Kh 2h", "b: pass", "a: Qc Qd Qs"]


def move_body(line: str) -> dict[str, Any]:
    """`"a: 3d 4c"` plays, `"a: pass"` passes."""
    player, _, what = line.partition(":")
    what = what.strip()
    if what == "pass":
        return {"player": player.strip(), "pass": True}
    return {"player": player.strip(), "play": what.split()}


def game_body(hands: dict[str, str], **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "currency": "IDR",
        "stake": "1000",
        "table": "table-7",
        "players": [{"id": pid, "hand": hand.split()} for pid, hand in hands.items()],
    }
    body.update(overrides)
    return body


def start(http: Any, tenant: Any, hands: dict[str, str], **overrides: Any) -> dict[str, Any]:
    response = http.post("/v1/banting/games", json=game_body(hands, **overrides), headers=tenant.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    doc = response.get_json()
    assert response.headers["Location"] == f"/v1/banting/games/{doc['id']}"
    return dict(doc)


def send(http: Any, tenant: Any, game_id: str, line: str, **headers: str) -> Any:
    return http.post(
        f"/v1/banting/games/{game_id}/moves",
        json=move_body(line),
        headers={**tenant.headers, **headers},
    )


def play(http: Any, tenant: Any, game_id: str, script: list[str]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for line in script:
        response = send(http, tenant, game_id, line)
        assert response.status_code == 200, (line, response.get_data(as_text=True))
        doc = response.get_json()
    return doc


def state(http: Any, tenant: Any, game_id: str) -> dict[str, Any]:
    response = http.get(f"/v1/banting/games/{game_id}", headers=tenant.headers)
    assert response.status_code == 200
    return dict(response.get_json())


def lines(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (p["id"], p["cards_left"], p["points"], p["result"], p["winnings"], p["fee"], p["net"])
        for p in doc["players"]
    ]


def pairs(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (p["players"], p["stake"], p["outcome"], p["multiplier"], p["points"], p["amount"], p["rows"])
        for p in doc["pairs"]
    ]


# -- starting a game ------------------------------------------------------------------------


def test_a_new_game_shows_the_state_of_api_md_without_any_cards(http, tenant):
    doc = start(http, tenant, FOUR)
    assert list(doc) == [
        "id", "status", "version", "rules", "currency", "stake", "table", "players", "turn",
        "turn_seconds", "deadline", "leader", "table_play", "history", "winner", "round",
    ]
    assert (doc["turn_seconds"], doc["deadline"]) == (None, None)  # untimed unless asked
    assert doc["id"].startswith("gm_")
    assert (doc["status"], doc["version"], doc["turn"], doc["leader"]) == ("playing", 1, "a", "a")
    assert doc["rules"]["preset"] == "capsa-banting-id" and doc["rules"]["params"]["bomb_ends_game"]
    assert (doc["currency"], doc["stake"], doc["table"]) == ("IDR", "1000", "table-7")
    assert doc["players"] == [
        {"id": pid, "seat": seat, "cards_left": 13, "passed": False} for seat, pid in enumerate("abcd")
    ]
    assert (doc["table_play"], doc["history"], doc["winner"], doc["round"]) == (None, [], None, None)
    assert state(http, tenant, doc["id"]) == doc
    shown = http.get(f"/v1/banting/games/{doc['id']}", headers=tenant.headers)
    assert shown.headers["ETag"] == '"1"'
    assert "Kd" not in shown.get_data(as_text=True)  # no hand is ever shown


def test_a_susun_preset_is_unknown_rules_on_a_banting_game(http, tenant):
    response = http.post(
        "/v1/banting/games", json=game_body(FOUR, rules="capsa-susun-id"), headers=tenant.headers
    )
    assert fields_of(problem(response, 422, "unknown-rules")) == {"rules"}


def test_a_card_held_by_two_players_is_invalid_cards_at_its_place(http, tenant):
    hands = {**FOUR, "b": FOUR["b"].replace("Ac", "Qc")}
    body = problem(
        http.post("/v1/banting/games", json=game_body(hands), headers=tenant.headers), 422, "invalid-cards"
    )
    assert fields_of(body) == {"players[1].hand[12]"}


def test_a_player_without_a_hand_and_no_deal_is_invalid_cards(http, tenant):
    body = game_body(FOUR)
    del body["players"][2]["hand"]
    answer = problem(http.post("/v1/banting/games", json=body, headers=tenant.headers), 422, "invalid-cards")
    assert fields_of(answer) == {"players[2].hand"}


def test_a_read_key_may_evaluate_but_not_start_a_game_or_move(http, tenant):
    problem(http.post("/v1/banting/games", json=game_body(FOUR), headers=tenant.read_headers), 403,
            "forbidden")
    game = start(http, tenant, FOUR)
    response = http.post(
        f"/v1/banting/games/{game['id']}/moves", json=move_body("a: 3d"), headers=tenant.read_headers
    )
    problem(response, 403, "forbidden")
    assert state(http, tenant, game["id"])["version"] == 1


def test_another_clients_game_is_not_found(http, tenant, other_tenant):
    game = start(http, tenant, FOUR)
    problem(http.get(f"/v1/banting/games/{game['id']}", headers=other_tenant.headers), 404, "not-found")
    problem(send(http, other_tenant, game["id"], "a: 3d"), 404, "not-found")


# -- evaluate -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"cards": ["3d", "3s"]}, ("pair", True, None, None)),
        ({"cards": ["3d", "3s"], "beats": ["3c", "3h"]}, ("pair", True, True, None)),
        ({"cards": ["9h", "Ts"]}, (None, False, None, "not a combination")),
        ({"cards": ["5c", "5d", "5h", "5s", "9d"], "beats": ["2h"]}, ("four_of_a_kind", True, True, None)),
        ({"cards": ["As"], "beats": ["2d"]}, ("single", True, False, "does not beat")),
        (
            {"rules": {"preset": "capsa-banting-id", "params": {"straights_with_two": True}},
             "cards": ["Ah", "2c", "3d", "4s", "5h"]},
            ("straight", True, None, None),
        ),
        ({"cards": ["Ah", "2c", "3d", "4s", "5h"]}, (None, False, None, "not a combination")),
    ],
)
def test_evaluate_names_the_combination_and_whether_it_beats_the_table(http, tenant, body, expected):
    response = http.post("/v1/banting/plays/evaluate", json=body, headers=tenant.read_headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    doc = response.get_json()
    combination, valid, beats, reason = expected
    assert (doc["combination"], doc["valid"], doc["beats"]) == (combination, valid, beats)
    assert (doc["reason"] is None) if reason is None else doc["reason"].startswith(reason)
    assert doc["rules"]["preset"] == "capsa-banting-id"


def test_evaluate_refuses_unknown_cards_and_a_table_play_sharing_a_card(http, tenant):
    bad = http.post("/v1/banting/plays/evaluate", json={"cards": ["Xx"]}, headers=tenant.headers)
    assert fields_of(problem(bad, 422, "invalid-cards")) == {"cards[0]"}
    shared = http.post(
        "/v1/banting/plays/evaluate", json={"cards": ["3d"], "beats": ["3d"]}, headers=tenant.headers
    )
    assert fields_of(problem(shared, 422, "invalid-cards")) == {"beats[0]"}
    susun = http.post(
        "/v1/banting/plays/evaluate", json={"rules": "capsa-susun-id", "cards": ["3d"]},
        headers=tenant.headers,
    )
    problem(susun, 422, "unknown-rules")


# -- full games -----------------------------------------------------------------------------


def test_a_bomb_on_a_two_ends_the_game_and_it_is_stored_as_a_banting_round(http, tenant):
    game = start(http, tenant, FOUR, currency="USD", stake="12.50")
    final = play(http, tenant, game["id"], BOMB_SCRIPT)
    assert (final["status"], final["winner"], final["turn"], final["version"]) == ("finished", "a", None, 6)
    assert final["round"].startswith("rnd_")
    assert state(http, tenant, game["id"]) == final
    response = http.get(f"/v1/rounds/{final['round']}", headers=tenant.headers)
    assert response.status_code == 200
    doc = response.get_json()
    assert (doc["game"], doc["currency"], doc["stake"], doc["table"], doc["status"]) == (
        "banting", "USD", "12.50", "table-7", "settled",
    )
    assert lines(doc) == [
        ("a", 7, 24, "300.00", "300.00", "9.00", "291.00"),
        ("b", 13, 0, "0.00", "0.00", "0.00", "0.00"),
        ("c", 12, 0, "0.00", "0.00", "0.00", "0.00"),
        ("d", 12, -24, "-300.00", "0.00", "0.00", "-300.00"),  # 12 cards: x2 x 12.50
    ]
    assert pairs(doc) == [
        (["a", "b"], "12.50", "bomb", 0, 0, "0.00", None),
        (["a", "c"], "12.50", "bomb", 0, 0, "0.00", None),
        (["a", "d"], "12.50", "bomb", 2, 24, "300.00", None),
    ]
    assert doc["house_fee"] == "9.00"
    for player in doc["players"]:
        assert not {"rows", "foul", "natural"} & set(player)
    assert doc["history"] == final["history"]
    assert [(h["player"], h["play"], h["pass"]) for h in doc["history"]] == [
        ("a", ["3d"], False), ("b", None, True), ("c", ["7h"], False), ("d", ["2h"], False),
        ("a", ["5d", "5c", "5h", "5s", "9d"], False),  # Big Two order: diamonds lowest
    ]
    assert doc["rules"]["preset"] == "capsa-banting-id" and doc["engine_version"]
    listed = http.get("/v1/rounds?player=d", headers=tenant.headers).get_json()["items"]
    assert [r["id"] for r in listed] == [final["round"]]


def test_a_three_player_game_played_to_the_last_card_settles_exactly(http, tenant):
    game = start(http, tenant, THREE)
    assert game["turn"] == "b"  # the holder of the lowest dealt card, 3c, leads
    final = play(http, tenant, game["id"], THREE_SCRIPT)
    assert (final["status"], final["winner"], final["version"]) == ("finished", "b", 13)
    doc = http.get(f"/v1/rounds/{final['round']}", headers=tenant.headers).get_json()
    assert lines(doc) == [
        ("a", 12, -24, "-24000", "0", "0", "-24000"),
        ("b", 0, 29, "29000", "29000", "870", "28130"),
        ("c", 5, -5, "-5000", "0", "0", "-5000"),
    ]
    assert pairs(doc) == [
        (["b", "a"], "1000", "win", 2, 24, "24000", None),
        (["b", "c"], "1000", "win", 1, 5, "5000", None),
    ]
    assert doc["house_fee"] == "870"


def test_a_loser_that_never_played_pays_triple_with_the_rules_given(http, tenant):
    rules = {"preset": "capsa-banting-id", "params": {"fee_rate": "0"}}
    game = start(http, tenant, TWO, rules=rules)
    final = play(http, tenant, game["id"], TWO_SCRIPT)
    doc = http.get(f"/v1/rounds/{final['round']}", headers=tenant.headers).get_json()
    assert lines(doc) == [
        ("a", 0, 39, "39000", "39000", "0", "39000"),
        ("b", 13, -39, "-39000", "0", "0", "-39000"),
    ]
    assert doc["rules"]["params"]["fee_rate"] == "0"


def test_a_move_after_the_end_is_409_and_changes_nothing(http, tenant):
    game = start(http, tenant, FOUR)
    final = play(http, tenant, game["id"], BOMB_SCRIPT)
    problem(send(http, tenant, game["id"], "b: pass"), 409, "conflict")
    problem(send(http, tenant, game["id"], "b: 4d", **{"If-Match": '"6"'}), 409, "conflict")
    assert state(http, tenant, game["id"]) == final



def test_a_void_of_a_games_round_shows_on_the_round_and_the_game_stays_finished(http, tenant):
    game = start(http, tenant, FOUR)
    final = play(http, tenant, game["id"], BOMB_SCRIPT)
    voided = http.post(f"/v1/rounds/{final['round']}/void", json={"reason": "misdeal"}, headers=tenant.headers)
    assert voided.status_code == 200, voided.get_data(as_text=True)
    assert voided.get_json()["status"] == "void"
    assert state(http, tenant, game["id"]) == final
    problem(send(http, tenant, game["id"], "b: pass"), 409, "conflict")

# -- illegal moves, If-Match, idempotency ---------------------------------------------------


@pytest.mark.parametrize(("script", "line", "reason"), ILLEGAL)
def test_every_illegal_move_is_422_with_its_reason_and_changes_nothing(http, tenant, script, line, reason):
    game = start(http, tenant, FOUR)
    before = play(http, tenant, game["id"], script) if script else game
    body = problem(send(http, tenant, game["id"], line), 422, "illegal-move")
    assert body["detail"].startswith(reason)
    assert body["errors"] and body["errors"][0]["message"].startswith(reason)
    assert state(http, tenant, game["id"]) == before


def test_a_move_that_both_plays_and_passes_or_does_neither_is_422(http, tenant):
    game = start(http, tenant, FOUR)
    url = f"/v1/banting/games/{game['id']}/moves"
    both = "a move either plays cards or passes, not both"
    neither = 'a move needs "play": [cards] or "pass": true'
    for body, field, message in (
        ({"player": "a", "play": ["3d"], "pass": True}, "pass", both),
        ({"player": "a"}, "play", neither),
        ({"player": "a", "pass": False}, "pass", neither),
    ):
        answer = problem(http.post(url, json=body, headers=tenant.headers), 422, "validation")
        assert answer["errors"] == [{"field": field, "message": message}], body
        assert answer["detail"] == message
    unknown = http.post(url, json={"player": "a", "play": ["3d"], "extra": 1}, headers=tenant.headers)
    assert fields_of(problem(unknown, 422, "validation")) == {"extra"}
    assert state(http, tenant, game["id"]) == game


def test_a_stale_if_match_is_412_and_a_current_one_quoted_or_bare_applies(http, tenant):
    game = start(http, tenant, FOUR)
    first = send(http, tenant, game["id"], "a: 3d", **{"If-Match": '"1"'})
    assert first.status_code == 200 and first.headers["ETag"] == '"2"'
    stale = problem(send(http, tenant, game["id"], "b: pass", **{"If-Match": '"1"'}), 412,
                    "precondition-failed")
    assert fields_of(stale) == {"header.If-Match"}
    assert state(http, tenant, game["id"]) == first.get_json()
    bare = send(http, tenant, game["id"], "b: pass", **{"If-Match": "2"})
    assert bare.status_code == 200 and bare.get_json()["version"] == 3
    bad = problem(send(http, tenant, game["id"], "c: pass", **{"If-Match": '"3", three'}), 422, "validation")
    assert fields_of(bad) == {"header.If-Match"}
    assert bad["errors"][0]["message"].endswith('got "three"')  # the item that is not a version


def test_a_weak_etag_in_if_match_is_412_as_rfc_9110_compares_strongly(http, tenant):
    game = start(http, tenant, FOUR)
    assert game["version"] == 1
    weak = problem(send(http, tenant, game["id"], "a: 3d", **{"If-Match": 'W/"1"'}), 412, "precondition-failed")
    assert weak["errors"] == [{"field": "header.If-Match", "message": "stale: the game is at version 1"}]
    assert "weak tags never match" in weak["detail"]
    assert state(http, tenant, game["id"]) == game  # nothing applied
    # an empty list names no version either (RFC 9110: no tag matches), and the detail says
    # so rather than blame weak tags that were never sent
    for empty in ("", " ", ", ,"):
        none = problem(send(http, tenant, game["id"], "a: 3d", **{"If-Match": empty}), 412, "precondition-failed")
        assert none["detail"] == ("the game is at version 1, If-Match names no version (the list is empty, "
                                  "or holds weak tags alone: weak tags never match)"), repr(empty)
    listed = send(http, tenant, game["id"], "a: 3d", **{"If-Match": 'W/"1", "7", "1"'})
    assert listed.status_code == 200 and listed.get_json()["version"] == 2


def test_a_move_repeated_with_its_idempotency_key_replays_and_applies_once(http, tenant):
    game = start(http, tenant, FOUR)
    first = send(http, tenant, game["id"], "a: 3d", **{"Idempotency-Key": "move-1"})
    again = send(http, tenant, game["id"], "a: 3d", **{"Idempotency-Key": "move-1"})
    assert first.status_code == again.status_code == 200
    assert again.data == first.data and again.headers["Idempotent-Replayed"] == "true"
    assert state(http, tenant, game["id"])["version"] == 2
    other = send(http, tenant, game["id"], "a: 4c", **{"Idempotency-Key": "move-1"})
    problem(other, 422, "idempotency-key-reused")
    # Keys are scoped per path: the same key on another game is a new move there.
    second = start(http, tenant, FOUR)
    assert send(http, tenant, second["id"], "a: 3d", **{"Idempotency-Key": "move-1"}).headers.get(
        "Idempotent-Replayed") is None


def test_the_final_move_replayed_with_its_key_stores_one_round(http, tenant):
    game = start(http, tenant, TWO)
    play(http, tenant, game["id"], TWO_SCRIPT[:-1])
    first = send(http, tenant, game["id"], TWO_SCRIPT[-1], **{"Idempotency-Key": "last"})
    again = send(http, tenant, game["id"], TWO_SCRIPT[-1], **{"Idempotency-Key": "last"})
    assert first.status_code == again.status_code == 200 and again.data == first.data
    rounds = http.get("/v1/rounds?table=table-7&limit=500", headers=tenant.headers).get_json()["items"]
    assert [r["id"] for r in rounds] == [first.get_json()["round"]]


@pytest.mark.parametrize("if_match", [None, '"1"'])
def test_two_threads_moving_on_one_game_at_once_apply_exactly_one_move(app, tenant, if_match):
    http = app.test_client()
    game = start(http, tenant, FOUR)
    barrier = threading.Barrier(2)
    answers: list[Any] = []
    lock = threading.Lock()

    def one(line: str) -> None:
        client = app.test_client()
        headers = {} if if_match is None else {"If-Match": if_match}
        barrier.wait(10)
        response = send(client, tenant, game["id"], line, **headers)
        with lock:
            answers.append(response)

    # Two opening plays by a: whichever comes second is no longer a's turn (or is stale).
    threads = [threading.Thread(target=one, args=(line,)) for line in ("a: 3d", "a: 5c 5d 5h 5s 3d")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    statuses = sorted(r.status_code for r in answers)
    assert statuses == ([200, 412] if if_match else [200, 422]), [r.get_json() for r in answers]
    applied = next(r.get_json() for r in answers if r.status_code == 200)
    after = state(http, tenant, game["id"])
    assert after == applied
    assert after["version"] == 2 and len(after["history"]) == 1


def test_the_deck_of_the_four_player_game_is_whole():
    assert sorted(c for h in FOUR.values() for c in h.split()) == sorted(str(c) for c in DECK)


def test_a_finished_game_is_a_chained_round_that_its_re_scorer_reproduces(app, http, tenant):
    import json

    from service.domain.rescoring import RESCORERS

    game = start(http, tenant, THREE)
    final = play(http, tenant, game["id"], THREE_SCRIPT)
    doc = http.get(f"/v1/rounds/{final['round']}", headers=tenant.headers).get_json()
    assert doc["audit"] is not None and len(doc["audit"]["hash"]) == 64
    with app.extensions["capsa"].db.unit_of_work() as uow:
        stored = uow.rounds.get(tenant.id, final["round"])
        assert stored is not None and stored.game == "banting"
    record = json.loads(stored.record.canonical)
    request = record["request"]
    assert request["game"] == game["id"]
    assert [m["player"] for m in request["moves"]] == [line.split(":")[0] for line in THREE_SCRIPT]
    assert [p["hand"] for p in request["players"]] == [h.split() for h in THREE.values()]
    assert RESCORERS["banting"](request) == record["result"]


def test_a_finished_game_verifies_and_books_its_ledger_lines(http, tenant):
    game = start(http, tenant, FOUR, currency="USD", stake="12.50")
    final = play(http, tenant, game["id"], BOMB_SCRIPT)
    response = http.get(f"/v1/rounds/{final['round']}/verify", headers=tenant.read_headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json() == {"ok": True, "differences": []}
    ledger = http.get("/v1/ledger/players/d?currency=USD", headers=tenant.headers).get_json()
    assert (ledger["rounds"], ledger["points"], ledger["result"], ledger["net"]) == (1, -24, "-300.00", "-300.00")
    winner = http.get("/v1/ledger/players/a?currency=USD", headers=tenant.headers).get_json()
    assert (winner["result"], winner["fees"], winner["net"]) == ("300.00", "9.00", "291.00")
    chain = http.get("/v1/audit/verify", headers=tenant.read_headers).get_json()
    assert chain["ok"] and chain["records_checked"] == 1
