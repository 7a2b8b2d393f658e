"""Big Two hints, auto moves and turn timers (pure domain): always legal, from the player's
own cards only, honouring whatever the referee refuses, and the timers' exact deadlines."""

from __future__ import annotations

import json
import random
import re
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from banting_scripts import BOMB_SCRIPT, FOUR

from service.domain.banting import hint as hint_module
from service.domain.banting.game import GameFinished, GameState, Move, apply_move, new_game, replay
from service.domain.banting.hint import auto_move, candidate_moves, hint, is_legal, legal_candidates
from service.domain.banting.rules import BantingParams
from service.domain.banting.timers import deadline, overdue_moves
from service.domain.cards import DECK, Card, canonical, parse_cards
from service.domain.errors import IllegalMove
from service.domain.rules import PRESETS, resolve_rules

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]


def params(**overrides: object) -> BantingParams:
    rules = resolve_rules({"preset": "capsa-banting-id", "params": overrides} if overrides else "capsa-banting-id", "banting")
    assert isinstance(rules.params, BantingParams)
    return rules.params


def cards(text: str) -> list[Card]:
    return parse_cards(text.split(), "cards")


def move(line: str) -> Move:
    player, _, what = line.partition(":")
    what = what.strip()
    return Move.pass_turn(player.strip()) if what == "pass" else Move.play(player.strip(), cards(what))


def four(script: list[str] | None = None, p: BantingParams | None = None) -> GameState:
    """The FOUR deal after `script`."""
    return replay(list(FOUR), [cards(h) for h in FOUR.values()], p or params(), [move(x) for x in script or []])


def random_states(n: int, seed: int = 7) -> list[GameState]:
    """n positions from random four-player games (random legal moves), every one in play."""
    rng = random.Random(seed)
    out: list[GameState] = []
    while len(out) < n:
        deck = list(DECK)
        rng.shuffle(deck)
        state = new_game(["a", "b", "c", "d"], [deck[i * 13 : i * 13 + 13] for i in range(4)], params())
        while not state.finished and len(out) < n:
            out.append(state)
            state = apply_move(state, rng.choice(legal_candidates(state, state.turn or 0))[0])
    return out


# -- legality -------------------------------------------------------------------------------


def test_every_hint_and_auto_move_is_a_move_the_referee_accepts():
    for state in random_states(400):
        assert state.turn is not None
        player = state.player_ids[state.turn]
        suggestion = hint(state, player).move
        assert suggestion.player == player and is_legal(state, suggestion)
        assert is_legal(state, auto_move(state))


def test_legal_candidates_are_exactly_the_candidates_apply_move_accepts():
    for state in random_states(120, seed=3):
        seat = state.turn or 0
        every = candidate_moves(state, seat)
        accepted = []
        for m, p in every:
            try:
                apply_move(state, m)
            except IllegalMove:
                continue
            accepted.append((m, p))
        assert legal_candidates(state, seat) == accepted
        assert any(m.is_pass for m, _ in every)  # a pass is always a candidate


def test_a_stricter_referee_is_honoured_without_the_hint_knowing_its_rule(monkeypatch):
    # A variant the hint module has never heard of: no single may be played. The hint and the
    # auto move ask the referee, so they never propose one.
    real = hint_module.apply_move

    def no_singles(state: GameState, m: Move) -> GameState:
        if m.cards is not None and len(m.cards) == 1:
            raise IllegalMove("not a combination: singles are off in this variant", field="play")
        return real(state, m)

    monkeypatch.setattr(hint_module, "apply_move", no_singles)
    state = four(["a: 3d", "b: pass", "c: 7h"])  # d, on a single, could only play singles
    assert hint(state, "d").move == Move.pass_turn("d")
    lead = four()  # a leads: the lowest non-single containing the 3d
    chosen = hint(lead, "a").move
    assert chosen.cards is not None and len(chosen.cards) > 1 and Card.from_str("3d") in chosen.cards


# -- the heuristic --------------------------------------------------------------------------


def test_the_opening_hint_on_the_four_player_deal_is_the_diamond_flush_with_the_3d():
    h = hint(four(), "a")
    assert canonical(h.move.cards or ()) == ["3d", "5d", "9d", "Kd", "Ad"]
    assert h.play is not None and h.play.combination.value == "flush"
    # units 10 -> 6, 8 cards left, the ace's spend 1.6 x (11/12)^2
    assert h.cost == pytest.approx(6 + 0.8 + 1.6 * (11 / 12) ** 2)


def test_a_hint_takes_any_move_after_which_the_referee_says_it_has_won():
    state = four(BOMB_SCRIPT[:-1])  # d's 2h on the table; a holds four 5s
    h = hint(state, "a")
    assert canonical(h.move.cards or ()) == ["4c", "5d", "5c", "5h", "5s"] and h.cost == hint_module.WIN_NOW
    # Without the bomb ending the game, it is just a play: sheds one unit, costs more than a pass
    # would save, and the hint passes or bombs only on its cost.
    plain = four(BOMB_SCRIPT[:-1], p=params(bomb_ends_game=False))
    assert hint(plain, "a").cost > hint_module.WIN_NOW


def test_a_last_card_that_beats_the_table_is_always_played():
    state = four(["a: 3d"])
    # b down to one card that beats the 3d: playing it wins, whatever it costs otherwise.
    position = replace(state, hands=(state.hands[0], frozenset(cards("2c")), *state.hands[2:]))
    h = hint(position, "b")
    assert (h.move, h.cost) == (Move.play("b", cards("2c")), hint_module.WIN_NOW)
    # the same card with others left is only a dear single: the hint keeps it
    kept = replace(state, hands=(state.hands[0], frozenset(cards("2c 4d 9c")), *state.hands[2:]))
    assert hint(kept, "b").move == Move.play("b", cards("4d"))


def test_against_an_opponent_on_its_last_card_a_single_lead_is_the_highest():
    lead = four(["a: 3d", "b: pass", "c: pass", "d: pass"])  # a leads a new trick
    position = replace(lead, hands=(frozenset(cards("4c 9h Kd 2d")), frozenset(cards("5s")), *lead.hands[2:]))
    h = hint(position, "a")
    # singles only; in danger each costs 3 units + 0.3 + 1.6 x (1 - strength)^2 + 2: the 2d
    assert canonical(h.move.cards or ()) == ["2d"]
    assert h.cost == pytest.approx(3 + 0.3 + 0 + hint_module.DANGER_SINGLE_LEAD)
    calm = replace(position, hands=(position.hands[0], frozenset(cards("5s 6s")), *lead.hands[2:]))
    assert canonical(hint(calm, "a").move.cards or ()) == ["4c"]  # no danger: the lowest


def test_the_lowest_single_that_beats_is_played_and_a_pair_of_twos_is_not_broken_for_it():
    state = new_game(
        ["a", "b"],
        [cards("3d 4c 5h 6s 8d 9c Tc Jh Qs Ks As 2c 2d"), cards("3c 3h 3s 4d 4h 4s 5d 5c 5s 6d 6h 6c 7d")],
        params(),
    )
    state = apply_move(apply_move(state, move("a: 3d")), move("b: 7d"))
    h = hint(state, "a")
    assert canonical(h.move.cards or ()) == ["8d"]  # 10 units + 1.1 + 1.6 x (5/12)^2
    assert h.cost == pytest.approx(10 + 1.1 + 1.6 * (5 / 12) ** 2)
    # Holding only 4c 4d 2c 2d, a 2 beats the 7d but breaks the pair: 2 + 0.3 + 1.6 = 3.9,
    # more than a pass at 2 units + 0.4 + 0.6 = 3.0.
    tight = replace(state, hands=(frozenset(cards("4c 4d 2c 2d")), state.hands[1]))
    assert hint(tight, "a") == hint_module.Hint(Move.pass_turn("a"), None, pytest.approx(3.0))


def test_the_hint_reads_no_other_players_cards():
    rng = random.Random(11)
    for state in random_states(150, seed=5):
        seat = state.turn
        assert seat is not None
        others = [s for s in range(4) if s != seat]
        pool = [c for s in others for c in state.hands[s]]
        rng.shuffle(pool)
        hands = list(state.hands)
        i = 0
        for s in others:  # the same counts, other cards
            k = len(state.hands[s])
            hands[s] = frozenset(pool[i : i + k])
            i += k
        shuffled = replace(state, hands=tuple(hands))
        player = state.player_ids[seat]
        assert hint(shuffled, player) == hint(state, player)


def test_a_hint_for_a_player_not_in_turn_or_a_finished_game_is_refused():
    state = four()
    with pytest.raises(IllegalMove, match=r"^not your turn: it is the turn of 'a'"):
        hint(state, "b")
    with pytest.raises(IllegalMove, match=r"^not your turn: 'z' is not in this game"):
        hint(state, "z")
    done = four(BOMB_SCRIPT)
    with pytest.raises(GameFinished):
        hint(done, "a")
    with pytest.raises(GameFinished):
        auto_move(done)


# -- auto moves and timers ------------------------------------------------------------------


def test_an_auto_move_passes_where_a_pass_is_allowed_and_plays_the_hint_where_not():
    assert auto_move(four(["a: 3d"])) == Move.pass_turn("b")
    lead = four()
    assert auto_move(lead) == hint(lead, "a").move  # the leader may not pass
    new_trick = four(["a: 3d", "b: pass", "c: pass", "d: pass"])
    assert auto_move(new_trick) == hint(new_trick, "a").move


def test_overdue_moves_are_dated_at_their_deadlines_one_turn_after_another():
    state = four(["a: 3d"])
    after, made = overdue_moves(state, T0, 30, T0 + timedelta(seconds=95))
    assert [(m.move, m.at) for m in made] == [
        (Move.pass_turn("b"), T0 + timedelta(seconds=30)),
        (Move.pass_turn("c"), T0 + timedelta(seconds=60)),
        (Move.pass_turn("d"), T0 + timedelta(seconds=90)),
    ]
    assert after.turn == 0 and after.table is None  # a leads again; its deadline is 120 s
    assert overdue_moves(state, T0, 30, T0 + timedelta(seconds=29, microseconds=999_000))[1] == []
    at_the_deadline = overdue_moves(state, T0, 30, deadline(T0, 30))[1]
    assert [m.at for m in at_the_deadline] == [T0 + timedelta(seconds=30)]  # the deadline itself is late


def test_a_game_nobody_plays_is_finished_by_its_timer_and_replays_to_the_same_end():
    state = four()
    after, made = overdue_moves(state, T0, 10, T0 + timedelta(days=1))
    assert after.finished and made
    assert [m.at for m in made] == [T0 + timedelta(seconds=10 * (i + 1)) for i in range(len(made))]
    again = replay(list(FOUR), [cards(h) for h in FOUR.values()], params(), [m.move for m in made])
    assert again == after
    # the same position and clock always give the same moves
    assert overdue_moves(state, T0, 10, T0 + timedelta(days=2))[1] == made


# -- the book's hint examples ---------------------------------------------------------------


def _book_hints() -> list[dict[str, object]]:
    text = (ROOT / "docs" / "rules.md").read_text()
    blocks = re.findall(r"^```json hints\n(.*?)^```", text, re.M | re.S)
    assert blocks, "docs/rules.md has a ```json hints block"
    return [item for block in blocks for item in json.loads(block)]


@pytest.mark.parametrize("example", _book_hints(), ids=lambda e: str(e.get("name")))
def test_every_hint_example_of_the_book_is_the_engines_hint(example):
    rules = resolve_rules(example["rules"], "banting")
    players = example["players"]
    state = replay(
        [p["id"] for p in players],
        [parse_cards(p["hand"], "hand") for p in players],
        rules.params,
        [Move.pass_turn(m["player"]) if m.get("pass") else Move.play(m["player"], parse_cards(m["play"], "play")) for m in example["moves"]],
    )
    h = hint(state, example["player"])
    expect = example["expect"]
    assert (canonical(h.move.cards) if h.move.cards else "pass") == expect["play"]
    if "cost" in expect:
        assert h.cost == pytest.approx(expect["cost"], abs=0.005)


def test_the_bench_smoke_one_hint_player_beats_three_baseline_players():
    # make test's small run of bench/hint.py: 200 seeded games per baseline, one process.
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import hint as bench_hint  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    wins_random, _ = bench_hint.win_rate("random", 200, seed=1, workers=1)
    wins_lowest, _ = bench_hint.win_rate("lowest", 200, seed=1, workers=1)
    assert wins_random > 100  # against random players, most games
    assert wins_lowest > 50  # more than a quarter against "lowest legal play" players


BIG_TWO_PRESETS = sorted(k for k, preset in PRESETS.items() if isinstance(preset.rules.params, BantingParams))


@pytest.mark.parametrize(("preset", "version"), BIG_TWO_PRESETS)
def test_under_every_big_two_preset_hints_are_legal_and_a_game_nobody_plays_ends(preset, version):
    # Whatever variants a preset turns on, the hint and the auto moves ask its referee.
    rules = resolve_rules({"preset": preset, "version": version}, "banting")
    assert isinstance(rules.params, BantingParams)
    rng = random.Random(version * 7919 + len(preset))
    for _ in range(6):
        deck = list(DECK)
        rng.shuffle(deck)
        state = new_game(["a", "b", "c", "d"], [deck[i * 13 : i * 13 + 13] for i in range(4)], rules.params)
        after, made = overdue_moves(state, T0, 5, T0 + timedelta(days=1))
        assert after.finished and made
        position = state
        for auto in made:
            assert position.turn is not None
            player = position.player_ids[position.turn]
            assert is_legal(position, hint(position, player).move)
            position = apply_move(position, auto.move)
        assert position == after
