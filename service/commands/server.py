"""`capsa serve` (gunicorn), `capsa db upgrade`, `capsa openapi` (writes the spec)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

DEFAULT_DB = "sqlite:///var/capsa.db"


def _database_url(args: argparse.Namespace) -> str:
    return args.database_url or os.environ.get("DATABASE_URL", DEFAULT_DB)


def _gunicorn_conf() -> str:
    """gunicorn.conf.py from the working directory, else beside the source tree."""
    for candidate in (Path.cwd() / "gunicorn.conf.py", Path(__file__).parents[2] / "gunicorn.conf.py"):
        if candidate.is_file():
            return str(candidate)
    raise SystemExit("capsa serve: gunicorn.conf.py not found (run from the project directory)")


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
    from service.adapters.migrate import upgrade

    url = _database_url(args)
    if url.startswith("sqlite:///") and not url.startswith("sqlite:////"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    upgrade(url, args.revision)
    print(f"database upgraded to {args.revision}")
    return 0


def openapi(args: argparse.Namespace) -> int:
    from service.api.app import create_app, state_of

    # The spec does not depend on the database; an in-memory one keeps this offline.
    app = create_app({"DATABASE_URL": "sqlite://", "LOG_LEVEL": "WARNING"})
    text = state_of(app).spec_yaml or ""
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the HTTP service under gunicorn (gunicorn.conf.py)")
    p.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    p.add_argument("--workers", type=int, default=0, help="default: gunicorn.conf.py's")
    p.add_argument("--database-url", help="default: $DATABASE_URL or " + DEFAULT_DB)
    p.set_defaults(func=serve)

    p = sub.add_parser("db", help="database migrations")
    dbsub = p.add_subparsers(dest="db_command", required=True)
    up = dbsub.add_parser("upgrade", help="apply the Alembic migrations")
    up.add_argument("revision", nargs="?", default="head")
    up.add_argument("--database-url", help="default: $DATABASE_URL or " + DEFAULT_DB)
    up.set_defaults(func=db_upgrade)

    p = sub.add_parser("openapi", help="write the OpenAPI document generated from the code")
    p.add_argument("--output", "-o", default="openapi.yaml", help="a file, or - for stdout")
    p.set_defaults(func=openapi)
