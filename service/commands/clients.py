"""`capsa clients create|key|revoke|list`: operators and their API keys."""

from __future__ import annotations

import argparse
import os
import sys

from service.adapters.uow import Database
from service.services import clients
from service.services.errors import ServiceError

DEFAULT_DB = "sqlite:///var/capsa.db"


def _db(args: argparse.Namespace) -> Database:
    return Database(args.database_url or os.environ.get("DATABASE_URL", DEFAULT_DB))


def _fail(exc: ServiceError) -> int:
    print(f"capsa clients: {exc.message}", file=sys.stderr)
    return 1


def create(args: argparse.Namespace) -> int:
    try:
        client_id, key = clients.create_client(_db(args), args.name)
    except ServiceError as exc:
        return _fail(exc)
    print(f"client {args.name} created: {client_id}")
    print("its write key, shown once (store it now):")
    print(key)
    return 0


def key(args: argparse.Namespace) -> int:
    scope = clients.READ if args.read_only else clients.WRITE
    try:
        plain = clients.add_key(_db(args), args.name, scope)
    except ServiceError as exc:
        return _fail(exc)
    print(f"new {scope} key for {args.name}, shown once (store it now):")
    print(plain)
    return 0


def revoke(args: argparse.Namespace) -> int:
    prefix = args.key_prefix.removeprefix("capsa_").split("_")[0]
    try:
        clients.revoke_key(_db(args), prefix)
    except ServiceError as exc:
        return _fail(exc)
    print(f"key {prefix} revoked")
    return 0


def list_(args: argparse.Namespace) -> int:
    for c in clients.list_clients(_db(args)):
        print(f"{c.name} {c.id} created {c.created_at.isoformat()}")
        for k in c.keys:
            state = f"revoked {k.revoked_at.isoformat()}" if k.revoked_at else "active"
            print(f"  capsa_{k.prefix}_... {k.scope} {state}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("clients", help="clients (operators) and their API keys")
    p.add_argument("--database-url", help="default: $DATABASE_URL or " + DEFAULT_DB)
    csub = p.add_subparsers(dest="clients_command", required=True)
    c = csub.add_parser("create", help="create a client; prints its first write key last")
    c.add_argument("name")
    c.set_defaults(func=create)
    c = csub.add_parser("key", help="add a key to a client; prints it last")
    c.add_argument("name")
    c.add_argument("--read-only", action="store_true", help="a read key (auditors)")
    c.set_defaults(func=key)
    c = csub.add_parser("revoke", help="revoke a key by its visible prefix")
    c.add_argument("key_prefix", help="the 8 characters after capsa_ (or the whole key)")
    c.set_defaults(func=revoke)
    c = csub.add_parser("list", help="list clients and their keys (prefixes only)")
    c.set_defaults(func=list_)
