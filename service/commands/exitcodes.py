"""The exit codes of every `capsa` command, one table for all of them.

A script or a cron job reads the code, a person the message: each code says which kind of
outcome it is, so `1` always means a check found something wrong and never a typo or a
missing file. `capsa --help`, each `capsa audit` command's `--help` and README.md print the
same table (a test compares them).
"""

from __future__ import annotations

import argparse
import textwrap
from enum import IntEnum


class ExitCode(IntEnum):
    """What a command's exit status means."""

    OK = 0
    FAILED = 1
    USAGE = 2
    UNREADABLE = 3
    UNKNOWN_CLIENT = 4
    PARTIAL = 5


# code -> (the commands that can exit with it, what it means)
MEANING: dict[ExitCode, tuple[str, str]] = {
    ExitCode.OK: ("all", "ok: the check passed, the file was written, the command did its work"),
    ExitCode.FAILED: (
        "audit verify, verify-file, verify-restore, export; score, evaluate, arrange; clients create; sweep --once",
        "a check failed: `BAD: ...` names the first bad sequence and why (export: the chain's head matches "
        "no stored record, and nothing is written); score, evaluate and arrange "
        "name each field the rules refuse (as the API's 422 does); clients create: the name is taken or "
        "not allowed; sweep --once: a part of the pass failed",
    ),
    ExitCode.USAGE: (
        "all",
        "usage: the command line is wrong (an unknown option, a bad number, a missing --head, a round "
        "given to evaluate), or a setting it needs is missing (audit export --head without "
        "SIGNING_KEY_FILE, keys without --file or SIGNING_KEY_FILE) or one it reads is wrong "
        "(DATABASE_POOLER=pgbounce with a PostgreSQL DATABASE_URL, WEBHOOK_CONCURRENCY=0, a "
        "WEBHOOK_METRICS_BIND another process holds: named in one line)",
    ),
    ExitCode.UNREADABLE: (
        "all",
        "unreadable input: a file (or standard input, `-`) is missing, a directory, unreadable, over its "
        "size cap or not JSON, a keyring file cannot be read, the database cannot be used (no capsa "
        "tables; verify-restore: at another migration), or FILE cannot be written (clients create and key: "
        "standard output, and then no client or key is made)",
    ),
    ExitCode.UNKNOWN_CLIENT: (
        "audit verify, export, verify-restore; clients key, revoke",
        "unknown client: no client has that name (clients revoke: no key has that prefix; "
        "verify-restore: a head is of a client the database does not hold)",
    ),
    ExitCode.PARTIAL: (
        "audit verify-file --partial",
        "partial: every record read verified, but the export starts after sequence 1 and its "
        "beginning was not checked",
    ),
}


def table(width: int = 78) -> str:
    """The table as `--help` prints it: one code a paragraph, its meaning then its commands,
    wrapped under themselves."""
    lines = ["exit codes:"]
    for code, (commands, meaning) in MEANING.items():
        first = f"  {int(code)}  "
        lines += textwrap.wrap(f"{meaning} [{commands}]", width, initial_indent=first,
                               subsequent_indent=" " * len(first))
    return "\n".join(lines)


def markdown_table() -> str:
    """The same table in Markdown, for README.md (a test compares the two)."""
    rows = ["| exit code | commands | meaning |", "|---|---|---|"]
    rows += [f"| {int(code)} | {commands} | {meaning} |" for code, (commands, meaning) in MEANING.items()]
    return "\n".join(rows)


class KeepTables(argparse.HelpFormatter):
    """Wraps a paragraph written on one line; keeps a paragraph written on several lines (the
    exit-code table) as it is."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(
            paragraph if "\n" in paragraph else super(KeepTables, self)._fill_text(paragraph, width, indent)
            for paragraph in text.split("\n\n")
        )
