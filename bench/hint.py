"""Big Two hint benchmark: one hint player against three baseline players, win rate.

Run: .venv/bin/python bench/hint.py [--games 10000] [--seed 1] [--workers 2]

Each seeded game deals four hands (a Fisher-Yates shuffle from `random.Random(seed + i)`),
seats the hint player at seat `i % 4` and plays to the end under capsa-banting-id. The
baselines are a random legal player (uniform over the referee's legal moves, a pass
included) and a "lowest legal play" player (the fewest cards, then the lowest play the
referee accepts; a pass only when nothing else is legal). Against three equal players a
seat wins 25%; the goal is more than 25% + 3 standard errors (26.3% at 10,000 games),
printed with the figure. The reference measured in the same run is three baseline players
and one more baseline player in the hint's seat (its win rate should be 25%).
CPU time is the processes' own (`/proc/self/stat` of each worker, summed), printed with the
load average: the machine is shared, so wall time moves with other work. It also times one
hint call on 2,000 positions of random games against the referee's own `legal_moves` on the
same positions (the reference: what listing the legal moves costs).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.domain.banting.game import GameState, Move, apply_move, legal_moves, new_game  # noqa: E402
from service.domain.banting.hint import hint, legal_candidates  # noqa: E402
from service.domain.banting.rules import BantingParams  # noqa: E402
from service.domain.cards import DECK  # noqa: E402
from service.domain.rules import resolve_rules  # noqa: E402

Player = Callable[[GameState, random.Random], Move]
PLAYERS = ("p0", "p1", "p2", "p3")


def _params() -> BantingParams:
    params = resolve_rules("capsa-banting-id", "banting").params
    assert isinstance(params, BantingParams)
    return params


def hint_player(state: GameState, rng: random.Random) -> Move:
    assert state.turn is not None
    return hint(state, state.player_ids[state.turn]).move


def random_player(state: GameState, rng: random.Random) -> Move:
    assert state.turn is not None
    return rng.choice(legal_candidates(state, state.turn))[0]


def lowest_player(state: GameState, rng: random.Random) -> Move:
    assert state.turn is not None
    legal = legal_candidates(state, state.turn)  # fewest cards, then the lowest play; pass last
    return legal[0][0]


BASELINES: dict[str, Player] = {"random": random_player, "lowest": lowest_player}


def play_game(seed: int, seat: int, tested: Player, baseline: Player, params: BantingParams) -> int:
    """The winner's seat of one seeded game with `tested` at `seat`."""
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    hands = [deck[i * 13 : (i + 1) * 13] for i in range(4)]
    state = new_game(PLAYERS, hands, params)
    while not state.finished:
        assert state.turn is not None
        chooser = tested if state.turn == seat else baseline
        state = apply_move(state, chooser(state, rng))
    assert state.winner is not None
    return state.winner


def _cpu_seconds() -> float:
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _chunk(args: tuple[str, bool, int, int, int]) -> tuple[int, int, float]:
    baseline_name, reference, seed, start, stop = args
    params = _params()
    baseline = BASELINES[baseline_name]
    tested = baseline if reference else hint_player
    before = _cpu_seconds()
    wins = 0
    for i in range(start, stop):
        if play_game(seed + i, i % 4, tested, baseline, params) == i % 4:
            wins += 1
    return wins, stop - start, _cpu_seconds() - before


def win_rate(
    baseline: str, games: int, seed: int, workers: int, reference: bool = False
) -> tuple[int, float]:
    """(wins, CPU seconds) of the hint player (or, `reference`, a baseline in its seat)."""
    step = max(1, games // (workers * 8))
    tasks = [(baseline, reference, seed, s, min(games, s + step)) for s in range(0, games, step)]
    if workers == 1:
        results = [_chunk(t) for t in tasks]
    else:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(_chunk, tasks)
    return sum(r[0] for r in results), sum(r[2] for r in results)


def hint_cost(positions: int, seed: int) -> tuple[float, float]:
    """(CPU seconds per hint, per `legal_moves`) over the same positions of random games
    (the process's own CPU clock, finer than /proc's ticks for calls this short)."""
    rng = random.Random(seed)
    params = _params()
    states: list[GameState] = []
    while len(states) < positions:
        deck = list(DECK)
        rng.shuffle(deck)
        state = new_game(PLAYERS, [deck[i * 13 : (i + 1) * 13] for i in range(4)], params)
        while not state.finished and len(states) < positions:
            states.append(state)
            state = apply_move(state, rng.choice(legal_moves(state)))
    before = time.process_time()
    for state in states:
        legal_moves(state)
    reference = (time.process_time() - before) / positions
    before = time.process_time()
    for state in states:
        assert state.turn is not None
        hint(state, state.player_ids[state.turn])
    return (time.process_time() - before) / positions, reference


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--reference-games", type=int, default=None, help="default: --games / 5")
    args = parser.parse_args(argv)
    n = args.games
    goal = 0.25 + 3 * math.sqrt(0.25 * 0.75 / n)
    ref_n = args.reference_games or max(4, n // 5)
    failed = False
    per_hint, per_list = hint_cost(2_000, args.seed)
    load = os.getloadavg()
    print(
        f"one hint: {per_hint * 1e6:.0f} us CPU; the referee's legal_moves on the same 2,000 positions: "
        f"{per_list * 1e6:.0f} us (ratio {per_hint / per_list:.1f}); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"{n} seeded four-player games per baseline, seed {args.seed}, {args.workers} workers")
    for name in BASELINES:
        started = time.perf_counter()
        wins, cpu = win_rate(name, n, args.seed, args.workers)
        wall = time.perf_counter() - started
        ref_wins, ref_cpu = win_rate(name, ref_n, args.seed, args.workers, reference=True)
        rate = wins / n
        ok = rate > goal
        failed |= not ok
        load = os.getloadavg()
        print(
            f"hint vs 3 {name:<6} players: win rate {rate:.2%} ({wins}/{n}; goal > {goal:.2%}: "
            f"{'met' if ok else 'MISSED'}), {cpu / n * 1000:.2f} ms CPU per game, {wall:.1f} s wall; "
            f"reference: a {name} player in the same seat wins {ref_wins / ref_n:.2%} of {ref_n} "
            f"({ref_cpu / ref_n * 1000:.2f} ms CPU per game); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
