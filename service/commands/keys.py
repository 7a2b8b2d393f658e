"""`capsa keys create|list|sign`: the receipts' signing keyring (SIGNING_KEY_FILE).

`create` makes the first key, or rotates: a new active key, the one before retired (its
signatures keep verifying, it signs nothing new). Restart or HUP the service, and restart the
sweeper, afterwards so every process signs with the new key. With a database at hand, `create` then signs every
record that has no receipt yet (records stored before the first key existed); `sign` does
only that step.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from service.adapters import keyfile
from service.adapters.default_url import DEFAULT_DATABASE_URL
from service.domain.signing import Keyring, KeyringError
from service.services.clock import utcnow_ms

from .database import database_problem, open_database, with_schema
from .exitcodes import ExitCode

if TYPE_CHECKING:  # the database layer loads when a command uses it, not for --help
    from service.adapters.uow import Database
    from service.services.audit.receipts import PendingSigned


def _path(args: argparse.Namespace) -> Path | None:
    return Path(args.file) if args.file else keyfile.path_from_env()


def _named_by(args: argparse.Namespace) -> str:
    return "--file" if args.file else keyfile.ENV


def _no_path() -> int:
    print(f"capsa keys: name the keyring with --file or {keyfile.ENV}", file=sys.stderr)
    return ExitCode.USAGE


def _database(args: argparse.Namespace) -> Database:
    """The database whose records get receipts, checked before the keyring changes: one
    that cannot be used stops the command with nothing rotated (exit 3)."""
    return with_schema(open_database(args.database_url))


def _sign_pending(db: Database, keyring: Keyring) -> PendingSigned:
    from service.services.audit import receipts

    db.keyring = keyring
    return receipts.sign_pending(db)


def create(args: argparse.Namespace) -> int:
    path = _path(args)
    if path is None:
        return _no_path()
    db = None if args.no_sign else _database(args)
    try:
        try:
            with keyfile.changing(path):
                ring = keyfile.load(path, _named_by(args)) if path.exists() else Keyring()
                before = ring.active
                ring, key = ring.rotated(utcnow_ms())
                keyfile.save(path, ring)
        except KeyringError as exc:
            print(f"capsa keys: {exc.message}", file=sys.stderr)
            return ExitCode.UNREADABLE
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(path) else ""
            print(f"capsa keys: cannot write {path}: {exc.strerror or exc}{where}", file=sys.stderr)
            return ExitCode.UNREADABLE
        retired = f"; {before.kid} retired" if before is not None else ""
        print(f"created key {key.kid} in {path}{retired}")
        if db is not None:
            try:
                print(_sign_pending(db, ring))
            except Exception as exc:  # the key is made and saved: say so, and how to finish
                why = database_problem(exc, args.database_url) or f"{type(exc).__name__}: {exc}"
                print(f"capsa keys: key {key.kid} is active in {path}, but the records stored without a "
                      f"receipt were not signed: {why}; run `capsa keys sign` once the database can be "
                      "written (a read of each record signs it too)", file=sys.stderr)
    finally:
        if db is not None:
            db.dispose()
    print(key.kid)
    return 0


def list_(args: argparse.Namespace) -> int:
    path = _path(args)
    if path is None:
        return _no_path()
    try:
        ring = keyfile.load(path, _named_by(args))
    except KeyringError as exc:
        print(f"capsa keys: {exc.message}", file=sys.stderr)
        return ExitCode.UNREADABLE
    if args.json:
        print(json.dumps(ring.public_json(), indent=2))
        return 0
    active = ring.active
    for k in ring.keys:
        state = "active" if active is not None and k.kid == active.kid else (
            f"retired {k.retired_at}" if k.retired_at else "unused")
        part = "" if k.private is not None else " (public only)"
        print(f"{k.kid}  created {k.created_at}  {state}{part}")
    return 0


def sign(args: argparse.Namespace) -> int:
    path = _path(args)
    if path is None:
        return _no_path()
    ring = keyfile.load(path, _named_by(args))
    db = _database(args)
    try:
        print(_sign_pending(db, ring))
    finally:
        db.dispose()
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "keys", help="the Ed25519 keys that sign receipts and chain heads",
        description=f"The keyring that signs receipts and heads ({keyfile.ENV}; never stored in the database).",
    )
    ksub = p.add_subparsers(dest="keys_command", required=True, metavar="ACTION", title="actions")

    def common(q: argparse.ArgumentParser, database: bool = True) -> None:
        q.add_argument("--file", default=None, metavar="PATH",
                       help=f"the keyring file (default: ${keyfile.ENV})")
        if database:
            q.add_argument("--database-url", default=None, metavar="URL",
                           help=f"the database (default: $DATABASE_URL, else {DEFAULT_DATABASE_URL})")

    c = ksub.add_parser(
        "create", help="make the first key, or rotate to a new one",
        description="Add a new active key to the keyring (created 0600 if missing), retire the active "
        "one, then sign every record in the database that has no receipt yet. The last line printed "
        "is the new kid.",
    )
    common(c)
    c.add_argument("--no-sign", action="store_true", help="do not sign unsigned records in the database")
    c.set_defaults(func=create)
    ls = ksub.add_parser("list", help="the keys: kid, created, retired",
                         description="Every key of the keyring, oldest first.")
    common(ls, database=False)
    ls.add_argument("--json", action="store_true", help="print the public keys document (GET /v1/audit/keys)")
    ls.set_defaults(func=list_)
    s = ksub.add_parser("sign", help="sign the records that have no receipt",
                        description="Give every record without a receipt its receipt (the key active "
                        "when it was stored, else the oldest key).")
    common(s)
    s.set_defaults(func=sign)
