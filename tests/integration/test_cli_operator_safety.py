"""What an operator's command leaves behind when something goes wrong: a database it cannot
use, two runs at once, output it cannot write, Ctrl-C, a path or a number out of range.
Each ends in one clear line and its exit code, with nothing half-done."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import migrated_sqlite
from test_db_migrate_0005 import prepared_database

from service.adapters import keyfile
from service.adapters.migrate import upgrade
from service.cli import main

CAPSA = str(Path(sys.executable).with_name("capsa"))


def kids(path: Path) -> list[str]:
    return [k.kid for k in keyfile.load(path).keys]


def test_keys_create_with_a_database_it_cannot_use_rotates_nothing(tmp_path, capsys):
    ring = tmp_path / "keys.json"
    assert main(["keys", "create", "--file", str(ring), "--no-sign"]) == 0
    first = kids(ring)
    missing = tmp_path / "missing.db"
    assert main(["keys", "create", "--file", str(ring), "--database-url", f"sqlite:///{missing}"]) == 3
    assert kids(ring) == first and keyfile.load(ring).active.kid == first[0]
    assert not missing.exists()  # and no empty database made on the way
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "does not exist" in err[0], err
    assert main(["keys", "sign", "--file", str(ring), "--database-url", f"sqlite:///{missing}"]) == 3
    assert not missing.exists()


def test_keys_create_on_an_unmigrated_database_rotates_nothing(tmp_path, capsys):
    ring = tmp_path / "keys.json"
    empty = tmp_path / "empty.db"
    empty.touch()
    assert main(["keys", "create", "--file", str(ring), "--database-url", f"sqlite:///{empty}"]) == 3
    assert not ring.exists()
    assert "capsa db upgrade" in capsys.readouterr().err


def test_keys_create_signs_with_the_new_key_and_prints_it_last(tmp_path, capsys):
    url = migrated_sqlite(tmp_path / "capsa.db")
    ring = tmp_path / "keys.json"
    assert main(["keys", "create", "--file", str(ring), "--database-url", url]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == kids(ring)[0] and out[-2] == "signed 0 records that had no receipt"


def test_keys_create_whose_signing_then_fails_says_the_key_is_made_and_prints_it_last(tmp_path, capsys, monkeypatch):
    """The database passed the check, the keyring was rotated and saved, then signing the
    records without a receipt failed (SQLite locked by another writer): `database is
    locked` and exit 3, as if nothing had changed, or a traceback; and the last line was no
    kid, so `KID=$(capsa keys create | tail -n1)` took the wrong text."""
    from sqlalchemy.exc import OperationalError

    from service.commands import keys

    url = migrated_sqlite(tmp_path / "capsa.db")
    ring = tmp_path / "keys.json"

    def locked(db, keyring):
        raise OperationalError("UPDATE chain_signatures", {}, Exception("database is locked"))

    monkeypatch.setattr(keys, "_sign_pending", locked)
    assert main(["keys", "create", "--file", str(ring), "--database-url", url]) == 0
    captured = capsys.readouterr()
    (kid,) = kids(ring)
    assert captured.out.splitlines() == [f"created key {kid} in {ring}", kid]
    (said,) = captured.err.splitlines()
    assert said.startswith(f"capsa keys: key {kid} is active in {ring}, but the records stored without a receipt "
                           "were not signed: cannot use the database") and "capsa keys sign" in said


def test_db_upgrade_reads_the_keyring_before_it_migrates_and_names_one_not_made_yet(tmp_path, monkeypatch, capsys):
    """A keyring that does not read was found after the migration: `database upgraded to
    ...`, then exit 3, a failed step to a deploy script after a done one. A path not made
    yet was passed over without a word, the records left unsigned."""
    from service.adapters.migrate import revision_at

    url = f"sqlite:///{tmp_path / 'capsa.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    monkeypatch.setenv("SIGNING_KEY_FILE", str(broken))
    assert main(["db", "upgrade"]) == 3
    assert revision_at(url) is None and capsys.readouterr().out == ""
    monkeypatch.setenv("SIGNING_KEY_FILE", str(tmp_path / "typo.json"))
    assert main(["db", "upgrade"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("database upgraded to ")
    assert captured.err == (f"capsa db upgrade: SIGNING_KEY_FILE {str(tmp_path / 'typo.json')!r} does not exist: "
                            "the records stored before it is made stay unsigned until `capsa keys create` makes it\n")


def test_four_rotations_at_once_keep_every_key_they_print(tmp_path):
    ring = tmp_path / "keys.json"
    runs = [
        subprocess.Popen([CAPSA, "keys", "create", "--file", str(ring), "--no-sign"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    printed = []
    for run in runs:
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
        printed.append(out.splitlines()[-1])
    kept = kids(ring)
    assert sorted(printed) == sorted(kept) and len(set(kept)) == 4
    assert [k.retired_at is None for k in keyfile.load(ring).keys].count(True) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keys.json", "keys.json.lock"]  # no temp file left
    assert oct(ring.stat().st_mode & 0o777) == "0o600"


def _migrated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = migrated_sqlite(tmp_path / "capsa.db")
    monkeypatch.setenv("DATABASE_URL", url)
    return url


NO_DEV_FULL = pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")


@NO_DEV_FULL
@pytest.mark.parametrize("argv", [["clients", "create", "x"], ["clients", "key", "demo"]])
def test_a_key_that_cannot_be_written_out_is_not_made(tmp_path, monkeypatch, argv):
    url = _migrated(tmp_path, monkeypatch)
    assert main(["clients", "create", "demo"]) == 0
    with open("/dev/full", "w") as full:
        done = subprocess.run([CAPSA, *argv], stdout=full, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "DATABASE_URL": url}, timeout=60)
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr == ("capsa clients: cannot write the key to standard output (No space left on device); "
                           "nothing was made\n")
    listed = subprocess.run([CAPSA, "clients", "list"], capture_output=True, text=True,
                            env={**os.environ, "DATABASE_URL": url}, timeout=60).stdout
    assert "x cl_" not in listed and listed.count("capsa_") == 1  # demo's first key only


def test_ctrl_c_in_an_export_is_one_line_exit_130_and_leaves_no_part_file(tmp_path, monkeypatch, capsys):
    from service.services.audit import receipts

    _migrated(tmp_path, monkeypatch)
    assert main(["clients", "create", "demo"]) == 0
    ring = tmp_path / "keys.json"
    assert main(["keys", "create", "--file", str(ring)]) == 0
    monkeypatch.setenv("SIGNING_KEY_FILE", str(ring))
    capsys.readouterr()

    def interrupted(*_: object, **__: object) -> object:
        yield b"{}\n"
        raise KeyboardInterrupt

    monkeypatch.setattr(receipts, "export_lines", interrupted)
    out, head = tmp_path / "chain.ndjson", tmp_path / "head.json"
    assert main(["audit", "export", "--client", "demo", str(out), "--head", str(head)]) == 130
    assert capsys.readouterr().err == "capsa: interrupted\n"
    assert not [p.name for p in tmp_path.iterdir() if "chain" in p.name or "head" in p.name]


@pytest.mark.parametrize("target", [".", "/", "{tmp}"])
def test_an_export_into_a_folder_is_one_line_and_exit_3(tmp_path, monkeypatch, capsys, target):
    _migrated(tmp_path, monkeypatch)
    target = target.format(tmp=tmp_path)
    assert main(["audit", "export", "--client", "demo", target]) == 3
    assert capsys.readouterr().err == f"capsa audit: cannot write {target}: it is a folder; name the file to write\n"


@pytest.mark.parametrize("argv", [
    ["audit", "verify", "--client", "demo", "--from-sequence", "99999999999999999999"],
    ["idempotency", "purge", "--batch", "9223372036854775808"],
])
def test_a_whole_number_past_64_bits_is_a_usage_error(tmp_path, monkeypatch, capsys, argv):
    _migrated(tmp_path, monkeypatch)
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert "must be a whole number of at most 9223372036854775807, not " in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["clients", "list"], ["db", "upgrade"]])
def test_a_url_whose_port_is_no_number_is_one_line_without_its_password(monkeypatch, capsys, argv):
    monkeypatch.setenv("DATABASE_URL", "postgresql://capsa:s3cret@127.0.0.1:notaport/capsa")
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a database URL" in err and "s3cret" not in err, err


@pytest.mark.parametrize("argv", [["clients", "list"], ["db", "upgrade"], ["audit", "verify", "--client", "x"]])
def test_a_file_that_is_not_a_database_is_one_line_and_exit_3(tmp_path, monkeypatch, capsys, argv):
    """A DATABASE_URL naming a text file: sqlite3's DatabaseError ("file is not a
    database"), the parent of the errors already said in one line, was a traceback, exit 1."""
    text = tmp_path / "notes.db"
    text.write_text("not a database\n")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{text}")
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "(file is not a database)" in err, err


def test_the_dispatcher_takes_a_log_level_in_any_case_and_refuses_one_that_is_none(tmp_path, monkeypatch, capsys):
    """LOG_LEVEL=debug (the case gunicorn's own level is spelled in) was a ValueError
    traceback from logging; the app itself took it."""
    _migrated(tmp_path, monkeypatch)
    monkeypatch.setenv("WEBHOOK_METRICS_BIND", "off")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    assert main(["webhooks", "dispatch", "--once"]) == 0
    monkeypatch.setenv("LOG_LEVEL", "verbose")
    assert main(["webhooks", "dispatch", "--once"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "capsa webhooks dispatch: LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (any case), "
        "not 'verbose'")


def test_db_upgrade_with_a_driver_that_is_not_installed_is_one_line(monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", "mysql://capsa:s3cret@127.0.0.1/capsa")
    assert main(["db", "upgrade"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not installed" in err and "s3cret" not in err, err


def test_upgrade_to_a_revision_the_database_is_past_says_so_and_changes_nothing(tmp_path, monkeypatch, capsys):
    from service.adapters.migrate import revision_at, shipped_revisions

    url = _migrated(tmp_path, monkeypatch)
    capsys.readouterr()
    newest = shipped_revisions()[-1]
    assert main(["db", "upgrade", "0011"]) == 0
    assert capsys.readouterr().out == f"the database is at migration {newest}, past 0011: nothing to upgrade (upgrade never goes down)\n"
    assert revision_at(url) == newest


def test_verify_on_a_database_at_an_older_migration_names_its_migration(tmp_path, monkeypatch, capsys):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0011")
    monkeypatch.setenv("DATABASE_URL", url)
    assert main(["audit", "verify", "--client", "demo"]) == 3
    err = capsys.readouterr().err
    assert "is at migration 0011, this release needs" in err and err.count("\n") == 1, err
    assert main(["audit", "export", "--client", "demo", str(tmp_path / "x.ndjson")]) == 3
    assert "is at migration 0011, this release needs" in capsys.readouterr().err


def test_a_keyring_named_by_file_is_named_so_in_its_refusal(tmp_path, capsys):
    missing = tmp_path / "none.json"
    assert main(["keys", "list", "--file", str(missing)]) == 3
    assert capsys.readouterr().err == (
        f"capsa keys: --file '{missing}' does not exist; create it with `capsa keys create`\n")


def test_the_dispatcher_refusing_an_unmigrated_database_says_one_line(tmp_path, monkeypatch):
    empty = tmp_path / "empty.db"
    empty.touch()
    done = subprocess.run([CAPSA, "webhooks", "dispatch"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "DATABASE_URL": f"sqlite:///{empty}", "WEBHOOK_METRICS_BIND": "off"})
    assert done.returncode == 3 and done.stderr.count("\n") == 1, done.stderr


def test_a_metrics_port_past_65535_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    _migrated(tmp_path, monkeypatch)
    monkeypatch.setenv("WEBHOOK_METRICS_BIND", "127.0.0.1:99999")
    assert main(["webhooks", "dispatch"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "capsa: WEBHOOK_METRICS_BIND '127.0.0.1:99999': the port must be 0 to 65535")


def test_a_missing_table_of_a_database_at_an_older_migration_is_said_so(tmp_path):
    from sqlalchemy.exc import OperationalError

    from service.commands.database import database_problem

    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0011")
    said = database_problem(OperationalError("SELECT", {}, Exception("no such table: ledger_rollups")), url)
    assert said == (f"the database {url} is at migration 0011, older than this release needs: run `capsa db "
                    "upgrade` with the same DATABASE_URL first")
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    said = database_problem(OperationalError("SELECT", {}, Exception("no such table: clients")), fresh)
    assert said is not None and "has no capsa tables yet" in said


@NO_DEV_FULL
@pytest.mark.parametrize("argv", [
    ["score", str(Path(__file__).resolve().parents[2] / "service/examples/round-4p-capsa-susun-id.json")],
    ["openapi", "-o", "-"],
])
def test_output_that_cannot_be_written_is_one_line_and_exit_3(argv):
    with open("/dev/full", "w") as full:
        done = subprocess.run([CAPSA, *argv], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (3, "capsa: cannot write the output: No space left on device\n")


@pytest.mark.parametrize("failure", [RuntimeError("the disk went away"), KeyboardInterrupt()])
def test_a_key_shown_whose_commit_then_fails_is_said_not_saved(tmp_path, monkeypatch, capsys, failure):
    from service.adapters.uow import UnitOfWork

    _migrated(tmp_path, monkeypatch)

    def fails(self: object) -> None:
        raise failure

    with monkeypatch.context() as patched:
        patched.setattr(UnitOfWork, "commit", fails)
        code = main(["clients", "create", "demo"])
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1].startswith("capsa_")  # shown, then the commit failed
    why = "interrupted" if isinstance(failure, KeyboardInterrupt) else "RuntimeError('the disk went away')"
    assert (code, captured.err) == (
        130 if isinstance(failure, KeyboardInterrupt) else 3,
        f"capsa clients: the key shown above was NOT saved, nothing was made: {why}\n")
    assert main(["clients", "list"]) == 0 and capsys.readouterr().out == ""


def test_a_table_missing_from_a_database_at_the_newest_migration_is_not_called_an_old_schema(tmp_path):
    from sqlalchemy.exc import OperationalError

    from service.adapters.migrate import shipped_revisions
    from service.commands.database import database_problem

    url = migrated_sqlite(tmp_path / "capsa.db")
    said = database_problem(OperationalError("SELECT", {}, Exception("no such table: api_keys")), url)
    assert said == (f"the database {url} is at migration {shipped_revisions()[-1]}, yet a table or column is missing "
                    "(no such table: api_keys): its schema was changed outside capsa; restore it from a backup")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def at_0003(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database of its own at migration 0003, on each engine."""
    yield from prepared_database(request.param, tmp_path, lambda url: upgrade(url, "0003"))


@pytest.mark.parametrize("argv", [["clients", "create", "z"], ["clients", "list"], ["idempotency", "purge"]])
def test_a_command_on_an_older_schema_says_upgrade_in_one_line_and_exits_3(at_0003, capsys, argv):
    """Before, `clients create` on PostgreSQL at 0003 failed on a missing column with a
    traceback and exit 1 (SQLite blamed the file's permissions): they check the schema first."""
    assert main([*argv, "--database-url", at_0003]) == 3
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "is at migration 0003" in err[0] and "capsa db upgrade" in err[0], err


def test_a_missing_column_of_a_database_at_an_older_migration_is_said_so(tmp_path):
    from sqlalchemy.exc import OperationalError

    from service.commands.database import database_problem

    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0011")
    said = database_problem(
        OperationalError("INSERT", {}, Exception("table chain_heads has no column named previous_hash")), url)
    assert said == (f"the database {url} is at migration 0011, older than this release needs: run `capsa db "
                    "upgrade` with the same DATABASE_URL first")


def test_clients_take_the_database_url_before_or_after_the_action(tmp_path, capsys):
    first, second = migrated_sqlite(tmp_path / "a.db"), migrated_sqlite(tmp_path / "b.db")
    assert main(["clients", "create", "after", "--database-url", first]) == 0
    assert main(["clients", "--database-url", second, "create", "before"]) == 0
    capsys.readouterr()
    assert main(["clients", "--database-url", second, "list", "--database-url", first]) == 0  # the action's wins
    assert capsys.readouterr().out.split()[0] == "after"
    assert main(["clients", "--database-url", second, "list"]) == 0
    assert capsys.readouterr().out.split()[0] == "before"


@pytest.mark.parametrize("argv", [["clients", "create", "x"], ["clients", "list"], ["openapi", "-o", "-"],
                                  ["score", str(Path(__file__).resolve().parents[2] / "service/examples/round-4p-capsa-susun-id.json")]])
def test_a_closed_standard_output_is_one_line_and_exit_3(tmp_path, capsys, argv):
    """`capsa ... >&-`: Python starts without sys.stdout; before, an AttributeError traceback
    and exit 1, and nothing said of what was or was not made."""
    url = migrated_sqlite(tmp_path / "capsa.db")
    assert main(["clients", "create", "demo", "--database-url", url]) == 0
    done = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", CAPSA, *argv], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "DATABASE_URL": url})
    assert done.returncode == 3 and done.stderr.count("\n") == 1, done.stderr
    assert "standard output is closed" in done.stderr
    capsys.readouterr()
    assert main(["clients", "list", "--database-url", url]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines() if not line.startswith(" ")] == ["demo"]


def test_one_dispatch_pass_takes_no_metrics_port(tmp_path, monkeypatch):
    """`webhooks dispatch --once` from cron beside the long-running dispatcher, which serves
    the port: before, exit 2 (address in use)."""
    import socket

    _migrated(tmp_path, monkeypatch)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        monkeypatch.setenv("WEBHOOK_METRICS_BIND", f"127.0.0.1:{taken.getsockname()[1]}")
        assert main(["webhooks", "dispatch", "--once"]) == 0
