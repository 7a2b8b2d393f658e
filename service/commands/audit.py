"""`capsa audit verify|export|verify-file`: the hash chain from the database, and offline.

`verify --client NAME` checks a client's hash chain straight from the database.

The chain is checked page by page (PAGE records at a time), so a long chain shows its
progress on stderr when stderr is a terminal (`--progress` / `--no-progress` decide
otherwise). The last page is checked without a limit: the chain must end at its head.

`export --client NAME FILE` writes the client's chain as one NDJSON file straight from the
database (and, with --head, the head it was cut at, signed). `verify-file EXPORT
--public-keys KEYS.json [--head HEAD.json ...]` checks such a file with no database and no
server (`services.exportcheck`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from service.adapters import keyfile
from service.adapters.db import DEFAULT_DATABASE_URL
from service.adapters.uow import Database
from service.domain.signing import Keyring, KeyringError
from service.services import audit, exportcheck, receipts

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

    def update(self, done: int, total: int, what: str = "records") -> None:
        if not self.enabled:
            return
        text = f"verified {done:,} of {total:,} {what}"
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


def _client_id(db: Database, name: str) -> str | None:
    with db.unit_of_work() as uow:
        client = uow.clients.by_name(name)
        return None if client is None else str(client.id)


def export(args: argparse.Namespace) -> int:
    db = open_database(args.database_url)
    db.keyring = keyfile.load_env()
    try:
        client_id = _client_id(db, args.client)
        if client_id is None:
            print(f"capsa audit: no client {args.client!r}", file=sys.stderr)
            return 2
        head = receipts.signed_head(db, client_id)  # the cut: records up to this head
        plan = receipts.plan_export(db, client_id, args.from_sequence, None)
        plan = receipts.Export(client_id, plan.from_sequence, head["sequence"] + 1, head["sequence"], None)
        out = Path(args.file)
        tmp = out.with_name(out.name + ".part")
        with tmp.open("wb") as f:
            for chunk in receipts.export_lines(db, plan):
                f.write(chunk)
        tmp.replace(out)
        if args.head:
            Path(args.head).write_text(json.dumps(head, indent=2) + "\n")
    finally:
        db.dispose()
    print(f"exported {plan.count} records of {args.client} to {out} (head at {head['sequence']})")
    return 0


def _read_keys(path: str) -> Keyring:
    return Keyring.from_json(json.loads(Path(path).read_text(encoding="utf-8")), public_only=True)


def verify_file(args: argparse.Namespace) -> int:
    try:
        keyring = _read_keys(args.public_keys)
    except (OSError, ValueError, KeyringError) as exc:
        print(f"capsa audit: --public-keys {args.public_keys}: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 2
    heads = []
    try:
        for n, path in enumerate(args.head or [], start=1):
            heads.append(exportcheck.parse_head(Path(path).read_bytes(), keyring, f"#{n} ({path})"))
    except exportcheck.BadRecord as bad:
        print(f"BAD: {bad.reason}")
        return 1
    except OSError as exc:
        print(f"capsa audit: {exc}", file=sys.stderr)
        return 2
    progress = Progress(args.progress)
    path = Path(args.export)
    size = path.stat().st_size
    with path.open("rb") as f:
        report = exportcheck.verify_lines(
            f,
            keyring,
            heads,
            rescore=not args.no_rescore,
            progress=lambda n: progress.update(f.tell() >> 20, max(size >> 20, 1), f"MiB ({n:,} records)"),
        )
    progress.finish()
    for note in report.notes:
        print(f"note: {note}")
    if report.ok:
        span = "no records" if report.last_sequence is None else (
            f"sequences {report.first_sequence}-{report.last_sequence}, head hash {report.last_hash}")
        print(f"ok: {report.records} records of {report.client_id} verified ({span}); "
              f"{report.rescored} rounds re-scored; {report.heads_checked} signed heads reached")
        return 0
    at = "" if report.first_bad_sequence is None else f"first bad sequence {report.first_bad_sequence}: "
    print(f"BAD: {at}{report.reason} ({report.records} records verified before it)")
    return 1


class _ActionsFormatter(argparse.HelpFormatter):
    """argparse measures the actions two columns less indented than it prints them, so
    `verify-file`'s help would go to the next line: leave room for it."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        self._action_max_length = max(self._action_max_length, 4 + len("verify-file"))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "audit", help="verify a client's audit trail in the database",
        formatter_class=_ActionsFormatter,
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

    e = asub.add_parser(
        "export",
        help="write a client's chain to one NDJSON file, from the database",
        description="Write the client's records, one NDJSON line each (the format of GET "
        "/v1/audit/export), up to its chain head as it is when the export starts, straight from "
        "the database. Missing receipts are made on the way (SIGNING_KEY_FILE).",
    )
    e.add_argument("--client", required=True, metavar="NAME", help="the client whose chain to export")
    e.add_argument("file", metavar="FILE", help="the NDJSON file to write (replaced when complete)")
    e.add_argument("--from-sequence", type=int, default=1, metavar="N", help="start at this record (default 1)")
    e.add_argument("--head", default=None, metavar="HEAD.json",
                   help="also write the signed head the export was cut at (for verify-file --head)")
    e.add_argument("--database-url", default=None, metavar="URL",
                   help=f"the database to use (default: $DATABASE_URL, else {DEFAULT_DATABASE_URL})")
    e.set_defaults(func=export)

    f = asub.add_parser(
        "verify-file",
        help="check an export file offline: no database, no server",
        description="Check an export with no database and no server: re-hash and re-link every record, "
        "check every receipt against the public keys, re-score every round with this engine and its "
        "stored rules, check each record's ledger lines sum to zero and are its settlement, and that "
        "the export reaches every signed head given (two heads that cannot be on one chain: a fork). "
        "Prints `ok: ...` (exit 0) or the first bad sequence and why (exit 1).",
    )
    f.add_argument("export", metavar="EXPORT", help="the NDJSON export (GET /v1/audit/export, capsa audit export)")
    f.add_argument("--public-keys", required=True, metavar="KEYS.json",
                   help="the public keys as GET /v1/audit/keys serves them (pin them beforehand)")
    f.add_argument("--head", action="append", metavar="HEAD.json",
                   help="a signed head (GET /v1/audit/head) the export must reach; repeat for several")
    f.add_argument("--no-rescore", action="store_true", help="skip re-scoring (chain, receipts and lines only)")
    f.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress on stderr (default: only when stderr is a terminal)")
    f.set_defaults(func=verify_file)
