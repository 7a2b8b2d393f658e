"""Migration 0008 (receipts) on rows the service wrote before it, on both engines.

The rows of schema 0004 (`data/rows_at_0004.json`, see test_db_migrate_0005.py) are loaded,
migrated to the head: no stored byte changes, every record is unsigned until the first key
exists, then the one-off step signs each once, with that key, and the receipts verify.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import MetaData, create_engine, func, inspect, select
from test_db_migrate_0005 import DATA, old_db  # noqa: F401  (the fixture)

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade
from service.adapters.models import ChainSignature
from service.adapters.uow import Database
from service.domain.audit import chain_hash
from service.domain.signing import Keyring, receipt_message
from service.services.audit import chains as audit
from service.services.audit import receipts
from service.services.clock import utcnow_ms


def _records(url: str) -> list[tuple[Any, ...]]:
    engine = create_engine(normalise_url(url))
    meta = MetaData()
    meta.reflect(engine)
    t = meta.tables["chain_records"]
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(select(t).order_by(t.c.client_id, t.c.sequence))]
    engine.dispose()
    return rows


def test_migration_0008_keeps_every_record_and_the_first_key_signs_them_once(old_db):  # noqa: F811
    upgrade(old_db, "0005")
    before = _records(old_db)
    upgrade(old_db)
    assert _records(old_db) == before  # not a byte of any record changed
    ring, key = Keyring().rotated(utcnow_ms())
    db = Database(old_db, keyring=ring)
    try:
        with db.unit_of_work() as uow:
            assert uow.session.scalar(select(func.count()).select_from(ChainSignature)) == 0
        assert receipts.sign_pending(db) == receipts.PendingSigned(signed=len(before), young=0, unsignable=0)
        assert receipts.sign_pending(db) == receipts.PendingSigned(0, 0, 0)  # once
        for client_id, sequence, _kind, _round, previous, hash_, canonical in [r[:7] for r in before]:
            assert chain_hash(previous, bytes(canonical)) == hash_
            with db.unit_of_work() as uow:
                record = uow.chain.record(client_id, sequence)
            assert record is not None and record.kid == key.kid
            assert ring.verify(key.kid, receipt_message(client_id, sequence, hash_), record.signature)
        for client_id in {r[0] for r in before}:
            assert audit.verify_chain(db, client_id).ok
    finally:
        db.dispose()


def test_migration_0008_goes_down_to_0005_and_up_again(old_db):  # noqa: F811
    upgrade(old_db)
    before = _records(old_db)
    downgrade(old_db, "0005")
    engine = create_engine(normalise_url(old_db))
    assert "chain_signatures" not in inspect(engine).get_table_names()
    engine.dispose()
    assert _records(old_db) == before
    upgrade(old_db)
    assert _records(old_db) == before
    assert len(before) == len(DATA["tables"]["chain_records"])
