"""`capsa` starts fast because a command loads only what it uses: `capsa --version` and
`capsa score` never import SQLAlchemy, Flask or numpy (figures in docs/benchmarks.md: what
each costs at start-up). Checked on the real command in a process of its own, by the
interpreter's own list of what it imported (`python -X importtime`), not by a timer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import migrated_sqlite

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
        (["--help"], set()),  # every command's module, none of their database layers or numpy
        (["arrange", "--help"], set()),  # numpy only when it searches
        (["sweep", "--help"], set()),
        (["idempotency", "purge", "--help"], set()),
        (["clients", "list", "--help"], set()),
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


@pytest.fixture(scope="module")
def export_files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A client's chain of two Capsa Susun rounds exported by the service, with its public
    keys and signed head: what an auditor checks offline."""
    from conftest import make_app

    from service.services import clients

    where = tmp_path_factory.mktemp("export")
    url = migrated_sqlite(where / "capsa.db")
    keys = where / "signing-keys.json"
    subprocess.run([CAPSA, "keys", "create", "--file", str(keys)], check=True, capture_output=True,
                   env={**os.environ, "DATABASE_URL": url}, timeout=120)
    app = make_app(url, SIGNING_KEY_FILE=str(keys))
    _client, key = clients.create_client(app.extensions["capsa"].db, "audited")
    http, auth = app.test_client(), {"Authorization": f"Bearer {key}"}
    body = json.loads(Path(EXAMPLE).read_text())
    for n in (1, 2):
        assert http.post("/v1/rounds", json={**body, "reference": f"r-{n}"}, headers=auth).status_code == 201
    files = {"export.ndjson": "/v1/audit/export", "keys.json": "/v1/audit/keys", "head.json": "/v1/audit/head"}
    for name, path in files.items():
        (where / name).write_bytes(http.get(path, headers=auth).data)
    app.extensions["capsa"].db.dispose()
    return [str(where / "export.ndjson"), "--public-keys", str(where / "keys.json"), "--head", str(where / "head.json")]


def test_verify_file_checks_an_export_without_the_database_layer(export_files):
    names, done = imported("audit", "verify-file", *export_files)
    assert done.returncode == 0 and done.stdout.startswith("ok: 2 records of cl_"), done.stdout + done.stderr[-2000:]
    assert "2 rounds re-scored; 1 signed heads reached" in done.stdout
    assert "service" in names and not names & HEAVY, sorted(names & HEAVY)
