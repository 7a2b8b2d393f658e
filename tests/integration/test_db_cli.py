"""`capsa db upgrade` and `capsa clients ...` against a real database."""

from __future__ import annotations

import re

import pytest

from service.cli import main

KEY = re.compile(r"^capsa_([0-9a-f]{8})_[A-Za-z0-9_-]{43}$")


@pytest.fixture
def cli_db(tmp_path, monkeypatch) -> str:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    assert main(["db", "upgrade"]) == 0
    return url


def last_line(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out.strip().splitlines()[-1]


def test_clients_create_prints_a_write_key_last_and_it_authenticates(cli_db, capsys):
    from service.adapters.uow import Database
    from service.services import clients

    assert main(["clients", "create", "casino-1"]) == 0
    key = last_line(capsys)
    assert KEY.match(key)
    principal = clients.authenticate(Database(cli_db), f"Bearer {key}")
    assert principal.scope == "write"


def test_clients_key_read_only_list_and_revoke(cli_db, capsys):
    from service.adapters.uow import Database
    from service.services import clients
    from service.services.errors import Unauthorized

    main(["clients", "create", "casino-2"])
    capsys.readouterr()
    assert main(["clients", "key", "casino-2", "--read-only"]) == 0
    read_key = last_line(capsys)
    db = Database(cli_db)
    assert clients.authenticate(db, f"Bearer {read_key}").scope == "read"
    prefix = KEY.match(read_key).group(1)  # type: ignore[union-attr]
    assert main(["clients", "list"]) == 0
    listing = capsys.readouterr().out
    assert "casino-2" in listing and f"capsa_{prefix}_... read active" in listing
    assert read_key not in listing
    assert main(["clients", "revoke", prefix]) == 0
    with pytest.raises(Unauthorized):
        clients.authenticate(db, f"Bearer {read_key}")


def test_clients_errors_exit_by_the_one_table(cli_db, capsys):
    main(["clients", "create", "dup"])
    assert main(["clients", "create", "dup"]) == 1  # refused
    assert main(["clients", "key", "nobody"]) == 4  # unknown client
    assert main(["clients", "revoke", "ffffffff"]) == 4  # no key has that prefix
    assert main(["clients", "create", "bad name"]) == 1  # refused


def test_capsa_openapi_writes_the_spec(tmp_path, capsys):
    out = tmp_path / "spec.yaml"
    assert main(["openapi", "-o", str(out)]) == 0
    assert out.read_text().startswith("paths:") or "openapi:" in out.read_text()


def test_an_unknown_migration_is_a_usage_error_in_one_line(tmp_path, capsys):
    """Alembic's CommandError was a traceback, exit 1."""
    url = f"sqlite:///{tmp_path / 'x.db'}"
    assert main(["db", "upgrade", "nonexistent", "--database-url", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("capsa db upgrade: no migration 'nonexistent' in this release (its newest: ")
    assert err.count("\n") == 1 and not (tmp_path / "x.db").exists()


def test_a_database_a_later_release_migrated_is_left_as_it_is_in_one_line(cli_db, capsys):
    """A release before the database's (a node restarted mid-release, a rollback's image)
    serves it, as `/readyz` says; its upgrade was Alembic's "Can't locate revision"
    traceback, exit 1."""
    import sqlite3

    from service.adapters.migrate import shipped_revisions

    with sqlite3.connect(cli_db.removeprefix("sqlite:///")) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    capsys.readouterr()
    assert main(["db", "upgrade"]) == 0
    out = capsys.readouterr().out
    assert out == (
        f"the database is at migration 9999, newer than this release's newest ({shipped_revisions()[-1]}): "
        "nothing to upgrade (this release serves it: migrations only add what it ignores)\n"
    )
    with sqlite3.connect(cli_db.removeprefix("sqlite:///")) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("9999",)]


def test_a_sqlite_folder_that_cannot_be_written_is_exit_3_in_one_line(cli_db, capsys, monkeypatch):
    """The upgrade's lock file beside the database: an OSError traceback, exit 1 (a folder
    made read-only, a lock file left by another user)."""
    import builtins

    real_open = builtins.open

    def refused(file, mode="r", *args, **kwargs):  # what a read-only folder answers
        if str(file).endswith(".upgrade-lock"):
            raise OSError(30, "Read-only file system", str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", refused)
    capsys.readouterr()
    assert main(["db", "upgrade"]) == 3
    err = capsys.readouterr().err
    lock = cli_db.removeprefix("sqlite:///") + ".upgrade-lock"
    assert err == (
        f"capsa: cannot open {lock} (Read-only file system), the lock that keeps two upgrades apart: "
        "the database's folder must be writable\n"
    )


def test_a_sqlite_file_that_cannot_be_opened_names_the_file_not_a_server(tmp_path, capsys):
    (tmp_path / "a.db").mkdir()  # a folder where the file should be: SQLite cannot open it
    url = f"sqlite:///{tmp_path / 'a.db'}"
    assert main(["clients", "--database-url", url, "list"]) == 3
    err = capsys.readouterr().err
    assert err == (f"capsa: cannot use the database {url} (unable to open database file); set DATABASE_URL "
                   "(or --database-url) to your database and check that the file and its folder can be read and "
                   "written\n")


def test_a_keyring_that_cannot_be_written_is_exit_3_in_one_line(tmp_path, capsys):
    """Under a path that is a file: a FileExistsError traceback, exit 1."""
    (tmp_path / "afile").write_text("")
    target = tmp_path / "afile" / "keys.json"
    assert main(["keys", "create", "--file", str(target), "--no-sign"]) == 3
    err = capsys.readouterr().err
    assert err.startswith(f"capsa keys: cannot write {target}: ") and err.count("\n") == 1


@pytest.mark.parametrize(("name", "value", "said"), [
    ("DATABASE_POOLER", "pgbounce", "DATABASE_POOLER 'pgbounce' is not one of 'none', 'pgbouncer'"),
    ("RECEIPT_FLUSH_MS", "0.5", "RECEIPT_FLUSH_MS '0.5' is not a whole number"),
    ("DATABASE_KEEPALIVES_IDLE_S", "10s", "DATABASE_KEEPALIVES_IDLE_S '10s' is not a whole number"),
])
def test_a_database_setting_a_command_cannot_run_with_is_one_line_and_exit_2(monkeypatch, capsys, name, value, said):
    """A ValueError traceback, exit 1, from every command that opens a PostgreSQL database."""
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://nobody@127.0.0.1:1/none")
    monkeypatch.setenv(name, value)
    assert main(["clients", "list"]) == 2
    assert capsys.readouterr().err == f"capsa: {said}\n"


def test_a_staged_upgrade_with_a_keyring_stops_at_its_migration_and_signs_at_the_last(tmp_path, monkeypatch, capsys):
    """`capsa db upgrade 0007` with SIGNING_KEY_FILE set: it migrated, then signing (which
    needs this release's schema) failed and the command exited 3, as if the upgrade had."""
    from service.adapters.migrate import revision_at, shipped_revisions

    ring = tmp_path / "keys.json"
    assert main(["keys", "create", "--file", str(ring), "--no-sign"]) == 0
    monkeypatch.setenv("SIGNING_KEY_FILE", str(ring))
    url = f"sqlite:///{tmp_path / 'staged.db'}"
    assert main(["db", "upgrade", "0007", "--database-url", url]) == 0
    assert revision_at(url) == "0007"
    capsys.readouterr()
    assert main(["db", "upgrade", "--database-url", url]) == 0
    assert capsys.readouterr().out == f"database upgraded to {shipped_revisions()[-1]}\n"
