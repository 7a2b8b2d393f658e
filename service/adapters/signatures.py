"""Receipts as stored: one Ed25519 signature per chain record, read with it, made once.

The write path signs a record as soon as its hash is known (`sign`) and stores the receipt
beside it: in the same transaction on SQLite, where the hash is computed in Python. On
PostgreSQL, whose one-statement write computes the hash in the database, the receipt is
signed right after that statement and stored by the process's next write statement, or
by a timer when none comes (`pending_receipts`); inside a larger transaction, in it. A
receipt whose write was lost (its worker killed first) is made on a read by `complete`
within minutes of the record's storing, with the key that was active when the record was
stored: Ed25519 being deterministic, that is the receipt the service answered when it
stored the record. Older records without one (stored before receipts existed, or while
the service ran without a key) are signed by the operator (`sign_pending`), never on a
read: a read does not sign what the service did not just store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import Engine, func, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from service.domain.audit import known_record_time, timestamp
from service.domain.signing import Keyring, receipt_message

from .models import ChainRecord, ChainSignature, Round
from .records import StoredRecord
from .transactions import Transaction

# A receipt stored in the transaction that wrote its record (a Big Two game's last move).
PG_STORE = (
    "INSERT INTO chain_signatures (client_id, sequence, kid, signature) VALUES (%s, %s, %s, %s) "
    "ON CONFLICT DO NOTHING"
)


def signs(keyring: Keyring | None) -> bool:
    """Whether records stored with this keyring get a receipt (`sign` makes one)."""
    return keyring is not None and keyring.active is not None


def sign(
    keyring: Keyring | None, client_id: str, sequence: int, hash_: str, at: datetime
) -> tuple[str | None, bytes | None]:
    """(kid, signature) of a new record stored at `at`, with the key that signs records of
    that time (`Keyring.key_at`: the one a lost receipt is remade with, on any node with this
    keyring, so the answer and every remake are the same bytes, whatever the clocks of the
    node and of the host that made the key); (None, None) without an active key."""
    if keyring is None or keyring.active is None:
        return None, None
    # None only for a time no key here may sign (an active key made ahead of this node's
    # clock, past the skew allowed): the active key signs, as the node has no other.
    key = keyring.key_at(timestamp(at)) or keyring.active
    return keyring.sign(receipt_message(client_id, sequence, hash_), key.kid)


def store_pg(cursor: Any, client_id: str, sequence: int, kid: str, signature: bytes) -> None:
    """Store a receipt in the transaction of the psycopg cursor that just wrote its record."""
    cursor.execute(PG_STORE, (client_id, sequence, kid, signature))


def _insert(engine: Engine) -> Any:
    return (postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert)(ChainSignature)


class SignatureRepository:
    """Receipts of a client's records."""

    def __init__(self, transaction: Transaction) -> None:
        self.transaction = transaction

    @property
    def session(self) -> Session:
        return self.transaction.session

    @property
    def keyring(self) -> Keyring | None:
        return self.transaction.db.keyring

    def unsigned(self, client_id: str | None, after: tuple[str, int], limit: int) -> list[tuple[str, int, bytes, str]]:
        """(client, sequence, canonical, hash) of records without a receipt, in key order
        after `after`; for `sign_pending`."""
        q = (
            select(ChainRecord.client_id, ChainRecord.sequence, ChainRecord.canonical, ChainRecord.hash)
            .outerjoin(
                ChainSignature,
                (ChainSignature.client_id == ChainRecord.client_id) & (ChainSignature.sequence == ChainRecord.sequence),
            )
            .where(ChainSignature.sequence.is_(None))
            .where(tuple_(ChainRecord.client_id, ChainRecord.sequence) > tuple_(*after))
            .order_by(ChainRecord.client_id, ChainRecord.sequence)
            .limit(limit)
        )
        if client_id is not None:
            q = q.where(ChainRecord.client_id == client_id)
        return [(r[0], r[1], bytes(r[2]), r[3]) for r in self.session.execute(q)]

    def first_signed(self, client_id: str) -> int | None:
        """The sequence of the client's first record with a stored receipt (None: none has
        one), by the receipts' key."""
        return self.session.scalar(
            select(func.min(ChainSignature.sequence)).where(ChainSignature.client_id == client_id)
        )

    def window_start(self, client_id: str) -> int:
        """Where a sweeper that has just started looks for lost receipts from: the sequence of
        the client's newest round stored before REMAKE_WINDOW (and a clock's drift) ago, by
        its time index; 0 when there is none. What lies before it is past the window."""
        since = self.transaction.db.clock() - REMAKE_WINDOW - _SKEW
        found = self.session.scalar(
            select(Round.sequence)
            .where(Round.client_id == client_id, Round.created_at < since)
            .order_by(Round.created_at.desc(), Round.id.desc())
            .limit(1)
        )
        return int(found or 0)

    def remake_lost(self, client_id: str, after: int, through: int, grace: timedelta) -> tuple[int, int]:
        """Receipts lost with their worker (killed before its next write or its timer stored
        them): of the client's records after..through without one, those stored more than
        `grace` and less than REMAKE_WINDOW before now are signed and stored, byte for byte
        what the first answer carried. Returns (how many were made, the sequence checked
        through: before the first record too young to tell, else `through`)."""
        keyring = self.keyring
        if keyring is None or not len(keyring) or through <= after:
            return 0, max(after, through)
        now = self.transaction.db.clock()
        lost, young = [], None
        for record in self.unsigned(client_id, (client_id, after), through - after):
            if record[1] > through:
                break
            at = known_record_time(record[2])
            if at is None or not _remakeable(at, now):
                continue  # not one a read would sign either
            if at <= now - grace:
                lost.append(record)
            elif young is None:
                young = record[1]
        made = store(self.transaction.db.engine, keyring, lost) if lost else {}
        return len(made), through if young is None else young - 1

    def complete(self, client_id: str, records: Sequence[StoredRecord | None]) -> list[StoredRecord | None]:
        """`records` with every missing receipt made and stored (when a key exists), of the
        records stored within REMAKE_WINDOW of now (by the time in their own bytes): a
        receipt lost with its worker. An older record without one is answered without it
        until the operator signs it (`sign_pending`): a read never signs a record the
        service did not just store, so one rewritten in the database gets no receipt so."""
        keyring = self.keyring
        if keyring is None or not len(keyring):  # nothing to sign with: no record's time is read
            return list(records)
        now = self.transaction.db.clock()
        missing = [r for r in records if r is not None and r.signature is None and _just_stored(r, now)]
        if not missing:
            return list(records)
        wanted = [(client_id, r.sequence, r.canonical, r.hash) for r in missing]
        # A read-only database (the reports' standby) never writes: the receipt is remade
        # in memory, the same bytes the primary stores on its first read.
        db = self.transaction.db
        made = made_receipts(keyring, wanted) if db.read_only else store(db.engine, keyring, wanted)
        return [
            r if r is None or r.signature is not None or (client_id, r.sequence) not in made
            else replace(r, kid=made[client_id, r.sequence][0], signature=made[client_id, r.sequence][1])
            for r in records
        ]


REMAKE_WINDOW = timedelta(minutes=5)  # a read makes a missing receipt for records this recent
_SKEW = timedelta(seconds=5)  # and not for one stamped later than now, beyond a clock's drift


def _just_stored(record: StoredRecord, now: datetime) -> bool:
    """Whether the record's own time (in its bytes) lies within REMAKE_WINDOW before now."""
    return _remakeable(known_record_time(record.canonical), now)


def _remakeable(at: datetime | None, now: datetime) -> bool:
    """A record stored at `at` may have its receipt made now: within REMAKE_WINDOW before it."""
    return at is not None and now - REMAKE_WINDOW <= at <= now + _SKEW




def _signed(keyring: Keyring, records: Iterable[tuple[str, int, bytes, str]]) -> list[dict[str, Any]]:
    """Each (client, sequence, canonical, hash) signed with the key active at its time."""
    rows = []
    for client_id, sequence, canonical, hash_ in records:
        key = keyring.key_at(str(orjson.loads(canonical).get("created_at", "")))
        if key is None:
            continue
        kid, signature = keyring.sign(receipt_message(client_id, sequence, hash_), key.kid)
        rows.append({"client_id": client_id, "sequence": sequence, "kid": kid, "signature": signature})
    return rows


def made_receipts(
    keyring: Keyring, records: Iterable[tuple[str, int, bytes, str]]
) -> dict[tuple[str, int], tuple[str, bytes]]:
    """The receipts of `records`, made in memory and stored nowhere (a read-only database)."""
    return {(r["client_id"], r["sequence"]): (r["kid"], r["signature"]) for r in _signed(keyring, records)}


def store(
    engine: Engine, keyring: Keyring, records: Iterable[tuple[str, int, bytes, str]]
) -> dict[tuple[str, int], tuple[str, bytes]]:
    """Sign each (client, sequence, canonical, hash) with the key active at its time, store
    the receipts that are still missing, and return the receipts now stored (whoever
    stored them first), in a short write transaction of its own."""
    rows = _signed(keyring, records)
    if not rows:
        return {}
    keys = [(r["client_id"], r["sequence"]) for r in rows]
    with engine.begin() as conn:
        conn.execute(_insert(engine).values(rows).on_conflict_do_nothing())
        found = conn.execute(
            select(ChainSignature.client_id, ChainSignature.sequence, ChainSignature.kid, ChainSignature.signature)
            .where(tuple_(ChainSignature.client_id, ChainSignature.sequence).in_(keys))
        ).all()
    return {(r[0], r[1]): (r[2], bytes(r[3])) for r in found}


__all__ = ["PG_STORE", "SignatureRepository", "made_receipts", "sign", "store", "store_pg"]
