"""`capsa webhooks dispatch`: the webhook dispatcher, a long-running process of its own.

It reads DATABASE_URL and the WEBHOOK_* settings (docs/webhooks.md), serves its metrics on
WEBHOOK_METRICS_BIND (default 127.0.0.1:9101, `off` disables) and stops on SIGTERM or
SIGINT within its grace (WEBHOOK_TIMEOUT_S + 1 s): the attempts in flight end by their
deadline and are recorded; any still running then are abandoned (their claims run out and
the events are sent again later, with the same webhook-id). Several may run at once (PostgreSQL: they
share the work; SQLite: one holds the lease, the others stand by).
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from .database import open_database, statement_timeout_ms, with_schema
from .exitcodes import ExitCode
from .inputs import positive

if TYPE_CHECKING:
    from service.adapters.uow import Database

DEFAULT_METRICS_BIND = "127.0.0.1:9101"


def dispatcher_database(url: str | None, settings: Any) -> Database:
    """The dispatcher's database: a connection for each delivery thread and the loop's own.
    No signing key: the dispatcher is the one process with a way out, so it never signs
    (an event whose receipt still waits in its worker waits for it: `RECEIPT_WAIT_S`)."""
    return open_database(url, pool_size=settings.concurrency + 2, statement_timeout_ms=statement_timeout_ms())




def dispatch(args: argparse.Namespace) -> int:
    from service.domain import settings as env_settings
    from service.domain.errors import SettingError
    from service.services.webhooks.dispatcher import Dispatcher, Metrics, Settings

    try:
        level = env_settings.log_level(os.environ, "LOG_LEVEL")
        logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s %(message)s")
        logging.getLogger("alembic").setLevel(logging.WARNING)  # the schema check's own chatter, before any refusal
        settings = Settings.from_env()
    except SettingError as exc:
        print(f"capsa webhooks dispatch: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    if args.concurrency is not None:
        settings = Settings(**{**settings.__dict__, "concurrency": args.concurrency})
    metrics = Metrics()
    bind = os.environ.get("WEBHOOK_METRICS_BIND", DEFAULT_METRICS_BIND)
    # One pass (--once, from cron) ends before any scrape: it takes no port, so it runs beside
    # a long-running dispatcher that serves the default one.
    if bind.strip().lower() != "off" and not args.once:
        from prometheus_client import start_http_server

        host, sep, port = bind.strip().rpartition(":")
        if not sep or not port.isdigit():
            raise SettingError(f"WEBHOOK_METRICS_BIND must be host:port or off, not {bind!r}")
        try:
            start_http_server(int(port), addr=host.removeprefix("[").removesuffix("]") or "0.0.0.0",
                              registry=metrics.registry)
        except OverflowError as exc:  # a port past 65535
            raise SettingError(f"WEBHOOK_METRICS_BIND {bind!r}: the port must be 0 to 65535") from exc
        except OSError as exc:  # another dispatcher on this host: give each its own address
            raise SettingError(
                f"WEBHOOK_METRICS_BIND {bind!r}: {exc.strerror or exc} (a dispatcher on this host "
                "already serves it? give each its own address, or off)"
            ) from exc
    db = with_schema(dispatcher_database(args.database_url, settings))
    dispatcher = Dispatcher(db, settings, metrics)
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    logging.getLogger("capsa.webhooks").info(
        "dispatching webhooks (%s, concurrency %d, %d per endpoint, %d per client, attempts within %g s)",
        db.dialect, settings.concurrency, settings.endpoint_concurrency, settings.client_concurrency,
        settings.timeout_s,
    )
    # What start-up made (modules, the engine, the metrics) lives as long as the process: out
    # of the collector's reach, a full collection walks only what the passes make (it walked
    # some 140,000 objects each time, half of the CPU that parsing and rendering events took).
    gc.collect()
    gc.freeze()
    if args.once:
        try:
            dispatcher.run_until_idle()
        finally:
            db.dispose()
        return 0
    try:
        dispatcher.run(stop)
    finally:
        db.dispose()
    # Everything is recorded and the database let go. The interpreter's own teardown (a
    # large heap, and any attempt thread abandoned past the grace) takes seconds on a
    # loaded machine, beyond the grace a supervisor allows: leave at once.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "webhooks",
        help="the webhook dispatcher",
        description="Send the clients' settlement events to their webhook endpoints.",
    )
    inner = parser.add_subparsers(dest="webhooks_command", required=True, metavar="COMMAND")
    run = inner.add_parser(
        "dispatch",
        help="deliver webhook events until stopped (SIGTERM)",
        description="Queue, sign and POST every endpoint's events, retrying failures on "
        "WEBHOOK_RETRY_SCHEDULE; metrics on WEBHOOK_METRICS_BIND (default 127.0.0.1:9101; none with --once).",
    )
    run.add_argument("--database-url", help="the database (default: $DATABASE_URL)")
    run.add_argument("--concurrency", type=positive, help="deliveries in flight at most (default: WEBHOOK_CONCURRENCY, 16)")
    run.add_argument("--once", action="store_true", help="deliver what is due now, then exit (no metrics port)")
    run.set_defaults(func=dispatch)
