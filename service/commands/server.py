"""`capsa serve` (gunicorn), `capsa db upgrade`, `capsa openapi` (writes the spec)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from service.adapters.default_url import DEFAULT_DATABASE_URL

from .database import database_url, driver_needed, readable_url
from .exitcodes import ExitCode
from .inputs import positive

DB_HELP = f"the database to use (default: $DATABASE_URL, else {DEFAULT_DATABASE_URL})"


def _database_url(args: argparse.Namespace) -> str:
    return database_url(args.database_url)


def _gunicorn_conf() -> str:
    """gunicorn.conf.py from the working directory, else beside the source tree."""
    for candidate in (Path.cwd() / "gunicorn.conf.py", Path(__file__).parents[2] / "gunicorn.conf.py"):
        if candidate.is_file():
            return str(candidate)
    print("capsa serve: gunicorn.conf.py not found (run from the project directory)", file=sys.stderr)
    raise SystemExit(ExitCode.UNREADABLE)


def _bind(args: argparse.Namespace) -> str:
    """--host/--port when given (the other from $HOST/$PORT, else 127.0.0.1:8000), else
    $BIND as gunicorn.conf.py reads it, else $HOST:$PORT."""
    if args.host is None and args.port is None and os.environ.get("BIND"):
        return os.environ["BIND"]
    host = args.host or os.environ.get("HOST") or "127.0.0.1"
    port = args.port
    if port is None:
        text = os.environ.get("PORT") or "8000"
        try:
            port = _port(text)
        except argparse.ArgumentTypeError as exc:
            print(f"capsa serve: PORT {exc}", file=sys.stderr)
            raise SystemExit(ExitCode.USAGE) from exc
    return f"{host}:{port}"


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 1 to 65535, not {text!r}")
    return value




def serve(args: argparse.Namespace) -> int:
    from .database import database_url, refuse_a_missing_sqlite_file

    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
    # As every other command: a URL that is none, or a SQLite file that is not there (a
    # mistyped path served an empty database, made on first use), is one line and exit 3.
    refuse_a_missing_sqlite_file(database_url())
    bind = _bind(args)
    argv = [sys.executable, "-m", "gunicorn", "-c", _gunicorn_conf()]
    argv += ["--bind", bind]
    if args.workers:
        argv += ["--workers", str(args.workers)]
    argv.append("service.api.wsgi:app")
    os.execv(sys.executable, argv)  # gunicorn takes over the process: signals reach it


def db_upgrade(args: argparse.Namespace) -> int:
    from service.adapters import keyfile
    from service.adapters.migrate import UpgradeLockUnavailable, revision_at, shipped_revisions, upgrade

    url = _database_url(args)
    shipped = shipped_revisions()
    if args.revision not in ("head", "heads") and args.revision not in shipped:
        print(f"capsa db upgrade: no migration {args.revision!r} in this release (its newest: "
              f"{shipped[-1]})", file=sys.stderr)
        return ExitCode.USAGE
    readable_url(url)
    with driver_needed(url):
        at = revision_at(url)
    if at is not None and at not in shipped:
        # A later release's migration: this one serves the database as it is (migrations
        # only add what older code ignores), and has nothing to undo it with.
        print(f"the database is at migration {at}, newer than this release's newest ({shipped[-1]}): "
              "nothing to upgrade (this release serves it: migrations only add what it ignores)")
        return 0
    if at is not None and args.revision in shipped and shipped.index(at) > shipped.index(args.revision):
        print(f"the database is at migration {at}, past {args.revision}: nothing to upgrade (upgrade never "
              "goes down)")
        return 0
    # The keyring is read before anything changes: one that does not read stops the command
    # with the database as it was (it stopped it after the migration, which a deploy script
    # then took for a failed one). A file not made yet is said, and the upgrade goes on (the
    # first deployment migrates before `capsa keys create`).
    path = keyfile.path_from_env()
    keyring = keyfile.load(path) if path is not None and path.exists() else None
    if path is not None and keyring is None:
        print(f"capsa db upgrade: {keyfile.ENV} {str(path)!r} does not exist: the records stored "
              "before it is made stay unsigned until `capsa keys create` makes it", file=sys.stderr)
    if url.startswith("sqlite:///") and not url.startswith("sqlite:////"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    try:
        upgrade(url, args.revision)
    except UpgradeLockUnavailable as exc:
        print(f"capsa: {exc}", file=sys.stderr)
        return ExitCode.UNREADABLE
    now_at = revision_at(url)
    print(f"database upgraded to {now_at}")
    if keyring is not None and len(keyring) and now_at == shipped[-1]:
        # Records stored before receipts existed are signed once, here, when a key exists (a
        # staged upgrade that stops at an older migration signs at its last step: the
        # signing code needs this release's schema).
        from service.adapters.uow import Database
        from service.services.audit.receipts import sign_pending

        db = Database(url, keyring=keyring)
        try:
            signed = sign_pending(db)
        finally:
            db.dispose()
        if signed.signed or signed.young or signed.unsignable:
            print(signed)
    return 0


def openapi(args: argparse.Namespace) -> int:
    from service.api.app import create_app, state_of

    # The spec does not depend on the database; an in-memory one keeps this offline.
    app = create_app({"DATABASE_URL": "sqlite://", "LOG_LEVEL": "WARNING"})
    text = state_of(app).spec_yaml
    if args.output == "-":
        sys.stdout.write(text)
    else:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"capsa openapi: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return ExitCode.UNREADABLE
        print(f"wrote {args.output}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve", help="run the HTTP API under gunicorn",
        description="Serve the HTTP API with gunicorn and the project's gunicorn.conf.py. "
        "Migrate the database first (`capsa db upgrade`).",
    )
    p.add_argument("--host", default=None,
                   help="the address to listen on (default: $BIND's when neither --host nor --port is "
                   "given, else $HOST, else 127.0.0.1)")
    p.add_argument("--port", type=_port, default=None,
                   help="the port to listen on (default: $BIND's when neither is given, else $PORT, else 8000)")
    p.add_argument("--workers", type=positive, default=None, metavar="N",
                   help="worker processes (default: gunicorn.conf.py's: $WEB_CONCURRENCY, else 2 x cores + 1)")
    p.add_argument("--database-url", metavar="URL", help=DB_HELP)
    p.set_defaults(func=serve)

    p = sub.add_parser(
        "db", help="create or update the database tables",
        description="Database schema management: `capsa db upgrade` creates or updates the tables.",
    )
    dbsub = p.add_subparsers(dest="db_command", required=True, metavar="ACTION", title="actions")
    up = dbsub.add_parser(
        "upgrade", help="create the tables, or bring an existing database up to date",
        description="Apply the migrations the database has not seen yet (a new SQLite file is created, "
        "and its folder too when the path is relative). It never goes down: a database past REVISION "
        "stays as it is.",
    )
    up.add_argument("revision", nargs="?", default="head",
                    help="the migration to stop at (default: head, the latest)")
    up.add_argument("--database-url", metavar="URL", help=DB_HELP)
    up.set_defaults(func=db_upgrade)

    p = sub.add_parser(
        "openapi", help="write the OpenAPI description of the API",
        description="Write the OpenAPI document the service serves at /openapi.yaml.",
    )
    p.add_argument("--output", "-o", default="openapi.yaml", metavar="FILE",
                   help="where to write it (default: openapi.yaml; - for standard output)")
    p.set_defaults(func=openapi)
