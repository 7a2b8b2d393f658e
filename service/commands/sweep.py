"""`capsa sweep`: settle Capsa Susun games whose arrangement deadline has passed, play
the overdue turns of timed Big Two games, fold the records stored since into the
ledger's all-time rollups (service/services/ledger/rollups.py), and, with the signing
key, remake the receipts lost with a killed worker (service/services/audit/receipts.py).

A game's deadline also takes effect on the first request that touches the game after it;
the sweeper makes it take effect without one, so a settled round (and its events) does not
wait for a client's poll. It polls every SWEEP_INTERVAL_S seconds (default 1) and stops on
SIGTERM or SIGINT after the pass it is in. Several sweepers may run: a game settles once,
and a record is folded once (a fold holds its client's cursor row).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, TypeVar

from service.adapters.default_url import DEFAULT_DATABASE_URL

from .database import open_database, statement_timeout_ms, with_schema
from .exitcodes import ExitCode

if TYPE_CHECKING:  # the database layer (and the auto-arranger's numpy) load when a pass runs
    from service.adapters.uow import Database
    from service.services.audit.receipts import LostReceipts

T = TypeVar("T")

DEFAULT_INTERVAL_S = 1.0


def _seconds(text: str) -> float:
    """An interval of 0.01 to 3600 seconds (0 spun a core, inf was a traceback)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.01 <= value <= 3600:  # NaN too
        raise argparse.ArgumentTypeError(f"must be a number of seconds from 0.01 to 3600, not {text!r}")
    return value


def interval_from_env() -> float:
    text = os.environ.get("SWEEP_INTERVAL_S", "")
    if not text:
        return DEFAULT_INTERVAL_S
    try:
        return _seconds(text)
    except argparse.ArgumentTypeError as exc:
        print(f"capsa sweep: SWEEP_INTERVAL_S {exc}", file=sys.stderr)
        raise SystemExit(ExitCode.USAGE) from exc


# A pass's summary line (`Pass.lines`' last), as a reader of the sweeper's output finds it:
# games settled, overdue turns played, milliseconds (bench/susun_games.py times its passes).
SUMMARY = re.compile(r"settled (\d+) games?, played (\d+) overdue turns? in (\d+) ms")


@dataclass(frozen=True)
class Pass:
    """What one pass did: the Susun games it settled (client id, game id), the Big Two games it
    played overdue turns in (client id, game id, moves), the ledger records it folded into the
    all-time rollups, and whether a part of it failed."""

    settled: list[tuple[str, str]]
    played: list[tuple[str, str, int]]
    folded: int  # ledger records folded into the all-time rollups
    failed: bool

    def lines(self, took_ms: float) -> list[str]:
        """One line per game, then the summary."""
        turns = sum(moves for *_, moves in self.played)
        return [
            *(f"settled Susun game {game} of client {client}" for client, game in self.settled),
            *(f"played {moves} overdue turn{'s' if moves != 1 else ''} in Big Two game {game} of client {client}"
              for client, game, moves in self.played),
            f"settled {len(self.settled)} game{'s' if len(self.settled) != 1 else ''}, played {turns} overdue "
            f"turn{'s' if turns != 1 else ''} in {took_ms:.0f} ms",
        ]


def one_pass(db: Database, lost: LostReceipts | None = None) -> Pass:
    """Each part runs on its own: a failing one (the database away, a bad row) is reported
    on stderr and counts nothing, and the other still runs and counts what it did; the next
    pass tries both again. `lost`: the receipts lost with a worker, remade (it remembers
    where each client's check got to, pass after pass)."""
    from service.services.banting import timers
    from service.services.ledger import rollups
    from service.services.susun import games as susun_games

    failed = False

    def part(name: str, work: Callable[[Database], list[T]]) -> list[T]:
        nonlocal failed
        try:
            return work(db)
        except Exception as exc:
            failed = True
            print(f"capsa sweep: the {name} pass failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            return []

    settled = part("Susun games", susun_games.settle_overdue)  # arrangement deadlines passed
    played = part("Big Two turns", timers.play_overdue)  # turns that ran out: their auto moves
    folded = part("ledger rollups", lambda db: [rollups.sweep(db)])  # after the others: their rounds too
    if lost is not None:
        part("lost receipts", lambda db: [lost.sweep(db)])
    return Pass(settled, played, sum(folded), failed)


def sweep(args: argparse.Namespace) -> int:
    interval = args.interval if args.interval is not None else interval_from_env()
    from service.adapters import keyfile

    # The app's keyring: the rounds the sweeper stores are signed as they are stored, as the
    # app's are (the webhook dispatcher, which holds no key, waits for a receipt a while).
    from service.services.audit.receipts import LostReceipts

    db = with_schema(open_database(args.database_url, keyring=keyfile.load_env(), statement_timeout_ms=statement_timeout_ms()))
    lost = LostReceipts()
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    try:
        while True:
            started = time.monotonic()
            done = one_pass(db, lost)
            took = (time.monotonic() - started) * 1000
            if done.folded and args.verbose:
                print(f"folded {done.folded} ledger record{'s' if done.folded != 1 else ''} into the rollups "
                      f"in {took:.0f} ms", file=sys.stderr, flush=True)
            if args.once:
                # What it did, on stdout: one line per game and the summary, even of nothing.
                if not args.quiet:
                    print("\n".join(done.lines(took)), flush=True)
                return ExitCode.FAILED if done.failed else ExitCode.OK
            if (done.settled or done.played) and not args.quiet:
                print("\n".join(done.lines(took)), file=sys.stderr, flush=True)
            if stop.wait(max(0.0, interval - (time.monotonic() - started))):
                return ExitCode.OK
    finally:
        db.dispose()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sweep",
        help="settle Susun games, play overdue Big Two turns, fold rollups",
        description="Settle every server-run Capsa Susun game whose arrangement deadline has "
        "passed (missing players auto-arranged, the round stored) and play the overdue turns of "
        "timed Big Two games (their auto moves), fold the records stored since into the ledger's "
        "all-time rollups, remake the receipts lost with a killed worker (with SIGNING_KEY_FILE), then poll again every "
        "SWEEP_INTERVAL_S seconds (default 1) until SIGTERM or SIGINT, saying on stderr what each pass "
        "that found work did.",
    )
    p.add_argument("--database-url", help=f"the database (default $DATABASE_URL, else {DEFAULT_DATABASE_URL})")
    p.add_argument("--interval", type=_seconds, help="seconds between passes, 0.01 to 3600 (overrides SWEEP_INTERVAL_S)")
    p.add_argument("--once", action="store_true",
                   help="run one pass, print each game it settled or played in and a summary, and exit "
                   "(1 when a part of it failed)")
    p.add_argument("--quiet", action="store_true", help="print nothing about the games it settles or plays")
    p.add_argument("--verbose", action="store_true", help="also print what each pass folds into the ledger rollups")
    p.set_defaults(func=sweep)
