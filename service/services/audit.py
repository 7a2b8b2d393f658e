"""Voids and verification: void a round, re-verify one round, verify a client's chain."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from service.adapters.ledger import AuditRepository, ChainRow, chain_pages, line_rows
from service.adapters.uow import Database
from service.domain import audit as chain
from service.domain.errors import CapsaError, FieldError
from service.domain.version import ENGINE_VERSION

from .errors import Conflict, NotFound
from .ids import rfc3339, utcnow_ms
from .recording import RESCORERS, append_record, audit_json
from .rounds import render_stored

PAGE = 2000  # records per pair of queries while verifying
MAX_REASON = 500
MAX_SEQUENCE = 2**62  # beyond any chain, and within every engine's integer


def void(db: Database, client_id: str, round_id: str, reason: str) -> dict[str, Any]:
    """`POST /v1/rounds/{id}/void`: a new chained record with reversing lines; 409 twice."""
    with db.unit_of_work(write=True) as uow:
        repo = AuditRepository(uow.session)
        round_ = uow.rounds.get(client_id, round_id)
        if round_ is None:
            raise NotFound(f"no round {round_id!r}")
        head = repo.lock_head(client_id)  # serialises voids of one round too
        if repo.voids([round_id]):
            raise Conflict(
                f"round {round_id!r} is already void",
                errors=[FieldError("id", "already void; a round is voided once")],
            )
        original = repo.audits([round_id]).get(round_id)
        if original is None:
            raise Conflict(f"round {round_id!r} has no chain record to reverse")
        booked = repo.record_lines(client_id, original.sequence)
        reversals = chain.reversal_lines([chain.LedgerLine(b.account, b.kind, b.amount) for b in booked])
        now = utcnow_ms()
        request = {"reason": reason}
        audit = append_record(
            repo,
            client_id,
            head,
            kind="void",
            round_id=round_id,
            request=request,
            result=request,
            lines=reversals,
            currency=round_.currency,
            engine_version=ENGINE_VERSION,
            created_at=now,
        )
        repo.add_void(
            {
                "round_id": round_id,
                "client_id": client_id,
                "sequence": audit["sequence"],
                "reason": reason,
                "engine_version": ENGINE_VERSION,
                "created_at": now,
            }
        )
        repo.add_lines(
            line_rows(
                client_id=client_id,
                round_id=round_id,
                sequence=audit["sequence"],
                created_at=now,
                currency=round_.currency,
                table=round_.table_ref,
                lines=[
                    (r.account, chain.REVERSAL, b.kind, r.amount, -b.rounds, -b.points, -b.winnings)
                    for b, r in zip(booked, reversals)
                ],
            )
        )
        document = render_stored(uow, [round_])[0]
        uow.commit()
    return document


def _rebuild(row: ChainRow, lines: list[tuple[str, str, int, str]]) -> dict[str, Any] | None:
    """The record as the live rows say it should be; None when its round or void is gone."""
    if row.kind == "round":
        if row.round_created is None:
            return None
        request, result = _parsed(row.request), _parsed(row.document)
        engine, created = row.round_engine, row.round_created
    else:
        if row.void_created is None:
            return None
        request = result = {"reason": row.void_reason}
        engine, created = row.void_engine, row.void_created
    return {
        "sequence": row.sequence,
        "kind": row.kind,
        "round": row.round_id,
        "request": request,
        "result": result,
        "ledger_lines": [
            {"account": a, "kind": k, "amount": chain.money_text(m, c)} for a, k, m, c in lines
        ],
        "engine_version": engine,
        "created_at": chain.timestamp(created),
    }


def _parsed(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _spliced(row: ChainRow, lines: list[tuple[str, str, int, str]]) -> bytes | None:
    """The record's canonical bytes put together from the columns' stored text, unparsed.

    JSON columns hold sorted compact text (adapters.db.json_text), so for records written
    by this service this is exactly the hashed form. Any difference sends the record to the
    full rebuild (`_rebuild` + RFC 8785), which decides; this is only the cheap first try."""
    if row.kind == "round":
        if row.round_created is None or not isinstance(row.request, str) or not isinstance(row.document, str):
            return None
        request, result = row.request, row.document
        engine, created = row.round_engine, row.round_created
    else:
        if row.void_created is None:
            return None
        request = result = '{"reason":' + json.dumps(row.void_reason, ensure_ascii=False) + "}"
        engine, created = row.void_engine, row.void_created
    booked = ",".join(
        f'{{"account":"{a}","amount":"{chain.money_text(m, c)}","kind":"{k}"}}' for a, k, m, c in lines
    )
    return (
        f'{{"created_at":"{chain.timestamp(created)}","engine_version":"{engine}","kind":"{row.kind}",'
        f'"ledger_lines":[{booked}],"request":{request},"result":{result},'
        f'"round":"{row.round_id}","sequence":{row.sequence}}}'
    ).encode()


def _links(db: Database, client_id: str, start: int, stop: int) -> Iterator[chain.StoredLink]:
    """Stored links of [start, stop) with the bytes the live rows rebuild, page by page."""
    for rows, lines in chain_pages(db.engine, client_id, start, stop, PAGE):
        by_seq: dict[int, list[tuple[str, str, int, str]]] = defaultdict(list)
        for seq, account, kind, amount, currency in lines:
            by_seq[seq].append((account, kind, amount, currency))
        for row in rows:
            booked = by_seq.get(row.sequence, [])
            rebuilt = _spliced(row, booked)
            if row.canonical is None:
                # The server found the stored bytes hash to the stored hash: live rows that
                # hash to it too rebuild exactly those bytes (SHA-256), so skip sending them.
                if rebuilt is not None and chain.chain_hash(row.previous_hash, rebuilt) == row.hash:
                    yield chain.StoredLink(row.sequence, row.previous_hash, row.hash, rebuilt, rebuilt, True)
                    continue
                row = replace(row, canonical=_stored_bytes(db, client_id, row.sequence))
            if rebuilt != row.canonical:
                doc = _rebuild(row, booked)
                rebuilt = None if doc is None else chain.rebuilt_bytes(doc, row.canonical)
            yield chain.StoredLink(row.sequence, row.previous_hash, row.hash, row.canonical, rebuilt)


def _stored_bytes(db: Database, client_id: str, sequence: int) -> bytes:
    with db.unit_of_work() as uow:
        record = AuditRepository(uow.session).record(client_id, sequence)
        return b"" if record is None else record.canonical


@dataclass(frozen=True)
class ChainReport:
    ok: bool
    records_checked: int
    first_bad_sequence: int | None
    reason: str | None
    next_from_sequence: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "records_checked": self.records_checked,
            "first_bad_sequence": self.first_bad_sequence,
            "reason": self.reason,
            "next_from_sequence": self.next_from_sequence,
        }


def verify_chain(
    db: Database, client_id: str, from_sequence: int = 1, limit: int | None = None
) -> ChainReport:
    """Rebuild each record of [from, from + limit) from the live rows and check the chain.

    Without `limit` the rest of the chain is checked, and its end must be the stored head
    (so deleting the newest records is found too)."""
    with db.unit_of_work() as uow:
        repo = AuditRepository(uow.session)
        head = repo.head(client_id)
        if from_sequence > head.sequence + 1 and repo.record(client_id, from_sequence) is None:
            return ChainReport(True, 0, None, None, None)  # nothing there yet
        previous = repo.hash_before(client_id, from_sequence)
        if previous is None:
            return ChainReport(False, 0, from_sequence - 1, f"sequence {from_sequence - 1} is missing", None)
        # Without a limit, read a page past the head too: a forged extra record is found.
        stop = head.sequence + 1 + PAGE if limit is None else from_sequence + limit
        check = chain.verify_chain(_links(db, client_id, from_sequence, stop), from_sequence, previous)
        if not check.ok:
            return ChainReport(False, check.records_checked, check.first_bad_sequence, check.reason, None)
        checked = check.records_checked
        last = from_sequence + checked - 1
        if limit is not None and checked == limit and last < head.sequence:
            return ChainReport(True, checked, None, None, last + 1)
        # The checked run ends the chain: it must end exactly at the stored head.
        if last < head.sequence:
            return ChainReport(
                False,
                checked,
                last + 1,
                f"sequence {last + 1} is missing (the head is at {head.sequence})",
                None,
            )
        if last > head.sequence and checked:
            return ChainReport(
                False, checked, head.sequence + 1, f"sequence {head.sequence + 1} is past the head", None
            )
        if checked and last == head.sequence and _head_hash(repo, client_id, last) != head.hash:
            return ChainReport(False, checked, last, "the chain head's hash is not this record's", None)
        return ChainReport(True, checked, None, None, None)


def _head_hash(repo: AuditRepository, client_id: str, sequence: int) -> str | None:
    record = repo.record(client_id, sequence)
    return None if record is None else record.hash


def verify_round(db: Database, client_id: str, round_id: str) -> dict[str, Any]:
    """Re-score the stored request with today's engine and recompute the record's hash."""
    with db.unit_of_work() as uow:
        round_ = uow.rounds.get(client_id, round_id)
        if round_ is None:
            raise NotFound(f"no round {round_id!r}")
        repo = AuditRepository(uow.session)
        ref = repo.audits([round_id]).get(round_id)
        differences: list[dict[str, Any]] = []
        rescore = RESCORERS.get(round_.game)
        if rescore is None:
            differences.append({"field": "game", "stored": round_.game, "recomputed": None})
        else:
            try:
                recomputed = rescore(round_.request_json)
            except CapsaError as exc:
                differences.append(
                    {"field": "request", "stored": round_.request_json, "recomputed": exc.message}
                )
            else:
                differences += chain.differences(round_.document, recomputed)
        if ref is None:
            differences.append({"field": "audit", "stored": None, "recomputed": None})
        else:
            stored = repo.record(client_id, ref.sequence)
            assert stored is not None
            lines = [
                (b.account, b.kind, b.amount, round_.currency)
                for b in repo.record_lines(client_id, ref.sequence)
            ]
            row = ChainRow(
                ref.sequence,
                "round",
                round_id,
                stored.previous_hash,
                stored.hash,
                stored.canonical,
                round_.request_json,
                round_.document,
                round_.engine_version,
                round_.created_at,
                None,
                None,
                None,
            )
            doc = _rebuild(row, lines)
            assert doc is not None
            recomputed_hash = chain.chain_hash(
                stored.previous_hash, chain.rebuilt_bytes(doc, stored.canonical)
            )
            if recomputed_hash != stored.hash:
                differences.append(
                    {"field": "audit.hash", "stored": stored.hash, "recomputed": recomputed_hash}
                )
    return {"ok": not differences, "differences": differences}


def record_at(db: Database, client_id: str, sequence: int) -> dict[str, Any]:
    if not 1 <= sequence <= MAX_SEQUENCE:
        raise NotFound(f"no record {sequence} in this client's chain")
    with db.unit_of_work() as uow:
        record = AuditRepository(uow.session).record(client_id, sequence)
        if record is None:
            raise NotFound(f"no record {sequence} in this client's chain")
        return {
            "sequence": record.sequence,
            "hash": record.hash,
            "previous_hash": record.previous_hash,
            "canonical": record.canonical.decode("utf-8"),
        }


def head(db: Database, client_id: str) -> dict[str, Any]:
    with db.unit_of_work() as uow:
        h = AuditRepository(uow.session).head(client_id)
    return {
        "sequence": h.sequence,
        "hash": h.hash,
        "created_at": None if h.created_at is None else rfc3339(h.created_at),
    }


__all__ = ["ChainReport", "audit_json", "head", "record_at", "verify_chain", "verify_round", "void"]
