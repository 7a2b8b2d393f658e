"""`capsa sweep`: settle Capsa Susun games whose arrangement deadline has passed, play
the overdue turns of timed Big Two games, and fold the records stored since into the
ledger's all-time rollups (service/services/rollups.py).

A game's deadline also takes effect on the first request that touches the game after it;
the sweeper makes it take effect without one, so a settled round (and its events) does not
wait for a client's poll. It polls every SWEEP_INTERVAL_S seconds (default 1) and stops on
SIGTERM or SIGINT after the pass it is in. Several sweepers may run: a game settles once,
and a record is folded once (a fold holds its client's cursor row).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType

from service.adapters.db import DEFAULT_DATABASE_URL
from service.adapters.uow import Database
from service.services import banting, rollups, susun_games

from .database import open_database

DEFAULT_INTERVAL_S = 1.0


def interval_from_env() -> float:
    text = os.environ.get("SWEEP_INTERVAL_S", "")
    if not text:
        return DEFAULT_INTERVAL_S
    try:
        value = float(text)
    except ValueError:
        raise SystemExit(f"capsa sweep: SWEEP_INTERVAL_S must be a number of seconds, not {text!r}") from None
    if not 0.01 <= value <= 3600:
        raise SystemExit(f"capsa sweep: SWEEP_INTERVAL_S must be 0.01 to 3600 seconds, not {text!r}")
    return value


def one_pass(db: Database) -> tuple[tuple[int, int, int], bool]:
    """((games settled, turns played, ledger records folded), whether a part failed). Each part runs on its own: a
    failing one (the database away, a bad row) is reported on stderr and counts 0, and the
    other still runs and counts what it did; the next pass tries both again."""
    failed = False

    def part(name: str, work: Callable[[Database], int]) -> int:
        nonlocal failed
        try:
            return work(db)
        except Exception as exc:
            failed = True
            print(f"capsa sweep: the {name} pass failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            return 0

    settled = part("Susun games", susun_games.sweep_once)  # arrangement deadlines passed
    played = part("Big Two turns", banting.sweep)  # turns that ran out: their auto moves
    folded = part("ledger rollups", rollups.sweep)  # after the others: their rounds too
    return (settled, played, folded), failed


def sweep(args: argparse.Namespace) -> int:
    db = open_database(args.database_url)
    interval = args.interval if args.interval is not None else interval_from_env()
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    try:
        while True:
            started = time.monotonic()
            (settled, played, folded), failed = one_pass(db)
            took = (time.monotonic() - started) * 1000
            if (settled or played) and not args.quiet:
                print(f"settled {settled} game{'s' if settled != 1 else ''}, played {played} overdue "
                      f"turn{'s' if played != 1 else ''} in {took:.0f} ms", file=sys.stderr, flush=True)
            if folded and args.verbose:
                print(f"folded {folded} ledger record{'s' if folded != 1 else ''} into the rollups in {took:.0f} ms",
                      file=sys.stderr, flush=True)
            if args.once:
                return 1 if failed else 0
            if stop.wait(max(0.0, interval - (time.monotonic() - started))):
                return 0
    finally:
        db.dispose()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sweep",
        help="settle overdue Susun games, play overdue Big Two turns, fold ledger rollups",
        description="Settle every server-run Capsa Susun game whose arrangement deadline has "
        "passed (missing players auto-arranged, the round stored) and play the overdue turns of "
        "timed Big Two games (their auto moves), fold the records stored since into the ledger's "
        "all-time rollups, then poll again every "
        "SWEEP_INTERVAL_S seconds (default 1) until SIGTERM or SIGINT.",
    )
    p.add_argument("--database-url", help=f"the database (default $DATABASE_URL, else {DEFAULT_DATABASE_URL})")
    p.add_argument("--interval", type=float, help="seconds between passes (overrides SWEEP_INTERVAL_S)")
    p.add_argument("--once", action="store_true", help="run one pass and exit (1 when a part of it failed)")
    p.add_argument("--quiet", action="store_true", help="print nothing when games settle")
    p.add_argument("--verbose", action="store_true", help="also print what each pass folds into the ledger rollups")
    p.set_defaults(func=sweep)
