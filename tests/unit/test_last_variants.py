"""The last peer variants (issue 24), each in a new preset version, on the peers' own cases.

- `front_vs_five` (Susun): a front against a five-card row of the same first ranks.
- `straight_flush_order` (Big Two): astralking-infinity/pusoy_dos `is_higher`, suit first.
- `last_card_penalty` (Big Two): yawnoc/big-two-scorer, README "Taking on all losses" and
  test_big2.py `test_game_compute_real_losses`.
- the outcome of a pair of two losers under everyone pays everyone (`lost_less`, `even`).

Every older version keeps its behaviour: the stored rounds of those versions re-verify.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from builders import arr

from service.domain.banting.game import Move, apply_move, new_game
from service.domain.banting.plays import Play, beats, classify
from service.domain.banting.rules import BantingParams
from service.domain.banting.settlement import last_card_taker, settle_game, take_on_all
from service.domain.cards import DECK, Card
from service.domain.errors import InvalidParameter
from service.domain.rules import resolve_rules
from service.domain.susun.arrangement import evaluate, front_against_five
from service.domain.susun.hands import evaluate_five, evaluate_front
from service.domain.susun.rules import SusunParams


def _rules(game: str, preset: str, version: int | None, overrides: dict[str, Any]) -> Any:
    ref: dict[str, Any] = {"preset": preset, "params": overrides}
    if version is not None:
        ref["version"] = version
    return resolve_rules(ref, game).params


def susun(preset: str = "chinese-poker-2-4", version: int | None = None, **overrides: Any) -> SusunParams:
    p = _rules("susun", preset, version, overrides)
    assert isinstance(p, SusunParams)
    return p


def banting(preset: str = "capsa-banting-id", version: int | None = None, **overrides: Any) -> BantingParams:
    p = _rules("banting", preset, version, overrides)
    assert isinstance(p, BantingParams)
    return p


def cards(text: str) -> list[Card]:
    return [Card.from_str(t) for t in text.split()]


# -- front_vs_five ------------------------------------------------------------------------------
# (front, five, compare under five_stronger, compare under tie): the K-K-Q against
# K-K-Q-3-2 and trips against trips, and the neighbours that stay as they were.
FRONT_VS_FIVE = [
    ("Kh Kd Qc", "Ks Kc Qd 3c 2c", -1, 0),  # pair, same kicker: the five's extra kickers
    ("Ah Kd Qc", "As Kc Qd 3c 2d", -1, 0),  # high card, same three ranks
    ("5h 5d 5c", "5s 5c 5d 9h 2c", -1, 0),  # trips against trips (across hands)
    ("Kh Kd Qc", "Ks Kc Jd 3c 2c", 1, 1),  # the front's kicker is higher
    ("Kh Kd Qc", "Ks Kc Ad 3c 2c", -1, -1),  # the five's first kicker is higher
    ("Ah Ad 2c", "Kc Kd Qh Js 9c", 1, 1),  # a higher pair
    ("2c 3d 5h", "3c 3h 6d 8s Tc", -1, -1),  # another category
]


@pytest.mark.parametrize(("front", "five", "stronger", "tie"), FRONT_VS_FIVE)
def test_a_front_against_a_five_card_row_under_each_rule(front: str, five: str, stronger: int, tie: int) -> None:
    f, m = evaluate_front(cards(front)), evaluate_five(cards(five))
    for suit_tiebreak in (False, True):
        assert front_against_five(f, m, susun(suit_tiebreak=suit_tiebreak)) == stronger
        assert front_against_five(f, m, susun(suit_tiebreak=suit_tiebreak, front_vs_five="tie")) == tie


KKQ = arr("Kh Kd Qc", "Ks Kc Qd 3c 2c", "Ah Ad 9c 8d 4h")


@pytest.mark.parametrize(
    ("overrides", "foul"),
    [
        ({}, None),
        ({"front_vs_five": "tie"}, None),  # a tie is legal unless strict_order
        ({"strict_order": True}, None),  # the five is stronger: legal
        ({"strict_order": True, "front_vs_five": "tie"}, "front beats middle"),
    ],
)
def test_the_tie_decides_the_foul_only_under_strict_order(overrides: dict[str, Any], foul: str | None) -> None:
    assert evaluate(KKQ, susun(**overrides)).foul_reason == foul


def test_front_vs_five_is_a_parameter_of_the_new_versions_only() -> None:
    for preset, old in (("capsa-susun-id", 2), ("chinese-poker-2-4", 2), ("chinese-poker-tw", 1)):
        assert "front_vs_five" not in resolve_rules({"preset": preset, "version": old}, "susun").to_json()["params"]
        assert susun(preset).front_vs_five == "five_stronger"
        assert susun(preset) == susun(preset, old)  # the same scores
        with pytest.raises(Exception, match=f"version {old + 1} has it"):
            susun(preset, old, front_vs_five="tie")


# -- straight_flush_order ---------------------------------------------------------------------------
# pusoy_dos `is_higher`: two straight flushes of different suits compare by the top card's suit
# (its suits: clubs lowest, diamonds highest, our `cshd`), of one suit by the top card.
STRAIGHT_FLUSHES = [
    ("3d 4d 5d 6d 7d", "9h Th Jh Qh Kh", True, False),  # diamonds over hearts, though lower
    ("9h Th Jh Qh Kh", "3c 4c 5c 6c 7c", True, True),
    ("4s 5s 6s 7s 8s", "3s 4s 5s 6s 7s", True, True),  # one suit: the top card
    ("3c 4c 5c 6c 7c", "9s Ts Js Qs Ks", False, False),
    ("Jc Qc Kc Ac 2c", "3h 4h 5h 6h 7h", False, True),  # consecutive: J-Q-K-A-2 is the highest
]


def sf(text: str, p: BantingParams) -> Play:
    found = classify(cards(text), p)
    assert isinstance(found, Play) and found.combination.value == "straight_flush", found
    return found


@pytest.mark.parametrize(("a", "b", "suit_first", "rank_first"), STRAIGHT_FLUSHES)
def test_pusoy_dos_version_2_orders_straight_flushes_suit_first(a: str, b: str, suit_first: bool, rank_first: bool) -> None:
    v2, v1 = banting("pusoy-dos"), banting("pusoy-dos", 1)
    assert v2.straight_flush_order == "suit_first"
    assert beats(sf(a, v2), sf(b, v2), v2) is suit_first
    assert beats(sf(a, v1), sf(b, v1), v1) is rank_first
    ranked = banting("pusoy-dos", straight_flush_order="rank_first")
    assert beats(sf(a, ranked), sf(b, ranked), ranked) is rank_first


def test_suit_first_leaves_straights_and_the_tiers_alone() -> None:
    p = banting("pusoy-dos")
    straight = classify(cards("9h Tc Jh Qh Kh"), p)
    flush = classify(cards("2d 4d 6d 8d Td"), p)
    assert isinstance(straight, Play) and isinstance(flush, Play)
    assert beats(sf("3c 4c 5c 6c 7c", p), flush, p) and not beats(flush, sf("3c 4c 5c 6c 7c", p), p)
    assert beats(classify(cards("Tc Jd Qh Ks Ad"), p), straight, p)  # type: ignore[arg-type]


# -- taking on all losses ------------------------------------------------------------------------
# test_game_compute_real_losses: (real losses, take_index) -> real losses after the take.
TAKES = [
    ((0, 1, 2, 3), 1, (0, 6, 0, 0)),
    ((0, 20, 22, 39), 2, (0, 0, 81, 0)),
]


@pytest.mark.parametrize(("losses", "taker", "taken"), TAKES)
def test_the_taker_accrues_every_real_loss_as_yawnoc_computes_it(losses, taker, taken) -> None:
    pairs = [(1 if loss else 0, loss) for loss in losses]
    assert tuple(loss for _, loss in take_on_all(pairs, taker)) == taken


# Three players, a b c in seat order: a leads 3d, b dumps a straight and a flush, leads 7s with
# Ks left; c passes and a, holding Ah, plays 9d: b goes out on its last card.
HANDS = {
    "a": "3d 3c 3h 4c 4h 5d 5h 7d 9d Jd Tc Ah 2c",
    "b": "6h 7s Ks 5c 6c 7c 8c 9s 4d 6d 8d Td Qd",
    "c": "3s 4s 5s 8h 9h Th Jh Qh Kh Kc Kd As 2d",
}
SCRIPT = [
    "a: 3d", "b: 6h", "c: pass", "a: pass",
    "b: 5c 6c 7c 8c 9s", "c: pass", "a: pass",
    "b: 4d 6d 8d Td Qd", "c: pass", "a: pass",
    "b: 7s", "c: pass", "a: {a}", "b: Ks",
]  # fmt: skip


def played(p: BantingParams, a_plays: str = "9d", hands: dict[str, str] = HANDS) -> Any:
    state = new_game(list(hands), [cards(h) for h in hands.values()], p)
    for line in SCRIPT:
        player, _, what = (part.strip() for part in line.format(a=a_plays).partition(":"))
        state = apply_move(state, Move.pass_turn(player) if what == "pass" else Move.play(player, cards(what)))
    assert state.winner == 1
    return state


@pytest.mark.parametrize(
    ("preset", "version", "overrides", "taker", "points", "outcomes"),
    [
        # yawnoc v2: a takes on all: T = a 11 x 2 + c 13 x 3 = 61; a nets 61 - 3 x 61, b and c 61.
        ("big-two-yawnoc", 2, {}, 0, [-122, 61, 61],
         {("b", "a"): "takes_all_losses", ("b", "c"): "even", ("c", "a"): "takes_all_losses"}),
        # the same game without the penalty: a 61 - 66, c 61 - 117; c-a is two losers.
        ("big-two-yawnoc", 2, {"last_card_penalty": "none"}, None, [-5, 61, -56],
         {("b", "a"): "win", ("b", "c"): "win", ("a", "c"): "lost_less"}),
        # winner collects: a pays b the 61; c pays nothing.
        ("capsa-banting-id", None, {"last_card_penalty": "takes_all_losses"}, 0, [-61, 61, 0],
         {("b", "a"): "takes_all_losses", ("b", "c"): "even"}),
        ("capsa-banting-id", None, {}, None, [-22, 61, -39], {("b", "a"): "win", ("b", "c"): "win"}),
    ],
)
def test_the_player_who_let_the_last_card_out_takes_on_all_losses(preset, version, overrides, taker, points, outcomes) -> None:
    p = banting(preset, version, **overrides)
    state = played(p)
    assert last_card_taker(state) == taker
    settled = settle_game(state, 1)
    assert [x.points for x in settled.players] == points
    ids = state.player_ids
    assert {(ids[x.winner], ids[x.loser]): x.outcome for x in settled.pairs} == outcomes
    assert sum(x.money.result for x in settled.players) == 0


def test_playing_the_highest_single_or_holding_nothing_higher_is_no_offence() -> None:
    p = banting("big-two-yawnoc")
    # a plays Jd: still below Ks with Ah in hand, still the taker
    assert last_card_taker(played(p, "Jd")) == 0
    # the same game with a's Ah and 2c swapped for c's Qh and 3s: nothing of a's beats Ks
    hands = dict(HANDS, a=HANDS["a"].replace("Ah", "Qh").replace("2c", "3s"),
                 c=HANDS["c"].replace("Qh", "Ah").replace("3s", "2c"))
    assert last_card_taker(played(p, hands=hands)) is None


def test_the_penalty_needs_moves_the_last_card_rule_would_refuse() -> None:
    with pytest.raises(InvalidParameter) as err:
        banting("big-two-hk", last_card_penalty="takes_all_losses")
    assert [e.field for e in err.value.errors] == ["rules.params.last_card_penalty", "rules.params.last_card_rule"]
    # version 1 of big-two-yawnoc refuses a's 9d outright (highest_single): the move never happens
    with pytest.raises(Exception, match="must play the highest single"):
        played(banting("big-two-yawnoc", 1))


# -- the outcome of a pair of two losers ----------------------------------------------------------


def finished(p: BantingParams, left: tuple[int, ...]) -> Any:
    ids = [f"p{i}" for i in range(len(left))]
    base = new_game(ids, [DECK[13 * i : 13 * i + 13] for i in range(len(left))], p)
    hands = tuple(frozenset(DECK[13 * i : 13 * i + k]) for i, k in enumerate(left))
    return replace(base, hands=hands, winner=0, turn=None)


@pytest.mark.parametrize(
    ("left", "version", "outcomes"),
    [
        # the book's example: a 0, b 8, c 13, d 10 cards
        ((0, 8, 13, 10), 3, ["win", "win", "win", "lost_less", "lost_less", "lost_less"]),
        ((0, 8, 13, 10), 2, ["win"] * 6),  # as stored rounds of version 2 were hashed
        ((0, 5, 5), 3, ["win", "win", "even"]),
    ],
)
def test_a_pair_of_two_losers_is_no_win(left: tuple[int, ...], version: int, outcomes: list[str]) -> None:
    p = banting("capsa-banting-id", version, settlement="everyone_pays_everyone")
    settled = settle_game(finished(p, left), 1000)
    assert [x.outcome for x in settled.pairs] == outcomes
    assert all(x.points >= 0 for x in settled.pairs)
