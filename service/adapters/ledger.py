"""Audit repository: the chain head lock, records, ledger lines, voids, reports, secrets.

Reports are SQL aggregates over indexed ledger columns; nothing here loads round documents
to add them up. The verifier reads the chain in sequence ranges (two queries per range,
never one per record).
"""

from __future__ import annotations

import secrets as _secrets
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import Date, Text, case, cast, func, insert, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from .ledger_models import ChainHead, ChainRecord, LedgerLine, RoundVoid, ServiceSecret
from .models import Round

GENESIS = "0" * 64


class UnbalancedLines(Exception):
    """The ledger lines of one record do not sum to zero (the in-code guard on SQLite)."""


@dataclass(frozen=True, slots=True)
class Head:
    sequence: int
    hash: str
    created_at: datetime | None


@dataclass(frozen=True, slots=True)
class AuditRef:
    sequence: int
    hash: str
    previous_hash: str


@dataclass(frozen=True, slots=True)
class VoidInfo:
    at: datetime
    reason: str
    sequence: int


@dataclass(frozen=True, slots=True)
class BookedLine:
    account: str
    kind: str
    amount: int
    rounds: int
    points: int
    winnings: int


@dataclass(frozen=True, slots=True)
class ChainRow:
    """A chain record joined with the live rows it was built from (None where missing)."""

    sequence: int
    kind: str
    round_id: str
    previous_hash: str
    hash: str
    canonical: bytes
    request: Any
    document: Any
    round_engine: str | None
    round_created: datetime | None
    void_reason: str | None
    void_engine: str | None
    void_created: datetime | None


@dataclass(frozen=True, slots=True)
class Totals:
    key: str | None
    rounds: int
    points: int
    result: int
    winnings: int
    fees: int
    net: int
    house: int


def _key(value: Any) -> str | None:
    return value.isoformat() if isinstance(value, date) else value


def _insert(session: Session, table: Any) -> Any:
    dialect = session.get_bind().dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)


class AuditRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    @property
    def dialect(self) -> str:
        return self.session.get_bind().dialect.name

    # -- writing ---------------------------------------------------------------------------

    def lock_head(self, client_id: str) -> Head:
        """The client's chain head, locked until commit (FOR UPDATE; SQLite writers hold
        the database lock from BEGIN IMMEDIATE). A new client's head row is made first."""
        conn = self.session.connection()
        locked = (
            select(ChainHead.sequence, ChainHead.hash, ChainHead.created_at)
            .where(ChainHead.client_id == client_id)
            .with_for_update()
        )
        # Every writer holds this lock until commit: one round trip, not two, once the
        # client has a head (the insert is needed only for its first record).
        row = conn.execute(locked).first()
        if row is None:
            conn.execute(
                _insert(self.session, ChainHead)
                .values(client_id=client_id, sequence=0, hash=GENESIS, created_at=None)
                .on_conflict_do_nothing(index_elements=["client_id"])
            )
            row = conn.execute(locked).one()
        return Head(row[0], row[1], row[2])

    def append(
        self,
        client_id: str,
        sequence: int,
        kind: str,
        round_id: str,
        previous_hash: str,
        hash_: str,
        canonical: bytes,
        created_at: datetime,
    ) -> None:
        """Insert a chain record and move the (locked) head to it."""
        conn = self.session.connection()
        conn.execute(
            insert(ChainRecord),
            [
                {
                    "client_id": client_id,
                    "sequence": sequence,
                    "kind": kind,
                    "round_id": round_id,
                    "previous_hash": previous_hash,
                    "hash": hash_,
                    "canonical": canonical,
                    "created_at": created_at,
                }
            ],
        )
        conn.execute(
            update(ChainHead)
            .where(ChainHead.client_id == client_id)
            .values(sequence=sequence, hash=hash_, created_at=created_at)
        )

    def add_lines(self, rows: Sequence[dict[str, Any]]) -> None:
        """Insert ledger lines; the lines of each record must sum to zero.

        PostgreSQL checks at commit (deferred constraint trigger); SQLite has no deferred
        triggers, so the same check runs here, inside the transaction, before commit."""
        if not rows:
            return
        conn = self.session.connection()
        conn.execute(insert(LedgerLine), list(rows))
        if self.dialect != "postgresql":
            for client_id, sequence in {(r["client_id"], r["sequence"]) for r in rows}:
                self.check_balanced(conn, client_id, sequence)

    @staticmethod
    def check_balanced(conn: Connection, client_id: str, sequence: int) -> None:
        total = conn.execute(
            select(func.coalesce(func.sum(LedgerLine.amount), 0)).where(
                LedgerLine.client_id == client_id, LedgerLine.sequence == sequence
            )
        ).scalar_one()
        if total != 0:
            raise UnbalancedLines(
                f"ledger lines of record {sequence} of client {client_id} sum to {total}, not 0"
            )

    def add_void(self, row: dict[str, Any]) -> None:
        self.session.connection().execute(insert(RoundVoid), [row])

    # -- reading rounds' audit and void ------------------------------------------------------

    def audits(self, round_ids: Sequence[str]) -> dict[str, AuditRef]:
        if not round_ids:
            return {}
        rows = self.session.execute(
            select(
                ChainRecord.round_id, ChainRecord.sequence, ChainRecord.hash, ChainRecord.previous_hash
            ).where(ChainRecord.round_id.in_(round_ids), ChainRecord.kind == "round")
        ).all()
        return {r[0]: AuditRef(r[1], r[2], r[3]) for r in rows}

    def voids(self, round_ids: Sequence[str]) -> dict[str, VoidInfo]:
        if not round_ids:
            return {}
        rows = self.session.execute(
            select(RoundVoid.round_id, RoundVoid.created_at, RoundVoid.reason, RoundVoid.sequence).where(
                RoundVoid.round_id.in_(round_ids)
            )
        ).all()
        return {r[0]: VoidInfo(r[1], r[2], r[3]) for r in rows}

    def record_lines(self, client_id: str, sequence: int) -> list[BookedLine]:
        """The lines of one record, in line order."""
        rows = self.session.execute(
            select(
                LedgerLine.account,
                LedgerLine.kind,
                LedgerLine.amount,
                LedgerLine.rounds,
                LedgerLine.points,
                LedgerLine.winnings,
            )
            .where(LedgerLine.client_id == client_id, LedgerLine.sequence == sequence)
            .order_by(LedgerLine.line_no)
        ).all()
        return [BookedLine(*r) for r in rows]

    def record(self, client_id: str, sequence: int) -> ChainRecord | None:
        return self.session.get(ChainRecord, (client_id, sequence))

    def head(self, client_id: str) -> Head:
        row = self.session.execute(
            select(ChainHead.sequence, ChainHead.hash, ChainHead.created_at).where(
                ChainHead.client_id == client_id
            )
        ).first()
        return Head(0, GENESIS, None) if row is None else Head(row[0], row[1], row[2])

    def hash_before(self, client_id: str, sequence: int) -> str | None:
        """The stored hash of record `sequence - 1` (genesis before 1); None if missing."""
        if sequence <= 1:
            return GENESIS
        return self.session.scalar(
            select(ChainRecord.hash).where(
                ChainRecord.client_id == client_id, ChainRecord.sequence == sequence - 1
            )
        )

    # -- verification ----------------------------------------------------------------------

    def chain_rows(self, client_id: str, start: int, stop: int) -> list[ChainRow]:
        """Records with start <= sequence < stop, joined with their live round or void.

        `request` and `document` are the columns' stored JSON text, not parsed."""
        is_round = ChainRecord.kind == "round"
        q = (
            select(
                ChainRecord.sequence,
                ChainRecord.kind,
                ChainRecord.round_id,
                ChainRecord.previous_hash,
                ChainRecord.hash,
                ChainRecord.canonical,
                cast(Round.request_json, Text),
                cast(Round.document, Text),
                Round.engine_version,
                Round.created_at,
                RoundVoid.reason,
                RoundVoid.engine_version,
                RoundVoid.created_at,
            )
            .select_from(ChainRecord)
            .outerjoin(
                Round,
                (Round.id == ChainRecord.round_id) & (Round.client_id == ChainRecord.client_id) & is_round,
            )
            .outerjoin(
                RoundVoid,
                (RoundVoid.round_id == ChainRecord.round_id)
                & (RoundVoid.client_id == ChainRecord.client_id)
                & (ChainRecord.kind == "void"),
            )
            .where(
                ChainRecord.client_id == client_id,
                ChainRecord.sequence >= start,
                ChainRecord.sequence < stop,
            )
            .order_by(ChainRecord.sequence)
        )
        return [ChainRow(*r) for r in self.session.execute(q)]

    def chain_lines(self, client_id: str, start: int, stop: int) -> Iterator[tuple[int, str, str, int, str]]:
        """(sequence, account, kind, amount, currency) of records in the range, in order."""
        q = (
            select(LedgerLine.sequence, LedgerLine.account, LedgerLine.kind, LedgerLine.amount, LedgerLine.currency)
            .where(
                LedgerLine.client_id == client_id,
                LedgerLine.sequence >= start,
                LedgerLine.sequence < stop,
            )
            .order_by(LedgerLine.sequence, LedgerLine.line_no)
        )
        for r in self.session.execute(q):
            yield (r[0], r[1], r[2], r[3], r[4])

    # -- reports ---------------------------------------------------------------------------

    def _period(
        self, q: Any, client_id: str, currency: str, since: datetime | None, until: datetime | None
    ) -> Any:
        q = q.where(LedgerLine.client_id == client_id, LedgerLine.currency == currency)
        if since is not None:
            q = q.where(LedgerLine.created_at >= since)
        if until is not None:
            q = q.where(LedgerLine.created_at < until)
        return q

    @staticmethod
    def _sums(rounds: ColumnElement[Any]) -> list[ColumnElement[Any]]:
        player = LedgerLine.player_id.is_not(None)

        def total(expr: ColumnElement[Any]) -> ColumnElement[Any]:
            return func.coalesce(func.sum(expr), 0)

        return [
            total(rounds),
            total(LedgerLine.points),
            total(case((LedgerLine.basis == "settlement", LedgerLine.amount), else_=0)),
            total(LedgerLine.winnings),
            total(case(((LedgerLine.basis == "fee") & player, -LedgerLine.amount), else_=0)),
            total(case((player, LedgerLine.amount), else_=0)),
            total(case((player, literal(0)), else_=LedgerLine.amount)),
        ]

    def player_totals(
        self, client_id: str, player: str, currency: str, since: datetime | None, until: datetime | None
    ) -> Totals:
        q = select(*self._sums(LedgerLine.rounds)).where(LedgerLine.player_id == player)
        row = self.session.execute(self._period(q, client_id, currency, since, until)).one()
        return Totals(player, *(int(v) for v in row))

    def summary(
        self, client_id: str, currency: str, since: datetime | None, until: datetime | None, group_by: str
    ) -> list[Totals]:
        """Rows per group; for `player` the house's lines form the group with key None."""
        if group_by == "player":
            key: ColumnElement[Any] = LedgerLine.player_id
            rounds: ColumnElement[Any] = LedgerLine.rounds
        else:
            key = LedgerLine.table_ref if group_by == "table" else self._day()
            rounds = case((LedgerLine.line_no == 0, LedgerLine.rounds), else_=0)
        q = select(key, *self._sums(rounds)).group_by(key).order_by(key)
        rows = self.session.execute(self._period(q, client_id, currency, since, until)).all()
        return [Totals(_key(r[0]), *(int(v) for v in r[1:])) for r in rows]

    def _day(self) -> ColumnElement[Any]:
        if self.dialect == "postgresql":
            # date() of the UTC wall time: cheaper per row than to_char; keys become text below.
            return cast(func.timezone("UTC", LedgerLine.created_at), Date)
        return func.substr(LedgerLine.created_at, 1, 10)  # naive UTC text on SQLite

    def entries(
        self,
        client_id: str,
        currency: str,
        *,
        player: str | None,
        round_id: str | None,
        since: datetime | None,
        until: datetime | None,
        after: tuple[datetime, int] | None,
        limit: int,
    ) -> list[tuple[int, str, int, datetime, str, str, int, str]]:
        """(id, round, sequence, created_at, account, kind, amount, currency), newest first."""
        q = select(
            LedgerLine.id,
            LedgerLine.round_id,
            LedgerLine.sequence,
            LedgerLine.created_at,
            LedgerLine.account,
            LedgerLine.kind,
            LedgerLine.amount,
            LedgerLine.currency,
        )
        q = self._period(q, client_id, currency, since, until)
        if player is not None:
            q = q.where(LedgerLine.player_id == player)
        if round_id is not None:
            q = q.where(LedgerLine.round_id == round_id)
        if after is not None:
            when, line_id = after
            q = q.where(
                (LedgerLine.created_at < when) | ((LedgerLine.created_at == when) & (LedgerLine.id < line_id))
            )
        q = q.order_by(LedgerLine.created_at.desc(), LedgerLine.id.desc()).limit(limit)
        return [tuple(r) for r in self.session.execute(q)]  # type: ignore[misc]

    # -- secrets ---------------------------------------------------------------------------

    def secret(self, name: str, now: datetime) -> str:
        """The named secret, made once (the first writer wins; everyone reads the same)."""
        conn = self.session.connection()
        conn.execute(
            _insert(self.session, ServiceSecret)
            .values(name=name, value=_secrets.token_hex(32), created_at=now)
            .on_conflict_do_nothing(index_elements=["name"])
        )
        return str(conn.execute(select(ServiceSecret.value).where(ServiceSecret.name == name)).scalar_one())


def line_rows(
    *,
    client_id: str,
    round_id: str,
    sequence: int,
    created_at: datetime,
    currency: str,
    table: str | None,
    lines: Iterable[tuple[str, str, str, int, int, int, int]],
) -> list[dict[str, Any]]:
    """Rows for `add_lines` from (account, kind, basis, amount, rounds, points, winnings)."""
    out = []
    for n, (account, kind, basis, amount, rounds, points, winnings) in enumerate(lines):
        out.append(
            {
                "client_id": client_id,
                "round_id": round_id,
                "sequence": sequence,
                "line_no": n,
                "created_at": created_at,
                "account": account,
                "player_id": account.removeprefix("player:") if account.startswith("player:") else None,
                "kind": kind,
                "basis": basis,
                "amount": amount,
                "currency": currency,
                "table_ref": table,
                "rounds": rounds,
                "points": points,
                "winnings": winnings,
            }
        )
    return out


_PG_RECORDS = """
SELECT c.sequence, c.kind, c.round_id, c.previous_hash, c.hash,
       CASE WHEN sha256(convert_to(c.previous_hash, 'UTF8') || c.canonical) = decode(c.hash, 'hex')
            THEN NULL ELSE c.canonical END,
       r.request_json::text, r.document::text, r.engine_version, r.created_at,
       v.reason, v.engine_version, v.created_at
  FROM chain_records c
  LEFT JOIN rounds r ON c.kind = 'round' AND r.id = c.round_id AND r.client_id = c.client_id
  LEFT JOIN round_voids v ON c.kind = 'void' AND v.round_id = c.round_id AND v.client_id = c.client_id
 WHERE c.client_id = %s AND c.sequence >= %s AND c.sequence < %s
 ORDER BY c.sequence
"""
_PG_LINES = """
SELECT sequence, account, kind, amount, currency FROM ledger_lines
 WHERE client_id = %s AND sequence >= %s AND sequence < %s
 ORDER BY sequence, line_no
"""

Page = tuple[list[ChainRow], list[tuple[int, str, str, int, str]]]


def chain_pages(db_engine: Any, client_id: str, start: int, stop: int, size: int) -> Iterator[Page]:
    """Pages of (records, lines) over [start, stop), in order, until a page has no record.

    On PostgreSQL two connections fetch the next pages while the caller checks this one
    (binary transfers, no ORM rows): detoasting the JSON columns is the server's main cost,
    and two backends spread it over two cores. The server hashes each record's stored
    canonical bytes itself and sends them only when they do not hash to the stored hash
    (`canonical` is None when they do). Elsewhere: one page at a time, bytes always sent."""
    from concurrent.futures import ThreadPoolExecutor

    if db_engine.dialect.name != "postgresql":
        from sqlalchemy.orm import Session

        for low in range(start, stop, size):
            high = min(low + size, stop)
            with Session(db_engine) as session:
                repo = AuditRepository(session)
                rows = repo.chain_rows(client_id, low, high)
                lines = list(repo.chain_lines(client_id, low, high))
            yield rows, lines
            if not rows:
                return
        return

    raws = [db_engine.raw_connection() for _ in range(2)]
    free = list(raws)

    def fetch(low: int) -> Page:
        conn = free.pop()
        try:
            high = min(low + size, stop)
            cur = conn.driver_connection.cursor(binary=True)
            rows = [ChainRow(*r) for r in cur.execute(_PG_RECORDS, (client_id, low, high)).fetchall()]
            lines = cur.execute(_PG_LINES, (client_id, low, high)).fetchall()
            conn.driver_connection.rollback()
            return rows, lines
        finally:
            free.append(conn)

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            lows = iter(range(start, stop, size))
            pending = [pool.submit(fetch, low) for _, low in zip(range(2), lows)]
            while pending:
                rows, lines = pending.pop(0).result()
                nxt = next(lows, None)
                if rows and nxt is not None:
                    pending.append(pool.submit(fetch, nxt))
                yield rows, lines
                if not rows:
                    for f in pending:
                        f.cancel()
                    return
    finally:
        for conn in raws:
            conn.close()
