"""Auto-arrange benchmark: time per hand, against a naive treys search, and the points margin.

Run: .venv/bin/python bench/suggest.py [--hands 1000] [--naive-hands 20] [--rounds 20000]
     [--http URL --key KEY --requests 2000 --concurrency 8]

- `suggest` p50 / p99 / mean over `--hands` seeded random hands in one process (capsa-susun-id
  unless `--rules`), after one warm-up call (tables and index arrays load once per process).
- The naive reference, in the same run: for every one of the 72,072 settings, evaluate the
  middle and the back with treys (144,144 five-card evaluations per hand), keep the settings
  whose back is at least the middle and the best by treys rank. It computes no objective and no
  front, so it is a lower bound on a naive exact search; the ratio is naive time / suggest p50.
- Quality: `--rounds` seeded four-player rounds per preset; one seat (rotating) uses
  `suggest`, three the baseline arranger; scored with `scoring.score_round`. Prints average
  points per round of each side, the margin and its standard error.
- `--http URL`: suggestions/s of `POST URL/v1/arrangements/suggest` (start the service under
  gunicorn first, with `HEAVY_READS_PER_CLIENT=off`: a suggestion is a heavy read, and one
  key may have 2 in flight per server; `--key` is a read or write API key), `--concurrency`
  client threads. Refusals (429) are counted, not retried.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from pathlib import Path
from typing import Any

# The repository root instead of bench/ (whose http.py would shadow the standard library's).
sys.path[0] = str(Path(__file__).resolve().parents[1])
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402

from service.domain.cards import DECK, Card  # noqa: E402
from service.domain.rules import RuleSet, resolve_rules  # noqa: E402
from service.domain.susun.rules import SusunParams  # noqa: E402
from service.domain.susun.scoring import PlayerHand, score_round  # noqa: E402
from service.domain.susun.suggest.baseline import baseline_arrangement  # noqa: E402
from service.domain.susun.suggest.search import suggest  # noqa: E402

PRESETS: list[Any] = [
    "capsa-susun-id",
    "chinese-poker-2-4",
    "chinese-poker-1-6",
    "chinese-poker-tw",
    "chinese-poker-royalties",
    # the version-2 parameters on their own (Jaydccq/poker_trainer's weighted methods,
    # paulhankin/cpoker's more_rows)
    {"preset": "chinese-poker-1-6", "params": {"row_points": [2, 2, 4], "scoop_bonus": 4}},
    {"preset": "chinese-poker-1-6", "params": {"row_points": [1, 2, 6], "scoop_bonus": 9}},
    {"preset": "chinese-poker-2-4", "params": {"overall_rule": "more_rows"}},
]


def _label(ref: Any) -> str:
    if isinstance(ref, str):
        return ref
    return ref["preset"] + " " + ",".join(f"{k}={v}" for k, v in ref["params"].items()).replace(" ", "")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def time_suggest(hands: list[list[Card]], rules: RuleSet) -> list[float]:
    suggest(hands[0], rules)  # warm-up: loads the tables and builds the index arrays
    times = []
    for hand in hands:
        started = time.perf_counter()
        suggest(hand, rules)
        times.append(time.perf_counter() - started)
    return times


def naive_treys(hand: list[Card]) -> tuple[int, int]:
    from treys import Card as TCard
    from treys import Evaluator

    evaluator = Evaluator()
    evaluate = evaluator.evaluate
    ids = [TCard.new(str(c)) for c in hand]
    best, legal = 10**9, 0
    positions = range(13)
    for front in combinations(positions, 3):
        rest = [i for i in positions if i not in front]
        for middle in combinations(rest, 5):
            back = [ids[i] for i in rest if i not in middle]
            m = evaluate([ids[i] for i in middle], [])
            b = evaluate(back, [])
            if b <= m:  # treys: lower is stronger
                legal += 1
                best = min(best, m + b)
    return best, legal


def quality(preset: Any, rounds: int, seed: int) -> tuple[float, float, float]:
    rules = resolve_rules(preset, "susun")
    params = rules.params
    assert isinstance(params, SusunParams)
    rng = random.Random(seed)
    diffs = []
    ours_total, theirs_total = 0.0, 0.0
    for n in range(rounds):
        deck = rng.sample(DECK, 52)
        seat = n % 4
        players = []
        for i in range(4):
            hand = deck[13 * i : 13 * i + 13]
            if i == seat:
                arrangement = suggest(hand, rules, limit=1).suggestions[0].arrangement
            else:
                arrangement = baseline_arrangement(hand, params)
            players.append(PlayerHand(f"p{i}", arrangement))
        points = [p.points for p in score_round(players, params).players]
        ours = points[seat]
        theirs = (sum(points) - ours) / 3
        ours_total += ours
        theirs_total += theirs
        diffs.append(ours - theirs)
    se = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
    return ours_total / rounds, theirs_total / rounds, se


def http_rate(url: str, key: str, hands: list[list[Card]], requests: int, concurrency: int) -> None:
    endpoint = url.rstrip("/") + "/v1/arrangements/suggest"
    bodies = [json.dumps({"hand": [str(c) for c in h]}).encode() for h in hands]

    def one(i: int) -> int:
        req = urllib.request.Request(
            endpoint,
            data=bodies[i % len(bodies)],
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
        )
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                response.read()
                return int(response.status)
        except urllib.error.HTTPError as refused:  # 429: the key's heavy reads are all in flight
            refused.read()
            return int(refused.code)

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        statuses = list(pool.map(one, range(requests)))
    seconds = time.perf_counter() - started
    ok = sum(1 for s in statuses if s == 200)
    limited = sum(1 for s in statuses if s == 429)
    print(f"http: {ok / seconds:,.0f} suggestions/s ({requests:,} requests in {seconds:.2f} s, "
          f"{concurrency} clients, {ok:,} OK, {limited:,} refused 429) at {endpoint}")
    if limited:
        print("  a suggestion is a heavy read: one key has HEAVY_READS_PER_CLIENT (2) in flight per server;"
              " serve with HEAVY_READS_PER_CLIENT=off to measure the endpoint itself")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--naive-hands", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--rules", default="capsa-susun-id")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--http", metavar="URL")
    parser.add_argument("--key", default="")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    hands = [rng.sample(DECK, 13) for _ in range(args.hands)]
    rules = resolve_rules(args.rules, "susun")
    times = time_suggest(hands, rules)
    p50, p99 = _percentile(times, 0.5), _percentile(times, 0.99)
    print(f"suggest ({args.rules}, {len(hands):,} hands, one process): "
          f"p50 {p50 * 1e3:.3f} ms  p99 {p99 * 1e3:.3f} ms  mean {statistics.mean(times) * 1e3:.3f} ms  "
          f"max {max(times) * 1e3:.3f} ms")

    # The hands whose settings hold the most naturals (three flushes in all 72,072 of a
    # one-suit hand's settings), under every preset: CPU per call against the p50 above.
    worst = {"one suit": "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As",
             "two suits": "2s 3s 4s 5s 6s 7s 8s 9s Ts 2h 3h 4h 5h"}
    for preset in PRESETS:
        preset_rules = resolve_rules(preset, "susun")
        for label, text in worst.items():
            hand = [Card.from_str(t) for t in text.split()]
            suggest(hand, preset_rules)
            started, calls = time.process_time(), 0
            while calls < 3 or time.process_time() - started < 0.2:
                suggest(hand, preset_rules)
                calls += 1
            spent = (time.process_time() - started) / calls
            print(f"  {label} hand, {_label(preset)}: {spent * 1e3:.1f} ms CPU a call, x{spent / p50:.1f} the p50 "
                  f"(load {os.getloadavg()[0]:.2f})")

    if args.naive_hands:
        naive = []
        for hand in hands[: args.naive_hands]:
            started = time.perf_counter()
            naive_treys(hand)
            naive.append(time.perf_counter() - started)
        n50 = statistics.median(naive)
        print(f"naive treys search (144,144 five-card evaluations per hand, {len(naive)} hands): "
              f"median {n50 * 1e3:.1f} ms per hand; ratio naive / suggest p50 = {n50 / p50:,.0f}x")

    if args.rounds:
        for preset in PRESETS:
            started = time.perf_counter()
            ours, theirs, se = quality(preset, args.rounds, args.seed)
            load = os.getloadavg()[0]
            print(f"quality {_label(preset)}: {args.rounds:,} rounds, suggest {ours:+.3f} / round, "
                  f"baseline {theirs:+.3f} / round, margin {ours - theirs:+.3f} (s.e. {se:.3f}) "
                  f"[{time.perf_counter() - started:.0f} s, load {load:.2f}]")

    if args.http:
        http_rate(args.http, args.key, hands, args.requests, args.concurrency)
    else:
        print("http: skipped (TODO: pass --http URL --key KEY against the service under gunicorn)")


if __name__ == "__main__":
    main()
