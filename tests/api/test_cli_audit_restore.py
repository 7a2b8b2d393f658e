"""`capsa audit verify-restore`: a restored database against the signed heads kept before it.

Each engine gets a database of its own (the command checks every client in it, so the
session's shared database, where other tests tamper on purpose, would not do): two clients
with rounds, their heads signed, the public keys an auditor pins. A test that damages the
rows puts them back before it ends, as docs/operations.md's "Putting rows back" does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import (
    drop_pg_database,
    make_app,
    make_tenant,
    migrated_pg_database,
    migrated_sqlite,
    pg_admin_url,
)
from httpkit import two_player_round
from sqlalchemy import create_engine, delete, insert, select, update

from service import cli
from service.adapters import keyfile
from service.adapters.db import normalise_url
from service.adapters.migrate import upgrade
from service.adapters.models import ChainHead, ChainRecord, ChainSignature, LedgerLine, Round
from service.commands.exitcodes import ExitCode
from service.domain.signing import Keyring, b64, head_message
from service.services.clock import utcnow_ms


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def restored(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("restore-cli")
    dropped = None
    if request.param == "postgresql":
        admin = pg_admin_url()
        if admin is None:
            pytest.skip("TEST_DATABASE_URL is not set")
        url, name = migrated_pg_database(admin)
        dropped = (admin, name)
    else:
        url = migrated_sqlite(folder / "restored.db")
    ring, _ = Keyring().rotated(utcnow_ms())
    keyfile.save(folder / "keys.json", ring)
    app = make_app(url, SIGNING_KEY_FILE=str(folder / "keys.json"))
    http = app.test_client()
    alpha, beta = make_tenant(app), make_tenant(app)
    for tenant, rounds in ((alpha, 3), (beta, 2)):
        for _ in range(rounds):
            assert http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).status_code == 201
        (folder / f"{tenant.name}.head.json").write_bytes(http.get("/v1/audit/head", headers=tenant.read_headers).data)
    (folder / "public.json").write_bytes(http.get("/v1/audit/keys", headers=alpha.read_headers).data)
    app.extensions["capsa"].db.dispose()
    try:
        yield {"url": url, "folder": folder, "ring": ring, "alpha": alpha, "beta": beta}
    finally:
        if dropped is not None:
            drop_pg_database(*dropped)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def verify_restore(r: dict[str, Any], capsys: Any, *heads: Path, url: str | None = None) -> tuple[int, str, str]:
    argv = ["audit", "verify-restore", "--public-keys", str(r["folder"] / "public.json"),
            "--database-url", url or r["url"]]
    for h in heads:
        argv += ["--head", str(h)]
    return run(argv, capsys)


def head_file(r: dict[str, Any], name: str) -> Path:
    return Path(r["folder"] / f"{r[name].name}.head.json")


def forged_head(r: dict[str, Any], path: Path, client_id: str, sequence: int, hash_: str,
                ring: Keyring | None = None) -> Path:
    signed_at = "2026-12-01T12:00:00.000Z"
    kid, sig = (ring or r["ring"]).sign(head_message(client_id, sequence, hash_, signed_at))
    path.write_bytes(orjson.dumps({"client_id": client_id, "sequence": sequence, "hash": hash_, "created_at": None,
                                   "signed_at": signed_at, "kid": kid, "signature": b64(sig)}))
    return path


class Cut:
    """The last records of a client's chain deleted with their rows, and put back on exit."""

    TABLES = (LedgerLine, ChainSignature, ChainRecord)  # children first; put back in reverse

    def __init__(self, url: str, client_id: str, keep: int, rewind_head: bool) -> None:
        self.engine = create_engine(normalise_url(url))
        self.client_id, self.keep, self.rewind = client_id, keep, rewind_head
        self.saved: dict[Any, list[dict[str, Any]]] = {}

    def __enter__(self) -> Cut:
        with self.engine.begin() as conn:
            for table in (*self.TABLES, Round):
                where = (table.client_id == self.client_id, table.sequence > self.keep)
                self.saved[table] = [dict(row._mapping) for row in conn.execute(select(table.__table__).where(*where))]
                conn.execute(delete(table).where(*where))
            self.head = dict(conn.execute(select(ChainHead.__table__).where(ChainHead.client_id == self.client_id))
                             .one()._mapping)
            if self.rewind:  # the copy looks whole: its head is its last record
                kept = conn.execute(select(ChainRecord.hash, ChainRecord.previous_hash).where(
                    ChainRecord.client_id == self.client_id, ChainRecord.sequence == self.keep)).one()
                conn.execute(update(ChainHead).where(ChainHead.client_id == self.client_id)
                             .values(sequence=self.keep, hash=kept[0], previous_hash=kept[1]))
        return self

    def __exit__(self, *exc: object) -> None:
        with self.engine.begin() as conn:
            for table in (ChainRecord, ChainSignature, Round, LedgerLine):
                if self.saved[table]:  # one statement: a record's lines must sum to zero in it
                    conn.execute(insert(table.__table__).values(self.saved[table]))
            conn.execute(update(ChainHead).where(ChainHead.client_id == self.client_id).values(**self.head))
        self.engine.dispose()


def test_a_restore_whose_chains_verify_and_reach_every_kept_head_exits_0(restored, capsys):
    a, b = restored["alpha"], restored["beta"]
    code, out, err = verify_restore(restored, capsys, head_file(restored, "alpha"), head_file(restored, "beta"))
    alpha_hash = json.loads(head_file(restored, "alpha").read_text())["hash"]
    lines = out.splitlines()
    assert (code, err) == (ExitCode.OK, "")
    assert lines[:2] == [f"ok: 3 records of {a.name} verified", f"ok: 2 records of {b.name} verified"]
    assert lines[2] == (f"ok: signed head #1 ({head_file(restored, 'alpha')}) of {a.name} ({a.id}) reached: "
                        f"sequence 3, hash {alpha_hash[:16]}...")
    assert lines[4:] == ["ok: the restore holds 2 clients whose chains verify (5 records) and reaches 2 of 2 signed heads"]


def test_a_restore_cut_short_of_a_kept_head_names_the_client_and_its_first_missing_sequence(restored, capsys):
    a = restored["alpha"]
    with Cut(restored["url"], a.id, keep=1, rewind_head=True):
        code, out, _ = verify_restore(restored, capsys, head_file(restored, "alpha"))
    # The chain itself holds: only the head kept before the backup shows the loss.
    assert code == ExitCode.FAILED
    assert out.splitlines()[0] == f"ok: 1 records of {a.name} verified"
    assert out.splitlines()[-1] == (
        f"BAD: client {a.name} ({a.id}): first missing sequence 2: the restored chain does not reach signed head "
        f"#1 ({head_file(restored, 'alpha')}) at sequence 3 (records lost in the backup or the restore)")
    code, _, _ = verify_restore(restored, capsys, head_file(restored, "alpha"))
    assert code == ExitCode.OK  # the rows put back: the same restore passes again


def test_records_deleted_under_a_head_left_in_place_fail_the_chain_and_the_head(restored, capsys):
    a = restored["alpha"]
    with Cut(restored["url"], a.id, keep=2, rewind_head=False):
        code, out, _ = verify_restore(restored, capsys, head_file(restored, "alpha"))
    assert code == ExitCode.FAILED
    assert out.splitlines()[0] == (
        f"BAD: client {a.name} ({a.id}): first bad sequence 3: sequence 3 is missing (the head is at 3) (2 records read)")
    assert f"BAD: client {a.name} ({a.id}): first missing sequence 3: " in out


def test_a_head_whose_hash_differs_at_its_sequence_is_a_fork(restored, capsys, tmp_path):
    a = restored["alpha"]
    forged = forged_head(restored, tmp_path / "forked.json", a.id, 2, "ab" * 32)
    code, out, _ = verify_restore(restored, capsys, forged)
    assert code == ExitCode.FAILED
    assert out.splitlines()[-1].startswith(
        f"BAD: client {a.name} ({a.id}): fork at sequence 2: signed head #1 ({forged}) has hash abababababababab..., "
        "the restored record there has ")


def test_a_head_of_a_client_the_database_does_not_hold_exits_4(restored, capsys, tmp_path):
    other = forged_head(restored, tmp_path / "other.json", "cl_01JDQ8V6R3X5M2N7P9K4T1W0YZ", 1, "cd" * 32)
    code, out, err = verify_restore(restored, capsys, head_file(restored, "alpha"), other)
    assert code == ExitCode.UNKNOWN_CLIENT
    assert err == (f"capsa audit: signed head #2 ({other}) is of client 'cl_01JDQ8V6R3X5M2N7P9K4T1W0YZ', which this "
                   "database does not hold (a head of another service or database?)\n")
    assert "BAD" not in out


def test_a_head_signed_by_a_key_not_pinned_or_two_heads_that_fork_exit_1(restored, capsys, tmp_path):
    a = restored["alpha"]
    stranger, _ = Keyring().rotated(utcnow_ms())
    code, out, _ = verify_restore(restored, capsys, forged_head(restored, tmp_path / "s.json", a.id, 1, "ab" * 32,
                                                                ring=stranger))
    assert code == ExitCode.FAILED and "which is not among the public keys" in out
    one = forged_head(restored, tmp_path / "one.json", a.id, 1, "ab" * 32)
    two = forged_head(restored, tmp_path / "two.json", a.id, 1, "cd" * 32)
    code, out, _ = verify_restore(restored, capsys, one, two)
    assert code == ExitCode.FAILED and out.startswith("BAD: fork: signed heads #1 (")


def test_a_database_with_no_capsa_tables_exits_3_in_one_line(restored, capsys, tmp_path):
    empty = f"sqlite:///{tmp_path / 'empty.db'}"
    create_engine(empty).connect().close()
    code, out, err = verify_restore(restored, capsys, url=empty)
    assert (code, out) == (ExitCode.UNREADABLE, "")
    assert err.startswith(f"capsa audit: the database {empty} has no capsa tables (it was never migrated")
    assert err.count("\n") == 1


def test_a_database_at_an_older_migration_exits_3(restored, capsys, tmp_path):
    old = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(old, "0001")
    code, out, err = verify_restore(restored, capsys, url=old)
    assert (code, out) == (ExitCode.UNREADABLE, "")
    assert err.startswith(f"capsa audit: the database {old} is at migration 0001, this release's is ")


def test_a_database_at_a_later_releases_migration_is_sent_to_that_release(restored, capsys, tmp_path):
    import sqlite3

    newer = tmp_path / "newer.db"
    upgrade(f"sqlite:///{newer}")
    with sqlite3.connect(newer) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    code, out, err = verify_restore(restored, capsys, url=f"sqlite:///{newer}")
    assert (code, out) == (ExitCode.UNREADABLE, "")
    assert err.startswith(f"capsa audit: the database sqlite:///{newer} is at migration 9999, newer than this "
                          "release's newest (")
    assert err.endswith("): check it with the release that migrated it\n") and "db upgrade" not in err


def test_missing_public_keys_exit_3(restored, capsys, tmp_path):
    code, out, err = run(["audit", "verify-restore", "--public-keys", str(tmp_path / "none.json"),
                          "--database-url", restored["url"]], capsys)
    assert (code, out) == (ExitCode.UNREADABLE, "")
    assert err == f"capsa audit: --public-keys {tmp_path / 'none.json'}: cannot read it: No such file or directory\n"


def test_verify_restore_prints_the_one_exit_code_table_in_its_help(capsys):
    from service.commands.exitcodes import table

    code, out, _ = run(["audit", "verify-restore", "--help"], capsys)
    assert code == 0 and table() in out
    code, out, _ = run(["audit", "--help"], capsys)
    assert code == 0 and "verify-restore" in out and "    verify-restore  check a restored database" in out
