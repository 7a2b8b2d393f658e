"""`capsa clients create|key|revoke|list`: operators and their API keys."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from service.adapters.default_url import DEFAULT_DATABASE_URL
from service.services.clock import rfc3339
from service.services.errors import NotFound, ServiceError

from .database import open_database, with_schema
from .exitcodes import ExitCode

if TYPE_CHECKING:  # the database layer loads when a command runs, not for --help
    from service.adapters.uow import Database


@contextmanager
def _db(args: argparse.Namespace) -> Iterator[Database]:
    db = with_schema(open_database(args.database_url))
    try:
        yield db
    finally:
        db.dispose()


def _fail(exc: ServiceError) -> int:
    """4 for a name or key prefix that matches nothing, 1 for one the service refuses."""
    print(f"capsa clients: {exc.message}", file=sys.stderr)
    return ExitCode.UNKNOWN_CLIENT if isinstance(exc, NotFound) else ExitCode.FAILED


def _guarded(work: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        try:
            return work(args)
        except ServiceError as exc:
            return _fail(exc)

    return run


class _Refused(Exception):
    """The new key's command ends with `code`, its refusal said; its transaction rolled back."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _shown(lines: list[str]) -> None:
    """Write a new key's lines to standard output before its commit: a key nobody saw is not made."""
    try:
        sys.stdout.write("".join(f"{line}\n" for line in lines))
        sys.stdout.flush()
    except BrokenPipeError:
        raise  # the reader left: no message (capsa's 141)
    except OSError as exc:
        print(f"capsa clients: cannot write the key to standard output ({exc.strerror or exc}); nothing was made",
              file=sys.stderr)
        raise _Refused(ExitCode.UNREADABLE) from exc


def _saved(work: Callable[[], None], shown: list[bool], args: argparse.Namespace) -> int:
    """Run a new key's transaction; when it fails after the key was shown, one line says
    that key was NOT saved (exit 3, or 130 for Ctrl-C), so nobody keeps a key that is not
    there. Before it was shown, failures are the command's usual ones."""
    from .database import database_problem

    try:
        work()
    except _Refused as exc:
        return exc.code
    except (Exception, KeyboardInterrupt) as exc:
        if not shown or isinstance(exc, (ServiceError, BrokenPipeError)):
            raise
        interrupted = isinstance(exc, KeyboardInterrupt)
        why = "interrupted" if interrupted else (database_problem(exc, args.database_url) or repr(exc))
        print(f"capsa clients: the key shown above was NOT saved, nothing was made: {why}", file=sys.stderr)
        return 130 if interrupted else ExitCode.UNREADABLE
    return 0


@_guarded
def create(args: argparse.Namespace) -> int:
    from service.services import clients

    shown: list[bool] = []

    def show(client_id: str, key: str) -> None:
        _shown([f"client {args.name} created: {client_id}", "its write key, shown once (store it now):", key])
        shown.append(True)

    def work() -> None:
        with _db(args) as db:
            clients.create_client(db, args.name, hand_over=show)

    return _saved(work, shown, args)


@_guarded
def key(args: argparse.Namespace) -> int:
    from service.services import clients

    scope = clients.Scope.READ if args.read_only else clients.Scope.WRITE
    shown: list[bool] = []

    def show(plain: str) -> None:
        _shown([f"new {scope} key for {args.name}, shown once (store it now):", plain])
        shown.append(True)

    def work() -> None:
        with _db(args) as db:
            clients.add_key(db, args.name, scope, hand_over=show)

    return _saved(work, shown, args)


@_guarded
def revoke(args: argparse.Namespace) -> int:
    from service.services import clients

    prefix = args.key_prefix.removeprefix("capsa_").split("_")[0]
    with _db(args) as db:
        clients.revoke_key(db, prefix)
    print(f"key {prefix} revoked")
    return 0


@_guarded
def list_(args: argparse.Namespace) -> int:
    from service.services import clients

    with _db(args) as db:
        found = clients.list_clients(db)
    for c in found:  # times as the API writes them (RFC 3339, UTC, milliseconds)
        print(f"{c.name} {c.id} created {rfc3339(c.created_at)}")
        for k in c.keys:
            state = f"revoked {rfc3339(k.revoked_at)}" if k.revoked_at else "active"
            print(f"  capsa_{k.prefix}_... {k.scope} {state}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "clients",
        help="manage the clients (operators) and their API keys",
        description="Clients are the operators that call the API; each has write keys (to store "
        "rounds) and read keys (for auditors). Keys are shown once and stored as SHA-256 only.",
    )
    database_help = f"the database to use (default: $DATABASE_URL, else {DEFAULT_DATABASE_URL})"
    p.add_argument("--database-url", metavar="URL", help=database_help)

    def after_action(action: argparse.ArgumentParser) -> None:
        """--database-url after the action too, as every other command takes it (SUPPRESS:
        absent there, it leaves the value given before the action)."""
        action.add_argument("--database-url", metavar="URL", default=argparse.SUPPRESS, help=database_help)

    csub = p.add_subparsers(dest="clients_command", required=True, metavar="ACTION", title="actions")
    c = csub.add_parser(
        "create", help="create a client and print its first write key",
        description="Create a client and print its first write key on the last line: store it now, "
        "it is not shown again.",
    )
    c.add_argument("name", help="the client's name: 1 to 64 letters, digits and . _ : -")
    after_action(c)
    c.set_defaults(func=create)
    c = csub.add_parser(
        "key", help="add a key to a client and print it",
        description="Add a key to a client and print it on the last line (shown once).",
    )
    c.add_argument("name", help="the client's name")
    c.add_argument("--read-only", action="store_true", help="a read key: can read rounds and ledgers, never write")
    after_action(c)
    c.set_defaults(func=key)
    c = csub.add_parser(
        "revoke", help="revoke a key: requests with it are refused",
        description="Revoke a key by its visible prefix (as `capsa clients list` shows it).",
    )
    c.add_argument("key_prefix", help="the 8 characters after capsa_ (or the whole key)")
    after_action(c)
    c.set_defaults(func=revoke)
    c = csub.add_parser(
        "list", help="list clients and their keys (prefixes only)",
        description="List every client with its keys: prefix, scope, active or revoked.",
    )
    after_action(c)
    c.set_defaults(func=list_)
