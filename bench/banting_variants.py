"""Big Two variants benchmark: random games per CPU second under every Big Two preset.

Run: .venv/bin/python bench/banting_variants.py [--games 200] [--seed 1]

Each preset plays the same seeded deals with players choosing uniformly among their legal
moves (`random_game`: `legal_moves` and `apply_move`, the referee's own checks). CPU time is
this process's own (utime + stime from /proc/self/stat), so other work on a shared machine
moves the figures less than wall time; the load average is printed beside them. The
reference is `capsa-banting-id` version 1 in the same run: each ratio is a preset's CPU per
game over the reference's.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.domain.banting.game import random_game  # noqa: E402
from service.domain.deals import deal  # noqa: E402
from service.domain.rules import LATEST, PRESETS, resolve_rules  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> float:
    """This process's user + system CPU time, from /proc/self/stat."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    deals = []
    for _ in range(args.games):
        n = rng.choice([2, 3, 4])
        deals.append(([f"p{i}" for i in range(n)], deal(rng.randbytes(32), "bench", 0, n), rng.randrange(2**32)))
    refs = [{"preset": "capsa-banting-id", "version": 1}] + [
        {"preset": name, "version": LATEST[name]}
        for (name, version), p in PRESETS.items()
        if p.rules.game == "banting" and version == LATEST[name]
    ]
    print(f"Big Two variants, {args.games} random games of 2-4 players per preset; load average {load()}")
    reference = None
    for ref in refs:
        params = resolve_rules(ref, "banting").params
        moves = 0
        start = cpu_seconds()
        for ids, hands, seed in deals:
            moves += len(random_game(ids, hands, params, random.Random(seed)).history)  # type: ignore[arg-type]
        spent = cpu_seconds() - start
        per_game = spent / args.games
        reference = reference or per_game
        print(
            f"  {ref['preset']:<17} v{ref['version']}  {per_game * 1000:7.2f} ms CPU a game  "
            f"{moves / max(spent, 1e-9):9,.0f} moves/CPU s  x{per_game / reference:.2f}  (load {load()})"
        )


if __name__ == "__main__":
    main()
