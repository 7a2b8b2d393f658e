"""Big Two rule variants, each on the cases of the peer it comes from (repository and file cited
per table), plus the versioning of the presets: v1 as stored, v2 and the new presets."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from banting_scripts import FOUR
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.banting.game import (
    MUST_PLAY_HIGHEST,
    GameState,
    GameStatus,
    Move,
    TablePlay,
    apply_move,
    check_move,
    legal_moves,
    new_game,
)
from service.domain.banting.plays import NotAPlay, Play, beats, candidate_plays, classify
from service.domain.banting.rules import BantingParams, Bombs
from service.domain.banting.settlement import card_multiplier, settle_game, settlement_document
from service.domain.cards import DECK, Card
from service.domain.errors import IllegalMove, InvalidParameter, UnknownRules
from service.domain.rules import RuleSet, resolve_rules


def rules(preset: str = "capsa-banting-id", **overrides: Any) -> BantingParams:
    resolved = resolve_rules({"preset": preset, "params": overrides}, "banting")
    assert isinstance(resolved.params, BantingParams)
    return resolved.params


def cards(text: str) -> list[Card]:
    return [Card.from_str(t) for t in text.split()]


def play(text: str, p: BantingParams) -> Play:
    result = classify(cards(text), p)
    assert isinstance(result, Play), result
    return result


def move(line: str) -> Move:
    player, _, what = line.partition(":")
    what = what.strip()
    return Move.pass_turn(player.strip()) if what == "pass" else Move.play(player.strip(), cards(what))


def run(p: BantingParams, script: list[str], hands: dict[str, str] = FOUR) -> GameState:
    state = new_game(list(hands), [cards(h) for h in hands.values()], p)
    for line in script:
        state = apply_move(state, move(line))
    return state


def refused(state: GameState, line: str) -> str:
    with pytest.raises(IllegalMove) as err:
        apply_move(state, move(line))
    return err.value.message


# -- straights ------------------------------------------------------------------------------------

# jmanchuck/bigtwo-rl, bigtwo_rl/core/bigtwo.py (_identify_five_card_hand: a window of five
# consecutive Big Two ranks, 3 lowest and 2 highest) and astralking-infinity/pusoy_dos,
# pusoy_dos.py (is_straight over CARD_RANKS 3..A, 2) with test_pusoy_dos.py's test_is_straight.
STRAIGHT_CASES = [
    # (cards, standard, with_two, consecutive)
    ("Qh Js Td Kh Ac", True, True, True),  # test_is_straight cards1
    ("3c 4d 3h 5c 6s", False, False, False),  # test_is_straight cards2: a pair, no straight
    ("Jd Qc Kh As 2d", False, False, True),  # the top straight when consecutive
    ("Td Jc Qh Ks Ad", True, True, True),
    ("Ad 2c 3h 4s 5d", False, True, False),  # wraps past the 2: never consecutive
    ("2d 3c 4h 5s 6d", False, True, False),
    ("Kd Ac 2h 3s 4d", False, False, False),  # wraps: no rule has it
    ("3d 4c 5h 6s 7d", True, True, True),
]


@pytest.mark.parametrize(("text", "standard", "with_two", "consecutive"), STRAIGHT_CASES)
def test_each_straights_rule_accepts_exactly_its_rank_sets(
    text: str, standard: bool, with_two: bool, consecutive: bool
) -> None:
    for rule, expected in (("standard", standard), ("with_two", with_two), ("consecutive", consecutive)):
        result = classify(cards(text), rules(straights=rule))
        assert isinstance(result, Play) == expected, (rule, result)
        if expected:
            assert result.combination.value in ("straight", "straight_flush")


def test_under_consecutive_j_q_k_a_2_is_the_top_straight_and_3_to_7_the_lowest() -> None:
    p = rules(straights="consecutive")
    top, ace_high, low = play("Jd Qc Kh As 2d", p), play("Td Jc Qh Ks Ad", p), play("3d 4c 5h 6s 7d", p)
    assert beats(top, ace_high, p) and beats(ace_high, low, p) and not beats(low, top, p)
    # The top card is the 2, so a straight to the 2 of spades beats one to the 2 of diamonds.
    assert beats(play("Jc Qd Ks Ah 2s", p), top, p)


def test_candidate_plays_find_the_consecutive_straights_and_only_them() -> None:
    p = rules(straights="consecutive")
    hand = cards("Jd Qc Kh As 2d 3c 4h 5s 6d 8c 9d Tc 7h")
    straights = {frozenset(x.cards) for x in candidate_plays(hand, p, 5) if x.combination.value == "straight"}
    assert frozenset(cards("Jd Qc Kh As 2d")) in straights
    assert frozenset(cards("As 2d 3c 4h 5s")) not in straights
    assert len(straights) == 9  # one card of every rank: each of the nine windows, 3-7 up to J-2, once


# -- pusoy-dos: astralking-infinity/pusoy_dos, test_pusoy_dos.py (test_is_higher) ----------------

PUSOY = rules("pusoy-dos")
PUSOY_HIGHER = [
    ("2c", "3h", True),  # single1 beats single2
    ("3h", "3d", False),  # diamonds are the highest suit
    ("2c 2s", "Kc Ks", True),
    ("Kc Ks", "Kh Kd", False),
    ("Qc Qh Qd", "Ts Th Td", True),
    ("Ts Th Td", "Kc Ks Kh", False),
    ("3d 6d 7d 9d Ad", "5s 6s 7s 8s Js", True),  # flush1 beats flush2: suit first, D high
    ("5s 6s 7s 8s Js", "4h 5h 7h 8h Kh", False),  # hearts above spades
    ("9s 9d 2c 2s 2h", "3d 6d 7d 9d Ad", True),  # a full house beats a flush
    ("6d 2c 2s 2h 2d", "8c 5c 5s 5h 5d", True),  # quad1 beats quad2
    ("8c 5c 5s 5h 5d", "8h Qc Qs Qh Qd", False),
]


@pytest.mark.parametrize(("mine", "theirs", "higher"), PUSOY_HIGHER)
def test_pusoy_dos_compares_as_its_own_tests_say(mine: str, theirs: str, higher: bool) -> None:
    assert beats(play(mine, PUSOY), play(theirs, PUSOY), PUSOY) == higher


def test_pusoy_dos_starts_with_the_three_of_clubs_and_has_no_bombs() -> None:
    # pusoy_dos.py: "Lowest card is '3 of Clubs'", suits C < S < H < D.
    hands = {k: v for k, v in FOUR.items()}
    state = run(PUSOY, [], hands)
    assert state.opening_card == Card.from_str("3c") and state.player_ids[state.turn or 0] == "b"
    state = run(PUSOY, ["b: 3c", "c: 7h", "d: 2h"], hands)
    assert refused(state, "a: 5c 5d 5h 5s 9d").endswith("these rules have no bombs")


# -- bombs ----------------------------------------------------------------------------------------

# AdoryVo/big-two, src/lib/big-two/Util.ts (can_play_on: a BOMB, four of a rank with or without a
# fifth card, goes on any other combo; only a higher bomb goes on a bomb) and
# src/lib/big-two/examples/no-bombs.ts (a bare 4-of-a-kind on a single fails without bombs,
# succeeds with them).
BARE = rules(bombs="bare_quads", bomb_ends_game=False)
BOMB_CASES = [
    # (play, table, five_card_on_two, none, bare_quads)
    ("4c 4d 4h 4s", "3c", False, False, True),  # no-bombs.ts
    ("5c 5d 5h 5s 9d", "2h", True, False, True),
    ("5c 5d 5h 5s 9d", "Ah", False, False, True),
    ("5c 5d 5h 5s", "Kc Kd", False, False, True),
    ("9c 9d 9h 9s", "3h 4h 5h 6h 7h", False, False, True),  # even on a straight flush
    ("5c 5d 5h 5s", "4c 4d 4h 4s", False, False, True),  # a higher bomb on a bomb
    ("4c 4d 4h 4s", "5c 5d 5h 5s", False, False, False),
    ("3h 4h 5h 6h 7h", "9c 9d 9h 9s", False, False, False),  # nothing else beats a bomb
    ("2s", "5c 5d 5h 5s", False, False, False),
]


@pytest.mark.parametrize(("mine", "table", "on_two", "none", "bare"), BOMB_CASES)
def test_each_bombs_rule_decides_what_a_four_of_a_kind_may_go_on(
    mine: str, table: str, on_two: bool, none: bool, bare: bool
) -> None:
    for rule, expected in (("five_card_on_two", on_two), ("none", none), ("bare_quads", bare)):
        p = rules(bombs=rule, bomb_ends_game=False)
        a, b = classify(cards(mine), p), classify(cards(table), p)
        if isinstance(a, NotAPlay) or isinstance(b, NotAPlay):
            assert not expected and rule != "bare_quads", (rule, a, b)
            continue
        assert beats(a, b, p) == expected, rule


def test_a_bare_four_of_a_kind_is_a_play_only_under_bare_quads() -> None:
    assert isinstance(classify(cards("4c 4d 4h 4s"), rules()), NotAPlay)
    bare = play("4c 4d 4h 4s", BARE)
    assert bare.combination.value == "four_of_a_kind" and bare.cards == tuple(cards("4d 4c 4h 4s"))


def test_under_bare_quads_a_bomb_takes_the_trick_and_only_a_higher_bomb_answers_it() -> None:
    state = run(BARE, ["a: 3d", "b: 4d", "c: 7h", "d: 8s", "a: 5c 5d 5h 5s"])
    assert state.winner is None and state.table is not None and state.table.seat == 0
    assert refused(state, "b: Ac").startswith("does not beat: only a higher four of a kind")
    state = apply_move(apply_move(state, move("b: pass")), move("c: pass"))
    bombs = [m for m in legal_moves(state) if m.cards is not None]
    # d's only answers are its four 2s, bare or with one of its 8 other cards.
    assert len(bombs) == 9 and all(set(cards("2c 2d 2h 2s")) <= set(m.cards or ()) for m in bombs)
    assert apply_move(state, move("d: 2c 2d 2h 2s")).table.seat == 3  # type: ignore[union-attr]


def test_without_bombs_a_four_of_a_kind_cannot_go_on_a_single_two() -> None:
    state = run(rules(bombs="none", bomb_ends_game=False), ["a: 3d", "b: pass", "c: 7h", "d: 2h"])
    assert "these rules have no bombs" in refused(state, "a: 5c 5d 5h 5s 9d")


# -- pass_locks -----------------------------------------------------------------------------------

# jmanchuck/bigtwo-rl, bigtwo_rl/core/bigtwo.py (step: a pass adds to passes_in_row, a play resets
# it, num_players - 1 passes in a row reset the trick; every player keeps its turn) and
# AdoryVo/big-two, src/lib/big-two/Game.ts (CAN_PLAY_AFTER_PASS: passed players are not skipped).
AFTER_PASS = ["a: 3d", "b: pass", "c: 7h", "d: pass", "a: pass"]


def test_under_turn_a_player_who_passed_plays_again_on_its_next_turn() -> None:
    state = run(rules(pass_locks="turn"), AFTER_PASS)
    assert state.player_ids[state.turn or 0] == "b" and state.table is not None
    state = apply_move(state, move("b: 8d"))
    assert state.passed == (False, False, False, False)  # a play clears the passes


def test_under_trick_the_same_passes_skip_b_and_end_the_trick() -> None:
    state = run(rules(), AFTER_PASS)
    assert state.table is None and state.player_ids[state.turn or 0] == "c"


def test_under_turn_players_minus_one_passes_in_a_row_end_the_trick() -> None:
    state = run(rules(pass_locks="turn"), [*AFTER_PASS, "b: 8d", "c: pass", "d: pass"])
    assert state.table is not None
    state = apply_move(state, move("a: pass"))
    assert state.table is None and state.leader == 1 and state.turn == 1


def test_under_turn_the_pass_of_a_player_is_not_a_reason_to_refuse_its_play() -> None:
    script = ["a: 3d", "b: pass", "c: pass", "d: 7d", "a: 8c"]
    turn = run(rules(pass_locks="turn"), script)
    assert turn.player_ids[turn.turn or 0] == "b" and apply_move(turn, move("b: 9c")).table is not None
    assert refused(run(rules(), script), "b: 9c").startswith("passed already")


# -- last_card_rule: michaelelalam-glitch/Big-Two-Neo, apps/mobile/src/game/__tests__/ ------------
# game-logic.test.ts ("Game Logic - One Card Left Rule": validateOneCardLeftRule,
# canPassWithOneCardLeftRule). Seat 0 moves; seat 1, the next player, holds `next_cards`.


def at_table(p: BantingParams, mine: str, next_cards: str, table: str | None) -> GameState:
    base = new_game(["a", "b", "c"], [DECK[:13], DECK[13:26], DECK[26:39]], p)
    hands = (frozenset(cards(mine)), frozenset(cards(next_cards)), frozenset(cards("Kd Kc")))
    return replace(
        base,
        hands=hands,
        turn=0,
        leader=2,
        opening_card=None,
        table=None if table is None else TablePlay(2, play(table, p)),
    )


HK = rules("big-two-hk")
NO_PASS = rules("big-two-hk", last_card_rule="highest_single_no_pass")
LAST_CARD = [
    # (rules, my hand, next player's cards, table, move, refused with)
    (HK, "4d 5c As", "9h 9s Jd Qd Jc", "3d", "a: 4d", None),  # next player holds 5 cards
    (HK, "4d 4c As", "9h", "3d 3c", "a: 4d 4c", None),  # pairs are not restricted
    (HK, "4d 5c As", "9h", "3d", "a: 4d", MUST_PLAY_HIGHEST),  # must play AS
    (HK, "4d 5c As", "9h", "3d", "a: As", None),
    (HK, "4d 5c As", "9h", None, "a: 4d", MUST_PLAY_HIGHEST),  # leading a single: the highest too
    (HK, "3d", "9h", "3c", "a: 3d", "does not beat"),  # no single beats: the usual reason
    (HK, "4d 5c", "9h", "3d", "a: pass", None),  # Hong Kong: the pass stays allowed
    (NO_PASS, "4d 5c", "9h", "3d", "a: pass", MUST_PLAY_HIGHEST),  # Neo: cannot pass
    (NO_PASS, "4d 5c", "9h 9s Jd Qd Jc", "As", "a: pass", None),
    (NO_PASS, "3d", "9h", "3c", "a: pass", None),  # 3d cannot beat 3c
    (NO_PASS, "4d 5c", "9h", "3d 3c", "a: pass", None),  # the table is no single
]


@pytest.mark.parametrize(("p", "mine", "nxt", "table", "line", "reason"), LAST_CARD)
def test_the_last_card_rule_binds_singles_when_the_next_player_holds_one_card(
    p: BantingParams, mine: str, nxt: str, table: str | None, line: str, reason: str | None
) -> None:
    state = at_table(p, mine, nxt, table)
    if reason is None:
        check_move(state, move(line))
    else:
        with pytest.raises(IllegalMove) as err:
            check_move(state, move(line))
        assert err.value.message.startswith(reason)


def test_the_last_card_rule_is_off_in_capsa_banting_id() -> None:
    check_move(at_table(rules(), "4d 5c As", "9h", "3d"), move("a: 4d"))


def test_legal_moves_honour_the_last_card_rule() -> None:
    state = at_table(NO_PASS, "4d 5c As", "9h", "3d")
    assert [m.cards for m in legal_moves(state)] == [tuple(cards("As"))]


# -- first_lead -----------------------------------------------------------------------------------


def test_a_given_leader_leads_anything_without_the_lowest_card() -> None:
    p = rules(first_lead="previous_winner")
    state = new_game(list(FOUR), [cards(h) for h in FOUR.values()], p, leader=2)
    assert state.turn == 2 and state.opening_card is None
    assert apply_move(state, move("c: Ah")).table is not None


# -- settlement: yawnoc/big-two-scorer, test_big2.py and README.md ------------------------------

# test_compute_fry_aware_loss: (fry threshold, cards, real loss). The fry threshold is our
# double_at; yawnoc triples at 13 only once frying applies, so triple_at is max(13, threshold).
FRY = [
    (10, 1, 1), (10, 9, 9), (10, 10, 20), (10, 11, 22), (10, 12, 24), (10, 13, 39),
    (11, 9, 9), (11, 10, 10), (11, 11, 22), (11, 12, 24), (11, 13, 39),
    (500, 9, 9), (500, 10, 10), (500, 12, 12), (500, 13, 13),
]  # fmt: skip


@pytest.mark.parametrize(("threshold", "left", "loss"), FRY)
def test_the_real_loss_is_yawnocs_fry_aware_loss(threshold: int, left: int, loss: int) -> None:
    p = rules("big-two-yawnoc", double_at=threshold, triple_at=max(13, threshold))
    assert left * card_multiplier(left, p) == loss


def finished(p: BantingParams, left: tuple[int, ...], winner: int = 0) -> GameState:
    ids = [f"p{i}" for i in range(len(left))]
    base = new_game(ids, [DECK[13 * i : 13 * i + 13] for i in range(len(left))], p)
    hands = tuple(frozenset(DECK[13 * i : 13 * i + k]) for i, k in enumerate(left))
    return replace(base, hands=hands, winner=winner, turn=None)


# test_game_compute_net_scores: real losses (0, 1, 2, 3) and (0, 20, 22, 39), each nets T - 4 l.
NET = [((0, 1, 2, 3), (6, 2, -2, -6)), ((0, 10, 11, 13), (81, 1, -7, -75))]


@pytest.mark.parametrize(("left", "net"), NET)
def test_everyone_pays_everyone_nets_t_minus_n_times_the_real_loss(left: tuple[int, ...], net: tuple[int, ...]) -> None:
    p = rules("big-two-yawnoc")
    settled = settle_game(finished(p, left), 1)
    assert tuple(x.points for x in settled.players) == net
    assert tuple(x.money.result for x in settled.players) == net
    assert settled.house_fee == 0 and len(settled.pairs) == 6


def test_the_readme_example_first_game_nets_85_for_the_winner() -> None:
    # README "Simple example": a b c d lose 0 11 12 13 -> real losses 0 22 24 39, T = 85.
    p = rules("big-two-yawnoc")
    doc = settlement_document(finished(p, (0, 11, 12, 13)), settle_game(finished(p, (0, 11, 12, 13)), 1000), "IDR")
    assert [x["points"] for x in doc["players"]] == [85, -3, -11, -71]
    pairs = {tuple(x["players"]): (x["points"], x["multiplier"]) for x in doc["pairs"]}
    assert pairs[("p1", "p2")] == (2, 2) and pairs[("p2", "p3")] == (15, 3) and pairs[("p0", "p3")] == (39, 3)


def test_winner_collects_is_unchanged_by_version_2() -> None:
    for p in (rules(), resolve_rules({"preset": "capsa-banting-id", "version": 1}, "banting").params):
        settled = settle_game(finished(p, (0, 8, 13, 10)), 1000)  # type: ignore[arg-type]
        assert [x.points for x in settled.players] == [67, -8, -39, -20]


# -- versions and contradictions ------------------------------------------------------------------


def test_version_1_keeps_straights_with_two_and_refuses_the_new_parameters() -> None:
    v1 = resolve_rules({"preset": "capsa-banting-id", "version": 1, "params": {"straights_with_two": True}}, "banting")
    assert v1.to_json()["params"]["straights_with_two"] is True and "straights" not in v1.to_json()["params"]
    with pytest.raises(UnknownRules) as err:
        resolve_rules({"preset": "capsa-banting-id", "version": 1, "params": {"bombs": "none"}}, "banting")
    assert err.value.errors[0].field == "rules.params.bombs" and "version 2 has it" in err.value.message


def test_version_2_reads_straights_with_two_as_straights() -> None:
    v2 = resolve_rules({"preset": "capsa-banting-id", "version": 2, "params": {"straights_with_two": True}}, "banting")
    assert v2.version == 2 and v2.to_json()["params"]["straights"] == "with_two"
    assert "straights_with_two" not in v2.to_json()["params"]


CONTRADICTIONS = [
    ({"straights_with_two": True, "straights": "standard"}, "straights_with_two", "straights"),
    ({"double_at": 500, "triple_at": 13}, "double_at", "triple_at"),
    ({"double_at": 500}, "double_at", "triple_at"),
    ({"bombs": "none", "bomb_ends_game": True}, "bombs", "bomb_ends_game"),
]


@pytest.mark.parametrize(("params", "a", "b"), CONTRADICTIONS)
def test_contradictory_parameters_are_refused_naming_both(params: dict[str, Any], a: str, b: str) -> None:
    with pytest.raises(InvalidParameter) as err:
        resolve_rules({"preset": "capsa-banting-id", "params": params}, "banting")
    fields = [e.field for e in err.value.errors]
    assert fields == [f"rules.params.{a}", f"rules.params.{b}"]
    assert b in err.value.errors[0].message and a in err.value.errors[1].message


def test_asking_a_bomb_to_end_the_game_where_the_preset_has_no_bombs_is_a_contradiction() -> None:
    """big-two-hk has no bombs: `bomb_ends_game` true given alone was stored as it came, a
    rule set saying both. Switching bombs off where the preset ends the game on one is not a
    contradiction: the flag just has nothing left to act on."""
    with pytest.raises(InvalidParameter) as err:
        resolve_rules({"preset": "big-two-hk", "params": {"bomb_ends_game": True}}, "banting")
    assert [e.field for e in err.value.errors] == ["rules.params.bombs", "rules.params.bomb_ends_game"]
    no_bombs = resolve_rules({"preset": "capsa-banting-id", "params": {"bombs": "none"}}, "banting")
    assert (no_bombs.params.bombs, no_bombs.params.bomb_ends_game) == (Bombs.NONE, True)  # type: ignore[union-attr]


def test_a_stored_rule_set_is_never_refused_for_a_contradiction() -> None:
    stored = {"preset": "capsa-banting-id", "version": 1, "params": {**resolve_rules(
        {"preset": "capsa-banting-id", "version": 1}, "banting").to_json()["params"], "double_at": 500}}
    loaded = RuleSet.from_json(stored)
    assert loaded.to_json() == stored
    assert card_multiplier(13, loaded.params) == 3  # type: ignore[arg-type]


def test_consistent_values_pass_and_switching_doubling_off_takes_both_thresholds() -> None:
    p = rules(double_at=14, triple_at=14)
    assert card_multiplier(13, p) == 1
    assert rules(straights_with_two=False, straights="standard").straights == "standard"


# -- every variant: random games ------------------------------------------------------------------

VARIANTS = st.builds(
    lambda preset, straights, bombs, pass_locks, last_card, payment, seed: (
        rules(preset, straights=straights, bombs=bombs, pass_locks=pass_locks,
              last_card_rule=last_card, settlement=payment,
              # the penalty charges what the last-card rule refuses: one or the other
              last_card_penalty="takes_all_losses" if last_card == "none" else "none"),
        seed,
    ),
    st.sampled_from(["capsa-banting-id", "pusoy-dos", "big-two-hk", "big-two-tw", "big-two-yawnoc"]),
    st.sampled_from(["standard", "with_two", "consecutive"]),
    st.sampled_from(["five_card_on_two", "none", "bare_quads"]),
    st.sampled_from(["trick", "turn"]),
    st.sampled_from(["none", "highest_single", "highest_single_no_pass"]),
    st.sampled_from(["winner_collects", "everyone_pays_everyone"]),
    st.integers(0, 2**32),
)


@settings(max_examples=120, deadline=None)
@given(case=VARIANTS, n=st.integers(2, 4))
def test_random_games_under_every_variant_finish_and_settle_zero_sum(
    case: tuple[BantingParams, int], n: int
) -> None:
    p, seed = case
    deck = list(DECK)
    rng = random.Random(seed)
    rng.shuffle(deck)
    ids = [f"p{i}" for i in range(n)]
    state = new_game(ids, [deck[13 * i : 13 * i + 13] for i in range(n)], p)
    for _ in range(3000):
        if state.finished:
            break
        moves = legal_moves(state)
        assert moves, "a player in turn always has a legal move"
        state = apply_move(state, rng.choice(moves))
    assert state.finished
    settled = settle_game(state, 100)
    assert sum(x.money.result for x in settled.players) == 0
    assert sum(x.money.net for x in settled.players) + settled.house_fee == 0
    assert sum(x.points for x in settled.players) == 0


# -- matches --------------------------------------------------------------------------------------


def test_a_match_adds_real_losses_ends_at_the_target_and_ties_on_the_lowest_total_all_win() -> None:
    from service.domain.banting import match

    players, zero = ["a", "b", "c"], {"a": 0, "b": 0, "c": 0}
    entry, totals, status = match.add_game(players, zero, 0, 20, "g1", "r1", "a", {"a": 0, "b": 8, "c": 18})
    assert (status, entry.n, entry.totals, totals) == ("playing", 1, {"a": 0, "b": 8, "c": 18}, {"a": 0, "b": 8, "c": 18})
    assert entry.to_json() == {"n": 1, "game": "g1", "round": "r1", "winner": "a", "void": False,
                               "points": {"a": 0, "b": 8, "c": 18}, "totals": {"a": 0, "b": 8, "c": 18}}
    assert match.leads_by_winner("previous_winner") and not match.leads_by_winner("lowest_card")
    assert match.last_winner([entry]) == "a" and match.last_winner([]) is None
    assert match.last_winner([replace(entry, n=2, winner="b", void=True), entry]) == "a"
    assert match.last_winner([replace(entry, void=True)]) is None
    entry, totals, status = match.add_game(players, totals, 1, 20, "g2", "r2", "c", {"a": 8, "b": 0, "c": 0})
    assert (status, entry.n, entry.totals) == ("playing", 2, {"a": 8, "b": 8, "c": 18})
    third, totals, status = match.add_game(players, totals, 2, 20, "g3", "r3", "b", {"a": 1, "b": 0, "c": 2})
    assert (status, totals) == ("finished", {"a": 9, "b": 8, "c": 20})
    assert match.winners(players, totals, status) == ["b"]
    # A void takes the game's points off: c is below the target again, and the match plays on.
    assert match.void_game(players, totals, 20, third) == ({"a": 8, "b": 8, "c": 18}, "playing")
    _, tied, done = match.add_game(["a", "b"], {"a": 0, "b": 0}, 0, 5, "g", "r", "a", {"a": 0, "b": 5})
    assert match.winners(["a", "b"], tied, done) == ["a"]
    assert match.winners(["a", "b"], {"a": 0, "b": 0}, GameStatus.PLAYING) == []


def test_a_bombed_player_alone_scores_match_points() -> None:
    from service.domain.banting import match

    state = run(rules(), ["a: 3d", "b: pass", "c: 7h", "d: 2h", "a: 5c 5d 5h 5s 9d"])
    assert match.game_points(state) == {"a": 0, "b": 0, "c": 0, "d": 24}


def test_a_contradiction_of_straights_names_the_value_not_the_enum() -> None:
    from service.domain.errors import CapsaError

    with pytest.raises(CapsaError) as refused:
        resolve_rules(
            {"preset": "capsa-banting-id", "version": 2, "params": {"straights_with_two": True, "straights": "standard"}},
            "banting",
        )
    messages = [e.message for e in refused.value.errors]
    assert messages[0] == 'true contradicts straights "standard": straights_with_two true means straights \'with_two\''
