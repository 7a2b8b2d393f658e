"""`capsa audit verify --client NAME`: check a client's hash chain straight from the database."""

from __future__ import annotations

import argparse
import os
import sys

from service.adapters.db import DEFAULT_DATABASE_URL
from service.adapters.uow import Database
from service.services import audit


def verify(args: argparse.Namespace) -> int:
    db = Database(args.database_url or os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL))
    try:
        with db.unit_of_work() as uow:
            client = uow.clients.by_name(args.client)
            client_id = None if client is None else client.id
        if client_id is None:
            print(f"capsa audit: no client {args.client!r}", file=sys.stderr)
            return 2
        report = audit.verify_chain(db, client_id, args.from_sequence, args.limit)
    finally:
        db.dispose()
    if report.ok:
        more = f"; continue from {report.next_from_sequence}" if report.next_from_sequence else ""
        print(f"ok: {report.records_checked} records of {args.client} verified{more}")
        return 0
    print(
        f"BAD: first bad sequence {report.first_bad_sequence}: {report.reason} "
        f"({report.records_checked} records read)"
    )
    return 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("audit", help="audit trail checks for operators with database access")
    asub = p.add_subparsers(dest="audit_command", required=True)
    v = asub.add_parser("verify", help="rebuild every record from the live rows and check the chain")
    v.add_argument("--client", required=True, help="the client's name")
    v.add_argument("--from-sequence", type=int, default=1)
    v.add_argument("--limit", type=int, default=None, help="records to check (default: all)")
    v.add_argument("--database-url", default=None, help="default: $DATABASE_URL")
    v.set_defaults(func=verify)
