"""The `capsa` command: score rounds offline, run the service, manage clients and check the audit trail."""

from __future__ import annotations

import argparse
import errno
import importlib
import io
import os
import sys
from collections.abc import Sequence
from typing import Any

from .commands.exitcodes import ExitCode, KeepTables, table

# Each command and the module whose `register(subparsers)` adds it, in the order --help lists
# them. A command line loads only its command's module (`capsa score` never imports the
# database layer or Flask, `capsa --version` none of them); --help and tests load them all.
COMMANDS = {
    "score": "service.commands.offline",
    "evaluate": "service.commands.offline",
    "arrange": "service.commands.arrange",
    "serve": "service.commands.server",
    "db": "service.commands.server",
    "openapi": "service.commands.server",
    "clients": "service.commands.clients",
    "audit": "service.commands.audit",
    "keys": "service.commands.keys",
    "sweep": "service.commands.sweep",
    "idempotency": "service.commands.idempotency",
    "webhooks": "service.commands.webhooks",
}
COMMAND_MODULES = list(dict.fromkeys(COMMANDS.values()))

DESCRIPTION = (
    "Capsa Susun and Big Two scoring: score a round or check an arrangement from a JSON file "
    "(no server needed), suggest how to set 13 cards, run the HTTP service, manage the "
    "clients that may use it, and verify a client's audit trail."
)
EPILOG = (
    "Commands that use the database read DATABASE_URL (default sqlite:///var/capsa.db, "
    "relative to the current directory). Wherever a command reads a file, `-` reads standard "
    "input. Run `capsa COMMAND --help` for a command's options.\n\n" + table()
)
PIPE_CLOSED = 141  # what a shell reports for a command stopped by SIGPIPE (128 + 13)
INTERRUPTED = 130  # and by SIGINT (128 + 2)
# a write that failed for want of room, or to an output that is closed
_UNWRITABLE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF}


def version_text() -> str:
    from importlib import metadata

    from .domain.version import ENGINE_VERSION

    try:
        package = metadata.version("capsa-service")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from an unpacked tree
        package = "unknown"
    return f"capsa {package} (scoring engine {ENGINE_VERSION})"


class _Version(argparse.Action):
    """argparse's version action, with the text made only when asked for (reading the
    package's metadata costs more than the rest of `capsa --version`)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(version_text())  # on stdout, as argparse's own version action writes it
        parser.exit()


class _Formatter(KeepTables):
    """argparse sizes the command column by the options, not by the command names: the
    longest name, `idempotency`, would push its help onto a line of its own."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog)
        self._action_max_length = max(self._action_max_length, 4 + len("idempotency"))


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for `argv`: only its command's module when it names one, else every
    command (no command, --help, a misspelt one: argparse then lists them all)."""
    parser = argparse.ArgumentParser(
        prog="capsa", description=DESCRIPTION, epilog=EPILOG, formatter_class=_Formatter
    )
    parser.add_argument(
        "--version", action=_Version,
        help="print the capsa package version and the scoring engine version, then exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for name in _modules_for(argv):
        importlib.import_module(name).register(sub)
    return parser


def _modules_for(argv: Sequence[str] | None) -> list[str]:
    if argv is None:
        return COMMAND_MODULES
    # capsa's own options (-h, --help, --version) take no value: the first other word is the command.
    at = next((i for i, word in enumerate(argv) if not word.startswith("-")), len(argv))
    own = set(argv[:at])
    if own & {"-h", "--help"}:
        return COMMAND_MODULES
    if "--version" in own:
        return []
    if at < len(argv) and argv[at] in COMMANDS:
        return [COMMANDS[argv[at]]]
    return COMMAND_MODULES


def _quiet_stdout() -> None:
    """After the reader of our stdout went away: send what is left to /dev/null, so the
    interpreter's last flush at exit cannot fail again ("Exception ignored ...")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # stdout is not a file (tests capture it)
        pass


class _ClosedOutput(io.RawIOBase):
    """Standard output when capsa started without one (`capsa ... >&-`): a write fails as
    one to a closed descriptor would, so it is said in one line (exit 3), not a traceback."""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def main(argv: Sequence[str] | None = None) -> int:
    if sys.stdout is None:  # text and bytes (`sys.stdout.buffer`) fail at once: nothing waits to fail at exit
        sys.stdout = io.TextIOWrapper(_ClosedOutput(), write_through=True)
    words = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(words).parse_args(words)
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:  # `capsa ... | head`: the reader has what it wanted
        _quiet_stdout()
        return PIPE_CLOSED
    except KeyboardInterrupt:  # Ctrl-C: what was under way is rolled back or cleaned up by now
        print("capsa: interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as exc:
        # Input the command cannot read (exit 3): a keyring file that is missing or wrong, a
        # database that cannot be used. Only modules the command has loaded are looked at.
        signing = sys.modules.get("service.domain.signing")
        if signing is not None and isinstance(exc, signing.KeyringError):
            print(f"capsa: {exc.message}", file=sys.stderr)
            return ExitCode.UNREADABLE
        errors = sys.modules.get("service.domain.errors")
        if errors is not None and isinstance(exc, errors.SettingError):  # a setting it cannot run with
            print(f"capsa: {exc}", file=sys.stderr)
            return ExitCode.USAGE
        if isinstance(exc, OSError) and exc.errno in _UNWRITABLE:  # `capsa ... > /dev/full`: output it cannot write
            _quiet_stdout()
            print(f"capsa: cannot write the output: {exc.strerror}", file=sys.stderr)
            return ExitCode.UNREADABLE
        if "sqlalchemy" not in sys.modules:
            raise
        from .commands.database import database_problem

        problem = database_problem(exc, getattr(args, "database_url", None))
        if problem is None:
            raise
        print(f"capsa: {problem}", file=sys.stderr)
        return ExitCode.UNREADABLE
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
