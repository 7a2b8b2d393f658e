"""Hidden hands: while a game is in play no answer carries its hands or its deal's seed.

The matrix is every route that can carry a card or a seed x every game state (created,
arranging or playing, settled or finished, voided) x every key (the owner's write key, its
read key, another client's key), for Capsa Susun and Big Two games that use a deal. Each
cell names the status and what the body may disclose:

- `hidden`: no player's card beyond those it played face up (Big Two), no `hands`, no
  `server_seed`, not the seed's hex, wherever in the body (JSON, NDJSON, problem+json);
- `own`: the player's own cards and no other player's (the own-hand route, the hint, an
  error naming the player's own hand), with a write key only;
- `shown`: every player's 13 dealt cards (and, for a deal, its seed): the game has ended.

Each (kind, state) is set up once per engine and the cells read it; no cell changes it (the
writes tried are refused, or a reveal of a deal whose seed is already published).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import pytest
from conftest import Tenant, make_tenant

from service.domain.cards import DECK

KINDS = ("susun", "banting")
STATES = ("created", "in_play", "ended", "voided")
KEYS = ("write", "read", "other")

# route -> {phase: (write, read, other)}, each "status outcome"; a kind-specific table
# replaces the shared one where the games differ. `play` covers created and in_play,
# `end` settled/finished and voided (a voided game has ended).
MATRIX: dict[str, dict[str, dict[str, tuple[str, str, str]]]] = {
    "GET /v1/deals/{deal}": {
        "*": {"play": ("200 hidden", "200 hidden", "404 hidden"), "end": ("200 shown", "200 shown", "404 hidden")},
    },
    "GET /v1/deals": {
        "*": {"play": ("200 hidden", "200 hidden", "200 hidden"), "end": ("200 shown", "200 shown", "200 hidden")},
    },
    "GET /v1/deals?status=used": {
        "*": {"play": ("200 hidden", "200 hidden", "200 hidden"), "end": ("200 shown", "200 shown", "200 hidden")},
    },
    "POST /v1/deals/{deal}/reveal": {
        "*": {"play": ("409 hidden", "403 hidden", "404 hidden"), "end": ("200 shown", "403 hidden", "404 hidden")},
    },
    "GET game": {
        "susun": {"play": ("200 hidden", "200 hidden", "404 hidden"), "end": ("200 shown", "200 shown", "404 hidden")},
        # a finished Big Two game shows the plays (face up) and never the cards left in hand
        "banting": {"play": ("200 hidden", "200 hidden", "404 hidden"), "end": ("200 hidden", "200 hidden", "404 hidden")},
    },
    "GET games": {
        "susun": {"play": ("200 hidden", "200 hidden", "200 hidden"), "end": ("200 shown", "200 shown", "200 hidden")},
        "banting": {"play": ("200 hidden", "200 hidden", "200 hidden"), "end": ("200 hidden", "200 hidden", "200 hidden")},
    },
    "GET game hands/{player}": {
        "*": {"play": ("200 own", "403 hidden", "404 hidden"), "end": ("200 own", "403 hidden", "404 hidden")},
    },
    # Susun: PUT rows of undealt cards (the error names the player's own hand); Big Two: the
    # hint for the player in turn
    "player's own cards (PUT rows / hint)": {
        "susun": {"play": ("422 own", "403 hidden", "404 hidden"), "end": ("409 hidden", "403 hidden", "404 hidden")},
        "banting": {"play": ("200 own", "403 hidden", "404 hidden"), "end": ("409 hidden", "403 hidden", "404 hidden")},
    },
    # Big Two: a move of an undealt card (the error echoes only that card); Susun: a
    # surrender the rules refuse
    "a move or rows refused (error body)": {
        "susun": {"play": ("422 hidden", "403 hidden", "404 hidden"), "end": ("409 hidden", "403 hidden", "404 hidden")},
        "banting": {"play": ("422 hidden", "403 hidden", "404 hidden"), "end": ("409 hidden", "403 hidden", "404 hidden")},
    },
    # undealt cards under the deal: once ended, the error lists the dealt cards (public then)
    "POST /v1/score with the deal": {
        "*": {"play": ("409 hidden", "409 hidden", "422 hidden"), "end": ("422 shown", "422 shown", "422 hidden")},
    },
    "POST /v1/rounds with the deal": {
        "*": {"play": ("409 hidden", "403 hidden", "422 hidden"), "end": ("422 shown", "403 hidden", "422 hidden")},
    },
    "GET /v1/events": {
        "susun": {"play": ("200 hidden", "200 hidden", "200 hidden"), "end": ("200 shown", "200 shown", "200 hidden")},
        # a Big Two round document shows the plays, not the cards left (those are in its record)
        "banting": {"play": ("200 hidden", "200 hidden", "200 hidden"), "end": ("200 hidden", "200 hidden", "200 hidden")},
    },
    "GET /v1/rounds": {
        "susun": {"play": ("200 hidden", "200 hidden", "200 hidden"), "end": ("200 shown", "200 shown", "200 hidden")},
        # a Big Two round document shows the plays, not the cards left (those are in its record)
        "banting": {"play": ("200 hidden", "200 hidden", "200 hidden"), "end": ("200 hidden", "200 hidden", "200 hidden")},
    },
    "GET /v1/audit/export": {
        "*": {"play": ("200 hidden", "200 hidden", "200 hidden"), "end": ("200 shown", "200 shown", "200 hidden")},
    },
}


def expected(route: str, kind: str, state: str, key: str) -> tuple[int, str]:
    table = MATRIX[route].get(kind) or MATRIX[route]["*"]
    phase = "play" if state in ("created", "in_play") else "end"
    status, outcome = table[phase][KEYS.index(key)].split()
    return int(status), outcome


CELLS = list(product(MATRIX, KINDS, STATES, KEYS))


def matrix_counts() -> Counter[str]:
    """How many cells of each outcome: withheld (hidden, refused or not), own, shown."""
    counts: Counter[str] = Counter()
    for route, kind, state, key in CELLS:
        status, outcome = expected(route, kind, state, key)
        counts["cells"] += 1
        counts["withheld" if outcome == "hidden" else outcome] += 1
        counts["refused" if status >= 400 else "answered"] += 1
    return counts


def test_the_matrix_has_every_route_state_and_key_and_withholds_every_in_play_cell():
    counts = matrix_counts()
    assert dict(counts) == {
        "cells": 336, "withheld": 260, "own": 12, "shown": 64, "refused": 146, "answered": 190,
    }
    in_play = [c for c in CELLS if c[2] in ("created", "in_play")]
    assert len(in_play) == 168
    assert Counter(expected(*c)[1] for c in in_play) == {"hidden": 160, "own": 8}
    assert all(c[3] == "write" for c in in_play if expected(*c)[1] == "own")


# -- the scenarios --------------------------------------------------------------------------

TOKEN = re.compile(r'(?<=["\s>,\[])([2-9TJQKA][cdhs])(?=["\s<,\]\\])')
UNDEALT_SUSUN_RULES = "capsa-susun-id"


@dataclass
class Scenario:
    kind: str
    state: str
    owner: Tenant
    other: Tenant
    game: str
    deal: str
    seed_hex: str
    players: tuple[str, ...]
    dealt: dict[str, list[str]]
    round: str | None = None
    played: dict[str, set[str]] = field(default_factory=dict)
    me: str = "a"  # whose own cards the own-hand cells ask for

    @property
    def game_path(self) -> str:
        return f"/v1/susun/games/{self.game}" if self.kind == "susun" else f"/v1/banting/games/{self.game}"

    @property
    def undealt(self) -> list[str]:
        dealt = {c for h in self.dealt.values() for c in h}
        return [str(c) for c in DECK if str(c) not in dealt]

    def held(self, player: str) -> set[str]:
        return set(self.dealt[player]) - self.played.get(player, set())


_SCENARIOS: dict[tuple[int, str, str], Scenario] = {}


def ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    return dict(response.get_json())


def _seed_hex(app: Any, client_id: str, deal_id: str) -> str:
    with app.extensions["capsa"].db.unit_of_work() as uow:
        row = uow.deals.get(client_id, deal_id)
        assert row is not None
        return str(row.server_seed.hex())


def _susun(app: Any, http: Any, owner: Tenant, other: Tenant, state: str) -> Scenario:
    body = {"rules": UNDEALT_SUSUN_RULES, "players": ["a", "b"], "currency": "IDR", "stake": "1000",
            "arrange_seconds": 3600, "client_seed": f"hidden-{state}"}
    game = ok(http.post("/v1/susun/games", json=body, headers=owner.headers), 201)
    dealt = {p: ok(http.get(f"/v1/susun/games/{game['id']}/hands/{p}", headers=owner.headers))["hand"]
             for p in ("a", "b")}
    scenario = Scenario("susun", state, owner, other, game["id"], game["deal"],
                        _seed_hex(app, owner.id, game["deal"]), ("a", "b"), dealt)
    submitting = {"created": [], "in_play": ["a"]}.get(state, ["a", "b"])
    for p in submitting:
        h = dealt[p]
        rows = {"front": h[:3], "middle": h[3:8], "back": h[8:]}
        answer = ok(http.put(f"{scenario.game_path}/arrangements/{p}", json={"arrangement": rows},
                             headers=owner.headers))
        scenario.round = answer["round"]
    return scenario


def _banting(app: Any, http: Any, owner: Tenant, other: Tenant, state: str) -> Scenario:
    made = ok(http.post("/v1/deals", json={"players": ["a", "b"], "client_seed": f"hidden-{state}"},
                        headers=owner.headers), 201)
    body = {"currency": "IDR", "stake": "1000", "deal": made["id"], "players": [{"id": "a"}, {"id": "b"}]}
    game = ok(http.post("/v1/banting/games", json=body, headers=owner.headers), 201)
    scenario = Scenario("banting", state, owner, other, game["id"], made["id"],
                        _seed_hex(app, owner.id, made["id"]), ("a", "b"), made["hands"])
    moves = {"created": 0, "in_play": 1}.get(state, 10_000)
    while moves and game["status"] == "playing":
        hint = ok(http.post(f"{scenario.game_path}/hint", json={"player": game["turn"]}, headers=owner.headers))
        game = ok(http.post(f"{scenario.game_path}/moves", json=hint["move"], headers=owner.headers))
        moves -= 1
    assert game["status"] == ("playing" if state in ("created", "in_play") else "finished")
    scenario.round = game["round"]
    for entry in game["history"]:
        scenario.played.setdefault(entry["player"], set()).update(entry["play"] or [])
    scenario.me = game["turn"] or "a"
    return scenario


def scenario_for(app: Any, kind: str, state: str) -> Scenario:
    key = (id(app), kind, state)
    if key not in _SCENARIOS:
        http = app.test_client()
        owner, other = make_tenant(app), make_tenant(app)
        build = _susun if kind == "susun" else _banting
        scenario = build(app, http, owner, other, state)
        if state == "voided":
            assert scenario.round is not None
            ok(http.post(f"/v1/rounds/{scenario.round}/void", json={"reason": "dealer error"},
                         headers=owner.headers))
        assert (scenario.round is None) == (state in ("created", "in_play"))
        _SCENARIOS[key] = scenario
    return _SCENARIOS[key]


# -- the routes -----------------------------------------------------------------------------


def _undealt_round(s: Scenario) -> dict[str, Any]:
    cards = s.undealt
    players = []
    for i, p in enumerate(s.players):
        h = cards[13 * i : 13 * (i + 1)]
        players.append({"id": p, "arrangement": {"front": h[:3], "middle": h[3:8], "back": h[8:]}})
    return {"currency": "IDR", "stake": "1000", "deal": s.deal, "players": players}


def call(http: Any, route: str, s: Scenario, headers: dict[str, str]) -> Any:
    if route == "GET /v1/deals/{deal}":
        return http.get(f"/v1/deals/{s.deal}", headers=headers)
    if route == "GET /v1/deals":
        return http.get("/v1/deals?limit=500", headers=headers)
    if route == "GET /v1/deals?status=used":
        return http.get("/v1/deals?status=used&limit=500", headers=headers)
    if route == "POST /v1/deals/{deal}/reveal":
        return http.post(f"/v1/deals/{s.deal}/reveal", headers=headers)
    if route == "GET game":
        return http.get(s.game_path, headers=headers)
    if route == "GET games":
        return http.get(s.game_path.rsplit("/", 1)[0] + "?limit=100", headers=headers)
    if route == "GET game hands/{player}":
        return http.get(f"{s.game_path}/hands/{s.me}", headers=headers)
    if route == "player's own cards (PUT rows / hint)" and s.kind == "banting":
        return http.post(f"{s.game_path}/hint", json={"player": s.me}, headers=headers)
    if route == "player's own cards (PUT rows / hint)":
        h = s.undealt[:13]
        rows = {"front": h[:3], "middle": h[3:8], "back": h[8:]}
        return http.put(f"{s.game_path}/arrangements/{s.me}", json={"arrangement": rows}, headers=headers)
    if route == "a move or rows refused (error body)" and s.kind == "susun":
        return http.put(f"{s.game_path}/arrangements/{s.me}", json={"surrender": True}, headers=headers)
    if route == "a move or rows refused (error body)":
        return http.post(f"{s.game_path}/moves", json={"player": s.me, "play": [s.undealt[0]]}, headers=headers)
    if route == "POST /v1/score with the deal":
        return http.post("/v1/score", json=_undealt_round(s), headers=headers)
    if route == "POST /v1/rounds with the deal":
        return http.post("/v1/rounds", json=_undealt_round(s), headers=headers)
    if route == "GET /v1/events":
        return http.get("/v1/events?limit=500", headers=headers)
    if route == "GET /v1/rounds":
        return http.get("/v1/rounds?limit=100", headers=headers)
    if route == "GET /v1/audit/export":
        return http.get("/v1/audit/export", headers=headers)
    raise AssertionError(route)


def _keys_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys_in(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys_in(v)}
    return set()


def assert_discloses(text: str, parsed: Any, s: Scenario, outcome: str, route: str) -> None:
    """What the body carries of the hands and the seed, scanning the whole text as a backstop."""
    tokens = set(TOKEN.findall(text))
    private = {p: (tokens & set(s.dealt[p])) - s.played.get(p, set()) for p in s.players}
    keys = _keys_in(parsed)
    if outcome == "shown":
        assert all(set(s.dealt[p]) <= tokens for p in s.players), private
        if route.startswith(("GET /v1/deals", "POST /v1/deals")):
            assert s.seed_hex in text and {"hands", "server_seed"} <= keys
        return
    assert s.seed_hex not in text
    assert not keys & {"hands", "server_seed"}
    if outcome == "own":
        others = {p: c for p, c in private.items() if p != s.me and c}
        assert not others, others
        assert private[s.me] <= s.held(s.me)
        if route == "GET game hands/{player}":  # the hint may be a pass: no card
            assert private[s.me] == s.held(s.me)
    else:
        assert outcome == "hidden"
        assert not any(private.values()), private
        assert not keys & {"hand"}


@pytest.mark.parametrize(("route", "kind", "state", "key"), CELLS)
def test_no_answer_carries_a_hand_or_the_seed_of_a_game_in_play(app, route, kind, state, key):
    s = scenario_for(app, kind, state)
    headers = {"write": s.owner.headers, "read": s.owner.read_headers, "other": s.other.headers}[key]
    status, outcome = expected(route, kind, state, key)
    response = call(app.test_client(), route, s, headers)
    text = response.get_data(as_text=True)
    assert response.status_code == status, text
    if status == 409 and state in ("created", "in_play"):
        assert response.get_json()["type"] == "/problems/deal-in-play"
    parsed = response.get_json(silent=True)
    if route == "GET /v1/audit/export" and response.status_code == 200:
        import json

        parsed = [json.loads(line) for line in text.splitlines() if line]
    assert_discloses(text, parsed, s, outcome, route)


def test_a_hand_route_with_a_write_key_answers_exactly_the_cards_held(app):
    for kind, state in product(KINDS, STATES):
        s = scenario_for(app, kind, state)
        doc = ok(app.test_client().get(f"{s.game_path}/hands/{s.me}", headers=s.owner.headers))
        assert doc["game"] == s.game and doc["player"] == s.me
        assert set(doc["hand"]) == s.held(s.me) and len(doc["hand"]) == len(s.held(s.me))


# -- the same rule on the other ways to a deal ----------------------------------------------


def _deal(http: Any, tenant: Tenant, seed: str) -> dict[str, Any]:
    return ok(http.post("/v1/deals", json={"players": ["a", "b"], "client_seed": seed}, headers=tenant.headers), 201)


def test_a_game_of_a_match_hides_its_deal_until_the_game_has_finished(http, tenant):
    match = ok(http.post("/v1/banting/matches", json={"currency": "IDR", "stake": "1000", "players": ["a", "b"],
                                                      "target_points": 500}, headers=tenant.headers), 201)
    made = _deal(http, tenant, "match-1")
    body = {"deal": made["id"], "players": [{"id": "a"}, {"id": "b"}]}
    game = ok(http.post(f"/v1/banting/matches/{match['id']}/games", json=body, headers=tenant.headers), 201)
    shown = ok(http.get(f"/v1/deals/{made['id']}", headers=tenant.read_headers))
    assert (shown["status"], shown["used_by"]) == ("used", game["id"])
    assert "hands" not in shown and "server_seed" not in shown
    assert all(c not in http.get(f"/v1/banting/matches/{match['id']}", headers=tenant.headers).get_data(as_text=True)
               for c in (f'"{c}"' for h in made["hands"].values() for c in h))
    while game["status"] == "playing":
        hint = ok(http.post(f"/v1/banting/games/{game['id']}/hint", json={"player": game["turn"]}, headers=tenant.headers))
        game = ok(http.post(f"/v1/banting/games/{game['id']}/moves", json=hint["move"], headers=tenant.headers))
    shown = ok(http.get(f"/v1/deals/{made['id']}", headers=tenant.read_headers))
    assert shown["hands"] == made["hands"] and len(shown["server_seed"]) == 64


def test_a_big_two_game_naming_a_deal_in_play_is_refused_before_its_hands_are_compared(http, tenant):
    made = _deal(http, tenant, "twice")
    first = {"currency": "IDR", "stake": "1000", "deal": made["id"], "players": [{"id": "a"}, {"id": "b"}]}
    ok(http.post("/v1/banting/games", json=first, headers=tenant.headers), 201)
    wrong = [str(c) for c in DECK if str(c) not in made["hands"]["a"]][:13]
    second = {**first, "players": [{"id": "a", "hand": wrong}, {"id": "b"}]}
    answer = http.post("/v1/banting/games", json=second, headers=tenant.headers)
    assert answer.status_code == 409 and answer.get_json()["type"] == "/problems/deal-in-play"
    assert [e["field"] for e in answer.get_json()["errors"]] == ["deal"]
    text = answer.get_data(as_text=True)
    assert not [c for h in made["hands"].values() for c in h if f"{c} " in text or f" {c}" in text or f'"{c}"' in text]


@pytest.mark.parametrize("kind", KINDS)
def test_a_game_refuses_a_revealed_deal_whose_hands_are_public_but_a_round_may_use_it(http, tenant, kind):
    made = _deal(http, tenant, f"revealed-{kind}")
    ok(http.post(f"/v1/deals/{made['id']}/reveal", headers=tenant.headers))
    if kind == "susun":
        path, body = "/v1/susun/games", {"players": ["a", "b"], "currency": "IDR", "stake": "1000",
                                         "arrange_seconds": 60, "deal": made["id"]}
    else:
        path, body = "/v1/banting/games", {"currency": "IDR", "stake": "1000", "deal": made["id"],
                                           "players": [{"id": "a"}, {"id": "b"}]}
    answer = http.post(path, json=body, headers=tenant.headers)
    assert answer.status_code == 409 and answer.get_json()["type"] == "/problems/conflict"
    assert [e["field"] for e in answer.get_json()["errors"]] == ["deal"]
    assert ok(http.get(f"/v1/deals/{made['id']}", headers=tenant.headers))["status"] == "revealed"  # not used
    rows = {p: {"front": h[:3], "middle": h[3:8], "back": h[8:]} for p, h in made["hands"].items()}
    round_body = {"currency": "IDR", "stake": "1000", "deal": made["id"],
                  "players": [{"id": p, "arrangement": r} for p, r in rows.items()]}
    stored = ok(http.post("/v1/rounds", json=round_body, headers=tenant.headers), 201)
    assert ok(http.get(f"/v1/deals/{made['id']}", headers=tenant.headers))["used_by"] == stored["id"]
