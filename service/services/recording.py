"""Recording a settled round, whatever the game: round rows, ledger lines, its chain record.

Every stored round goes through `record_round` (Capsa Susun rounds, finished Big Two
games), so each one gets its ledger lines (API.md "Ledger and audit") and its place in the
client's hash chain in the same transaction. `RESCORERS` lets verification re-score a
stored round of any game from its normalised request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from service.adapters.ledger import AuditRepository, Head, line_rows
from service.adapters.uow import UnitOfWork
from service.domain import audit as chain
from service.domain.money import PairLine, PlayerLine
from service.domain.susun.round import score_round_request

from .documents import render_document
from .ids import new_id, utcnow_ms


def _rescore_banting(request: dict[str, Any]) -> dict[str, Any]:
    from .banting import rescore  # banting records its rounds through this module

    return rescore(request)


# game -> function(normalised request) -> the POST /v1/score document of that game.
RESCORERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "susun": lambda req: score_round_request(req).document,
    "banting": _rescore_banting,
}


def audit_json(sequence: int, hash_: str, previous_hash: str) -> dict[str, Any]:
    return {"sequence": sequence, "hash": hash_, "previous_hash": previous_hash}


def append_record(
    repo: AuditRepository,
    client_id: str,
    head: Head,
    *,
    kind: str,
    round_id: str,
    request: dict[str, Any],
    result: dict[str, Any],
    lines: Sequence[chain.LedgerLine],
    currency: str,
    engine_version: str,
    created_at: datetime,
) -> dict[str, Any]:
    """Hash the record after the (locked) head, store it and its exact bytes; its audit."""
    sequence = head.sequence + 1
    doc = chain.record(
        sequence=sequence,
        kind=kind,
        round_id=round_id,
        request=request,
        result=result,
        lines=lines,
        currency=currency,
        engine_version=engine_version,
        created_at=created_at,
    )
    canonical = chain.canonical(doc)
    hash_ = chain.chain_hash(head.hash, canonical)
    repo.append(client_id, sequence, kind, round_id, head.hash, hash_, canonical, created_at)
    return audit_json(sequence, hash_, head.hash)


def record_round(
    uow: UnitOfWork,
    client_id: str,
    *,
    game: str,
    preset: str,
    currency: str,
    table: str | None,
    reference: str | None,
    request: dict[str, Any],
    document: dict[str, Any],
    players: Sequence[PlayerLine],
    pairs: Sequence[PairLine],
    house_fee: int,
    raw: str,
    engine_version: str,
) -> dict[str, Any]:
    """Store a settled round with its lines and chain record; its rendered document.

    A used `reference` raises UniqueViolation (constraint `uq_rounds_client_reference`)
    for the caller to turn into its 409. Unbalanced lines are refused by the database
    guard (at commit on PostgreSQL, here on SQLite).
    """
    repo = AuditRepository(uow.session)
    # The head first: writers of one client queue here, before any row they could collide on.
    head = repo.lock_head(client_id)
    now = utcnow_ms()
    round_id = new_id("rnd", now)
    row = {
        "id": round_id,
        "client_id": client_id,
        "game": game,
        "preset": preset,
        "table_ref": table,
        "reference": reference,
        "currency": currency,
        "status": "settled",
        "engine_version": engine_version,
        "request_raw": raw,
        "request_json": request,
        "rules_json": document["rules"],
        "document": document,
        "house_fee": house_fee,
        "created_at": now,
    }
    player_rows = [
        {
            "round_id": round_id,
            "seat": seat,
            "player_id": p.id,
            "points": p.points,
            "result": p.result,
            "winnings": p.winnings,
            "fee": p.fee,
            "net": p.net,
        }
        for seat, p in enumerate(players)
    ]
    pair_rows = [
        {
            "round_id": round_id,
            "position": i,
            "player_a": p.a,
            "player_b": p.b,
            "stake": p.stake,
            "points": p.points,
            "amount": p.amount,
            "outcome": p.outcome,
        }
        for i, p in enumerate(pairs)
    ]
    uow.rounds.insert(row, player_rows, pair_rows)

    lines = chain.round_lines([(p.id, p.result, p.fee) for p in players], house_fee)
    audit = append_record(
        repo,
        client_id,
        head,
        kind="round",
        round_id=round_id,
        request=request,
        result=document,
        lines=lines,
        currency=currency,
        engine_version=engine_version,
        created_at=now,
    )
    by_id = {p.id: p for p in players}
    booked = []
    for line in lines:
        p = by_id.get(line.player or "") if line.kind == chain.SETTLEMENT else None
        booked.append(
            (
                line.account,
                line.kind,
                line.kind,
                line.amount,
                1 if p else 0,
                p.points if p else 0,
                p.winnings if p else 0,
            )
        )
    repo.add_lines(
        line_rows(
            client_id=client_id,
            round_id=round_id,
            sequence=audit["sequence"],
            created_at=now,
            currency=currency,
            table=table,
            lines=booked,
        )
    )
    return render_document(round_id, now, "settled", document, audit=audit)
