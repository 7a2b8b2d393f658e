"""`capsa audit verify|export|verify-file|verify-restore`: the hash chain from the database, offline, restored.

`verify --client NAME` checks a client's hash chain straight from the database.

The chain is checked page by page (PAGE records at a time), so a long chain shows its
progress on stderr when stderr is a terminal (`--progress` / `--no-progress` decide
otherwise). The last page is checked without a limit: the chain must end at its head.

`export --client NAME FILE` writes the client's chain as one NDJSON file straight from the
database (and, with --head, the head it was cut at, signed). `verify-file EXPORT
--public-keys KEYS.json [--head HEAD.json ...]` checks such a file with no database and no
server (`service.domain.export_check`). `verify-restore --public-keys KEYS.json [--head HEAD.json ...]`
checks a restored database: every client's chain, and each signed head kept before the
backup reached with the same hash (`services.restores`).

Every command exits with a code of `exitcodes.ExitCode` and says why in one line, never a
traceback: a check that failed (`BAD: ...` on stdout) is told apart from a wrong command
line, an input that cannot be read and an unknown client (`capsa audit: ...` on stderr).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from service.adapters import keyfile
from service.adapters.default_url import DEFAULT_DATABASE_URL
from service.domain import export_check
from service.domain.signing import Keyring, KeyringError
from service.strictjson import MalformedJSON
from service.strictjson import loads as strict_loads

from .database import database_problem, open_database, with_schema
from .exitcodes import ExitCode, KeepTables, table
from .inputs import STDIN, more_than_one_stdin, open_input, positive, read_input, shown

if TYPE_CHECKING:  # the database layer loads only in the commands that open a database:
    # verify-file checks a file offline and never imports SQLAlchemy
    from service.adapters.uow import Database
    from service.services.audit import chains as audit

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


def _say(message: str) -> None:
    print(f"capsa audit: {message}", file=sys.stderr)


def _database_errors(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A database that cannot be used, or a keyring file that cannot be read, is input the
    command cannot read (exit 3), said in one line."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except KeyringError as exc:
            _say(exc.message)
            return ExitCode.UNREADABLE
        except Exception as exc:
            problem = database_problem(exc, getattr(args, "database_url", None))
            if problem is None:
                raise
            _say(problem)
            return ExitCode.UNREADABLE

    return run


def _check_chain(
    db: Database, client_id: str, start: int, limit: int | None, progress: Progress
) -> tuple[audit.ChainReport, int]:
    """The client's chain checked page by page from `start` (`limit` records, else up to
    and past its head): the last report and how many records were checked."""
    from service.services.audit import chains as audit

    head = int(_head_sequence(db, client_id))
    total = max(head - start + 1, 0) if limit is None else max(min(limit, head - start + 1), 0)
    checked = 0
    while True:
        left = None if limit is None else limit - checked
        # Whole pages with a limit; the rest of the chain in one call, which checks its end.
        last_page = left is not None and left <= PAGE or start + PAGE > head
        report = audit.verify_chain(db, client_id, start, left if last_page else PAGE)
        checked += report.records_checked
        progress.update(checked, max(total, checked))
        if not report.ok or last_page or report.next_from_sequence is None:
            return report, checked
        start = report.next_from_sequence


def _head_sequence(db: Database, client_id: str) -> int:
    """The sequence of the client's chain head as stored (no signing: read-only)."""
    with db.unit_of_work() as uow:
        return uow.chain.head(client_id).sequence


@_database_errors
def verify(args: argparse.Namespace) -> int:
    from service.services.audit import chains as audit

    db = with_schema(open_database(args.database_url))
    progress = Progress(args.progress)
    try:
        client_id = _client_id(db, args.client)
        if client_id is None:
            _say(f"no client {args.client!r}")
            return ExitCode.UNKNOWN_CLIENT
        report, checked = _check_chain(db, client_id, args.from_sequence, args.limit, progress)
        # The whole chain verified: the all-time rollups must be the sums of its lines too
        # (all-time reports start from them).
        whole = report.ok and args.from_sequence == 1 and args.limit is None
        rollups = audit.rollups_differ(db, client_id) if whole else None
    finally:
        progress.finish()
        db.dispose()
    if rollups is not None:
        print(f"BAD: {rollups} ({checked} records verified)")
        return ExitCode.FAILED
    if report.ok:
        more = f"; continue from {report.next_from_sequence}" if report.next_from_sequence else ""
        print(f"ok: {checked} records of {args.client} verified{more}")
        return ExitCode.OK
    print(f"BAD: first bad sequence {report.first_bad_sequence}: {report.reason} ({checked} records read)")
    return ExitCode.FAILED


def _client_id(db: Database, name: str) -> str | None:
    from service.services import clients

    return clients.client_id(db, name)


# What `export --head` says when it has no key to sign the head with: a head without a
# signature proves nothing, and verify-file refuses it.
HOW_TO_SIGN = (
    f"--head needs a signing key to sign the head, and {keyfile.ENV} is not set (or its keyring has no "
    f"active key): run it with {keyfile.ENV}=PATH, the keyring the service signs with (`capsa keys "
    "create --file PATH` makes one), or leave out --head"
)


@_database_errors
def export(args: argparse.Namespace) -> int:
    from service.services.audit import receipts
    from service.services.errors import ChainBroken

    keyring = keyfile.load_env()
    if args.head and (keyring is None or keyring.active is None):
        _say(HOW_TO_SIGN)
        return ExitCode.USAGE
    if args.head == STDIN:
        _say("--head needs a file name: standard output is not a place to keep a signed head")
        return ExitCode.USAGE
    to_stdout = args.file == STDIN
    out = Path(args.file)
    for named, path in ((not to_stdout, args.file), (bool(args.head), args.head)):
        if named and (not Path(path).name or Path(path).is_dir()):
            _say(f"cannot write {path}: it is a folder; name the file to write")
            return ExitCode.UNREADABLE
    if args.head and not to_stdout and Path(args.head).resolve() == out.resolve():
        _say(f"--head and FILE both name {args.file}: the signed head needs a file of its own")
        return ExitCode.USAGE
    db = with_schema(open_database(args.database_url))
    db.keyring = keyring
    # A link is written through to its target (renamed over, it became a file of its own);
    # what is not a regular file (a pipe, a device) is written as it is, with no part file
    # renamed over it (renamed, /dev/full became a 29 KB file).
    out = Path(os.path.realpath(out)) if not to_stdout else out
    in_place = not to_stdout and out.exists() and not out.is_file()
    tmp = out if in_place else out.with_name(out.name + ".part")
    head_out = Path(os.path.realpath(args.head)) if args.head else None  # a link: its target, as FILE
    head_tmp = None if head_out is None else head_out.with_name(head_out.name + ".part")
    try:
        client_id = _client_id(db, args.client)
        if client_id is None:
            _say(f"no client {args.client!r}")
            return ExitCode.UNKNOWN_CLIENT
        try:
            head = receipts.signed_head(db, client_id)  # the cut: records up to this head
        except ChainBroken as exc:  # on stderr when the records would be on stdout, as below
            print(f"BAD: {exc.message}; nothing exported", file=sys.stderr if to_stdout else sys.stdout)
            return ExitCode.FAILED
        plan = receipts.plan_export(db, client_id, args.from_sequence, None)
        plan = receipts.Export(client_id, plan.from_sequence, head["sequence"] + 1, head["sequence"], None)

        def write_to(sink: Any) -> int:
            """The records into `sink`: how many, as counted in the lines (a record missing is one fewer)."""
            lines = 0
            for chunk in receipts.export_lines(db, plan, settle=True):
                sink.write(chunk)
                lines += chunk.count(b"\n")
            return lines

        try:
            if head_tmp is not None:  # first: a place it cannot be written fails before the export is
                head_tmp.write_text(json.dumps(head, indent=2) + "\n")
            if to_stdout:
                written = write_to(sys.stdout.buffer)
                sys.stdout.buffer.flush()
            else:
                with tmp.open("wb") as f:
                    written = write_to(f)
                if not in_place:
                    tmp.replace(out)
            if head_tmp is not None and head_out is not None:
                head_tmp.replace(head_out)
        except BaseException as exc:  # a part written is no export: Ctrl-C, a full disk, a closed pipe
            if not in_place:
                tmp.unlink(missing_ok=True)
            if head_tmp is not None:
                head_tmp.unlink(missing_ok=True)
            if isinstance(exc, BrokenPipeError) or not isinstance(exc, OSError):
                raise
            _say(f"cannot write {exc.filename or out}: {exc.strerror or exc}")
            return ExitCode.UNREADABLE
    finally:
        db.dispose()
    where = "standard output" if to_stdout else out
    # On stderr when the records are on stdout: the export stays NDJSON only.
    print(f"exported {written} records of {args.client} to {where} (head at {head['sequence']})",
          file=sys.stderr if to_stdout else sys.stdout)
    return ExitCode.OK


class Unreadable(Exception):
    """An input file the verifier cannot read; the message names it and says why."""


def _read_document(path: str, option: str) -> tuple[bytes, Any]:
    """A small JSON document (`--public-keys`, `--head`): its bytes and value, at most
    `MAX_DOCUMENT` bytes, strict JSON (no duplicate keys, nesting bounded)."""
    cap = export_check.MAX_DOCUMENT
    try:
        raw = read_input(path, cap)
    except OSError as exc:
        raise Unreadable(f"{option} {shown(path)}: cannot read it: {exc.strerror or exc}") from exc
    if len(raw) > cap:
        raise Unreadable(f"{option} {shown(path)}: larger than {cap:,} bytes, the cap for this document")
    try:
        return raw, strict_loads(raw)
    except MalformedJSON as exc:
        raise Unreadable(f"{option} {shown(path)}: not a JSON document the verifier reads: {exc}") from exc


def _read_keys(path: str) -> Keyring:
    _, doc = _read_document(path, "--public-keys")
    try:
        return Keyring.from_json(doc, public_only=True)
    except KeyringError as exc:
        raise Unreadable(f"--public-keys {shown(path)}: {exc.message}") from exc


def _span(report: export_check.Report) -> str:
    return f"sequences {report.first_sequence}-{report.last_sequence}, head hash {report.last_hash}"


def _keys_and_heads(args: argparse.Namespace) -> tuple[Keyring, list[Any]] | ExitCode:
    """`--public-keys` and every `--head`, each checked against those keys; or the exit code
    (3 unreadable, 1 a head that fails its check) once the reason is printed."""
    heads = []
    if more_than_one_stdin([getattr(args, "export", None), args.public_keys, *(args.head or [])]):
        _say("standard input (-) can be read once: give it to one of the export, --public-keys and --head")
        return ExitCode.USAGE
    try:
        keyring = _read_keys(args.public_keys)
        for n, path in enumerate(args.head or [], start=1):
            raw, _ = _read_document(path, "--head")
            heads.append(export_check.parse_head(raw, keyring, f"#{n} ({shown(path)})"))
    except Unreadable as exc:
        _say(str(exc))
        return ExitCode.UNREADABLE
    except export_check.BadRecord as bad:
        print(f"BAD: {bad.reason}")
        return ExitCode.FAILED
    return keyring, heads


def verify_file(args: argparse.Namespace) -> int:
    read = _keys_and_heads(args)
    if isinstance(read, ExitCode):
        return read
    keyring, heads = read
    if args.from_sequence is not None:
        try:
            export_check.anchor_of(heads, args.from_sequence)
        except export_check.MissingAnchor as exc:
            _say(f"--from-sequence {args.from_sequence}: {exc}; give it with --head HEAD.json")
            return ExitCode.USAGE
    progress = Progress(args.progress)
    try:
        with open_input(args.export) as f:
            size = os.fstat(f.fileno()).st_size
            if args.export == STDIN or not size:  # a pipe: how much is read, not of how much
                def show(n: int) -> None:
                    progress.update(n, n)
            else:
                def show(n: int) -> None:
                    progress.update(f.tell() >> 20, max(size >> 20, 1), f"MiB ({n:,} records)")
            report = export_check.verify_lines(
                export_check.read_lines(f),
                keyring,
                heads,
                rescore=not args.no_rescore,
                from_sequence=args.from_sequence,
                partial=args.partial,
                progress=show,
            )
    except OSError as exc:
        _say(f"cannot read {shown(args.export)}: {exc.strerror or exc}")
        return ExitCode.UNREADABLE
    finally:
        progress.finish()
    for note in report.notes:
        print(f"note: {note}")
    if report.ok and args.client_id is not None and report.client_id != args.client_id:
        print(f"BAD: the export is of client {report.client_id}, not {args.client_id} "
              f"({report.records} records verified)")
        return ExitCode.FAILED
    if report.ok and report.partial:
        print(f"partial: {report.records} records of {report.client_id} verified ({_span(report)}); "
              f"{report.rescored} rounds re-scored; {report.heads_checked} signed heads reached; "
              f"records 1-{report.first_sequence - 1 if report.first_sequence else 0} were not checked")
        return ExitCode.PARTIAL
    if report.ok:
        print(f"ok: {report.records} records of {report.client_id} verified ({_span(report)}); "
              f"{report.rescored} rounds re-scored; {report.heads_checked} signed heads reached")
        return ExitCode.OK
    at = "" if report.first_bad_sequence is None else f"first bad sequence {report.first_bad_sequence}: "
    print(f"BAD: {at}{report.reason} ({report.records} records verified before it)")
    if report.unanchored is not None:
        n = report.unanchored
        print(f"to check an export that starts at sequence {n}: --from-sequence {n} --head HEAD.json "
              f"(the signed head at sequence {n - 1}, kept from the export before), or --partial")
    return ExitCode.FAILED


def _migration_problem(db: Database) -> str | None:
    """Why this database is not one the check can read (never migrated, or at another
    release's migration), else None."""
    from service.adapters.migrate import current_revision, head_revision, shipped_revisions

    at, want = current_revision(db.engine), head_revision()
    shown = db.engine.url.render_as_string(hide_password=True)
    if at is None:
        return (f"the database {shown} has no capsa tables (it was never migrated, or the restore did not run): "
                "restore the backup into it, then run `capsa db upgrade` with the same DATABASE_URL")
    if at not in shipped_revisions():
        return (f"the database {shown} is at migration {at}, newer than this release's newest ({want}): "
                "check it with the release that migrated it")
    if at != want:
        return (f"the database {shown} is at migration {at}, this release's is {want}: "
                "run `capsa db upgrade` with the same DATABASE_URL first")
    return None


@_database_errors
def verify_restore(args: argparse.Namespace) -> int:
    from service.services.audit import restores

    read = _keys_and_heads(args)
    if isinstance(read, ExitCode):
        return read
    keyring, heads = read
    fork = export_check.forks_between(heads)
    if fork is not None:
        print(f"BAD: {fork}")
        return ExitCode.FAILED
    db = open_database(args.database_url)
    progress = Progress(args.progress)
    failed = unknown = False
    try:
        problem = _migration_problem(db)
        if problem is not None:
            _say(problem)
            return ExitCode.UNREADABLE
        names = restores.client_names(db)
        verified = 0
        for client_id, name in names.items():
            report, checked = _check_chain(db, client_id, 1, None, progress)
            if report.ok:
                verified += checked
                print(f"ok: {checked} records of {name} verified")
            else:
                failed = True
                print(f"BAD: client {name} ({client_id}): first bad sequence {report.first_bad_sequence}: "
                      f"{report.reason} ({checked} records read)")
        reached = 0
        for h in heads:
            found = restores.check_head(db, h, names)
            if found.ok:
                reached += 1
                print(f"ok: {found.describe()}")
            elif found.outcome is restores.HeadOutcome.UNKNOWN_CLIENT:
                unknown = True
                _say(found.describe())
            else:
                failed = True
                print(f"BAD: {found.describe()}")
    finally:
        progress.finish()
        db.dispose()
    if failed:
        return ExitCode.FAILED
    if unknown:
        return ExitCode.UNKNOWN_CLIENT
    print(f"ok: the restore holds {len(names)} clients whose chains verify ({verified} records) "
          f"and reaches {reached} of {len(heads)} signed heads")
    return ExitCode.OK




_Formatter = KeepTables


class _ActionsFormatter(_Formatter):
    """argparse measures the actions two columns less indented than it prints them, so
    `verify-file`'s help would go to the next line: leave room for it."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        self._action_max_length = max(self._action_max_length, 4 + len("verify-restore"))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "audit", help="verify a client's audit trail in the database",
        formatter_class=_ActionsFormatter,
        description="Audit trail checks: from the database (verify, export), offline (verify-file), and of a "
        "restored database against the signed heads kept before (verify-restore).",
        epilog=table(),
    )
    asub = p.add_subparsers(dest="audit_command", required=True, metavar="ACTION", title="actions")
    v = asub.add_parser(
        "verify", formatter_class=_Formatter, epilog=table(),
        help="rebuild each record from the stored rows, check the chain",
        description="Rebuild each of the client's chained records from the live rows and check "
        "every hash up to the chain's head. Prints `ok: N records ... verified` (exit 0) or the "
        "first bad sequence and why (exit 1).",
    )
    v.add_argument("--client", required=True, metavar="NAME", help="the client whose chain to check")
    v.add_argument("--from-sequence", type=positive, default=1, metavar="N",
                   help="start at this record (default: 1, the first)")
    v.add_argument("--limit", type=positive, default=None, metavar="N",
                   help="check at most N records (default: all, up to the head)")
    v.add_argument("--database-url", default=None, metavar="URL",
                   help=f"the database to use (default: $DATABASE_URL, else {DEFAULT_DATABASE_URL})")
    v.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress on stderr (default: only when stderr is a terminal)")
    v.set_defaults(func=verify)

    e = asub.add_parser(
        "export", formatter_class=_Formatter, epilog=table(),
        help="write a client's chain to one NDJSON file",
        description="Write the client's records, one NDJSON line each (the format of GET "
        "/v1/audit/export), up to its chain head as it is when the export starts, straight from "
        "the database. Missing receipts are made on the way (SIGNING_KEY_FILE); --head refuses to "
        "write a head it cannot sign (exit 2, saying how to sign).",
    )
    e.add_argument("--client", required=True, metavar="NAME", help="the client whose chain to export")
    e.add_argument("file", metavar="FILE",
                   help="the NDJSON file to write (replaced when complete); - writes standard output")
    e.add_argument("--from-sequence", type=positive, default=1, metavar="N",
                   help="start at this record (default 1); verify-file checks such a file with "
                   "--from-sequence N and the head of the export before (at N - 1)")
    e.add_argument("--head", default=None, metavar="HEAD.json",
                   help="also write the signed head the export was cut at (for verify-file --head); "
                   f"needs {keyfile.ENV}, else exits 2")
    e.add_argument("--database-url", default=None, metavar="URL",
                   help=f"the database to use (default: $DATABASE_URL, else {DEFAULT_DATABASE_URL})")
    e.set_defaults(func=export)

    f = asub.add_parser(
        "verify-file", formatter_class=_Formatter, epilog=table(),
        help="check an export file offline: no database, no server",
        description="Check an export with no database and no server: re-hash and re-link every record, "
        "check every receipt against the public keys, re-score every round with this engine and its "
        "stored rules, check each record's ledger lines sum to zero and are its settlement, and that "
        "the export reaches every signed head given (two heads that cannot be on one chain: a fork). "
        "The export is the whole chain from sequence 1 unless --from-sequence or --partial says "
        f"otherwise; an empty file is not ok, nor a line over {export_check.MAX_LINE:,} bytes. "
        "Prints `ok: ...` (exit 0), `partial: ...` (exit 5) or the first bad sequence and why (exit 1).",
    )
    f.add_argument("export", metavar="EXPORT",
                   help="the NDJSON export (GET /v1/audit/export, capsa audit export); - reads standard input")
    f.add_argument("--public-keys", required=True, metavar="KEYS.json",
                   help="the public keys as GET /v1/audit/keys serves them (pin them beforehand); - reads standard input")
    f.add_argument("--head", action="append", metavar="HEAD.json",
                   help="a signed head (GET /v1/audit/head) the export must reach; repeat for several; - reads standard input")
    start = f.add_mutually_exclusive_group()
    start.add_argument("--from-sequence", type=positive, default=None, metavar="N",
                       help="the export starts at record N: its first previous hash must be the hash of "
                       "the signed head at N - 1, given with --head (an auditor's incremental check)")
    start.add_argument("--partial", action="store_true",
                       help="check an export that starts after record 1 from its first line, trusting that "
                       "line's previous hash; says so and exits 5")
    f.add_argument("--client-id", metavar="ID",
                   help="the client the export must be of (its id, as GET /v1/audit/head names it): "
                   "another client's export, however sound, is a failed check")
    f.add_argument("--no-rescore", action="store_true", help="skip re-scoring (chain, receipts and lines only)")
    f.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress on stderr (default: only when stderr is a terminal)")
    f.set_defaults(func=verify_file)

    r = asub.add_parser(
        "verify-restore", formatter_class=_Formatter, epilog=table(),
        help="check a restored database's chains and signed heads",
        description="Check a restored database (DATABASE_URL): every client's chain verifies as "
        "`capsa audit verify` checks it, and the chain of each signed head's client reaches that "
        "head with the same hash at its sequence. A chain short of a head names the client and its "
        "first missing sequence; another hash there is a fork. Prints one `ok: ...` or `BAD: ...` "
        "line per chain and per head, then a summary (exit 0), or exits 1 when any check failed, "
        "4 when a head is of a client the database does not hold, 3 when the database has no "
        "capsa tables or is at another migration.",
    )
    r.add_argument("--public-keys", required=True, metavar="KEYS.json",
                   help="the public keys as GET /v1/audit/keys serves them (to check each head's signature)")
    r.add_argument("--head", action="append", metavar="HEAD.json",
                   help="a signed head (GET /v1/audit/head) kept before the backup; repeat for several")
    r.add_argument("--database-url", default=None, metavar="URL",
                   help=f"the restored database (default: $DATABASE_URL, else {DEFAULT_DATABASE_URL})")
    r.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress on stderr (default: only when stderr is a terminal)")
    r.set_defaults(func=verify_restore)
