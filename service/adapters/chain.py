"""The hash chain: appending a record at a client's head, reading records and heads.

`append` is the write path of every stored round and void. On PostgreSQL it is one
statement (`chain_pg`), run at commit: as its own one-statement transaction when the unit
of work did nothing else, else inside its transaction. On SQLite, whose writers are
serialised by BEGIN IMMEDIATE, it is a few statements in the unit of work's transaction,
and the record is hashed in Python.

Each record is signed as soon as its hash is known (its receipt, `signatures`): on SQLite
in the same transaction; on PostgreSQL right after the statement that hashed it, and the
receipt is stored by this process's next write statement (`pending_receipts`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy.orm import Session

from service.domain.audit import GENESIS_HASH, RecordKind, chain_hash, seal

from . import chain_pg, signatures
from .errors import CheckViolation, DealUsed, KeyTaken, ReferenceHeld
from .models import (
    ChainHead,
    ChainRecord,
    ChainSignature,
    Deal,
    IdempotencyRecord,
    LedgerLine,
    Round,
    is_void,
)
from .pending_receipts import Receipt
from .records import Appended, Claim, Head, NewRecord, StoredRecord
from .signatures import SignatureRepository
from .susun_games import SusunGameRepository
from .transactions import Transaction
from .translate import translated


class ChainRepository:
    """Records and heads of the clients' chains (reads are the same on every engine), in the
    unit of work's transaction; the records read come with their receipts (`signatures`)."""

    def __init__(self, transaction: Transaction, signatures: SignatureRepository) -> None:
        self.transaction = transaction
        self.signatures = signatures

    @property
    def session(self) -> Session:
        return self.transaction.session

    # -- writing -------------------------------------------------------------------------------

    def create_head(self, client_id: str) -> None:
        """The empty chain of a new client: its head is the genesis hash."""
        self.session.execute(
            insert(ChainHead).values(
                client_id=client_id, sequence=0, hash=GENESIS_HASH, previous_hash=GENESIS_HASH, created_at=None
            )
        )

    def append(
        self, record: NewRecord, claim: Claim | None = None, deal: str | None = None, take_reference: bool = False
    ) -> Appended:
        """Place `record` at the client's head; with `claim`, the Idempotency-Key is taken in
        the same transaction, and with `deal`, the deal is used (once); with
        `take_reference`, the round takes its reference (`references`), refused when a
        Capsa Susun game or another round holds it (a game's own round, which carries the
        game's, takes none).

        The returned `Appended` is filled when the statement has run: at once inside a
        transaction the unit of work already holds, else at commit (on PostgreSQL the
        statement is then the whole transaction). Raises, at the latest at commit:
        KeyTaken, DealUsed, ReferenceHeld, UniqueViolation (a used reference, a second void),
        CheckViolation (lines that do not sum to zero), LockTimeout.
        """
        raise NotImplementedError

    # -- reading -------------------------------------------------------------------------------

    def head(self, client_id: str) -> Head:
        row = self.session.execute(
            select(ChainHead.sequence, ChainHead.hash, ChainHead.created_at).where(
                ChainHead.client_id == client_id
            )
        ).first()
        return Head(0, GENESIS_HASH, None) if row is None else Head(row[0], row[1], row[2])

    def vouch(self, client_id: str, sequence: int) -> tuple[str | None, int, datetime | None]:
        """What a standby's head at `sequence` is checked against, in one statement: this
        database's hash of the client's record there (the genesis hash at 0; None when it has
        none), its head's sequence, and the time of the record after `sequence` (its line 0's;
        None when it has none)."""
        at = (
            select(ChainRecord.hash)
            .where(ChainRecord.client_id == client_id, ChainRecord.sequence == sequence)
            .scalar_subquery()
        )
        head = select(ChainHead.sequence).where(ChainHead.client_id == client_id).scalar_subquery()
        after = (
            select(LedgerLine.created_at)
            .where(LedgerLine.client_id == client_id, LedgerLine.sequence == sequence + 1, LedgerLine.line_no == 0)
            .scalar_subquery()
        )
        row = self.session.execute(select(at, head, after)).one()
        found = GENESIS_HASH if sequence == 0 else row[0]
        when = row[2]
        if when is not None and when.tzinfo is None:  # SQLite keeps naive UTC
            when = when.replace(tzinfo=UTC)
        return found, int(row[1] or 0), when

    def heads(self) -> dict[str, int]:
        """Every client's head sequence."""
        return {str(c): int(n) for c, n in self.session.execute(select(ChainHead.client_id, ChainHead.sequence))}

    def stray(self, client_id: str, head: int) -> tuple[str, int] | None:
        """What lies outside the chain [1, head] of the client, where no record of it should
        be: ("record", sequence) of the nearest record before the first or past the head, else
        ("lines", sequence) of the nearest ledger lines before the first record or past the
        head; None when nothing does. Four probes of the keys' ends."""
        records = ChainRecord.client_id == client_id
        before = self.session.scalar(select(func.max(ChainRecord.sequence)).where(records, ChainRecord.sequence < 1))
        if before is not None:
            return "record", int(before)
        past = self.session.scalar(select(func.min(ChainRecord.sequence)).where(records, ChainRecord.sequence > head))
        if past is not None:
            return "record", int(past)
        lines = LedgerLine.client_id == client_id
        below = self.session.scalar(select(func.max(LedgerLine.sequence)).where(lines, LedgerLine.sequence < 1))
        if below is not None:
            return "lines", int(below)
        after = self.session.scalar(select(func.min(LedgerLine.sequence)).where(lines, LedgerLine.sequence > head))
        return None if after is None else ("lines", int(after))

    def record(self, client_id: str, sequence: int) -> StoredRecord | None:
        row = self.session.execute(
            with_receipt(
                select(*RECORD_COLUMNS)
            ).where(ChainRecord.client_id == client_id, ChainRecord.sequence == sequence)
        ).first()
        return None if row is None else self.signatures.complete(client_id, [stored_record(row)])[0]

    def records(self, client_id: str, start: int, stop: int, complete: bool = True) -> list[StoredRecord]:
        """Records [start, stop) in order, with their receipts (missing ones made, unless not
        `complete`: then as stored)."""
        rows = self.session.execute(
            with_receipt(
                select(*RECORD_COLUMNS)
            )
            .where(ChainRecord.client_id == client_id, ChainRecord.sequence >= start, ChainRecord.sequence < stop)
            .order_by(ChainRecord.sequence)
        ).all()
        stored = [stored_record(r) for r in rows]
        if not complete:
            return stored
        found = self.signatures.complete(client_id, stored)
        return [r for r in found if r is not None]

    def byte_stop(self, client_id: str, start: int, stop: int, budget: int, per_record: int) -> int:
        """Where records [start, stop) must stop for their bytes (each its canonical bytes plus
        `per_record`) to stay within `budget`: the first sequence past it, at least start + 1
        (one record goes whatever its size), or `stop` when they all fit."""
        total = func.sum(func.length(ChainRecord.canonical) + per_record).over(order_by=ChainRecord.sequence)
        running = (
            select(ChainRecord.sequence, total.label("total"))
            .where(ChainRecord.client_id == client_id, ChainRecord.sequence >= start, ChainRecord.sequence < stop)
            .subquery()
        )
        first = self.session.scalar(
            select(running.c.sequence).where(running.c.total > budget).order_by(running.c.sequence).limit(1)
        )
        return stop if first is None else max(int(first), start + 1)

    def of_round(self, client_id: str, round_id: str, kind: str) -> StoredRecord | None:
        """The record of a round (kind `round`, at the round's sequence) or of its void."""
        q = with_receipt(
            select(
                ChainRecord.sequence,
                ChainRecord.kind,
                ChainRecord.round_id,
                ChainRecord.previous_hash,
                ChainRecord.hash,
                ChainRecord.canonical,
                ChainSignature.kid,
                ChainSignature.signature,
            )
        )
        if kind == RecordKind.ROUND:
            q = q.join(
                Round, and_(Round.client_id == ChainRecord.client_id, Round.sequence == ChainRecord.sequence)
            ).where(
                Round.id == round_id,
                Round.client_id == client_id,
                ChainRecord.round_id == round_id,
                ChainRecord.kind == RecordKind.ROUND,
            )
        else:
            q = q.where(ChainRecord.round_id == round_id, is_void(), ChainRecord.client_id == client_id)
        row = self.session.execute(q).first()
        return None if row is None else self.signatures.complete(client_id, [stored_record(row)])[0]

    def first_missing(self, client_id: str) -> int:
        """The first sequence (from 1) with no stored record: one past the last of an unbroken
        chain, else the first gap. Reads only sequences (the primary key)."""
        if self.session.scalar(
            select(ChainRecord.sequence).where(ChainRecord.client_id == client_id, ChainRecord.sequence == 1)
        ) is None:
            return 1
        after = ChainRecord.__table__.alias("after")
        gap = self.session.scalar(
            select(func.min(ChainRecord.sequence + 1)).where(
                ChainRecord.client_id == client_id,
                ~select(after.c.sequence)
                .where(after.c.client_id == ChainRecord.client_id, after.c.sequence == ChainRecord.sequence + 1)
                .exists(),
            )
        )
        return 1 if gap is None else int(gap)

    def hash_before(self, client_id: str, sequence: int) -> str | None:
        """The stored hash of record `sequence - 1` (genesis before 1); None if missing."""
        if sequence <= 1:
            return GENESIS_HASH
        return self.session.scalar(
            select(ChainRecord.hash).where(
                ChainRecord.client_id == client_id, ChainRecord.sequence == sequence - 1
            )
        )


# A stored record with its receipt: select(*RECORD_COLUMNS) through `with_receipt`, read
# with `stored_record` (the chain, and the webhook events, which are the chain's records).
RECORD_COLUMNS = (
    ChainRecord.sequence,
    ChainRecord.kind,
    ChainRecord.round_id,
    ChainRecord.previous_hash,
    ChainRecord.hash,
    ChainRecord.canonical,
    ChainSignature.kid,
    ChainSignature.signature,
)


# A record's receipt looked up by key, per record (scalar subqueries): for reads that page
# through a client's records from some sequence on, where a join's plan depends on what the
# planner knows of the tables (see `webhooks.RECORDS_BY_KEY`).
_SIGNED = and_(ChainSignature.client_id == ChainRecord.client_id, ChainSignature.sequence == ChainRecord.sequence)
RECORD_COLUMNS_BY_KEY = (
    *RECORD_COLUMNS[:6],
    select(ChainSignature.kid).where(_SIGNED).correlate(ChainRecord).scalar_subquery(),
    select(ChainSignature.signature).where(_SIGNED).correlate(ChainRecord).scalar_subquery(),
)


def with_receipt(q: Any) -> Any:
    return q.outerjoin(ChainSignature, _SIGNED)


def stored_record(row: Any) -> StoredRecord:
    return StoredRecord(row[0], row[1], row[2], row[3], row[4], row[5], row[6], None if row[7] is None else bytes(row[7]))


class PostgresChain(ChainRepository):
    def append(
        self, record: NewRecord, claim: Claim | None = None, deal: str | None = None, take_reference: bool = False
    ) -> Appended:
        appended = Appended()
        db = self.transaction.db
        keyring = db.keyring
        prepare = db.postgres.prepare  # never through pgbouncer

        def run(cursor: Any) -> None:
            alone = cursor.connection.autocommit  # the statement is its own transaction
            # Receipts signed after this process's previous writes ride in this statement:
            # once it has run, they are committed with it (alone only: inside a larger
            # transaction, success now is not commit).
            riding = db.receipts.take() if alone else []
            sql, params = chain_pg.parameters(record, claim, deal, riding, take_reference, signatures.signs(keyring))
            try:
                row = cursor.execute(sql, params, prepare=prepare).fetchone()
            except BaseException:
                db.receipts.put_back(riding)
                raise
            if row is None:
                raise RuntimeError(f"client {record.client_id!r} has no chain head")
            appended.sequence, appended.hash, appended.previous_hash = row
            appended.done = True
            kid, signature = signatures.sign(keyring, record.client_id, appended.sequence, appended.hash, record.created_at)
            if kid is not None and signature is not None:
                appended.kid, appended.signature = kid, signature
                if alone:
                    db.receipts.add(Receipt(record.client_id, appended.sequence, kid, signature))
                else:
                    signatures.store_pg(cursor, record.client_id, appended.sequence, kid, signature)

        if self.transaction.in_transaction():
            # Part of a larger transaction (a Big Two game's last move): run it now.
            with translated():
                raw = self.session.connection().connection.driver_connection
                with raw.cursor() as cursor:  # type: ignore[union-attr]  # a live DBAPI connection
                    run(cursor)
        else:
            self.transaction.defer(run)  # alone: at commit, as a one-statement transaction
        return appended


class SqliteChain(ChainRepository):
    def append(
        self, record: NewRecord, claim: Claim | None = None, deal: str | None = None, take_reference: bool = False
    ) -> Appended:
        with translated():
            return self._append(record, claim, deal, take_reference)

    def _append(self, record: NewRecord, claim: Claim | None, deal: str | None, take_reference: bool) -> Appended:
        conn = self.session.connection()  # BEGIN IMMEDIATE: this transaction is the only writer
        reference = None if record.round is None else record.round.reference
        if claim is not None:
            same_key = (
                (IdempotencyRecord.client_id == record.client_id)
                & (IdempotencyRecord.method == claim.method)
                & (IdempotencyRecord.path == claim.path)
                & (IdempotencyRecord.key == claim.key)
            )
            existing = conn.execute(select(IdempotencyRecord.created_at).where(same_key)).first()
            if existing is not None:
                if existing[0] >= claim.expired_before:
                    raise KeyTaken(claim.key)
                conn.execute(delete(IdempotencyRecord).where(same_key))
            conn.execute(
                insert(IdempotencyRecord).values(
                    client_id=record.client_id,
                    method=claim.method,
                    path=claim.path,
                    key=claim.key,
                    request_hash=claim.request_hash,
                    status_code=claim.status_code,
                    resource=claim.resource,
                    created_at=record.created_at,
                )
            )
        if take_reference and reference is not None:  # in the order of the PostgreSQL statement's checks
            games_repo = SusunGameRepository(self.session)
            if not games_repo.take_reference(record.client_id, reference) or games_repo.reference_taken(
                record.client_id, reference
            ):
                raise ReferenceHeld(reference)
        if deal is not None:
            used = conn.execute(
                update(Deal)
                .where(Deal.id == deal, Deal.client_id == record.client_id, Deal.used_at.is_(None))
                .values(
                    used_at=record.created_at,
                    used_by=record.round_id,
                    revealed_at=func.coalesce(Deal.revealed_at, record.created_at),
                )
            )
            if not used.rowcount:
                raise DealUsed(deal)
        head = conn.execute(
            select(ChainHead.sequence, ChainHead.hash).where(ChainHead.client_id == record.client_id)
        ).first()
        if head is None:
            raise RuntimeError(f"client {record.client_id!r} has no chain head")
        sequence, previous = head[0] + 1, head[1]
        body = seal(record.unsealed, sequence)
        hash_ = chain_hash(previous, body)
        total = sum(line.amount for line in record.lines)
        if total:
            raise CheckViolation(
                "ledger_lines_balanced", f"ledger lines of record {sequence} sum to {total}, not 0"
            )
        if record.lines:
            conn.execute(
                insert(LedgerLine),
                [
                    {
                        "client_id": record.client_id,
                        "sequence": sequence,
                        "line_no": n,
                        "created_at": record.created_at,
                        "player_id": line.player_id,
                        "kind": line.kind,
                        "basis": line.basis,
                        "amount": line.amount,
                        "currency": record.currency,
                        "table_ref": record.table,
                        "points": line.points,
                        "winnings": line.winnings,
                    }
                    for n, line in enumerate(record.lines)
                ],
            )
        # After the lines: the database's own balance check runs on this insert.
        conn.execute(
            insert(ChainRecord).values(
                client_id=record.client_id,
                sequence=sequence,
                kind=record.kind,
                round_id=record.round_id,
                previous_hash=previous,
                hash=hash_,
                canonical=body,
            )
        )
        if record.round is not None:
            r = record.round
            conn.execute(
                insert(Round).values(
                    id=record.round_id,
                    client_id=record.client_id,
                    sequence=sequence,
                    game=r.game,
                    preset=r.preset,
                    table_ref=r.table,
                    reference=r.reference,
                    currency=r.currency,
                    created_at=record.created_at,
                )
            )
        kid, signature = signatures.sign(self.transaction.db.keyring, record.client_id, sequence, hash_, record.created_at)
        if kid is not None:
            conn.execute(
                insert(ChainSignature).values(
                    client_id=record.client_id, sequence=sequence, kid=kid, signature=signature
                )
            )
        conn.execute(
            update(ChainHead)
            .where(ChainHead.client_id == record.client_id)
            .values(sequence=sequence, hash=hash_, previous_hash=previous, created_at=record.created_at)
        )
        return Appended(sequence, hash_, previous, True, kid, signature)
