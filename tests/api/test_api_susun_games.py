"""Server-run Capsa Susun games over HTTP: deal, hands, submissions, the deadline, settlement.

Time is the service's injectable clock (the `clock` fixture): tests move it past a deadline
and run one sweep pass under it; nothing sleeps. Hands come from deals made with a fixed
server seed, so each game is the same on every run.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import idempotency_rows, lock_waiters, wait_for
from httpkit import fields_of, pages, problem

from service.domain.cards import parse_cards
from service.domain.errors import CapsaError
from service.domain.susun.arrangement import parse_arrangement
from service.services import deals
from service.services.susun import games as susun_games

SEED = bytes(range(32))
ROWS = ("front", "middle", "back")


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deals, "new_server_seed", lambda: SEED)


def start(http: Any, tenant: Any, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "rules": "capsa-susun-id",
        "players": ["a", "b", "c", "d"],
        "currency": "IDR",
        "stake": "1000",
        "table": "table-7",
        "client_seed": "table-7:hand-1",
        "arrange_seconds": 60,
    }
    body.update(overrides)
    answer = http.post("/v1/susun/games", json=body, headers=tenant.headers)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert answer.headers["ETag"] == '"1"'
    assert answer.headers["Location"] == f"/v1/susun/games/{answer.get_json()['id']}"
    return dict(answer.get_json())


def hand_of(http: Any, tenant: Any, game: dict[str, Any], player: str) -> list[str]:
    answer = http.get(f"/v1/susun/games/{game['id']}/hands/{player}", headers=tenant.headers)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return list(answer.get_json()["hand"])


def suggested(http: Any, tenant: Any, hand: list[str], rules: str = "capsa-susun-id") -> dict[str, Any]:
    answer = http.post("/v1/arrangements/suggest", json={"hand": hand, "rules": rules, "limit": 1},
                       headers=tenant.headers)
    assert answer.status_code == 200
    return dict(answer.get_json()["suggestions"][0]["arrangement"])


def fouled(arrangement: dict[str, Any]) -> dict[str, Any]:
    """The same rows with middle and back swapped: the middle now beats the back."""
    return {"front": arrangement["front"], "middle": arrangement["back"], "back": arrangement["middle"]}


def put(http: Any, tenant: Any, game: dict[str, Any], player: str, body: dict[str, Any],
        **headers: str) -> Any:
    return http.put(f"/v1/susun/games/{game['id']}/arrangements/{player}", json=body,
                    headers={**tenant.headers, **headers})


def submitted(http: Any, tenant: Any, game: dict[str, Any], player: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = put(http, tenant, game, player, body)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return dict(answer.get_json())


def fetch(http: Any, tenant: Any, game: dict[str, Any]) -> dict[str, Any]:
    answer = http.get(f"/v1/susun/games/{game['id']}", headers=tenant.headers)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.headers["ETag"] == f'"{answer.get_json()["version"]}"'
    return dict(answer.get_json())


def round_of(http: Any, tenant: Any, round_id: str) -> dict[str, Any]:
    answer = http.get(f"/v1/rounds/{round_id}", headers=tenant.headers)
    assert answer.status_code == 200
    return dict(answer.get_json())


def same_rows(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(sorted(a[r]) == sorted(b[r]) for r in ROWS)


def minor(amount: str) -> int:
    return int(amount)


# -- the scripted four-player game -------------------------------------------------------------


def test_two_submit_one_fouls_the_deadline_passes_and_the_other_two_are_auto_arranged(http, tenant, clock):
    game = start(http, tenant)
    hands = {p: hand_of(http, tenant, game, p) for p in "abcd"}
    assert all(len(h) == 13 for h in hands.values())
    assert len({c for h in hands.values() for c in h}) == 52
    rows_a = suggested(http, tenant, hands["a"])
    rows_b = fouled(suggested(http, tenant, hands["b"]))

    first = submitted(http, tenant, game, "a", {"arrangement": rows_a})
    assert first["evaluation"]["foul"] is False and first["status"] == "arranging" and first["version"] == 2
    clock.advance(seconds=30)
    second = submitted(http, tenant, game, "b", {"arrangement": rows_b})
    assert second["evaluation"]["foul"] is True
    assert second["evaluation"]["foul_reason"] == "middle beats back"
    assert second["round"] is None

    # Before the deadline the game shows who submitted, and nobody's cards.
    shown = fetch(http, tenant, game)
    assert [(p["id"], p["submitted"]) for p in shown["players"]] == [
        ("a", True), ("b", True), ("c", False), ("d", False)]
    text = json.dumps(shown)
    assert not [card for h in hands.values() for card in h if f'"{card}"' in text]
    assert shown["status"] == "arranging" and shown["version"] == 3

    clock.advance(seconds=30)  # exactly the deadline: arrangements close, the sweep settles
    db = http.application.extensions["capsa"].db
    # One pass settles every overdue game of every client (this session's other tests' too).
    assert len(susun_games.settle_overdue(db)) >= 1
    assert len(susun_games.settle_overdue(db)) == 0  # nothing left to settle

    settled = fetch(http, tenant, game)
    assert settled["status"] == "settled" and settled["version"] == 4
    assert settled["settled_at"] == settled["deadline"]
    assert [(p["id"], p["auto_arranged"]) for p in settled["players"]] == [
        ("a", False), ("b", False), ("c", True), ("d", True)]
    rnd = round_of(http, tenant, settled["round"])
    assert rnd["game_id"] == game["id"] and rnd["reference"] is None and rnd["table"] == "table-7"
    players = {p["id"]: p for p in rnd["players"]}
    assert {p: players[p]["auto_arranged"] for p in "abcd"} == {"a": False, "b": False, "c": True, "d": True}
    # The auto-arranged hands are the service's best suggestion; the submitted ones are as sent.
    for p in "cd":
        rows = {r: players[p]["rows"][r]["cards"] for r in ROWS}
        assert same_rows(rows, suggested(http, tenant, hands[p]))
    assert same_rows({r: players["b"]["rows"][r]["cards"] for r in ROWS}, rows_b)
    # The fouler pays every legal opponent 3 x 4 = 12 plus that opponent's bonuses.
    assert players["b"]["foul"] is True
    bonus = {p: sum(players[p]["rows"][r]["bonus"] for r in ROWS) for p in "acd"}
    assert not any(players[p]["natural"] for p in "acd")
    assert players["b"]["points"] == -sum(12 + bonus[p] for p in "acd")
    assert sum(p["points"] for p in rnd["players"]) == 0
    # The same body through POST /v1/score scores the same (the round is what it claims).
    body = {"rules": "capsa-susun-id", "table": "table-7", "currency": "IDR", "stake": "1000",
            "players": [{"id": p, "hand": hands[p],
                         "arrangement": {r: players[p]["rows"][r]["cards"] for r in ROWS}} for p in "abcd"]}
    preview = http.post("/v1/score", json=body, headers=tenant.headers).get_json()
    assert [p["points"] for p in preview["players"]] == [players[p]["points"] for p in "abcd"]
    assert [p["net"] for p in preview["players"]] == [players[p]["net"] for p in "abcd"]

    verdict = http.get(f"/v1/rounds/{rnd['id']}/verify", headers=tenant.read_headers).get_json()
    assert verdict["ok"] is True, verdict
    chain = http.get("/v1/audit/verify", headers=tenant.read_headers).get_json()
    assert chain["ok"] is True, chain
    lines = http.get(f"/v1/ledger/entries?currency=IDR&round={rnd['id']}", headers=tenant.read_headers)
    items = lines.get_json()["items"]
    assert items and sum(minor(line["amount"]) for line in items) == 0
    assert minor(rnd["house_fee"]) == sum(minor(p["fee"]) for p in rnd["players"]) > 0

    link = http.post(f"/v1/rounds/{rnd['id']}/view-link", headers=tenant.read_headers).get_json()["url"]
    page = http.get(link).get_data(as_text=True)
    assert page.count("auto-arranged</span>") == 2
    for p, auto in (("a", False), ("b", False), ("c", True), ("d", True)):
        article = page.split(f'id="player-{p}"')[1].split("</article>")[0]
        assert ("auto-arranged</span>" in article) is auto, p


def test_all_four_submit_before_the_deadline_and_the_last_one_settles_at_once(http, tenant, clock):
    game = start(http, tenant, reference=f"hand-{tenant.id}")
    rows = {p: suggested(http, tenant, hand_of(http, tenant, game, p)) for p in "abcd"}
    for p in "abc":
        assert submitted(http, tenant, game, p, {"arrangement": rows[p]})["round"] is None
    clock.advance(seconds=10)
    last = submitted(http, tenant, game, "d", {"arrangement": rows["d"]})
    assert last["status"] == "settled" and last["round"] is not None and last["version"] == 5
    shown = fetch(http, tenant, game)
    assert shown["status"] == "settled" and shown["round"] == last["round"]
    assert shown["settled_at"] == "2026-11-29T10:00:10.000Z"
    rnd = round_of(http, tenant, last["round"])
    assert rnd["reference"] == f"hand-{tenant.id}"
    assert [p["auto_arranged"] for p in rnd["players"]] == [False] * 4
    assert all(same_rows({r: p["rows"][r]["cards"] for r in ROWS}, rows[p["id"]]) for p in rnd["players"])
    assert http.get(f"/v1/rounds/{rnd['id']}/verify", headers=tenant.headers).get_json()["ok"] is True
    late = put(http, tenant, game, "a", {"arrangement": rows["a"]})
    assert fields_of(problem(late, 409, "conflict")) == {"path.game_id"}
    assert "is settled" in late.get_json()["detail"]
    clock.advance(seconds=120)  # the deadline of a settled game changes nothing
    susun_games.settle_overdue(http.application.extensions["capsa"].db)
    assert fetch(http, tenant, game)["version"] == 5


def test_a_void_of_a_games_round_shows_on_the_round_and_the_game_stays_settled(http, tenant, clock):
    game = start(http, tenant)
    for p in "abcd":
        last = submitted(http, tenant, game, p, {"arrangement": suggested(http, tenant, hand_of(http, tenant, game, p))})
    before = fetch(http, tenant, game)
    voided = http.post(f"/v1/rounds/{last['round']}/void", json={"reason": "dealer error"}, headers=tenant.headers)
    assert voided.status_code == 200, voided.get_data(as_text=True)
    assert round_of(http, tenant, last["round"])["status"] == "void"
    assert fetch(http, tenant, game) == before  # the game is the game that settled; the void is the round's
    again = put(http, tenant, game, "a", {"arrangement": suggested(http, tenant, hand_of(http, tenant, game, "a"))})
    assert fields_of(problem(again, 409, "conflict")) == {"path.game_id"}


def test_a_submission_past_the_deadline_with_the_version_the_client_read_is_409_not_412(http, tenant, clock):
    """The late PUT settles the game (a new version) before it is refused: with the If-Match
    the client holds it was a 412 telling it to decide again, where docs/susun-games.md says
    a submission after the deadline is 409 (as without If-Match)."""
    game = start(http, tenant)
    version = fetch(http, tenant, game)["version"]
    rows = suggested(http, tenant, hand_of(http, tenant, game, "a"))
    clock.advance(seconds=61)
    late = put(http, tenant, game, "a", {"arrangement": rows}, **{"If-Match": f'"{version}"'})
    assert fields_of(problem(late, 409, "conflict")) == {"path.game_id"}
    assert fetch(http, tenant, game)["status"] == "settled"


def test_a_surrender_under_chinese_poker_2_4_pays_each_opponent_three(http, tenant, clock):
    game = start(http, tenant, rules="chinese-poker-2-4", players=["a", "b", "c"], currency="USD", stake="2.50")
    answer = submitted(http, tenant, game, "a", {"surrender": True})
    assert answer["surrender"] is True and answer["evaluation"] is None
    clock.advance(seconds=61)
    shown = fetch(http, tenant, game)  # the first access after the deadline settles it
    assert shown["status"] == "settled"
    assert [(p["surrender"], p["auto_arranged"]) for p in shown["players"]] == [
        (True, False), (False, True), (False, True)]
    assert shown["players"][0]["arrangement"] is None
    rnd = round_of(http, tenant, shown["round"])
    a = rnd["players"][0]
    assert a["surrender"] is True and a["rows"] is None and a["points"] == -6 and a["result"] == "-15.00"
    outcomes = [p["outcome"] for p in rnd["pairs"] if "a" in p["players"]]
    assert outcomes == ["surrender", "surrender"]
    assert http.get(f"/v1/rounds/{rnd['id']}/verify", headers=tenant.headers).get_json()["ok"] is True


def test_surrender_where_the_rules_allow_none_is_422_on_surrender(http, tenant, clock):
    game = start(http, tenant)
    body = problem(put(http, tenant, game, "a", {"surrender": True}), 422, "validation")
    assert fields_of(body) == {"surrender"} and "capsa-susun-id" in body["detail"]
    assert fetch(http, tenant, game)["version"] == 1


# -- submissions -------------------------------------------------------------------------------


def test_a_player_may_replace_its_rows_until_settlement_and_the_last_ones_count(http, tenant, clock):
    game = start(http, tenant, players=["a", "b"])
    hand = hand_of(http, tenant, game, "a")
    good = suggested(http, tenant, hand)
    assert submitted(http, tenant, game, "a", {"arrangement": fouled(good)})["evaluation"]["foul"] is True
    again = submitted(http, tenant, game, "a", {"arrangement": good})
    assert again["evaluation"]["foul"] is False and again["version"] == 3
    clock.advance(minutes=5)
    rnd = round_of(http, tenant, fetch(http, tenant, game)["round"])
    assert rnd["players"][0]["foul"] is False
    assert same_rows({r: rnd["players"][0]["rows"][r]["cards"] for r in ROWS}, good)


def test_cards_must_be_exactly_the_players_hand(http, tenant, clock):
    game = start(http, tenant, players=["a", "b"])
    hand_a, hand_b = hand_of(http, tenant, game, "a"), hand_of(http, tenant, game, "b")
    rows = suggested(http, tenant, hand_a)
    stolen = dict(rows, front=[hand_b[0], *rows["front"][1:]])
    body = problem(put(http, tenant, game, "a", {"arrangement": stolen}), 422, "invalid-cards")
    assert fields_of(body) == {"arrangement.front[0]"}, body  # docs/susun-games.md: the row and the card
    assert hand_b[0] in str(body["errors"])
    short = dict(rows, front=rows["front"][:2])
    problem(put(http, tenant, game, "a", {"arrangement": short}), 422, "invalid-cards")
    both = problem(put(http, tenant, game, "a", {"arrangement": rows, "surrender": True}), 422, "validation")
    assert fields_of(both) == {"surrender"}
    neither = problem(put(http, tenant, game, "a", {}), 422, "validation")
    assert fields_of(neither) == {"arrangement"}
    assert fetch(http, tenant, game)["version"] == 1  # nothing was stored


def test_the_evaluation_is_the_evaluate_endpoints(http, tenant, clock):
    game = start(http, tenant, players=["a", "b"])
    hand = hand_of(http, tenant, game, "a")
    rows = suggested(http, tenant, hand)
    answer = submitted(http, tenant, game, "a", {"arrangement": rows})
    evaluated = http.post("/v1/arrangements/evaluate", json={"rules": "capsa-susun-id", "arrangement": rows,
                                                             "hand": hand}, headers=tenant.headers).get_json()
    assert json.dumps(answer["evaluation"]) == json.dumps(evaluated)  # key order too


def test_unknown_games_and_players_are_404_and_another_clients_game_too(http, tenant, other_tenant, clock):
    game = start(http, tenant, players=["a", "b"])
    rows = suggested(http, tenant, hand_of(http, tenant, game, "a"))
    problem(http.get(f"/v1/susun/games/{game['id']}/hands/z", headers=tenant.headers), 404, "not-found")
    problem(put(http, tenant, game, "z", {"arrangement": rows}), 404, "not-found")
    problem(http.get("/v1/susun/games/sg_nothing", headers=tenant.headers), 404, "not-found")
    problem(http.get(f"/v1/susun/games/{game['id']}", headers=other_tenant.headers), 404, "not-found")
    problem(http.get(f"/v1/susun/games/{game['id']}/hands/a", headers=other_tenant.headers), 404, "not-found")
    problem(put(http, other_tenant, game, "a", {"arrangement": rows}), 404, "not-found")


def test_a_read_key_reads_but_cannot_submit(http, tenant, clock):
    game = start(http, tenant, players=["a", "b"])
    rows = suggested(http, tenant, hand_of(http, tenant, game, "a"))
    assert http.get(f"/v1/susun/games/{game['id']}", headers=tenant.read_headers).status_code == 200
    answer = http.put(f"/v1/susun/games/{game['id']}/arrangements/a", json={"arrangement": rows},
                      headers=tenant.read_headers)
    problem(answer, 403, "forbidden")
    problem(http.post("/v1/susun/games", json={"players": ["a", "b"], "currency": "IDR", "stake": "1",
                                               "arrange_seconds": 5}, headers=tenant.read_headers), 403, "forbidden")


def test_if_match_refuses_a_stale_version_and_changes_nothing(http, tenant, clock):
    game = start(http, tenant, players=["a", "b"])
    rows = suggested(http, tenant, hand_of(http, tenant, game, "a"))
    assert put(http, tenant, game, "a", {"arrangement": rows}, **{"If-Match": '"1"'}).headers["ETag"] == '"2"'
    stale = problem(put(http, tenant, game, "a", {"arrangement": rows}, **{"If-Match": '"1"'}), 412,
                    "precondition-failed")
    assert fields_of(stale) == {"header.If-Match"}
    bad = problem(put(http, tenant, game, "a", {"arrangement": rows}, **{"If-Match": "soon"}), 422, "validation")
    assert fields_of(bad) == {"header.If-Match"}
    assert fetch(http, tenant, game)["version"] == 2


def test_idempotency_keys_replay_the_first_answer_byte_for_byte(http, tenant, clock):
    body = {"players": ["a", "b"], "currency": "IDR", "stake": "1000", "arrange_seconds": 30}
    first = http.post("/v1/susun/games", json=body, headers={**tenant.headers, "Idempotency-Key": "g-1"})
    again = http.post("/v1/susun/games", json=body, headers={**tenant.headers, "Idempotency-Key": "g-1"})
    assert first.status_code == again.status_code == 201
    assert again.get_data() == first.get_data() and again.headers["Idempotent-Replayed"] == "true"
    game = first.get_json()
    rows = suggested(http, tenant, hand_of(http, tenant, game, "a"))
    h = {"Idempotency-Key": "a-1"}
    one, two = (put(http, tenant, game, "a", {"arrangement": rows}, **h) for _ in range(2))
    assert one.get_data() == two.get_data() and two.headers["Idempotent-Replayed"] == "true"
    assert fetch(http, tenant, game)["version"] == 2  # stored once
    other = put(http, tenant, game, "a", {"arrangement": fouled(rows)}, **h)
    problem(other, 422, "idempotency-key-reused")


def test_bad_game_bodies_name_the_field_and_the_value(http, tenant, clock):
    def refused(status: int, kind: str, **fields: Any) -> set[str]:
        body = {"players": ["a", "b"], "currency": "IDR", "stake": "1000", "arrange_seconds": 30, **fields}
        return fields_of(problem(http.post("/v1/susun/games", json=body, headers=tenant.headers), status, kind))

    assert refused(422, "validation", players=["a", "a"]) == {"players[1]"}
    assert refused(422, "validation", arrange_seconds=0) == {"arrange_seconds"}
    assert refused(422, "validation", arrange_seconds=1.5) == {"arrange_seconds"}
    assert refused(422, "validation", stake=5) == {"stake"}
    assert refused(422, "validation", players=["a"]) == {"players"}
    assert refused(422, "validation", surprise=True) == {"surprise"}
    assert refused(422, "unknown-rules", rules="capsa-banting-id") == {"rules"}
    assert refused(422, "validation", deal="dl_nothing") == {"deal"}


def test_a_game_can_use_a_deal_made_before_and_uses_it_once(http, tenant, clock):
    made = http.post("/v1/deals", json={"players": ["a", "b"], "client_seed": "s"}, headers=tenant.headers)
    deal = made.get_json()
    body = {"players": ["b", "a"], "currency": "IDR", "stake": "1000", "arrange_seconds": 30, "deal": deal["id"]}
    problem(http.post("/v1/susun/games", json=body, headers=tenant.headers), 422, "validation")
    game = start(http, tenant, players=["a", "b"], deal=deal["id"], client_seed=None)
    assert game["deal"] == deal["id"]
    assert hand_of(http, tenant, game, "b") == deal["hands"]["b"]
    again = problem(http.post("/v1/susun/games", json={**body, "players": ["a", "b"]}, headers=tenant.headers),
                    409, "deal-in-play")  # used, by a game still arranging: no card is compared
    assert fields_of(again) == {"deal"}
    clock.advance(seconds=game["arrange_seconds"])
    assert http.get(f"/v1/susun/games/{game['id']}", headers=tenant.headers).get_json()["status"] == "settled"
    again = problem(http.post("/v1/susun/games", json={**body, "players": ["a", "b"]}, headers=tenant.headers),
                    409, "conflict")
    assert fields_of(again) == {"deal"}


def test_a_client_seed_beside_a_deal_is_refused_not_ignored(http, tenant):
    deal = http.post("/v1/deals", json={"players": ["a", "b"], "client_seed": "s"}, headers=tenant.headers).get_json()
    body = {"players": ["a", "b"], "currency": "IDR", "stake": "1000", "arrange_seconds": 30, "deal": deal["id"],
            "client_seed": "mine"}
    refused = problem(http.post("/v1/susun/games", json=body, headers=tenant.headers), 422, "validation")
    assert refused["errors"] == [{"field": "client_seed", "message": (
        '"mine" is not used with `deal`: a deal\'s client seed is the one it was made with (POST /v1/deals); '
        "send one or the other")}]
    assert http.get(f"/v1/deals/{deal['id']}", headers=tenant.headers).get_json()["used_by"] is None
    game = start(http, tenant, players=["a", "b"], deal=deal["id"], client_seed=None)
    assert game["deal"] == deal["id"]


def test_without_a_deal_the_game_makes_one_as_post_deals_does(http, tenant, clock):
    game = start(http, tenant, players=["a", "b"], client_seed="my-seed")
    deal = http.get(f"/v1/deals/{game['deal']}", headers=tenant.headers).get_json()
    assert deal["client_seed"] == "my-seed" and deal["used_by"] == game["id"] and deal["nonce"] == 0
    assert "hands" not in deal and "server_seed" not in deal  # until the game has settled
    assert deal["revealed_at"] is None  # nor is the seed published
    hands = {p: hand_of(http, tenant, game, p) for p in "ab"}
    clock.advance(seconds=game["arrange_seconds"])
    settled = http.get(f"/v1/susun/games/{game['id']}", headers=tenant.headers).get_json()
    assert settled["status"] == "settled"
    deal = http.get(f"/v1/deals/{game['deal']}", headers=tenant.headers).get_json()
    assert deal["hands"] == hands and deal["server_seed"] == SEED.hex()
    assert deal["revealed_at"] == settled["settled_at"] == "2026-11-29T10:01:00.000Z"
    from service.domain.deals import deal as shuffle

    assert [[c.text for c in h] for h in shuffle(SEED, "my-seed", 0, 2)] == [deal["hands"]["a"], deal["hands"]["b"]]


def test_a_reference_is_unique_across_rounds_and_games(http, tenant, clock):
    start(http, tenant, players=["a", "b"], reference=f"r-{tenant.id}")
    body = {"players": ["a", "b"], "currency": "IDR", "stake": "1000", "arrange_seconds": 30,
            "reference": f"r-{tenant.id}"}
    assert fields_of(problem(http.post("/v1/susun/games", json=body, headers=tenant.headers), 409,
                             "conflict")) == {"reference"}


def test_a_round_cannot_take_the_reference_of_a_game(http, tenant, clock):
    """A game's reference becomes its round's at settlement: a round posted meanwhile with
    it is 409, not stored (it would leave the game unable to settle, for good)."""
    from httpkit import two_player_round

    reference = f"g-{tenant.id}"
    game = start(http, tenant, players=["a", "b"], reference=reference)
    refused = problem(http.post("/v1/rounds", json=two_player_round(reference=reference), headers=tenant.headers),
                      409, "conflict")
    assert fields_of(refused) == {"reference"} and reference in refused["detail"]
    assert _rounds_of(http, tenant) == []
    clock.advance(seconds=60)
    settled = fetch(http, tenant, game)
    assert settled["status"] == "settled"
    assert [r["reference"] for r in _rounds_of(http, tenant)] == [reference]


def _on_postgres(app: Any) -> Any:
    """The app's engine; skips on SQLite, whose writers are serialised (no race to lose)."""
    engine = app.extensions["capsa"].db.engine
    if engine.dialect.name != "postgresql":
        pytest.skip("a round and a game racing for one reference is PostgreSQL's; SQLite serialises writers")
    return engine


@contextlib.contextmanager
def _game_held_before_its_commit(app: Any, tenant: Any, monkeypatch: Any, reference: str) -> Iterator[dict[str, Any]]:
    """A game with `reference` started in a thread and held at its last step before its
    commit (its reference taken, itself stored) for the block; its answer is in the dict
    yielded under "game" after the block."""
    inside, go_on = threading.Event(), threading.Event()
    use = deals.use

    def paused_use(*args: Any) -> Any:
        inside.set()
        assert go_on.wait(10)
        return use(*args)

    monkeypatch.setattr(deals, "use", paused_use)
    answers: dict[str, Any] = {}
    body = {"players": ["a", "b"], "currency": "IDR", "stake": "1000", "arrange_seconds": 60, "reference": reference}
    game = threading.Thread(target=lambda: answers.update(
        game=app.test_client().post("/v1/susun/games", json=body, headers=tenant.headers)))
    game.start()
    assert inside.wait(10)
    try:
        yield answers
    finally:
        go_on.set()
        game.join(10)
    assert answers["game"].status_code == 201, answers["game"].get_data(as_text=True)


def test_a_round_sent_while_a_game_takes_its_reference_is_refused_when_the_game_commits(
    app, tenant, clock, monkeypatch
):
    """The game has taken its reference and stored itself, not yet committed, when a round
    with the same reference comes: the round's snapshot holds no such game. It waits for the
    game's uncommitted reference, and is refused once the game commits, instead of both
    being stored and the game never settling."""
    from httpkit import two_player_round

    engine = _on_postgres(app)
    reference = f"raced-{tenant.id}"
    with _game_held_before_its_commit(app, tenant, monkeypatch, reference) as answers:
        round_ = threading.Thread(target=lambda: answers.update(
            round=app.test_client().post("/v1/rounds", json=two_player_round(reference=reference),
                                         headers={**tenant.headers, "Idempotency-Key": "raced"})))
        round_.start()
        wait_for(lambda: lock_waiters(engine) == 1 or not round_.is_alive())
        assert round_.is_alive()  # it waits for the game's reference
    round_.join(10)
    refused = problem(answers["round"], 409, "conflict")
    assert fields_of(refused) == {"reference"} and "Capsa Susun game" in refused["detail"]
    http = app.test_client()
    assert _rounds_of(http, tenant) == []
    assert idempotency_rows(app.extensions["capsa"].db, tenant.id) == 0  # refused whole: no key taken
    clock.advance(seconds=60)
    assert fetch(http, tenant, answers["game"].get_json())["status"] == "settled"
    assert [r["reference"] for r in _rounds_of(http, tenant)] == [reference]


def test_a_round_waiting_past_the_lock_timeout_for_a_games_reference_is_503_naming_it(
    app, tenant, clock, monkeypatch
):
    """A game that holds its reference, uncommitted, longer than the lock timeout (2 s): the
    round waiting for it is 503 saying so (it said the client's chain was busy), and its
    retry once the game has committed is 409."""
    from httpkit import two_player_round

    engine = _on_postgres(app)
    reference = f"slow-{tenant.id}"
    headers = {**tenant.headers, "Idempotency-Key": "slow"}
    with _game_held_before_its_commit(app, tenant, monkeypatch, reference):
        waited = app.test_client().post("/v1/rounds", json=two_player_round(reference=reference), headers=headers)
        assert lock_waiters(engine) == 0
    detail = problem(waited, 503, "unavailable")["detail"]
    assert detail == f"another request taking reference {reference!r} is still running; retry", detail
    assert waited.headers["Retry-After"] == "1"
    again = app.test_client().post("/v1/rounds", json=two_player_round(reference=reference), headers=headers)
    assert "Capsa Susun game" in problem(again, 409, "conflict")["detail"]


def test_a_game_started_while_a_round_with_its_reference_is_being_stored_is_refused(app, tenant, clock):
    """The round's write has taken its reference, not yet committed, when a game with the
    same reference starts: the game waits for the round's transaction, then finds it taken."""
    from httpkit import two_player_round
    from sqlalchemy import text

    from service.domain.susun.round import score_round_request
    from service.services.clock import utcnow_ms
    from service.services.rounds.records import scored_round_record

    engine = _on_postgres(app)
    reference = f"first-{tenant.id}"
    built = scored_round_record(tenant.id, score_round_request(two_player_round(reference=reference)),
                                round_id=f"rnd_raced_{tenant.id}", created_at=utcnow_ms())
    body = {"players": ["a", "b"], "currency": "IDR", "stake": "1000", "arrange_seconds": 60, "reference": reference}
    answers: dict[str, Any] = {}
    game = threading.Thread(target=lambda: answers.update(
        game=app.test_client().post("/v1/susun/games", json=body, headers=tenant.headers)))
    with app.extensions["capsa"].db.unit_of_work(write=True) as uow:
        uow.session.execute(text("SELECT 1"))  # in a transaction: the round's statement runs now
        uow.chain.append(built.new, take_reference=True)
        game.start()
        wait_for(lambda: lock_waiters(engine) == 1 or not game.is_alive())
        assert game.is_alive()  # it waits for the round's reference
        uow.commit()
    game.join(10)
    refused = problem(answers["game"], 409, "conflict")
    assert fields_of(refused) == {"reference"}
    http = app.test_client()
    assert [r["reference"] for r in _rounds_of(http, tenant)] == [reference]
    assert http.get("/v1/susun/games", headers=tenant.headers).get_json()["items"] == []


def test_a_round_body_with_game_fields_is_refused_by_post_rounds(http, tenant):
    from httpkit import two_player_round

    body = two_player_round(game_id="sg_x")
    assert fields_of(problem(http.post("/v1/rounds", json=body, headers=tenant.headers), 422,
                             "validation")) == {"game_id"}
    body = two_player_round()
    body["players"][0]["auto_arranged"] = True
    assert fields_of(problem(http.post("/v1/score", json=body, headers=tenant.headers), 422,
                             "validation")) == {"players[0].auto_arranged"}


# -- the list ----------------------------------------------------------------------------------


def test_the_list_filters_by_status_and_table_pages_and_settles_overdue_games(http, tenant, clock):
    games = []
    for i in range(5):  # a millisecond apart: newest first is then creation order
        games.append(start(http, tenant, players=["a", "b"], table=f"t{i % 2}", arrange_seconds=10 + 100 * (i % 2)))
        clock.advance(milliseconds=1)
    h = tenant.headers
    listed = http.get("/v1/susun/games?limit=2", headers=h).get_json()
    assert [g["id"] for g in listed["items"]] == [games[4]["id"], games[3]["id"]]
    rest = http.get(f"/v1/susun/games?limit=10&cursor={listed['next_cursor']}", headers=h).get_json()
    assert [g["id"] for g in rest["items"]] == [g["id"] for g in games[2::-1]] and rest["next_cursor"] is None
    t1 = http.get("/v1/susun/games?table=t1", headers=h).get_json()["items"]
    assert {g["id"] for g in t1} == {games[1]["id"], games[3]["id"]}
    clock.advance(seconds=10)  # past the t0 games' deadlines
    arranging = http.get("/v1/susun/games?status=arranging", headers=h).get_json()["items"]
    assert {g["id"] for g in arranging} == {games[1]["id"], games[3]["id"]}
    settled = http.get("/v1/susun/games?status=settled", headers=h).get_json()["items"]
    assert {g["id"] for g in settled} == {games[0]["id"], games[2]["id"], games[4]["id"]}
    assert all(g["round"] for g in settled)
    assert fields_of(problem(http.get("/v1/susun/games?status=done", headers=h), 422, "validation")) == {
        "query.status"}
    problem(http.get("/v1/susun/games?cursor=nonsense", headers=h), 422, "validation")


def test_the_settled_filter_lists_games_past_their_deadline_that_nothing_has_read_yet(http, tenant, clock):
    games = [start(http, tenant, players=["a", "b"], arrange_seconds=30) for _ in range(3)]
    clock.advance(seconds=120)  # every deadline passed; no sweep, no read of any game
    h = tenant.headers
    settled = http.get("/v1/susun/games?status=settled", headers=h).get_json()
    assert {g["id"] for g in settled["items"]} == {g["id"] for g in games} and settled["next_cursor"] is None
    assert all(g["status"] == "settled" and g["round"] for g in settled["items"])
    assert http.get("/v1/susun/games?status=arranging", headers=h).get_json()["items"] == []


def test_another_clients_write_goes_on_while_an_absent_players_rows_are_searched(
        http, tenant, other_tenant, clock, monkeypatch):
    # A search per absent player (under some rules 0.2 s each) ran inside the settling's write
    # transaction: on SQLite that holds the whole database, and every client's writes waited
    # (the busy timeout, then 503). The searches now come before it, on both engines.
    from httpkit import two_player_round

    game = start(http, tenant, players=["a", "b"], arrange_seconds=10)
    clock.advance(seconds=10)
    search = susun_games.auto_arrangement
    meanwhile: list[int] = []

    def searching(hand: Any, rules: Any) -> Any:
        if not meanwhile:
            body = two_player_round(reference=f"meanwhile-{game['id']}")
            meanwhile.append(http.post("/v1/rounds", json=body, headers=other_tenant.headers).status_code)
        return search(hand, rules)

    monkeypatch.setattr(susun_games, "auto_arrangement", searching)
    db = http.application.extensions["capsa"].db
    assert susun_games.settle_if_due(db, tenant.id, game["id"]) is True
    assert meanwhile == [201]
    assert fetch(http, tenant, game)["status"] == "settled"


# -- concurrency -------------------------------------------------------------------------------


def _race(http: Any, work: list[Any]) -> list[Any]:
    barrier = threading.Barrier(len(work))
    results: list[Any] = [None] * len(work)

    def run(i: int) -> None:
        client = http.application.test_client()
        barrier.wait()
        results[i] = work[i](client)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(work))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def _rounds_of(http: Any, tenant: Any) -> list[dict[str, Any]]:
    return list(http.get("/v1/rounds?limit=50", headers=tenant.headers).get_json()["items"])


def test_eight_submissions_and_the_sweep_at_the_deadline_store_exactly_one_round(http, tenant, clock):
    game = start(http, tenant)
    rows = {p: suggested(http, tenant, hand_of(http, tenant, game, p)) for p in "abcd"}
    clock.advance(seconds=60)  # the deadline, this very instant
    db = http.application.extensions["capsa"].db

    def submit(p: str) -> Any:
        return lambda client: client.put(f"/v1/susun/games/{game['id']}/arrangements/{p}",
                                         json={"arrangement": rows[p]}, headers=tenant.headers).status_code

    work = [submit(p) for p in "abcdabcd"] + [lambda _c: susun_games.settle_overdue(db)]
    results = _race(http, work)
    assert results[:8] == [409] * 8  # arrangements closed at the deadline, whoever came first
    rounds = _rounds_of(http, tenant)
    assert len(rounds) == 1
    shown = fetch(http, tenant, game)
    assert shown["round"] == rounds[0]["id"] and shown["version"] == 2
    assert all(p["auto_arranged"] for p in shown["players"])
    assert http.get("/v1/audit/verify", headers=tenant.headers).get_json()["ok"] is True


def test_eight_submissions_racing_to_be_the_last_settle_once(http, tenant, clock):
    game = start(http, tenant)
    rows = {p: suggested(http, tenant, hand_of(http, tenant, game, p)) for p in "abcd"}
    clock.advance(seconds=59)

    def submit(p: str) -> Any:
        def go(client: Any) -> tuple[int, Any]:
            answer = client.put(f"/v1/susun/games/{game['id']}/arrangements/{p}",
                                json={"arrangement": rows[p]}, headers=tenant.headers)
            return answer.status_code, answer.get_json().get("round")
        return go

    results = _race(http, [submit(p) for p in "abcdabcd"])
    statuses = sorted(s for s, _ in results)
    assert set(statuses) <= {200, 409} and statuses.count(200) >= 4
    settling = {r for s, r in results if s == 200 and r}
    assert len(settling) == 1
    rounds = _rounds_of(http, tenant)
    assert [r["id"] for r in rounds] == list(settling)
    assert [p["auto_arranged"] for p in rounds[0]["players"]] == [False] * 4
    assert http.get("/v1/audit/verify", headers=tenant.headers).get_json()["ok"] is True


def test_the_deadline_is_the_creation_time_plus_arrange_seconds(http, tenant, clock):
    game = start(http, tenant, players=["a", "b"], arrange_seconds=90)
    assert game["created_at"] == "2026-11-29T10:00:00.000Z"
    assert game["deadline"] == "2026-11-29T10:01:30.000Z"
    clock.advance(seconds=89, milliseconds=999)
    rows = suggested(http, tenant, hand_of(http, tenant, game, "a"))
    assert submitted(http, tenant, game, "a", {"arrangement": rows})["status"] == "arranging"
    clock.advance(milliseconds=1)
    problem(put(http, tenant, game, "a", {"arrangement": rows}), 409, "conflict")
    assert fetch(http, tenant, game)["status"] == "settled"


def test_settling_a_parsed_stored_request_is_what_rescoring_reproduces(http, tenant, clock):
    """The stored request is a POST /v1/rounds body plus game_id and auto_arranged: the
    re-scorer accepts it, and POST /v1/rounds refuses those fields."""
    from service.domain.rescoring import RESCORERS
    from service.domain.susun.round import score_round_request

    game = start(http, tenant, players=["a", "b"])
    clock.advance(seconds=60)
    rid = fetch(http, tenant, game)["round"]
    with http.application.extensions["capsa"].db.unit_of_work() as uow:
        import orjson

        record = orjson.loads(uow.rounds.get(tenant.id, rid).record.canonical)
    request = record["request"]
    assert request["game_id"] == game["id"]
    assert [p["auto_arranged"] for p in request["players"]] == [True, True]
    assert RESCORERS["susun"](request) == record["result"]
    for p in request["players"]:  # each auto-arranged player's rows use exactly its hand
        parse_arrangement(p["arrangement"], "arrangement", parse_cards(p["hand"], "hand"))
    with pytest.raises(CapsaError) as refused:
        score_round_request(request)
    assert {e.field for e in refused.value.errors} == {
        "game_id", "players[0].auto_arranged", "players[1].auto_arranged"}


def _racing_round_and_game(http, tenant, monkeypatch, reference, **game):
    """A round and a game made at the same moment with one reference: each checked the
    other's table before the other wrote (made here by skipping the game's check)."""
    from httpkit import two_player_round

    from service.services.susun import games as susun_game_service

    assert http.post("/v1/rounds", json=two_player_round(reference=reference), headers=tenant.headers).status_code == 201
    with monkeypatch.context() as patched:
        patched.setattr(susun_game_service, "_take_reference", lambda *_: None)
        return start(http, tenant, players=["a", "b"], reference=reference, **game)


def test_a_round_that_took_the_games_reference_meanwhile_blocks_settling_without_a_500(
    http, tenant, clock, monkeypatch
):
    reference = f"taken-{tenant.id}"
    game = _racing_round_and_game(http, tenant, monkeypatch, reference)
    clock.advance(seconds=60)
    assert fetch(http, tenant, game)["status"] == "arranging"  # shown as it is
    susun_games.settle_overdue(http.application.extensions["capsa"].db)
    assert fetch(http, tenant, game)["status"] == "arranging"
    rows = suggested(http, tenant, hand_of(http, tenant, game, "a"))
    refused = problem(put(http, tenant, game, "a", {"arrangement": rows}), 409, "conflict")
    assert fields_of(refused) == {"reference"} and reference in refused["detail"]
    assert len(_rounds_of(http, tenant)) == 1


def test_a_game_that_cannot_settle_does_not_hold_up_the_games_behind_it(http, tenant, clock, monkeypatch):
    reference = f"stuck-{tenant.id}"
    stuck = _racing_round_and_game(http, tenant, monkeypatch, reference, arrange_seconds=10)
    later = start(http, tenant, players=["a", "b"], arrange_seconds=20)
    clock.advance(seconds=20)
    db = http.application.extensions["capsa"].db
    susun_games.settle_overdue(db, batch=1)  # the stuck one comes first, then the next batches
    with db.unit_of_work() as uow:
        assert uow.susun_games.get(tenant.id, later["id"]).status == "settled"
        assert uow.susun_games.get(tenant.id, stuck["id"]).status == "arranging"


def test_a_game_whose_round_would_pass_the_amount_limit_is_still_read_after_its_deadline(
    http, tenant, clock, monkeypatch
):
    """At 10^15 a pair with a foul multiplier of 10,000 would book more than 10^18 minor
    units: the round cannot be stored, so the game cannot settle; its reads showed a 422
    for it. The game is shown as it is (the last submission is refused the same way).
    Such a game is refused at creation now; one stored before that check (made here with
    the check off) is still read."""
    rules = {"preset": "capsa-susun-id", "params": {"foul_multiplier": 10_000}}
    with monkeypatch.context() as m:
        m.setattr(susun_games, "amounts_bound", lambda params, n: 0)
        game = start(http, tenant, rules=rules, stake="1000000000000000", players=["a", "b"])
    submitted(http, tenant, game, "a", {"arrangement": fouled(suggested(http, tenant, hand_of(http, tenant, game, "a")))})
    last = put(http, tenant, game, "b", {"arrangement": suggested(http, tenant, hand_of(http, tenant, game, "b"))})
    assert fields_of(problem(last, 422, "validation")) == {"stake"}
    clock.advance(seconds=61)
    shown = fetch(http, tenant, game)
    assert (shown["status"], shown["players"][0]["submitted"]) == ("arranging", True)
    listed = http.get("/v1/susun/games", headers=tenant.headers)
    assert listed.status_code == 200 and game["id"] in {g["id"] for g in listed.get_json()["items"]}


def overdue_games(http: Any, tenant: Any, clock: Any, count: int) -> list[str]:
    """`count` two-player games started a millisecond apart, all past their deadline now:
    their ids, newest first (as the list orders them)."""
    games = []
    for _ in range(count):
        games.append(start(http, tenant, players=["a", "b"], arrange_seconds=10))
        clock.advance(milliseconds=1)
    clock.advance(seconds=10)
    return [g["id"] for g in reversed(games)]


def test_a_list_page_settles_a_bounded_number_of_overdue_games_and_resumes_after_them(
    http, tenant, clock, monkeypatch
):
    """Each overdue game a page settles costs a search, a scoring and a write: a page holding
    more than SETTLE_PER_PAGE ends before the next one, so one request's work does not grow
    with a client's backlog; every game listed is still shown settled, and paging on lists
    each game once."""
    monkeypatch.setattr(susun_games, "SETTLE_PER_PAGE", 2, raising=False)
    newest_first = overdue_games(http, tenant, clock, 5)
    h = tenant.read_headers  # a read key lists too: the bound holds for it
    listed = pages(http, "/v1/susun/games?limit=10", h)
    first = next(listed)
    assert [g["id"] for g in first["items"]] == newest_first[:2]
    assert all(g["status"] == "settled" and g["round"] for g in first["items"])
    assert first["next_cursor"] is not None
    with http.application.extensions["capsa"].db.unit_of_work() as uow:  # the rest not touched yet
        assert [uow.susun_games.get(tenant.id, g).status for g in newest_first[2:]] == ["arranging"] * 3
    seen = list(first["items"])
    for page in listed:
        assert len(page["items"]) <= 2
        seen += page["items"]
    assert [g["id"] for g in seen] == newest_first
    assert all(g["status"] == "settled" for g in seen)
    # Nothing left overdue: a page of all five settles none and is whole.
    whole = http.get("/v1/susun/games?limit=10", headers=h).get_json()
    assert [g["id"] for g in whole["items"]] == newest_first and whole["next_cursor"] is None


def test_a_list_page_stops_settling_once_its_cpu_budget_is_spent_and_resumes_there(http, tenant, clock, monkeypatch):
    """Ten overdue games under slow rules cost a page 1-2.5 s of CPU: once PAGE_WORK_CPU_S
    has gone (here at once: each page settles its first game only), the page ends before
    the next game to settle, and the cursor resumes there; paging on lists each game once."""
    from service.services import cursors

    monkeypatch.setattr(cursors, "PAGE_WORK_CPU_S", 0.0)
    newest_first = overdue_games(http, tenant, clock, 3)
    seen = []
    for page in pages(http, "/v1/susun/games?limit=10", tenant.read_headers):
        assert len(page["items"]) == 1 and page["items"][0]["status"] == "settled"
        seen += page["items"]
        if page["next_cursor"] is not None:
            with http.application.extensions["capsa"].db.unit_of_work() as uow:  # the next not settled yet
                assert uow.susun_games.get(tenant.id, newest_first[len(seen)]).status == "arranging"
    assert [g["id"] for g in seen] == newest_first


def test_a_stake_at_which_some_round_could_pass_the_amount_limit_is_refused_at_creation(http, tenant, clock):
    """The round is scored only at the deadline: a game whose rules and stake allow a round
    beyond 10^18 minor units is 422 on `stake` when it is created (it could never settle,
    and every sweep would try it again); the largest stake the bound allows settles."""
    from service.domain.money import MAX_AMOUNT
    from service.domain.rules import resolve_rules
    from service.domain.susun.scoring import amounts_bound

    bound = amounts_bound(resolve_rules("capsa-susun-id", "susun").params, 4)
    refused = http.post("/v1/susun/games", json={
        "rules": "capsa-susun-id", "players": ["a", "b", "c", "d"], "currency": "IDR",
        "stake": str(MAX_AMOUNT // bound + 1), "arrange_seconds": 60,
    }, headers=tenant.headers)
    body = problem(refused, 422, "validation")
    assert fields_of(body) == {"stake"} and "10^18" in body["detail"]
    assert http.get("/v1/susun/games", headers=tenant.headers).get_json()["items"] == []
    game = start(http, tenant, stake=str(MAX_AMOUNT // bound))
    clock.advance(seconds=60)
    settled = fetch(http, tenant, game)
    assert settled["status"] == "settled" and settled["round"]


def test_a_game_under_rules_whose_suggestion_would_be_slow_is_refused_at_creation(http, tenant):
    """Its absent players get a suggestion each at the deadline (in the sweeper, or in the
    request that touches it): 0.3 s each under rules with hundreds of distinct bonuses and
    max_one_royalty. Such rules are a 422 when the game is made, as for a suggestion."""
    by_rank = {f"{row}.{category}": {r: 1 + i + 13 * k for i, r in enumerate("23456789TJQKA")}
               for k, (row, category) in enumerate([("front", "pair"), ("front", "three_of_a_kind"),
                                                    ("middle", "full_house"), ("middle", "four_of_a_kind"),
                                                    ("back", "four_of_a_kind")])}
    rules = {"preset": "chinese-poker-1-6", "params": {"max_one_royalty": True, "bonus_by_rank": by_rank}}
    body = {"rules": rules, "players": ["a", "b"], "currency": "IDR", "stake": "1000", "arrange_seconds": 30}
    refused = problem(http.post("/v1/susun/games", json=body, headers=tenant.headers), 422, "validation")
    assert fields_of(refused) == {"rules.params.max_one_royalty"}
    suggestion = http.post("/v1/arrangements/suggest", json={"rules": rules, "hand": "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac".split()},
                           headers=tenant.headers)
    assert fields_of(problem(suggestion, 422, "validation")) == {"rules.params.max_one_royalty"}
    del rules["params"]["max_one_royalty"]
    assert http.post("/v1/susun/games", json=body, headers=tenant.headers).status_code == 201


def test_a_game_settled_after_its_deadline_is_dated_when_it_settles_as_every_record_is(http, tenant, clock):
    """docs/susun-games.md: `settled_at`, the round and its ledger lines carry the moment the
    game settled (the first read after the deadline here), not the deadline itself."""
    game = start(http, tenant, arrange_seconds=30)
    clock.advance(seconds=30 + 5)  # five seconds past the deadline, nobody read it
    settled = fetch(http, tenant, game)
    assert settled["status"] == "settled"
    assert settled["deadline"] == "2026-11-29T10:00:30.000Z"
    assert settled["settled_at"] == "2026-11-29T10:00:35.000Z"
    assert round_of(http, tenant, settled["round"])["created_at"] == settled["settled_at"]
    lines = http.get(f"/v1/ledger/entries?currency=IDR&round={settled['round']}", headers=tenant.read_headers)
    assert {line["created_at"] for line in lines.get_json()["items"]} == {settled["settled_at"]}
