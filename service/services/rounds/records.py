"""Stored records, whatever the game: a settled round or a void, built before any lock.

Every stored round (a Capsa Susun round, a finished Big Two game) and every void becomes
one chain record: its canonical bytes hold the request, the resolved rules, the score
document and the ledger lines, and are what is hashed. This module builds the record and
its lines from the scored round, so the write path only has to place it at the head of
the client's chain (`uow.chain.append`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.adapters.ledger import BookedLine
from service.adapters.records import Appended, LineRow, NewRecord, RoundColumns
from service.domain import audit as chain
from service.domain.audit import RecordKind
from service.domain.money import PlayerLine
from service.domain.susun.round import ScoredRound
from service.services.rounds.documents import audit_of_record, round_document


@dataclass(frozen=True, slots=True)
class BuiltRecord:
    """A record ready to append, and its parsed form for rendering the answer."""

    new: NewRecord
    document: dict[str, Any]

    def rendered(self, appended: Appended, void: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The round's API document once the record is chained."""
        return round_document(
            self.new.round_id,
            self.document,
            audit_of_record(appended),
            void,
            in_order=True,
        )


def round_record(
    client_id: str,
    *,
    round_id: str,
    created_at: datetime,
    game: str,
    preset: str,
    currency: str,
    table: str | None,
    reference: str | None,
    request: Mapping[str, Any],
    document: Mapping[str, Any],
    players: Sequence[PlayerLine],
    house_fee: int,
    engine_version: str,
) -> BuiltRecord:
    """The record of a settled round: its lines in the documented order, each settlement
    line carrying the player's points and winnings for the reports."""
    lines = chain.round_lines([(p.id, p.result, p.fee) for p in players], house_fee)
    by_id = {p.id: p for p in players}
    rows = []
    for line in lines:
        p = by_id.get(line.player or "") if line.kind == chain.SETTLEMENT else None
        rows.append(
            LineRow(
                line.player,
                line.kind,
                line.kind,
                line.amount,
                p.points if p else 0,
                p.winnings if p else 0,
            )
        )
    doc = chain.record(
        sequence=None,
        kind=RecordKind.ROUND,
        round_id=round_id,
        request=request,
        result=document,
        lines=lines,
        currency=currency,
        engine_version=engine_version,
        created_at=created_at,
    )
    new = NewRecord(
        client_id=client_id,
        kind=RecordKind.ROUND,
        round_id=round_id,
        created_at=created_at,
        unsealed=chain.unsealed(doc),
        currency=currency,
        table=table,
        lines=tuple(rows),
        round=RoundColumns(game, preset, table, reference, currency),
    )
    return BuiltRecord(new, doc)


def scored_round_record(
    client_id: str, scored: ScoredRound, *, round_id: str, created_at: datetime
) -> BuiltRecord:
    """The record of a scored Capsa Susun round: what `POST /v1/rounds` stores, and what a
    server-run game stores when it settles."""
    return round_record(
        client_id,
        round_id=round_id,
        created_at=created_at,
        game=str(scored.document["game"]),
        preset=scored.preset,
        currency=scored.currency,
        table=scored.table,
        reference=scored.reference,
        request=scored.request,
        document=scored.document,
        players=scored.players,
        house_fee=scored.house_fee,
        engine_version=str(scored.document["engine_version"]),
    )


def void_record(
    client_id: str,
    *,
    round_id: str,
    created_at: datetime,
    reason: str,
    booked: Sequence[BookedLine],
    currency: str,
    table: str | None,
    engine_version: str,
) -> BuiltRecord:
    """The record of a void: the round's lines negated, kind `reversal`, in the same order;
    each counts in reports as the kind it reverses."""
    reversals = chain.reversal_lines(
        [chain.LedgerLine(chain.account_of(b.player_id), b.kind, b.amount) for b in booked]
    )
    request = {"reason": reason}
    doc = chain.record(
        sequence=None,
        kind=RecordKind.VOID,
        round_id=round_id,
        request=request,
        result=request,
        lines=reversals,
        currency=currency,
        engine_version=engine_version,
        created_at=created_at,
    )
    new = NewRecord(
        client_id=client_id,
        kind=RecordKind.VOID,
        round_id=round_id,
        created_at=created_at,
        unsealed=chain.unsealed(doc),
        currency=currency,
        table=table,
        lines=tuple(
            LineRow(b.player_id, chain.REVERSAL, b.kind, -b.amount, -b.points, -b.winnings) for b in booked
        ),
    )
    return BuiltRecord(new, doc)
