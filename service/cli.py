"""The `capsa` command: score rounds offline, run the service, manage clients and check the audit trail."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from importlib import metadata

from .commands.database import database_problem

# Modules that define `register(subparsers)`; each adds its own subcommands.
COMMAND_MODULES = [
    "service.commands.offline",  # score, evaluate
    "service.commands.arrange",  # arrange
    "service.commands.server",  # serve, db upgrade, openapi
    "service.commands.clients",  # clients create|key|revoke|list
    "service.commands.audit",  # audit verify, export, verify-file
    "service.commands.keys",  # keys create|list|sign
    "service.commands.sweep",  # sweep
    "service.commands.idempotency",  # idempotency purge
    "service.commands.webhooks",  # webhooks dispatch
]

DESCRIPTION = (
    "Capsa Susun and Big Two scoring: score a round or check an arrangement from a JSON file "
    "(no server needed), suggest how to set 13 cards, run the HTTP service, manage the "
    "clients that may use it, and verify a client's audit trail."
)
EPILOG = (
    "Commands that use the database read DATABASE_URL (default sqlite:///var/capsa.db, "
    "relative to the current directory). Run `capsa COMMAND --help` for a command's options."
)
PIPE_CLOSED = 141  # what a shell reports for a command stopped by SIGPIPE (128 + 13)


def version_text() -> str:
    from .domain.version import ENGINE_VERSION

    try:
        package = metadata.version("capsa-service")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from an unpacked tree
        package = "unknown"
    return f"capsa {package} (scoring engine {ENGINE_VERSION})"


class _Formatter(argparse.HelpFormatter):
    """argparse sizes the command column by the options, not by the command names: the
    longest name, `idempotency`, would push its help onto a line of its own."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog)
        self._action_max_length = max(self._action_max_length, 4 + len("idempotency"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="capsa", description=DESCRIPTION, epilog=EPILOG, formatter_class=_Formatter
    )
    parser.add_argument(
        "--version", action="version", version=version_text(),
        help="print the capsa package version and the scoring engine version, then exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _quiet_stdout() -> None:
    """After the reader of our stdout went away: send what is left to /dev/null, so the
    interpreter's last flush at exit cannot fail again ("Exception ignored ...")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # stdout is not a file (tests capture it)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:  # `capsa ... | head`: the reader has what it wanted
        _quiet_stdout()
        return PIPE_CLOSED
    except Exception as exc:
        from .domain.signing import KeyringError

        if isinstance(exc, KeyringError):  # a keyring file that is missing or wrong
            print(f"capsa: {exc.message}", file=sys.stderr)
            return 2
        problem = database_problem(exc, getattr(args, "database_url", None))
        if problem is None:
            raise
        print(f"capsa: {problem}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
