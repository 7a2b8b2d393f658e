"""Receipts, signed heads, the public keys and the chain export.

- `keys`: the public half of the keyring (`GET /v1/audit/keys`), what an auditor pins.
- `signed_head`: the client's chain head signed now (`GET /v1/audit/head`).
- `export_lines`: the client's records as NDJSON, one record a line, read in short pages
  so memory stays bounded whatever the range (`GET /v1/audit/export`, `capsa audit export`).
- `sign_pending`: the one-off step that gives every record stored without a receipt its
  receipt, once a key exists (`capsa keys create`, `capsa db upgrade`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import orjson

from service.adapters.records import StoredRecord
from service.adapters.replicas import AsOf, report
from service.adapters.uow import Database, UnitOfWork
from service.domain.audit import GENESIS_HASH, chain_hash, known_record_time, timestamp
from service.domain.export_check import EXPORT_FORMAT
from service.domain.signing import b64, head_message
from service.services.clock import rfc3339, utcnow_ms
from service.services.errors import ChainBroken

log = logging.getLogger(__name__)

EXPORT_PAGE = 1000  # records read per query while exporting
EXPORT_DEFAULT_LIMIT = 10_000  # records an export request carries unless it asks otherwise
EXPORT_MAX_LIMIT = 50_000  # at most: a request ends well within a sync worker's 30 s
# An answer's bytes, at most (a line over it goes alone): it fits whole in the temp file nginx
# buffers an export in (320 MiB), so a slow reader never holds a worker, whose timeout would
# cut the answer short. A record is up to a request's size: 50,000 could be gigabytes.
EXPORT_MAX_BYTES = 256 * 1024 * 1024
EXPORT_LINE_MAX_EXTRA = 512  # a line's bytes besides its record's, at most (a test holds it)


def keys(db: Database) -> dict[str, Any]:
    """Every public key of the keyring, oldest first, with kid, created and retired."""
    keyring = db.keyring
    return {"keys": [] if keyring is None else keyring.public_json()["keys"]}


def signed_head(db: Database, client_id: str) -> dict[str, Any]:
    """The chain head (sequence 0 and the genesis hash before the first record), signed at
    this moment with the active key; `kid` and `signature` are null without a key."""
    with db.unit_of_work() as uow:
        h = uow.chain.head(client_id)
        last = uow.chain.records(client_id, h.sequence, h.sequence + 1, complete=False) if h.sequence else []
    # The head row is a copy: signed as it is, a row set to any sequence and hash would
    # become the service's word. It must name the last record, whose bytes hash to it.
    vouched = (
        chain_hash(last[0].previous_hash, last[0].canonical) == last[0].hash == h.hash if last
        else h.sequence == 0 and h.hash == GENESIS_HASH
    )
    if not vouched:
        log.error("chain head of %s at sequence %d (%s) matches no stored record: not signed", client_id,
                  h.sequence, h.hash)
        raise ChainBroken(
            f"the chain head (sequence {h.sequence}) does not match the record stored there, so it was not "
            "signed: verify the chain (GET /v1/audit/verify)"
        )
    signed_at = timestamp(utcnow_ms())
    kid = signature = None
    keyring = db.keyring
    if keyring is not None and keyring.active is not None:
        kid, raw = keyring.sign(head_message(client_id, h.sequence, h.hash, signed_at))
        signature = b64(raw)
    return {
        "client_id": client_id,
        "sequence": h.sequence,
        "hash": h.hash,
        "created_at": None if h.created_at is None else rfc3339(h.created_at),
        "signed_at": signed_at,
        "kid": kid,
        "signature": signature,
    }


def export_line(client_id: str, record: StoredRecord) -> bytes:
    """One NDJSON line (with its newline): the record's place and receipt, then under
    `record` the stored canonical bytes themselves, verbatim: they are JSON already, so the
    line stays JSON and a verifier hashes a slice of it, with nothing to unescape."""
    place = orjson.dumps(
        {
            "format": EXPORT_FORMAT,
            "client_id": client_id,
            "sequence": record.sequence,
            "kind": record.kind,
            "round": record.round_id,
            "previous_hash": record.previous_hash,
            "hash": record.hash,
            "kid": record.kid,
            "signature": None if record.signature is None else b64(record.signature),
        }
    )
    return place[:-1] + b',"record":' + record.canonical + b"}\n"


@dataclass(frozen=True)
class Export:
    """An export request's range, checked before the first byte is sent."""

    client_id: str
    from_sequence: int
    stop: int  # exclusive
    head: int
    next_from_sequence: int | None
    as_of: AsOf | None = None  # the snapshot `head` was read in (the route's; None: the CLI's)

    @property
    def count(self) -> int:
        return max(0, min(self.stop, self.head + 1) - self.from_sequence)


def plan_export(
    db: Database,
    client_id: str,
    from_sequence: int = 1,
    limit: int | None = EXPORT_DEFAULT_LIMIT,
    min_sequence: int | None = None,
    max_bytes: int | None = None,
) -> Export:
    """Records [from, from + limit) up to the head as it is now (on the reports' standby
    when it is current enough: `replicas.report`), and within `max_bytes` of NDJSON when
    given; `next_from_sequence` says where the next request continues while the chain goes
    on past them."""

    def plan(uow: UnitOfWork, as_of: AsOf) -> tuple[AsOf, int]:
        stop = as_of.sequence + 1 if limit is None else min(from_sequence + limit, as_of.sequence + 1)
        if max_bytes is not None and stop > from_sequence:
            stop = uow.chain.byte_stop(client_id, from_sequence, stop, max_bytes, EXPORT_LINE_MAX_EXTRA)
        return as_of, stop

    as_of, stop = report(db, client_id, plan, min_sequence=min_sequence)
    head = as_of.sequence
    nxt = stop if stop <= head else None
    return Export(client_id, from_sequence, max(stop, from_sequence), head, nxt, as_of)


def export_lines(db: Database, plan: Export, page: int = EXPORT_PAGE, *, settle: bool = False) -> Iterator[bytes]:
    """The planned records as NDJSON lines, `page` records per query (each its own short
    read), so memory holds one page whatever the range.

    With `settle` (`capsa audit export`, a process of its own): a record stored a moment ago
    may have its receipt still in its worker (stored within 0.5 s), signed with the key that
    worker holds, which after a rotation is not the key this process would remake it with
    (and without a keyring it can make none). A page holding such a record waits until the
    record is LOST_AFTER old, then is read again: its line carries the receipt the service
    answered; one lost with its worker is then remade with the keyring, if any, or `null`.
    The API does not wait: its workers remake a missing receipt with the keyring they sign
    with, and a service without a key has no receipt to wait for."""
    for low in range(plan.from_sequence, plan.stop, page):
        stop = min(low + page, plan.stop)
        records = report(db, plan.client_id, partial(_records, plan.client_id, low, stop, not settle),
                         pinned=plan.as_of)
        if settle and any(r.signature is None for r in records):
            wait = _receipt_wait(records, db.clock())
            if wait > 0:
                time.sleep(wait)
            if wait > 0 or db.keyring:  # a receipt stored meanwhile, or one the keyring remakes
                    records = report(db, plan.client_id, partial(_records, plan.client_id, low, stop, True),
                                 pinned=plan.as_of)
        yield b"".join(export_line(plan.client_id, r) for r in records)


def _receipt_wait(records: Sequence[StoredRecord], now: datetime) -> float:
    """Seconds until the youngest record without a receipt is LOST_AFTER old (0: none is)."""
    youngest = max((t for r in records if r.signature is None and (t := known_record_time(r.canonical)) is not None),
                   default=None)
    return 0.0 if youngest is None else min((youngest + LOST_AFTER - now).total_seconds(), LOST_AFTER.total_seconds())


def _records(client_id: str, start: int, stop: int, complete: bool, uow: UnitOfWork, _: AsOf) -> list[StoredRecord]:
    return uow.chain.records(client_id, start, stop, complete)


LOST_AFTER = timedelta(seconds=2)  # a worker stores its receipts within 0.5 s (its timer); missing after this, lost


@dataclass(frozen=True)
class PendingSigned:
    """What `sign_pending` did with the records it found without a receipt."""

    signed: int  # receipts made and stored
    young: int  # stored within LOST_AFTER: their workers may hold their receipts still
    unsignable: int  # no private key of their time here (`Keyring.key_at`): left unsigned
    # Of those signed, how many lie after a record of their client that had its receipt:
    # a receipt lost with its worker, a record stored by a node without a key, or a record
    # rewritten in the database since. Signing takes the database's bytes as they are
    # (docs/audit.md), so the command says how many to check against a head kept before.
    after_signed: int = 0

    def __str__(self) -> str:
        said = f"signed {self.signed} records that had no receipt"
        if self.after_signed:
            said += (f" ({self.after_signed} of them after records already signed: receipts lost, records stored "
                     "without a key, or records rewritten in the database; check the chain against a signed head "
                     "kept from before with verify-file --head)")
        if self.young:
            said += f"; {self.young} stored in the last {LOST_AFTER.seconds} s left to their workers"
        if self.unsignable:
            said += f"; {self.unsignable} left unsigned: no private key here signs records of their time"
        return said


def sign_pending(
    db: Database, client_id: str | None = None, progress: Callable[[int], None] | None = None
) -> PendingSigned:
    """Give every record without a receipt its receipt (all clients, or one). Each record gets
    the key that signed records of its time (`Keyring.key_at`): what the service answers on
    first read. A record stored within LOST_AFTER of now is left alone: its worker may hold
    its receipt, made with the key that worker holds (a rotation does not reach a running
    worker), and stores it in a moment; one lost is the sweeper's."""
    keyring = db.keyring
    if keyring is None or not len(keyring):
        return PendingSigned(0, 0, 0)
    signed = young = unsignable = after_signed = 0
    since = db.clock() - LOST_AFTER
    after = ("", 0)
    first_signed: dict[str, int | None] = {}  # each client's first record with a receipt, before this run
    while True:
        with db.unit_of_work() as uow:
            batch = uow.signatures.unsigned(client_id, after, EXPORT_PAGE)
            for client in {r[0] for r in batch} - first_signed.keys():
                first_signed[client] = uow.signatures.first_signed(client)
        if not batch:
            return PendingSigned(signed, young, unsignable, after_signed)
        after = (batch[-1][0], batch[-1][1])
        old = [r for r in batch if not _stored_since(r[2], since)]
        young += len(batch) - len(old)
        # A record no key here may sign (`Keyring.key_at` None) is left out of what is stored.
        made = db.sign_records(keyring, old) if old else 0
        signed += made
        unsignable += len(old) - made
        if made:  # of those tried (at most as many as were signed)
            following = sum(1 for r in old if (first := first_signed[r[0]]) is not None and r[1] > first)
            after_signed += min(following, made)
        if progress is not None:
            progress(signed)


def _stored_since(canonical: bytes, since: datetime) -> bool:
    """Whether the record's own time is `since` or later (a record without one is not)."""
    at = known_record_time(canonical)
    return at is not None and at >= since


class LostReceipts:
    """`capsa sweep`'s part that remakes the receipts lost with a worker killed before its
    next write or its timer stored them: a read makes a missing receipt only within 5
    minutes of its record, so without this a replay of the same Idempotency-Key after that
    would answer unsigned what it first answered signed. Each pass looks at the records each
    client stored since the last one (by sequence: the keys' ranges, no scan); the first
    looks back over the read window, since a crashed host loses its workers' unstored
    receipts and its sweeper at once."""

    def __init__(self) -> None:
        self.checked: dict[str, int] | None = None

    def sweep(self, db: Database) -> int:
        """One pass: how many receipts were remade."""
        if db.keyring is None or not len(db.keyring):
            return 0
        with db.unit_of_work() as uow:
            heads = uow.chain.heads()
            if self.checked is None:  # from the start of the window on
                self.checked = {c: min(head, uow.signatures.window_start(c)) for c, head in heads.items()}
        made = 0
        for client_id, head in heads.items():
            after = self.checked.get(client_id, 0)  # a client new since the first pass: from its start
            if head <= after:
                continue
            with db.unit_of_work() as uow:
                n, self.checked[client_id] = uow.signatures.remake_lost(client_id, after, head, LOST_AFTER)
            made += n
        return made


__all__ = [
    "EXPORT_DEFAULT_LIMIT",
    "EXPORT_MAX_LIMIT",
    "Export",
    "LostReceipts",
    "export_line",
    "export_lines",
    "keys",
    "plan_export",
    "sign_pending",
    "signed_head",
]
