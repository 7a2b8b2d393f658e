"""Benchmark: our five-card evaluator against treys' `Evaluator._five` on the same hands.

Prints evaluations per second of each per hand and their ratio (goal >= 1.0), the numpy
batch path (goal >= 20 M/s), and front evaluations per second. Each figure is the best
of a few interleaved repeats, so both evaluators see the same machine load.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np
from treys import Card as TreysCard
from treys import Evaluator

from service.domain.susun.batch_evaluator import combinations, evaluate_batch3, evaluate_batch5
from service.domain.susun.evaluator import strength3, strength5

HANDS = 200_000
SEED = 2024
REPEATS = 5


def best_rate(count: int, run: Callable[[], object]) -> float:
    """Evaluations per second of one timed run."""
    start = time.perf_counter()
    run()
    return count / (time.perf_counter() - start)


def main() -> None:
    rng = random.Random(SEED)
    hands = [tuple(rng.sample(range(52), 5)) for _ in range(HANDS)]
    fronts = [h[:3] for h in hands]
    # card conversion stays outside the timing
    treys_card = [TreysCard.new("23456789TJQKA"[i >> 2] + "cdhs"[i & 3]) for i in range(52)]
    treys_hands = [[treys_card[c] for c in h] for h in hands]
    five = Evaluator()._five
    array5 = np.array(hands, dtype=np.intp)
    array3 = array5[:, :3].copy()
    every_five = combinations(52, 5)
    subsets13 = combinations(13, 5)  # the 1,287 fives of one 13-card hand (auto-arrange)

    def ours() -> None:
        for h in hands:
            strength5(h)

    def theirs() -> None:
        for h in treys_hands:
            five(h)

    def ours_fronts() -> None:
        for f in fronts:
            strength3(f)

    rates: dict[str, float] = {}

    def keep(name: str, rate: float) -> None:
        rates[name] = max(rates.get(name, 0.0), rate)

    for _ in range(REPEATS):
        keep("treys", best_rate(HANDS, theirs))
        keep("ours", best_rate(HANDS, ours))
        keep("fronts", best_rate(HANDS, ours_fronts))
        keep("batch", best_rate(HANDS, lambda: evaluate_batch5(array5)))
        keep("batch_all", best_rate(len(every_five), lambda: evaluate_batch5(every_five)))
        keep("batch_1287", best_rate(100 * 1287, lambda: [evaluate_batch5(subsets13) for _ in range(100)]))
        keep("batch3", best_rate(HANDS, lambda: evaluate_batch3(array3)))

    # the same hands must mean the same thing to both: treys' rank (1 is best) and our
    # strength (higher is better) order a sample of the hands the same way
    pairs = sorted({(five(t), strength5(h)) for h, t in zip(hands[:20_000], treys_hands[:20_000])})
    assert len(pairs) == len({t for t, _ in pairs}) == len({o for _, o in pairs})
    assert [o for _, o in pairs] == sorted((o for _, o in pairs), reverse=True)

    m = 1e6
    print(f"hands: {HANDS:,} random five-card hands, seed {SEED}, best of {REPEATS}")
    print(f"treys Evaluator._five   {rates['treys'] / m:8.2f} M evals/s")
    print(f"ours strength5          {rates['ours'] / m:8.2f} M evals/s")
    print(f"ratio ours / treys      {rates['ours'] / rates['treys']:8.2f}   (goal >= 1.0)")
    print(f"batch evaluate_batch5   {rates['batch'] / m:8.2f} M evals/s   (goal >= 20)")
    print(f"  all 2,598,960 hands   {rates['batch_all'] / m:8.2f} M evals/s")
    print(f"  1,287 subsets of 13   {rates['batch_1287'] / m:8.2f} M evals/s")
    print(f"fronts strength3        {rates['fronts'] / m:8.2f} M evals/s")
    print(f"fronts evaluate_batch3  {rates['batch3'] / m:8.2f} M evals/s")


if __name__ == "__main__":
    main()
