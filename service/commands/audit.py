"""`capsa audit verify --client NAME`: check a client's hash chain straight from the database.

The chain is checked page by page (PAGE records at a time), so a long chain shows its
progress on stderr when stderr is a terminal (`--progress` / `--no-progress` decide
otherwise). The last page is checked without a limit: the chain must end at its head.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from service.adapters.db import DEFAULT_DATABASE_URL
from service.services import audit

from .database import open_database

PAGE = 10_000


class Progress:
    """`verified 120,000 of 1,000,000 records` on stderr: rewritten in place on a terminal,
    one line per page otherwise (when forced on), nothing when off."""

    def __init__(self, enabled: bool | None, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.terminal = _isatty(self.stream)
        self.enabled = self.terminal if enabled is None else enabled
        self.shown = False

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        text = f"verified {done:,} of {total:,} records"
        if self.terminal:
            self.stream.write(f"\r{text}\x1b[K")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown and self.terminal:
            self.stream.write("\n")
            self.stream.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def verify(args: argparse.Namespace) -> int:
    db = open_database(args.database_url)
    progress = Progress(args.progress)
    try:
        with db.unit_of_work() as uow:
            client = uow.clients.by_name(args.client)
            client_id = None if client is None else client.id
        if client_id is None:
            print(f"capsa audit: no client {args.client!r}", file=sys.stderr)
            return 2
        head = int(audit.head(db, client_id)["sequence"])
        start = args.from_sequence
        total = max(head - start + 1, 0) if args.limit is None else max(min(args.limit, head - start + 1), 0)
        checked = 0
        while True:
            left = None if args.limit is None else args.limit - checked
            # Whole pages with a limit; the rest of the chain in one call, which checks its end.
            last_page = left is not None and left <= PAGE or start + PAGE > head
            limit = left if last_page else PAGE
            report = audit.verify_chain(db, client_id, start, limit)
            checked += report.records_checked
            progress.update(checked, max(total, checked))
            if not report.ok or last_page or report.next_from_sequence is None:
                break
            start = report.next_from_sequence
    finally:
        progress.finish()
        db.dispose()
    if report.ok:
        more = f"; continue from {report.next_from_sequence}" if report.next_from_sequence else ""
        print(f"ok: {checked} records of {args.client} verified{more}")
        return 0
    print(f"BAD: first bad sequence {report.first_bad_sequence}: {report.reason} ({checked} records read)")
    return 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "audit", help="verify a client's audit trail in the database",
        description="Audit trail checks for operators with database access.",
    )
    asub = p.add_subparsers(dest="audit_command", required=True, metavar="ACTION", title="actions")
    v = asub.add_parser(
        "verify",
        help="rebuild each record from the stored rows, check the chain",
        description="Rebuild each of the client's chained records from the live rows and check "
        "every hash up to the chain's head. Prints `ok: N records ... verified` (exit 0) or the "
        "first bad sequence and why (exit 1).",
    )
    v.add_argument("--client", required=True, metavar="NAME", help="the client whose chain to check")
    v.add_argument("--from-sequence", type=int, default=1, metavar="N",
                   help="start at this record (default: 1, the first)")
    v.add_argument("--limit", type=int, default=None, metavar="N",
                   help="check at most N records (default: all, up to the head)")
    v.add_argument("--database-url", default=None, metavar="URL",
                   help=f"the database to use (default: $DATABASE_URL, else {DEFAULT_DATABASE_URL})")
    v.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress on stderr (default: only when stderr is a terminal)")
    v.set_defaults(func=verify)
