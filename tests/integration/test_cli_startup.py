"""`capsa` starts fast because a command loads only what it uses: `capsa --version` and
`capsa score` never import SQLAlchemy, Flask or numpy (figures in README "Benchmarks": what
each costs at start-up). Checked on the real command in a process of its own, by the
interpreter's own list of what it imported (`python -X importtime`), not by a timer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CAPSA = str(Path(sys.executable).with_name("capsa"))
EXAMPLE = str(ROOT / "service/examples/round-4p-capsa-susun-id.json")
ARRANGEMENT = str(ROOT / "service/examples/arrangement.json")
HEAVY = {"sqlalchemy", "flask", "numpy", "marshmallow", "psycopg", "alembic", "gunicorn"}


def imported(*argv: str) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The top-level packages `capsa ARGV` imported, and how it ended."""
    done = subprocess.run([sys.executable, "-X", "importtime", CAPSA, *argv], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    names = {line.split("|")[-1].strip().split(".")[0] for line in done.stderr.splitlines()
             if line.startswith("import time:") and "self [us]" not in line}
    return names, done


@pytest.mark.parametrize(
    ("argv", "allowed"),
    [
        (["--version"], set()),
        (["score", EXAMPLE], set()),
        (["score", "--json", EXAMPLE], set()),
        (["evaluate", ARRANGEMENT], set()),
        (["score", "--help"], set()),
        (["arrange", "As", "Ks", "Qs", "Js", "Ts", "9h", "9d", "9c", "9s", "2c", "3d", "4h", "5s", "--limit", "1"],
         {"numpy"}),  # the exact search is numpy's
        (["keys", "list", "--help"], set()),
        (["serve", "--help"], set()),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_a_command_imports_no_database_layer_web_framework_or_numpy_it_does_not_use(argv, allowed):
    names, done = imported(*argv)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "service" in names or argv == ["--version"]  # the list is real: it names what did load
    assert names & HEAVY == allowed, sorted(names & HEAVY)


def test_the_list_would_show_sqlalchemy_when_a_command_uses_it(tmp_path):
    """The check above can fail: a command that uses the database shows up in it."""
    names, done = imported("clients", "--database-url", f"sqlite:///{tmp_path / 'x.db'}", "list")
    assert done.returncode == 3  # no capsa tables in a new file: the one table's 3
    assert "sqlalchemy" in names


def test_version_loads_none_of_the_command_modules():
    names, done = imported("--version")
    assert done.returncode == 0 and done.stdout.startswith("capsa ")
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert not [line for line in lines if "service.commands." in line and "exitcodes" not in line]
    assert not [line for line in lines if "service.domain.susun" in line]
