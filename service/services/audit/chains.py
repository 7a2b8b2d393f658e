"""Verification: re-verify one round, verify a client's chain, read one record.

Verifying the chain reads each stored record once, in pages: it checks the sequence has
no gap, each previous hash, each hash over the stored bytes, and every live copy of the
record (the round's query columns, its ledger lines) against those bytes. A request
checks at most `MAX_LIMIT` records (`DEFAULT_LIMIT` unless it says) and says where to
continue.
"""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass, replace
from typing import Any
from zoneinfo import ZoneInfoNotFoundError

import orjson

from service.adapters.ledger import Grouping
from service.adapters.replicas import AsOf, report
from service.adapters.rollups import ROLLUP_GROUPINGS, TOTALS
from service.adapters.uow import Database, UnitOfWork
from service.domain import audit as chain
from service.domain.audit import RecordKind
from service.domain.errors import CapsaError
from service.domain.rescoring import RESCORERS, as_stored_version, record_version_difference
from service.domain.signing import b64
from service.services import deals
from service.services.audit import receipts
from service.services.audit.record_checks import VOID_LINES, copies_match, copy_differences
from service.services.errors import NotFound
from service.services.ledger.rollups import days_in, ledger_zone
from service.services.reporting import as_of_json
from service.services.rounds import store as rounds

PAGE = 2000  # records read past the head when checking to it (a forged record beyond it is found)
DEFAULT_LIMIT = 10_000  # records a verify request checks unless it asks for fewer or more
MAX_LIMIT = 100_000  # at most, so a request ends well within a worker's timeout
MAX_SEQUENCE = chain.MAX_SEQUENCE


@dataclass(frozen=True)
class ChainReport:
    ok: bool
    records_checked: int
    first_bad_sequence: int | None
    reason: str | None
    next_from_sequence: int | None
    as_of: AsOf | None = None  # the head the check ran against (GET /v1/audit/verify)

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "ok": self.ok,
            "records_checked": self.records_checked,
            "first_bad_sequence": self.first_bad_sequence,
            "reason": self.reason,
            "next_from_sequence": self.next_from_sequence,
        }
        if self.as_of is not None:
            found["as_of"] = as_of_json(self.as_of)
        return found


def _bad(checked: int, sequence: int, reason: str) -> ChainReport:
    return ChainReport(False, checked, sequence, reason, None)


def verify_chain(
    db: Database, client_id: str, from_sequence: int = 1, limit: int | None = DEFAULT_LIMIT
) -> ChainReport:
    """Check records [from, from + limit) of the client's chain; `next_from_sequence` says
    where to continue while records remain. When the checked run reaches the head, the
    head must be its last record (deleting the newest records is found too), and nothing
    may lie past it. `limit=None` checks the whole rest of the chain (the CLI does). The
    head and every record are read in one snapshot."""
    with db.snapshot() as uow:
        return _check(uow, client_id, from_sequence, limit)


def verify_chain_report(
    db: Database, client_id: str, from_sequence: int, limit: int, min_sequence: int | None = None
) -> ChainReport:
    """`verify_chain` as a report (GET /v1/audit/verify): on the standby when it is current
    enough (`replicas.report`), against the head of the snapshot it reads every record in,
    which `as_of` names."""

    def work(uow: UnitOfWork, as_of: AsOf) -> ChainReport:
        return replace(_check(uow, client_id, from_sequence, limit), as_of=as_of)

    return report(db, client_id, work, min_sequence=min_sequence)


def _check(uow: UnitOfWork, client_id: str, from_sequence: int, limit: int | None) -> ChainReport:
    """The check in `uow`'s snapshot: the head, the hash before `from_sequence` and the
    records are all read in it."""
    head = uow.chain.head(client_id)
    previous = uow.chain.hash_before(client_id, from_sequence)
    if from_sequence > head.sequence + 1 and uow.chain.record(client_id, from_sequence) is None:
        return ChainReport(True, 0, None, None, None)  # nothing there yet
    if previous is None:
        return _bad(0, from_sequence - 1, f"sequence {from_sequence - 1} is missing")
    # Read a page past the head too (a forged extra record is found), and no further
    # whatever the limit: the rest past the head is the stray check's, below.
    stop = head.sequence + 1 + PAGE if limit is None else min(from_sequence + limit, head.sequence + 1 + PAGE)
    links = chain.LinkChecker(from_sequence, previous)
    checked = 0
    # Records whose copies the fast path could not match (voids, copies that differ), read
    # in full between two statements of the scan, in order: (records checked up to it,
    # sequence, kind, round, bytes).
    suspects: list[tuple[int, int, str, str, bytes]] = []
    for statement in uow.scan_chain(client_id, from_sequence, stop):
        broken: ChainReport | None = None
        with closing(statement):
            for scanned in statement:
                sequence, kind, round_id, previous_hash, hash_, body = scanned[:6]
                checked += 1
                reason = links.check(sequence, previous_hash, hash_, body)
                if reason is not None:
                    broken = _bad(checked, links.expected, reason)
                    break
                if sequence > head.sequence:
                    broken = _bad(checked, head.sequence + 1, f"sequence {head.sequence + 1} is past the head")
                    break
                if not copies_match(scanned):
                    suspects.append((checked, sequence, kind, round_id, body))
            if broken is not None and suspects:
                # Read to the statement's end rather than cancel it: a cancelled statement
                # would end the snapshot's transaction before the suspects are read in it.
                for _ in statement:
                    pass
        for at, sequence, kind, round_id, body in suspects:
            found = _differences(uow, client_id, sequence, kind, round_id, body)
            if found:
                return _bad(at, sequence, _reason(found[0]))
        suspects.clear()
        if broken is not None:
            return broken
    last = from_sequence + checked - 1
    if limit is not None and checked == limit and last < head.sequence:
        return ChainReport(True, checked, None, None, last + 1)
    if last < head.sequence:
        return _bad(checked, last + 1, f"sequence {last + 1} is missing (the head is at {head.sequence})")
    if checked and last == head.sequence and links.previous_hash != head.hash:
        return _bad(checked, last, "the chain head's hash is not this record's")
    # Reaching the head: nothing may lie outside the chain, however far (a page past the
    # head was read above): a record past it or before the first (a round's GET would read a
    # void there), or ledger lines no record holds (balances and reports sum every line up
    # to a sequence).
    stray = uow.chain.stray(client_id, head.sequence)
    if stray is not None:
        what, sequence = stray
        if what == "record":
            reason = (f"sequence {sequence} is past the head" if sequence > 0
                      else f"sequence {sequence} is before the chain's first record (1)")
        else:
            reason = f"ledger lines at sequence {sequence}, where no record of the chain is"
        return _bad(checked, sequence, reason)
    return ChainReport(True, checked, None, None, None)


def rollups_differ(db: Database, client_id: str) -> str | None:
    """Where the client's all-time rollups (what its all-time reports start from) differ
    from the sums of its ledger lines up to their cursor, in one snapshot: None when they
    agree. Reads every line up to the cursor (the CLI's whole-chain check runs it). A kept
    zone's days are compared with the lines' quarter hours gathered into its days."""
    with db.snapshot() as uow:
        cursor = uow.rollups.cursor(client_id)
        sums = uow.rollups.deltas(client_id, 0, cursor) if cursor else {}
        expected = {(currency, grouping.value): totals for (currency, grouping), totals in sums.items()}
        stored = {
            (currency, grouping.value): uow.rollups.read(client_id, currency, grouping)
            for currency in uow.rollups.currencies(client_id)
            for grouping in ROLLUP_GROUPINGS
        }
        for currency, names in uow.rollups.zones(client_id).items():
            for name in names:
                try:
                    zone = ledger_zone(name)
                except (ZoneInfoNotFoundError, ValueError):
                    continue  # unknown on this host, or refused: the next fold forgets its days
                where = (currency, f"{Grouping.ZONE_DAY.value} {name}")
                expected[where] = days_in(sums.get((currency, Grouping.QUARTER), []), zone)
                stored[where] = uow.rollups.kept_days(client_id, currency, name) or []
    for where in sorted(set(expected) | set(stored)):
        want = {t.key: t for t in expected.get(where, []) if _moves(t)}
        have = {t.key: t for t in stored.get(where, []) if _moves(t)}
        if want != have:
            key = next(k for k in sorted(set(want) | set(have), key=str) if want.get(k) != have.get(k))
            return (f"the all-time rollup {where[0]} {where[1]} {key or '(none)'!r} is not the sum of "
                    f"its ledger lines through sequence {cursor}")
    return None


def _moves(totals: Any) -> bool:
    return any(getattr(totals, name) for name in TOTALS)


def _differences(
    uow: UnitOfWork, client_id: str, sequence: int, kind: str, round_id: str, body: bytes
) -> list[dict[str, Any]]:
    """Where the live copies of this (hash-checked) record differ from its bytes: its round
    row (for a void, the voided round's, with that round's lines) and its lines."""
    found = uow.rounds.copies_of(client_id, round_id)
    lines = uow.ledger.copies_of(client_id, sequence)
    original = None if kind != RecordKind.VOID or found is None else uow.ledger.copies_of(client_id, found.sequence)
    return copy_differences(
        body,
        sequence=sequence,
        kind=kind,
        round_id=round_id,
        round_row=None if found is None else found.columns,
        round_sequence=None if found is None else found.sequence,
        lines=lines,
        original=original,
    )


def _reason(difference: dict[str, Any]) -> str:
    field = difference["field"]
    if field == VOID_LINES:
        return "the void's ledger lines are not its round's, negated"
    if field == "round":
        return "the round or its ledger lines are missing"
    if field.startswith("ledger_lines") and difference["stored"] is False:
        return f"{field} is missing"
    if field.startswith("ledger_lines") and difference["recomputed"] is False:
        return f"{field} is not in the hashed record"
    return f"the stored {field} no longer matches the hashed record"


def verify_round(db: Database, client_id: str, round_id: str) -> dict[str, Any]:
    """Re-score the stored request with today's engine, recompute the record's hash, and
    check the round's stored columns and ledger lines against the record."""
    try:
        stored = rounds.get_stored(db, client_id, round_id)
    except NotFound:
        # A round is read with the record at its sequence that names it: a row whose
        # sequence was changed names none, which is a difference to report, not a 404.
        with db.unit_of_work() as uow:
            copies = uow.rounds.copies_of(client_id, round_id)
        if copies is None:
            raise
        return {"ok": False, "differences": [{"field": "round.sequence", "stored": copies.sequence, "recomputed": None}]}
    record = stored.record
    parsed = orjson.loads(record.canonical)
    differences: list[dict[str, Any]] = []
    # Re-scored by the game its hashed record names (a changed `rounds.game` is one of the
    # copies' differences below, not a reason to score a Capsa Susun round as Big Two).
    result = parsed.get("result") if isinstance(parsed, dict) else None
    game = result.get("game") if isinstance(result, dict) else None
    rescore = RESCORERS.get(game) if isinstance(game, str) else None
    if rescore is None:
        differences.append({"field": "game", "stored": stored.game, "recomputed": None})
    else:
        try:
            recomputed = rescore(parsed["request"])
        except CapsaError as exc:
            differences.append({"field": "request", "stored": parsed["request"], "recomputed": exc.message})
        else:
            differences += chain.differences(parsed["result"], as_stored_version(recomputed, parsed["result"]))
        version = record_version_difference(parsed)
        if version is not None:
            differences.append(version)
    recomputed_hash = chain.chain_hash(record.previous_hash, record.canonical)
    if recomputed_hash != record.hash:
        differences.append({"field": "audit.hash", "stored": record.hash, "recomputed": recomputed_hash})
    void = stored.void
    with db.unit_of_work() as uow:
        if isinstance(parsed, dict) and isinstance(parsed.get("request"), dict):
            differences += deals.round_differences(uow, client_id, round_id, parsed["request"])
        lines = uow.ledger.copies_of(client_id, record.sequence)
        void_lines = [] if void is None else uow.ledger.copies_of(client_id, void.sequence)
        # The round row as stored (its time as SQLite's text), as the chain's verify reads it.
        copies = uow.rounds.copies_of(client_id, round_id)
    round_row = stored.columns if copies is None else copies.columns
    differences += copy_differences(
        record.canonical,
        sequence=record.sequence,
        kind=record.kind,
        round_id=record.round_id,
        round_row=round_row,
        lines=lines,
    )
    if void is not None:  # a voided round: its void's record and lines too (`void.` fields)
        void_hash = chain.chain_hash(void.previous_hash, void.canonical)
        found = [] if void_hash == void.hash else [{"field": "audit.hash", "stored": void.hash, "recomputed": void_hash}]
        found += copy_differences(
            void.canonical, sequence=void.sequence, kind=void.kind, round_id=void.round_id,
            round_row=round_row, lines=void_lines, original=lines,
        )
        differences += [{**d, "field": f"void.{d['field']}"} for d in found]
    return {"ok": not differences, "differences": differences}


def record_at(db: Database, client_id: str, sequence: int) -> dict[str, Any]:
    if not 1 <= sequence <= MAX_SEQUENCE:
        raise NotFound(f"no record {sequence} in this client's chain")
    with db.unit_of_work() as uow:
        record = uow.chain.record(client_id, sequence)
    if record is None:
        raise NotFound(f"no record {sequence} in this client's chain")
    return {
        "sequence": record.sequence,
        "hash": record.hash,
        "previous_hash": record.previous_hash,
        "canonical": record.canonical.decode("utf-8"),
        "kid": record.kid,
        "signature": None if record.signature is None else b64(record.signature),
    }


def head(db: Database, client_id: str) -> dict[str, Any]:
    """The client's chain head, signed (`receipts.signed_head`)."""
    return receipts.signed_head(db, client_id)


__all__ = ["ChainReport", "head", "record_at", "verify_chain", "verify_chain_report", "verify_round"]
