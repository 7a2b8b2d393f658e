"""Invariants of scoring, checked on random deals (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.domain.cards import DECK
from service.domain.susun.round import score_round_request

PRESETS = ["capsa-susun-id", "chinese-poker-2-4", "chinese-poker-1-6"]
SETTINGS = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])


def _rows(cards):
    texts = [str(c) for c in cards]
    return {"front": texts[:3], "middle": texts[3:8], "back": texts[8:]}


@st.composite
def rounds(draw):
    n = draw(st.integers(2, 4))
    deck = draw(st.permutations(DECK))
    preset = draw(st.sampled_from(PRESETS))
    params = {}
    if draw(st.booleans()):
        params["bonus_paid"] = draw(st.sampled_from(["winner", "both", "cancel"]))
        params["max_one_royalty"] = draw(st.booleans())
        params["fee_basis"] = draw(st.sampled_from(["winnings", "result"]))
        params["fee_rate"] = draw(st.sampled_from(["0", "0.03", "0.05", "0.125"]))
    players = []
    for i in range(n):
        hand = deck[13 * i: 13 * i + 13]
        if preset != "capsa-susun-id" and draw(st.integers(0, 9)) == 0:
            players.append({"id": f"p{i}", "surrender": True})
            continue
        if draw(st.booleans()):  # often a legal-looking setting: weakest cards in front
            hand = sorted(hand, key=lambda c: c.rank)
            hand = hand[:3] + hand[3:8] + hand[8:]
        players.append({"id": f"p{i}", "arrangement": _rows(hand)})
    currency, stake = draw(st.sampled_from([("IDR", "1000"), ("USD", "0.37"), ("JPY", "7")]))
    return {"rules": {"preset": preset, "params": params}, "currency": currency, "stake": stake,
            "players": players}


def minor(text: str) -> int:
    return int(text.replace(".", ""))


def by_player(doc):
    return {p["id"]: (p["points"], p["result"], p["winnings"], p["fee"], p["net"]) for p in doc["players"]}


@SETTINGS
@given(rounds())
def test_points_and_money_are_zero_sum_to_the_last_minor_unit(body):
    doc = score_round_request(body).document
    assert sum(p["points"] for p in doc["players"]) == 0
    assert sum(minor(p["result"]) for p in doc["players"]) == 0
    assert sum(minor(p["net"]) for p in doc["players"]) + minor(doc["house_fee"]) == 0
    for p in doc["players"]:
        assert minor(p["net"]) == minor(p["result"]) - minor(p["fee"])
        assert minor(p["winnings"]) >= max(minor(p["result"]), 0)


@SETTINGS
@given(rounds(), st.randoms(use_true_random=False))
def test_seat_order_changes_nothing(body, rnd):
    shuffled = dict(body, players=rnd.sample(body["players"], len(body["players"])))
    assert by_player(score_round_request(body).document) == by_player(score_round_request(shuffled).document)


@SETTINGS
@given(rounds())
def test_swapping_a_pair_negates_it(body):
    doc = score_round_request(body).document
    swapped = score_round_request(dict(body, players=body["players"][::-1])).document
    forward = {tuple(p["players"]): p for p in doc["pairs"]}
    for p in swapped["pairs"]:
        q = forward[tuple(reversed(p["players"]))]
        assert p["points"] == -q["points"]
        assert minor(p["amount"]) == -minor(q["amount"])
        assert p["outcome"] == q["outcome"]
        if p["rows"] is not None:
            assert {k: -v for k, v in p["rows"].items()} == q["rows"]


@SETTINGS
@given(rounds())
def test_a_foul_never_wins_a_pair(body):
    doc = score_round_request(body).document
    fouled = {p["id"] for p in doc["players"] if p["foul"]}
    for p in doc["pairs"]:
        a, b = p["players"]
        if a in fouled:
            assert p["points"] <= 0
        if b in fouled:
            assert p["points"] >= 0


@SETTINGS
@given(rounds(), st.randoms(use_true_random=False))
def test_the_order_of_cards_inside_a_row_changes_nothing(body, rnd):
    shuffled = dict(body, players=[
        dict(p, arrangement={k: rnd.sample(v, len(v)) for k, v in p["arrangement"].items()})
        if "arrangement" in p else p
        for p in body["players"]
    ])
    a = score_round_request(body).document
    b = score_round_request(shuffled).document
    assert by_player(a) == by_player(b)
    assert [p["outcome"] for p in a["pairs"]] == [p["outcome"] for p in b["pairs"]]
