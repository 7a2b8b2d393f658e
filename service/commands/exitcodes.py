"""The exit codes of `capsa audit` commands, one table for all of them (and for later commands).

A script or a cron job reads the code, a person the message: each code says which kind of
outcome it is, so `1` always means a check found something wrong and never a typo or a
missing file.
"""

from __future__ import annotations

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
    ExitCode.OK: ("all", "ok: the check passed, or the export was written"),
    ExitCode.FAILED: ("verify, verify-file, verify-restore", "a check failed: `BAD: ...` names the first bad sequence and why"),
    ExitCode.USAGE: ("all", "usage: the command line is wrong (an unknown option, a bad number, a missing --head)"),
    ExitCode.UNREADABLE: (
        "all",
        "unreadable input: a file is missing, a directory, unreadable, over its size cap or not JSON, "
        "the database cannot be used (verify-restore: it has no capsa tables, or is at another migration), "
        "or FILE cannot be written",
    ),
    ExitCode.UNKNOWN_CLIENT: (
        "verify, export, verify-restore",
        "unknown client: no client has that name (verify-restore: a head is of a client the database does not hold)",
    ),
    ExitCode.PARTIAL: (
        "verify-file --partial",
        "partial: every record read verified, but the export starts after sequence 1 and its "
        "beginning was not checked",
    ),
}


def table(width: int = 88) -> str:
    """The table as `--help` prints it: one code a row, its meaning wrapped under itself."""
    column = max(len(commands) for commands, _ in MEANING.values())
    lines = ["exit codes:"]
    for code, (commands, meaning) in MEANING.items():
        first = f"  {int(code)}  {commands:<{column}}  "
        lines += textwrap.wrap(meaning, width, initial_indent=first, subsequent_indent=" " * len(first))
    return "\n".join(lines)


def markdown_table() -> str:
    """The same table in Markdown, for docs/audit.md (a test compares the two)."""
    rows = ["| exit code | commands | meaning |", "|---|---|---|"]
    rows += [f"| {int(code)} | {commands} | {meaning} |" for code, (commands, meaning) in MEANING.items()]
    return "\n".join(rows)
