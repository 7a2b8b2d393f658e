"""Migration 0005 on rows the service wrote under schema 0004, on both engines.

`data/rows_at_0004.json` holds every table's rows as the service stored them at commit
0328336 (schema 0004): rounds of both games, USD with per-pair stakes and rule overrides,
a surrender, a deal, an Idempotency-Key, two voids, two clients. They are loaded into a
database migrated to 0004, then the migration runs, and everything the old service
answered must still be answered, every record's hash still valid.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import create_pg_database, drop_pg_database, pg_admin_url
from sqlalchemy import MetaData, create_engine, insert

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade

DATA = json.loads((Path(__file__).parent / "data" / "rows_at_0004.json").read_text())
ORDER = ["clients", "api_keys", "rounds", "round_players", "round_pairs", "chain_records", "chain_heads",
         "ledger_lines", "round_voids", "service_secrets", "deals", "games", "idempotency_records"]


def prepared_database(engine: str, tmp_path: Path, prepare: Callable[[str], None]) -> Iterator[str]:
    """A database of its own on `engine` ("sqlite" or "postgresql"), made ready by `prepare`
    (its URL) and yielded; a PostgreSQL one is dropped after. For the migration tests'
    fixtures, each preparing the rows of the schema before its migration."""
    if engine == "sqlite":
        url = f"sqlite:///{tmp_path / 'old.db'}"
        prepare(url)
        yield url
        return
    admin = pg_admin_url()
    if admin is None:
        pytest.skip("TEST_DATABASE_URL is not set")
    url, name = create_pg_database(admin)
    try:
        prepare(url)
        yield url
    finally:
        drop_pg_database(admin, name)


def loaded_at(revision: str) -> Callable[[str], None]:
    """A `prepare` for `prepared_database`: the rows at 0004 (`_load`), then the migrations up
    to `revision`."""

    def prepare(url: str) -> None:
        _load(url)
        upgrade(url, revision)

    return prepare


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def old_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, _load)


def _value(column: Any, value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"b64"}:
        return base64.b64decode(value["b64"])
    if isinstance(value, str) and column.type.python_type is datetime:
        return datetime.fromisoformat(value)
    return value


def _load(url: str) -> None:
    upgrade(url, "0004")
    engine = create_engine(normalise_url(url))
    meta = MetaData()
    meta.reflect(engine)
    with engine.begin() as conn:
        for name in ORDER:
            table = meta.tables[name]
            rows = [{k: _value(table.c[k], v) for k, v in row.items()} for row in DATA["tables"][name]]
            if rows:
                conn.execute(insert(table), rows)
        if engine.dialect.name == "postgresql":  # the dump kept ids: move the sequences past them
            for name in ("api_keys", "ledger_lines", "idempotency_records"):
                conn.exec_driver_sql(f"SELECT setval('{name}_id_seq', (SELECT max(id) FROM {name}))")
    engine.dispose()


def _app(url: str) -> Any:
    from service.api.app import create_app

    return create_app({"DATABASE_URL": url, "LOG_LEVEL": "WARNING", "RATE_LIMIT": "off"})


def _headers(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {DATA['keys'][name]}"}


def _as_0004(doc: Any) -> Any:
    """An answer without what receipts (migration 0008) added to it: the audit's `kid` and
    `signature`, the void's own `audit`, the signed head's fields; nor a report's `as_of` (how
    far it reaches, added with reports off the primary). Everything 0004 answered must still be
    answered as it was."""
    if not isinstance(doc, dict):
        return doc
    out = {k: v for k, v in doc.items() if k != "as_of"}
    if isinstance(out.get("audit"), dict):
        out["audit"] = {k: v for k, v in out["audit"].items() if k not in ("kid", "signature")}
    if isinstance(out.get("void"), dict):
        out["void"] = {k: v for k, v in out["void"].items() if k != "audit"}
    if "signed_at" in out:
        out = {k: v for k, v in out.items() if k not in ("client_id", "signed_at", "kid", "signature")}
    if isinstance(out.get("items"), list):
        out["items"] = [_as_0004(x) for x in out["items"]]
    return out


# The rows were written on 2026-12-01 around 08:22 UTC; the checks run an hour later on the
# service's clock, so the Idempotency-Key stored then is still within its 24 h (on the real
# clock the replay turned into a new request, a 409 on its reference, from 2 December on).
CHECKED_AT = datetime.fromisoformat("2026-12-01T09:30:00+00:00")


def _check_everything_the_old_service_answered(url: str) -> None:
    from service.services.clock import FixedClock, use_clock

    previous = use_clock(FixedClock(CHECKED_AT))
    try:
        _check_answers(url)
    finally:
        use_clock(previous)


def _check_answers(url: str) -> None:
    app = _app(url)
    http = app.test_client()
    try:
        # Every chain verifies, record by record, against the bytes 0004 hashed.
        for name in DATA["keys"]:
            report = http.get("/v1/audit/verify", headers=_headers(name)).get_json()
            assert report["ok"], (name, report)
            assert report["records_checked"] == DATA["reports"][f"{name} /v1/audit/head"]["sequence"]
        # Every round reads back as it did, and re-verifies (re-scored, re-hashed, its copies checked).
        owner = {}
        for round_id, old in DATA["documents"].items():
            name = next(n for n in DATA["keys"] if http.get(f"/v1/rounds/{round_id}", headers=_headers(n)).status_code == 200)
            owner[round_id] = name
            assert _as_0004(http.get(f"/v1/rounds/{round_id}", headers=_headers(name)).get_json()) == old
            verdict = http.get(f"/v1/rounds/{round_id}/verify", headers=_headers(name)).get_json()
            assert verdict == {"ok": True, "differences": []}, (round_id, verdict)
        # Reports and lists are unchanged (the entries' cursor format is new: compare the items).
        for label, old in DATA["reports"].items():
            name, path = label.split(" ", 1)
            new = _as_0004(http.get(path, headers=_headers(name)).get_json())
            if "items" in old:
                assert new["items"] == old["items"], label
            else:
                assert new == old, label
        # The key used before the migration replays its stored answer byte for byte.
        replay = DATA["replay"]
        again = http.post("/v1/rounds", json=replay["request"],
                          headers={**_headers("old-a"), "Idempotency-Key": replay["key"]})
        assert again.status_code == replay["status"] and again.headers["Idempotent-Replayed"] == "true"
        assert again.get_data(as_text=True) == replay["body"]
        # And the chains go on: a new round and a void after the migrated records.
        body = dict(replay["request"], reference="after-0005")
        new = http.post("/v1/rounds", json=body, headers=_headers("old-a"))
        assert new.status_code == 201, new.get_json()
        head = DATA["reports"]["old-a /v1/audit/head"]
        assert new.get_json()["audit"]["previous_hash"] == head["hash"]
        assert new.get_json()["audit"]["sequence"] == head["sequence"] + 1
        void = http.post(f"/v1/rounds/{new.get_json()['id']}/void", json={"reason": "test"}, headers=_headers("old-a"))
        assert void.status_code == 200
        assert http.get("/v1/audit/verify", headers=_headers("old-a")).get_json()["ok"]
    finally:
        app.extensions["capsa"].db.dispose()


def test_migration_0005_keeps_every_record_hash_answer_and_report_of_schema_0004(old_db):
    upgrade(old_db)
    _check_everything_the_old_service_answered(old_db)


def test_migration_0005_goes_down_to_0004_with_the_columns_rebuilt_and_up_again(old_db):
    upgrade(old_db)
    downgrade(old_db, "0004")
    engine = create_engine(normalise_url(old_db))
    meta = MetaData()
    meta.reflect(engine)
    with engine.connect() as conn:
        for name in ("rounds", "round_players", "round_pairs", "round_voids", "chain_records", "ledger_lines"):
            assert conn.execute(meta.tables[name].select()).all(), name
        docs = {r.id: r.document for r in conn.execute(meta.tables["rounds"].select())}
        voids = {r.round_id for r in conn.execute(meta.tables["round_voids"].select())}
    engine.dispose()
    assert set(docs) == set(DATA["documents"])
    for round_id, document in docs.items():
        parsed = json.loads(document) if isinstance(document, str) else document
        old = DATA["documents"][round_id]
        assert parsed == {k: v for k, v in old.items() if k not in ("id", "created_at", "status", "void", "audit")}
        assert (round_id in voids) == (old["status"] == "void")
    upgrade(old_db)
    _check_everything_the_old_service_answered(old_db)
