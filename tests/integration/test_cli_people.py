"""The `capsa` command as people meet it: piped into `head`, pointed at a database it cannot open,
verifying a long chain in a terminal, and the demo key `make run` writes."""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import migrated_sqlite

from service.cli import main
from service.commands import audit as audit_command

ROOT = Path(__file__).resolve().parents[2]
CAPSA = str(Path(sys.executable).with_name("capsa"))
EXAMPLE = str(ROOT / "service/examples/round-4p-capsa-susun-id.json")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "COLUMNS")}
    return {**env, **extra}


# -- | head -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [["openapi", "-o", "-"], ["score", "--json", EXAMPLE], ["score", EXAMPLE], ["--help"]],
    ids=["openapi", "score --json", "score", "--help"],
)
def test_piped_into_head_it_stops_quietly(argv):
    with subprocess.Popen([CAPSA, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env()) as capsa:
        assert capsa.stdout is not None and capsa.stderr is not None
        head = subprocess.run(["head", "-n", "1"], stdin=capsa.stdout, capture_output=True, timeout=60)
        capsa.stdout.close()  # head's end is gone too: what capsa writes now meets a closed pipe
        err = capsa.stderr.read().decode()
        status = capsa.wait(timeout=60)
    assert head.stdout.count(b"\n") == 1
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipe" not in err, err
    assert err == ""
    assert status in (0, 141)


def test_a_reader_that_left_before_the_first_line_means_status_141_and_no_message():
    read, write = os.pipe()
    os.close(read)  # nobody will ever read: the first write fails with EPIPE
    try:
        done = subprocess.run([CAPSA, "score", EXAMPLE], stdout=write, stderr=subprocess.PIPE, env=clean_env(),
                              timeout=60)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr.decode()) == (141, "")


# -- a database that cannot be opened -------------------------------------------------------------


def one_clear_line(capsys: pytest.CaptureFixture[str], prefix: str = "capsa: ") -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    assert lines[0].startswith(prefix) and "DATABASE_URL" in lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "code", "prefix"),
    [
        # the one table: a database that cannot be used is input the command cannot read
        (["clients", "list"], 3, "capsa: "),
        (["clients", "create", "demo"], 3, "capsa: "),
        (["audit", "verify", "--client", "demo"], 3, "capsa audit: "),
    ],
)
def test_outside_the_project_the_default_sqlite_file_is_one_clear_line(argv, code, prefix, tmp_path, monkeypatch,
                                                                       capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(argv) == code
    line = one_clear_line(capsys, prefix)
    assert "sqlite:///var/capsa.db" in line and "no folder var/" in line and "project directory" in line
    assert not (tmp_path / "var").exists()


def test_a_refusing_postgresql_server_is_one_clear_line_without_the_password(monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", "postgresql://capsa:s3cret@127.0.0.1:1/capsa")
    assert main(["clients", "list"]) == 3
    line = one_clear_line(capsys)
    assert "127.0.0.1:1" in line and "s3cret" not in line and "refused" in line.lower()
    assert main(["db", "upgrade"]) == 3
    assert "s3cret" not in one_clear_line(capsys)


def test_an_unmigrated_database_says_to_run_db_upgrade(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'empty.db'}")
    assert main(["clients", "list"]) == 3
    assert "capsa db upgrade" in one_clear_line(capsys)


@pytest.mark.parametrize("url", ["not a url", "mysql://user@host/db"])
def test_a_database_url_capsa_cannot_use_is_one_clear_line(url, monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", url)
    assert main(["clients", "list"]) == 3
    one_clear_line(capsys)


def test_the_real_command_outside_the_project_exits_3_with_one_line(tmp_path):
    done = subprocess.run([CAPSA, "clients", "list"], cwd=tmp_path, capture_output=True, text=True,
                          env=clean_env(), timeout=60)
    assert done.returncode == 3 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "DATABASE_URL" in done.stderr, done.stderr


# -- progress of a long verification -----------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A SQLite database whose client `progress` has a chain of 7 records: (url, name)."""
    from conftest import make_app

    from service.services import clients

    url = migrated_sqlite(tmp_path_factory.mktemp("chain") / "capsa.db")
    app = make_app(url)
    try:
        _, key = clients.create_client(app.extensions["capsa"].db, "progress")
        body = json.loads(Path(EXAMPLE).read_text())
        http = app.test_client()
        for n in range(7):
            answer = http.post("/v1/rounds", json={**body, "reference": f"r-{n}"},
                               headers={"Authorization": f"Bearer {key}"})
            assert answer.status_code == 201, answer.get_data(as_text=True)
    finally:
        app.extensions["capsa"].db.dispose()
    return url, "progress"


def verify(chain: tuple[str, str], *extra: str) -> tuple[int, str]:
    out = io.StringIO()
    from contextlib import redirect_stdout

    with redirect_stdout(out):
        code = main(["audit", "verify", "--client", chain[1], "--database-url", chain[0], *extra])
    return code, out.getvalue()


def test_in_a_terminal_verify_shows_progress_page_by_page(chain, monkeypatch):
    monkeypatch.setattr(audit_command, "PAGE", 3)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert verify(chain) == (0, "ok: 7 records of progress verified\n")
    shown = terminal.getvalue()
    assert shown == (
        "\rverified 3 of 7 records\x1b[K\rverified 6 of 7 records\x1b[K\rverified 7 of 7 records\x1b[K\n"
    )


def test_progress_uses_thousands_separators(monkeypatch):
    terminal = Terminal()
    progress = audit_command.Progress(None, terminal)
    progress.update(120_000, 1_000_000)
    progress.finish()
    assert terminal.getvalue() == "\rverified 120,000 of 1,000,000 records\x1b[K\n"


def test_without_a_terminal_verify_is_quiet_unless_asked(chain, monkeypatch):
    monkeypatch.setattr(audit_command, "PAGE", 3)
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    assert verify(chain) == (0, "ok: 7 records of progress verified\n")
    assert piped.getvalue() == ""
    assert verify(chain, "--progress")[0] == 0
    assert piped.getvalue().splitlines() == [
        "verified 3 of 7 records", "verified 6 of 7 records", "verified 7 of 7 records",
    ]
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert verify(chain, "--no-progress")[0] == 0 and terminal.getvalue() == ""


def test_paged_verify_keeps_limit_and_from_sequence(chain, monkeypatch):
    monkeypatch.setattr(audit_command, "PAGE", 3)
    assert verify(chain, "--limit", "5") == (0, "ok: 5 records of progress verified; continue from 6\n")
    assert verify(chain, "--from-sequence", "6") == (0, "ok: 2 records of progress verified\n")
    assert verify(chain, "--from-sequence", "2", "--limit", "3") == (
        0, "ok: 3 records of progress verified; continue from 5\n",
    )


def test_a_bad_record_on_a_later_page_is_reported_at_its_own_sequence(chain, tmp_path, monkeypatch):
    from sqlalchemy import create_engine, update

    from service.adapters.models import ChainRecord

    url = f"sqlite:///{tmp_path / 'copy.db'}"
    shutil.copy(chain[0].removeprefix("sqlite:///"), tmp_path / "copy.db")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(update(ChainRecord).where(ChainRecord.sequence == 5).values(hash="0" * 64))
    engine.dispose()
    monkeypatch.setattr(audit_command, "PAGE", 2)
    code, out = verify((url, chain[1]))
    assert code == 1 and out.startswith("BAD: first bad sequence 5: "), out


# -- make run: the demo key ------------------------------------------------------------------------


FAKE_CAPSA = """#!/bin/sh
# stands in for the real capsa: what `make run` needs of it, instantly
case "$1 $2" in
  "clients list") exit 0 ;;
  "clients create") echo "client demo created: cl_1"; echo "its write key:"; echo "capsa_0123abcd_secret" ;;
  "clients key") echo "new write key:"; echo "capsa_4567cdef_secret" ;;
  "sweep ") echo $$ > var/sweep.pid.tmp; mv var/sweep.pid.tmp var/sweep.pid; exec sleep 30 ;;
  "webhooks dispatch") echo "$WEBHOOK_METRICS_BIND" > var/dispatch.metrics
     echo "$DATABASE_URL $WEBHOOK_ALLOW_PRIVATE" > var/dispatch.started
     sleep 30 & s=$!; trap 'kill $s; echo stopped > var/dispatch.stopped; exit 0' TERM; wait ;;
  "serve --host") echo "$* $METRICS_BIND" > var/serve.args; i=0; while { [ ! -s var/sweep.pid ] || [ ! -s var/dispatch.started ]; } && [ $i -lt 100 ]; do
     sleep 0.05; i=$((i+1)); done; sleep 0.5 ;;
esac
exit 0
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the Makefile beside a fake .venv whose capsa answers instantly."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for name in ("pyproject.toml", "requirements-build.lock", "requirements-dev.lock",
                 "clients/python/pyproject.toml"):  # the stamp's inputs
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    fake = bin_dir / "capsa"
    fake.write_text(FAKE_CAPSA)
    fake.chmod(0o755)
    stamp = tmp_path / ".venv" / ".installed"
    stamp.touch()
    later = time.time() + 5
    os.utime(stamp, (later, later))  # newer than pyproject.toml: make installs nothing
    return tmp_path


def run_make(project: Path, *variables: str) -> subprocess.CompletedProcess[str]:
    env = clean_env()
    for name in ("MAKEFLAGS", "PORT", "METRICS_PORT", "WEBHOOK_METRICS_PORT", "METRICS_BIND", "WEBHOOK_METRICS_BIND"):
        env.pop(name, None)
    # umask 022, the usual one, under which the key used to be written 0644
    return subprocess.run(["make", "-s", "run", *variables], cwd=project, capture_output=True, text=True, env=env,
                          timeout=60, umask=0o022)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_make_run_writes_the_demo_key_readable_by_its_owner_only(project):
    done = run_make(project)
    assert done.returncode == 0, done.stderr
    key = project / "var" / "demo.key"
    assert key.read_text() == "capsa_0123abcd_secret\n"
    assert mode(key) == 0o600
    assert "Demo API key (client demo): capsa_0123abcd_secret" in done.stdout


def test_make_run_starts_the_webhook_dispatcher_beside_the_server_and_stops_it_with_it(project):
    started = time.monotonic()
    done = run_make(project)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 20  # the dispatcher did not outlive the server
    assert (project / "var" / "dispatch.started").read_text() == "sqlite:///var/capsa.db 1\n"
    assert (project / "var" / "dispatch.stopped").read_text() == "stopped\n"


def test_make_run_tightens_a_demo_key_written_before(project):
    (project / "var").mkdir()
    key = project / "var" / "demo.key"
    key.write_text("capsa_old_secret\n")
    key.chmod(0o644)
    (project / ".venv" / "bin" / "capsa").write_text(FAKE_CAPSA.replace('"clients list") exit 0', '"clients list") echo "demo cl_1 created now"'))
    done = run_make(project)
    assert done.returncode == 0, done.stderr
    assert key.read_text() == "capsa_old_secret\n" and mode(key) == 0o600


def test_make_run_starts_the_sweeper_beside_the_server_and_stops_it_with_the_server(project):
    done = run_make(project)  # the fake serve returns at once, as a server that was stopped
    assert done.returncode == 0, done.stderr
    pid = int((project / "var" / "sweep.pid").read_text())
    for _ in range(100):  # the sweeper is killed when the recipe's shell exits
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        pytest.fail("make run left the sweeper running after the server stopped")


def test_make_run_serves_on_8000_9100_and_9101_unless_told_other_ports(project):
    done = run_make(project)
    assert done.returncode == 0, done.stderr
    assert (project / "var" / "serve.args").read_text() == "serve --host 127.0.0.1 --port 8000 127.0.0.1:9100\n"
    assert (project / "var" / "dispatch.metrics").read_text() == "127.0.0.1:9101\n"
    assert "Serving http://127.0.0.1:8000 (metrics on 127.0.0.1:9100)" in done.stdout

    done = run_make(project, "PORT=8123", "METRICS_PORT=9123", "WEBHOOK_METRICS_PORT=9124")
    assert done.returncode == 0, done.stderr
    assert (project / "var" / "serve.args").read_text() == "serve --host 127.0.0.1 --port 8123 127.0.0.1:9123\n"
    assert (project / "var" / "dispatch.metrics").read_text() == "127.0.0.1:9124\n"
    assert "Serving http://127.0.0.1:8123 (metrics on 127.0.0.1:9123)" in done.stdout


# -- capsa clients: times as the API writes them, exit codes of the one table --------------------

RFC3339_MS = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"  # services.clock.rfc3339, as every API time


def test_clients_list_writes_times_as_the_api_does_and_misses_exit_by_the_table(tmp_path, monkeypatch, capsys):
    import re

    url = migrated_sqlite(tmp_path / "clients.db")
    monkeypatch.setenv("DATABASE_URL", url)
    assert main(["clients", "create", "alpha"]) == 0
    key = capsys.readouterr().out.splitlines()[-1]
    assert main(["clients", "revoke", key]) == 0
    capsys.readouterr()
    assert main(["clients", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(rf"alpha cl_\w+ created {RFC3339_MS}", lines[0]), lines
    assert re.fullmatch(rf"  capsa_{key.split('_')[1]}_\.\.\. write revoked {RFC3339_MS}", lines[1]), lines

    assert main(["clients", "create", "alpha"]) == 1  # refused: the name is taken
    assert main(["clients", "key", "nobody"]) == 4  # unknown client
    assert main(["clients", "revoke", "00000000"]) == 4  # no key has that prefix
    err = capsys.readouterr().err
    assert err == ("capsa clients: a client named 'alpha' already exists\n"
                   "capsa clients: no client named 'nobody'\n"
                   "capsa clients: no key with prefix '00000000'\n")


def test_keys_list_of_a_missing_keyring_exits_3_and_of_none_named_2(tmp_path, monkeypatch, capsys):
    assert main(["keys", "list", "--file", str(tmp_path / "none.json")]) == 3  # input it cannot read
    monkeypatch.delenv("SIGNING_KEY_FILE", raising=False)
    assert main(["keys", "list"]) == 2  # a setting it needs is missing
    assert capsys.readouterr().err.splitlines()[-1] == "capsa keys: name the keyring with --file or SIGNING_KEY_FILE"


def test_openapi_into_a_folder_that_does_not_exist_is_one_line_and_exit_3(tmp_path, capsys):
    target = tmp_path / "missing" / "openapi.yaml"
    assert main(["openapi", "-o", str(target)]) == 3
    assert capsys.readouterr() == ("", f"capsa openapi: cannot write {target}: No such file or directory\n")
