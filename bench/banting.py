"""Big Two benchmark: moves validated per second by the referee, and random games per second.

Run: .venv/bin/python bench/banting.py [--games 300] [--seed 1]

The reference is the bare classifier: `classify` on the same plays, so the ratio shows what
refereeing (turn, hand, lowest card, beats, immutable state) costs on top of recognising the
combination. Illegal moves are timed separately (they raise and change nothing).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.domain.banting.game import (  # noqa: E402
    GameState,
    Move,
    apply_move,
    legal_moves,
    new_game,
    random_game,
    replay,
)
from service.domain.banting.plays import classify, evaluate_play  # noqa: E402
from service.domain.banting.rules import BantingParams  # noqa: E402
from service.domain.cards import Card, parse_cards  # noqa: E402
from service.domain.deals import deal  # noqa: E402
from service.domain.errors import IllegalMove  # noqa: E402
from service.domain.rules import resolve_rules  # noqa: E402

Game = tuple[list[str], list[list[Card]], tuple[Move, ...]]


def _params() -> BantingParams:
    params = resolve_rules("capsa-banting-id", "banting").params
    assert isinstance(params, BantingParams)
    return params


def _deal(rng: random.Random) -> tuple[list[str], list[list[Card]]]:
    n = rng.choice([2, 3, 4])
    hands = deal(rng.randbytes(32), "bench", 0, n)
    return [f"p{i}" for i in range(n)], hands


def _rate(count: int, seconds: float) -> str:
    return f"{count / seconds:>12,.0f} /s  ({count:,} in {seconds:.2f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    params = _params()
    rng = random.Random(args.seed)
    deals = [_deal(rng) for _ in range(args.games)]

    # Complete random games: deal in hand, every legal move listed, one chosen, applied.
    start = time.perf_counter()
    finished: list[GameState] = [random_game(ids, hands, params, rng) for ids, hands in deals]
    games_s = time.perf_counter() - start
    games: list[Game] = [(ids, hands, s.moves) for (ids, hands), s in zip(deals, finished)]
    n_moves = sum(len(m) for _, _, m in games)

    # Moves validated: replaying recorded legal games through the referee.
    start = time.perf_counter()
    for ids, hands, moves in games:
        state = new_game(ids, hands, params)
        for move in moves:
            state = apply_move(state, move)
    replay_s = time.perf_counter() - start

    # Illegal moves: the same positions, each answered by a move from the wrong player.
    states: list[GameState] = []
    for ids, hands, moves in games[:100]:
        state = new_game(ids, hands, params)
        for move in moves:
            states.append(state)
            state = apply_move(state, move)
    wrong = []
    for s in states:
        assert s.turn is not None
        wrong.append(Move.play(s.player_ids[(s.turn + 1) % len(s.player_ids)], ()))
    start = time.perf_counter()
    for s, m in zip(states, wrong):
        try:
            apply_move(s, m)
        except IllegalMove:
            pass
    illegal_s = time.perf_counter() - start

    # Reference: classify alone on every play of the recorded games.
    plays = [m.cards for _, _, moves in games for m in moves if m.cards is not None]
    start = time.perf_counter()
    for cards in plays:
        classify(cards, params)
    classify_s = time.perf_counter() - start

    start = time.perf_counter()
    for cards in plays:
        evaluate_play(cards, None, params)
    evaluate_s = time.perf_counter() - start

    # A move over HTTP rebuilds the state from the stored hands and moves (JSON strings), then
    # applies the new move: the referee's share of one POST /moves, quadratic in the game length.
    stored = [
        (ids, [[str(c) for c in h] for h in hands],
         [(m.player, None if m.cards is None else [str(c) for c in m.cards]) for m in moves])
        for ids, hands, moves in games[:100]
    ]
    service_moves = 0
    start = time.perf_counter()
    for ids, hand_texts, move_texts in stored:
        for k in range(len(move_texts)):
            prior = [
                Move.pass_turn(p) if t is None else Move.play(p, parse_cards(t, "play"))
                for p, t in move_texts[:k]
            ]
            state = replay(ids, [parse_cards(h, "hands") for h in hand_texts], params, prior)
            p, t = move_texts[k]
            apply_move(state, Move.pass_turn(p) if t is None else Move.play(p, parse_cards(t, "play")))
            service_moves += 1
    service_s = time.perf_counter() - start

    # legal_moves alone: what a random or suggesting player pays per decision.
    start = time.perf_counter()
    for s in states:
        legal_moves(s)
    legal_s = time.perf_counter() - start

    print(f"Big Two, {args.games} random games of 2-4 players, {n_moves:,} moves")
    print(f"  complete random games   {_rate(args.games, games_s)}")
    print(f"  moves validated (legal) {_rate(n_moves, replay_s)}")
    print(f"  illegal (wrong player) {_rate(len(states), illegal_s)}")
    print(f"  service moves (replayed){_rate(service_moves, service_s)}")
    print(f"  legal_moves listings    {_rate(len(states), legal_s)}")
    print(f"  evaluate_play           {_rate(len(plays), evaluate_s)}")
    print(f"  classify (reference)    {_rate(len(plays), classify_s)}")
    per_move = replay_s / n_moves
    per_classify = classify_s / len(plays)
    print(f"  ratio: one validated move costs {per_move / per_classify:.1f}x one classify")
    print(f"  ratio: a service move (replay + move) costs {service_s / service_moves / per_move:.1f}x "
          "one validated move")


if __name__ == "__main__":
    main()
