"""`capsa serve` (gunicorn), `capsa db upgrade`, `capsa openapi` (writes the spec)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from service.adapters.default_url import DEFAULT_DATABASE_URL

from .database import database_url
from .exitcodes import ExitCode

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


def serve(args: argparse.Namespace) -> int:
    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
    argv = [sys.executable, "-m", "gunicorn", "-c", _gunicorn_conf()]
    argv += ["--bind", f"{args.host}:{args.port}"]
    if args.workers:
        argv += ["--workers", str(args.workers)]
    argv.append("service.api.wsgi:app")
    os.execv(sys.executable, argv)  # gunicorn takes over the process: signals reach it


def db_upgrade(args: argparse.Namespace) -> int:
    from service.adapters import keyfile
    from service.adapters.migrate import upgrade

    url = _database_url(args)
    if url.startswith("sqlite:///") and not url.startswith("sqlite:////"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    upgrade(url, args.revision)
    print(f"database upgraded to {args.revision}")
    path = keyfile.path_from_env()
    keyring = keyfile.load(path) if path is not None and path.exists() else None
    if keyring is not None and len(keyring):
        # Records stored before receipts existed are signed once, here, when a key exists.
        from service.adapters.uow import Database
        from service.services.audit.receipts import sign_pending

        db = Database(url, keyring=keyring)
        try:
            signed = sign_pending(db)
        finally:
            db.dispose()
        if signed:
            print(f"signed {signed} records that had no receipt")
    return 0


def openapi(args: argparse.Namespace) -> int:
    from service.api.app import create_app, state_of

    # The spec does not depend on the database; an in-memory one keeps this offline.
    app = create_app({"DATABASE_URL": "sqlite://", "LOG_LEVEL": "WARNING"})
    text = state_of(app).spec_yaml or ""
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
    p.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"),
                   help="the address to listen on (default: $HOST, else 127.0.0.1)")
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")),
                   help="the port to listen on (default: $PORT, else 8000)")
    p.add_argument("--workers", type=int, default=0, metavar="N",
                   help="worker processes (default: gunicorn.conf.py's, 2 x cores + 1)")
    p.add_argument("--database-url", metavar="URL", help=DB_HELP)
    p.set_defaults(func=serve)

    p = sub.add_parser(
        "db", help="create or update the database tables",
        description="Database schema management: `capsa db upgrade` creates or updates the tables.",
    )
    dbsub = p.add_subparsers(dest="db_command", required=True, metavar="ACTION", title="actions")
    up = dbsub.add_parser(
        "upgrade", help="create the tables, or bring an existing database up to date",
        description="Apply the migrations the database has not seen yet (a new SQLite file and its "
        "folder are created).",
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
