"""The `capsa` command. Each feature module adds its subcommands through `register`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Modules that define `register(subparsers)`; each adds its own subcommands.
COMMAND_MODULES = [
    "service.commands.offline",  # score, evaluate
    "service.commands.server",  # serve, db upgrade, openapi
    "service.commands.clients",  # clients create|key|revoke|list
    "service.commands.arrange",  # arrange
    "service.commands.audit",  # audit verify
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="capsa", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
