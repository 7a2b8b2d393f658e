"""Benchmark: how long `capsa --version`, `capsa score FILE` and `capsa --help` (every
command's parser: their modules, none of their database layers) take to start and finish.

Each command runs `--runs` times, interleaved with the reference (`python -c pass`, the
interpreter's own start-up) so all see the same machine load. Prints per command the median
wall time and the median CPU time (user + system, from the child's own counters via wait4),
each as a ratio to the reference, and the load average before and after (goals: `--version`
< 0.3 s and `score` < 0.6 s of wall time; on a shared machine the CPU figures are the steady
ones). `--before DIR` also times the same commands from another checkout's `service/` (for
example `git archive COMMIT service | tar -x -C DIR`; run `python -m compileall -q DIR` first,
so neither side compiles its modules at every start).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "service/examples/round-4p-capsa-susun-id.json"
# Runs `service.cli` from the tree given first, ahead of the installed one.
LAUNCH = "import sys; sys.path.insert(0, sys.argv.pop(1)); from service.cli import main; sys.exit(main())"


def once(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of argv, its output discarded."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", metavar="DIR", help="also time the commands from DIR/service")
    args = parser.parse_args()
    capsa = [sys.executable, "-c", LAUNCH, str(ROOT)]
    commands = {"python -c pass (reference)": [sys.executable, "-c", "pass"]}
    for name, tail in (("capsa --version", ["--version"]), ("capsa score FILE", ["score", str(EXAMPLE)]),
                       ("capsa --help", ["--help"])):
        if args.before:
            commands[f"{name} (before)"] = [sys.executable, "-c", LAUNCH, args.before, *tail]
        commands[name] = [*capsa, *tail]
    load_before = os.getloadavg()
    for argv in commands.values():  # warm the page cache
        once(argv)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            times[name].append(once(argv))
    load_after = os.getloadavg()
    ref_wall = statistics.median(w for w, _ in times["python -c pass (reference)"])
    ref_cpu = statistics.median(c for _, c in times["python -c pass (reference)"])
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; {args.runs} runs each, medians")
    for name, found in times.items():
        wall = statistics.median(w for w, _ in found)
        cpu = statistics.median(c for _, c in found)
        print(f"{name:30s} wall {wall * 1000:7.1f} ms (x{wall / ref_wall:5.2f})   "
              f"CPU {cpu * 1000:7.1f} ms (x{cpu / ref_cpu:5.2f})")


if __name__ == "__main__":
    main()
