"""`capsa idempotency purge`: delete the Idempotency-Key records past their 24 h retention.

Workers already do this about once a minute; the command is for a backlog (a service that
was stopped, `IDEMPOTENCY_PURGE=off`) or a cron job that wants it at a time of its own.
"""

from __future__ import annotations

import argparse

from service.adapters.default_url import DEFAULT_DATABASE_URL
from service.services import idempotency

from .database import open_database, with_schema
from .inputs import positive


def purge(args: argparse.Namespace) -> int:
    db = with_schema(open_database(args.database_url))
    try:
        deleted = idempotency.purge_expired(db, batch=args.batch)
    finally:
        db.dispose()
    hours = int(idempotency.KEEP.total_seconds() // 3600)
    print(f"purged {deleted} idempotency records older than {hours} h")
    return 0




def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "idempotency", help="purge stored Idempotency-Key answers",
        description="Idempotency-Key records keep a request's answer for 24 hours.",
    )
    isub = p.add_subparsers(dest="idempotency_command", required=True, metavar="ACTION", title="actions")
    purge_parser = isub.add_parser(
        "purge",
        help="delete the records older than 24 hours now",
        description="Delete every Idempotency-Key record older than its 24 h retention, in batches "
        "(each its own short transaction). Prints how many went. Workers do this by themselves "
        "about once a minute.",
    )
    purge_parser.add_argument("--batch", type=positive, default=idempotency.PURGE_BATCH, metavar="N",
                              help=f"records per transaction (default: {idempotency.PURGE_BATCH})")
    purge_parser.add_argument("--database-url", default=None, metavar="URL",
                              help=f"the database to use (default: $DATABASE_URL, else {DEFAULT_DATABASE_URL})")
    purge_parser.set_defaults(func=purge)
