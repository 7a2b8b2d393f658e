"""Big Two referee and settlement: dealing checks, every illegal move, scripted games, invariants."""

from __future__ import annotations

import random
import re
from itertools import combinations
from typing import Any

import pytest
from banting_scripts import BOMB_SCRIPT, FOUR, ILLEGAL, THREE, THREE_SCRIPT
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.banting.game import (
    REASONS,
    GameFinished,
    GameState,
    Move,
    apply_move,
    legal_moves,
    new_game,
    replay,
    state_document,
)
from service.domain.banting.rules import BantingParams
from service.domain.banting.settlement import card_multiplier, settle_game, settlement_document
from service.domain.cards import DECK, Card
from service.domain.errors import IllegalMove, InvalidCard, InvalidRound
from service.domain.rules import resolve_rules


def params(**overrides: Any) -> BantingParams:
    rules = resolve_rules({"preset": "capsa-banting-id", "params": overrides}, "banting")
    assert isinstance(rules.params, BantingParams)
    return rules.params


def cards(text: str) -> list[Card]:
    return [Card.from_str(t) for t in text.split()]


def rest_of_deck(*hands: str) -> str:
    used = {c for h in hands for c in cards(h)}
    return " ".join(str(c) for c in DECK if c not in used)


def move(line: str) -> Move:
    """`"a: 3d 4c"` plays, `"a: pass"` passes."""
    player, _, what = line.partition(":")
    what = what.strip()
    if what == "pass":
        return Move.pass_turn(player.strip())
    return Move.play(player.strip(), cards(what))


def make_game(hands: dict[str, str], p: BantingParams | None = None) -> GameState:
    return new_game(list(hands), [cards(h) for h in hands.values()], p or params())


def play_script(state: GameState, script: list[str]) -> GameState:
    for line in script:
        state = apply_move(state, move(line))
    return state


# -- four players: a holds 3d and leads; d holds the four 2s (tests/banting_scripts.py) ----


def test_the_four_player_deal_uses_the_whole_deck_and_d_holds_the_four_twos() -> None:
    assert FOUR["d"] == rest_of_deck(FOUR["a"], FOUR["b"], FOUR["c"])
    assert len({c for h in FOUR.values() for c in cards(h)}) == 52


def test_with_four_players_the_holder_of_the_three_of_diamonds_leads() -> None:
    state = make_game(FOUR)
    doc = state_document(state)
    assert (doc["turn"], doc["leader"], doc["status"], doc["table_play"]) == (
        "a",
        "a",
        "playing",
        None,
    )
    assert [p["seat"] for p in doc["players"]] == [0, 1, 2, 3]
    assert all(p["cards_left"] == 13 and not p["passed"] for p in doc["players"])


# -- new game validation --------------------------------------------------------------------


def test_a_game_needs_two_to_four_players() -> None:
    with pytest.raises(InvalidRound):
        new_game(["a"], [cards(FOUR["a"])], params())
    deck = list(DECK)
    with pytest.raises(InvalidRound):
        new_game(list("abcde"), [deck[:13]] * 5, params())


def test_player_ids_must_be_unique() -> None:
    with pytest.raises(InvalidRound) as err:
        new_game(["a", "a"], [cards(FOUR["a"]), cards(FOUR["b"])], params())
    assert err.value.errors[0].field == "players[1].id"


def test_every_hand_has_thirteen_cards() -> None:
    with pytest.raises(InvalidCard) as err:
        new_game(["a", "b"], [cards(FOUR["a"])[:12], cards(FOUR["b"])], params())
    assert err.value.errors[0].field == "players[0].hand"


def test_a_card_held_by_two_players_is_an_error_at_its_second_place() -> None:
    b = FOUR["b"].replace("Ac", "Qc")  # Qc is also a's (position 10)
    with pytest.raises(InvalidCard) as err:
        new_game(["a", "b"], [cards(FOUR["a"]), cards(b)], params())
    assert [(e.field, e.message) for e in err.value.errors] == [
        ("players[1].hand[12]", "'Qc' is also held by players[0]")
    ]


# -- illegal moves --------------------------------------------------------------------------


@pytest.mark.parametrize(("script", "line", "reason"), ILLEGAL)
def test_every_illegal_move_is_refused_with_its_reason_and_changes_nothing(
    script: list[str], line: str, reason: str
) -> None:
    state = play_script(make_game(FOUR), script)
    before = state_document(state)
    with pytest.raises(IllegalMove) as err:
        apply_move(state, move(line))
    assert err.value.problem == "illegal-move"
    assert err.value.message.startswith(reason)
    assert state_document(state) == before


def test_a_pass_locks_the_player_out_and_the_turn_skips_it() -> None:
    state = play_script(make_game(FOUR), ["a: 3d", "b: pass", "c: 7h", "d: 2h", "a: pass"])
    # b passed earlier in this trick, so after a the turn goes to c.
    doc = state_document(state)
    assert doc["turn"] == "c"
    assert [p["passed"] for p in doc["players"]] == [True, True, False, False]


def test_when_all_others_pass_the_last_player_leads_a_new_trick_with_anything() -> None:
    state = play_script(make_game(FOUR), ["a: 3d", "b: pass", "c: 7h", "d: pass", "a: pass"])
    doc = state_document(state)
    assert (doc["turn"], doc["leader"], doc["table_play"]) == ("c", "c", None)
    assert not any(p["passed"] for p in doc["players"])


def test_the_new_leader_may_play_any_combination() -> None:
    state = play_script(make_game(FOUR), ["a: 3d", "b: pass", "c: 7h", "d: pass", "a: pass"])
    state = apply_move(state, move("c: 8h 9h Th Jh Qh"))
    assert state_document(state)["table_play"] == {
        "player": "c",
        "cards": ["8h", "9h", "Th", "Jh", "Qh"],
        "combination": "straight_flush",
    }
    assert state.turn == 3


def test_history_records_plays_and_passes_in_order() -> None:
    state = play_script(make_game(FOUR), ["a: 3d", "b: pass"])
    assert state_document(state)["history"] == [
        {"n": 1, "player": "a", "play": ["3d"], "pass": False},
        {"n": 2, "player": "b", "play": None, "pass": True},
    ]


def test_a_move_on_a_finished_game_is_refused() -> None:
    state = play_script(make_game(FOUR), BOMB_SCRIPT)
    with pytest.raises(GameFinished):
        apply_move(state, move("b: pass"))


# -- scripted games with exact settlements --------------------------------------------------


def test_a_bomb_on_a_two_ends_the_game_and_only_the_bombed_player_pays() -> None:
    state = play_script(make_game(FOUR), BOMB_SCRIPT)
    doc = state_document(state)
    assert (doc["status"], doc["winner"], doc["turn"]) == ("finished", "a", None)
    assert state.bombed == 3
    settlement = settle_game(state, 1250)  # USD 12.50 a point
    assert settlement_document(state, settlement, "USD") == {
        "players": [
            {
                "id": "a",
                "cards_left": 7,
                "points": 24,
                "result": "300.00",
                "winnings": "300.00",
                "fee": "9.00",
                "net": "291.00",
            },
            {
                "id": "b",
                "cards_left": 13,
                "points": 0,
                "result": "0.00",
                "winnings": "0.00",
                "fee": "0.00",
                "net": "0.00",
            },
            {
                "id": "c",
                "cards_left": 12,
                "points": 0,
                "result": "0.00",
                "winnings": "0.00",
                "fee": "0.00",
                "net": "0.00",
            },
            {
                "id": "d",
                "cards_left": 12,
                "points": -24,
                "result": "-300.00",
                "winnings": "0.00",
                "fee": "0.00",
                "net": "-300.00",
            },
        ],
        "pairs": [
            {
                "players": ["a", "b"],
                "stake": "12.50",
                "rows": None,
                "outcome": "bomb",
                "multiplier": 0,
                "points": 0,
                "amount": "0.00",
            },
            {
                "players": ["a", "c"],
                "stake": "12.50",
                "rows": None,
                "outcome": "bomb",
                "multiplier": 0,
                "points": 0,
                "amount": "0.00",
            },
            {
                "players": ["a", "d"],
                "stake": "12.50",
                "rows": None,
                "outcome": "bomb",
                "multiplier": 2,
                "points": 24,
                "amount": "300.00",
            },
        ],
        "house_fee": "9.00",
    }


def test_without_bomb_ends_game_the_bomb_is_a_play_that_a_higher_five_card_play_beats() -> None:
    p = params(bomb_ends_game=False)
    state = play_script(make_game(FOUR, p), BOMB_SCRIPT)
    doc = state_document(state)
    assert (doc["status"], doc["turn"]) == ("playing", "c")  # b passed: skipped
    assert doc["table_play"]["combination"] == "four_of_a_kind"
    with pytest.raises(IllegalMove, match="^does not beat"):
        apply_move(state, move("c: 6h 8h 9h Jh Kh"))  # a flush is below a four of a kind
    state = apply_move(state, move("c: 9h Th Jh Qh Kh"))  # a straight flush is above
    state = play_script(state, ["d: pass", "a: pass"])
    assert (state_document(state)["leader"], state.table) == ("c", None)


def test_with_three_players_the_holder_of_the_lowest_dealt_card_leads_and_must_play_it() -> None:
    state = make_game(THREE)
    assert state_document(state)["turn"] == "b"
    with pytest.raises(IllegalMove, match="^must contain the lowest card: 3c"):
        apply_move(state, move("b: Ks Kh"))


def test_a_three_player_game_replayed_from_its_script_settles_exactly() -> None:
    state = play_script(make_game(THREE), THREE_SCRIPT)
    assert (state.status, state_document(state)["winner"]) == ("finished", "b")
    doc = settlement_document(state, settle_game(state, 1000), "IDR")
    assert [
        (p["id"], p["cards_left"], p["points"], p["result"], p["fee"], p["net"]) for p in doc["players"]
    ] == [
        ("a", 12, -24, "-24000", "0", "-24000"),  # 12 cards: x2
        ("b", 0, 29, "29000", "870", "28130"),
        ("c", 5, -5, "-5000", "0", "-5000"),  # 5 cards: x1
    ]
    assert [
        (p["players"], p["outcome"], p["multiplier"], p["points"], p["amount"]) for p in doc["pairs"]
    ] == [
        (["b", "a"], "win", 2, 24, "24000"),
        (["b", "c"], "win", 1, 5, "5000"),
    ]
    assert doc["house_fee"] == "870"


def test_a_player_that_never_played_pays_triple() -> None:
    hands = {
        "a": "3d 4c 5h 6s 7d 8h 9h Jh Kh 2h Qc Qd Qs",
        "b": "3c 4d 5d 6d 8d 9d Td Jd Kd 2c 2s As Ah",
    }
    state = play_script(
        make_game(hands),
        ["a: 3d 4c 5h 6s 7d", "b: pass", "a: 8h 9h Jh Kh 2h", "b: pass", "a: Qc Qd Qs"],
    )
    settlement = settle_game(state, 1000, params(fee_rate="0"))
    assert [(p.cards_left, p.points, p.money.net) for p in settlement.players] == [
        (0, 39, 39000),
        (13, -39, -39000),
    ]
    assert settlement.house_fee == 0


def test_replay_rebuilds_the_same_state_from_the_moves() -> None:
    state = play_script(make_game(THREE), THREE_SCRIPT[:7])
    again = replay(list(THREE), [cards(h) for h in THREE.values()], params(), state.moves)
    assert again == state


@pytest.mark.parametrize(("cards_left", "multiplier"), [(1, 1), (9, 1), (10, 2), (12, 2), (13, 3)])
def test_losers_pay_double_from_ten_cards_and_triple_at_thirteen(cards_left: int, multiplier: int) -> None:
    assert card_multiplier(cards_left, params()) == multiplier


def test_settling_an_unfinished_game_is_refused() -> None:
    with pytest.raises(InvalidRound):
        settle_game(make_game(FOUR), 1000)


# -- random games ---------------------------------------------------------------------------

VARIANTS = st.builds(
    params,
    suit_order=st.permutations("dchs").map("".join),
    flush_order=st.sampled_from(["suit_first", "rank_first"]),
    straights_with_two=st.booleans(),
    bomb_ends_game=st.booleans(),
    fee_basis=st.sampled_from(["winnings", "result"]),
)


def deal(seed: int, n: int) -> tuple[list[str], list[list[Card]]]:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return [f"p{i}" for i in range(n)], [deck[13 * i : 13 * i + 13] for i in range(n)]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 4), p=VARIANTS, stake=st.integers(1, 10**6))
def test_random_legal_games_terminate_conserve_the_cards_and_settle_zero_sum(
    seed: int, n: int, p: BantingParams, stake: int
) -> None:
    ids, hands = deal(seed, n)
    rng = random.Random(seed)
    state = new_game(ids, hands, p)
    for _ in range(2000):
        if state.finished:
            break
        moves = legal_moves(state)
        if rng.random() < 0.2:  # an illegal attempt changes nothing
            wrong = ids[(state.turn or 0) + 1 - n]
            with pytest.raises(IllegalMove):
                apply_move(state, Move.pass_turn(wrong))
        state = apply_move(state, rng.choice(moves))
    assert state.finished
    played = [c for e in state.history if e.play for c in e.play.cards]
    assert len(played) == len(set(played))
    for seat, hand in enumerate(hands):
        mine = [c for e in state.history if e.play and e.seat == seat for c in e.play.cards]
        assert set(mine) | state.hands[seat] == set(hand)
        assert not set(mine) & state.hands[seat]
    assert state.winner is not None
    assert state.bombed is not None or not state.hands[state.winner]
    settlement = settle_game(state, stake)
    assert sum(pl.points for pl in settlement.players) == 0
    assert sum(pl.money.result for pl in settlement.players) == 0
    assert sum(pl.money.net for pl in settlement.players) + settlement.house_fee == 0


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 4), p=VARIANTS, steps=st.integers(0, 30))
def test_legal_moves_are_exactly_the_moves_the_referee_accepts(
    seed: int, n: int, p: BantingParams, steps: int
) -> None:
    ids, hands = deal(seed, n)
    rng = random.Random(seed)
    state = new_game(ids, hands, p)
    for _ in range(steps):
        if state.finished:
            return
        state = apply_move(state, rng.choice(legal_moves(state)))
    if state.finished:
        return
    assert state.turn is not None
    player = ids[state.turn]
    accepted = set()
    for size in (1, 2, 3, 5):
        for combo in combinations(state.hand(state.turn), size):
            try:
                apply_move(state, Move.play(player, combo))
            except IllegalMove as refused:
                assert refused.message.startswith(REASONS), refused.message  # a documented reason first
                continue
            accepted.add(frozenset(combo))
    listed = {frozenset(m.cards) for m in legal_moves(state) if m.cards is not None}
    assert listed == accepted


def test_the_reasons_a_move_is_refused_are_the_ones_the_docs_list():
    from test_domain_purity import ROOT

    from service.domain.banting.timers import TURN_TIMED_OUT

    docs = (ROOT / "docs" / "api.md").read_text()
    start = docs.index("one of: `not your turn`")
    listed = re.findall(r"`([^`]+)`", docs[start:docs.index(".", start)])
    assert listed == [*REASONS, TURN_TIMED_OUT]
