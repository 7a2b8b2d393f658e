"""A finished Big Two game as a round: its request, its scoring, its re-scoring, its record.

The move that ends a game (a player's, or an auto move) records it as a `game: banting`
round in that move's transaction: the normalised request (`round_request`) is scored by
replaying its moves and settling the game (`score_request`), and the record (request,
document, ledger lines) takes its place in the client's chain (`record`); the scoring is the
domain's (service/domain/banting/round.py), which also re-scores such rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.adapters.banting import GameRecord
from service.adapters.uow import UnitOfWork
from service.domain.banting.moves import MadeMove
from service.domain.banting.round import score_request
from service.domain.money import format_money
from service.domain.version import ENGINE_VERSION
from service.services.clock import new_id, utcnow_ms
from service.services.rounds.records import round_record


def round_request(game: GameRecord, moves: Sequence[MadeMove]) -> dict[str, Any]:
    """The normalised request a finished game is recorded (and re-scored) from.

    `turn_seconds` and each move's `at` and `auto` were added with turn timers: a request
    with `turn_seconds` (null when untimed) gives a document whose history marks the auto
    moves; one stored before has neither, and re-scores to the document it was stored with.
    """
    return {
        "rules": game.rules_json,
        "table": game.table_ref,
        "reference": None,
        "currency": game.currency,
        "stake": format_money(game.stake, game.currency),
        "deal": game.deal_id,
        "game": game.id,
        "players": [{"id": pid, "hand": list(hand)} for pid, hand in zip(game.players, game.hands, strict=True)],
        "turn_seconds": game.turn_seconds,
        "moves": [m.request_json() for m in moves],
        # Only games of a match name it and, under previous_winner, their leader: the requests
        # of games stored before matches existed stay as they were.
        **({} if game.match_id is None else {"match": game.match_id}),
        **({} if game.leader is None else {"leader": game.leader}),
    }


def record(uow: UnitOfWork, client_id: str, game: GameRecord, moves: Sequence[MadeMove]) -> str:
    """Record the finished game as a round (its record, ledger lines and place in the chain),
    in the transaction of the move that ended it; the round's id."""
    request = round_request(game, moves)
    scored = score_request(request)
    now = utcnow_ms()
    round_id = new_id("rnd", now)
    built = round_record(
        client_id,
        round_id=round_id,
        created_at=now,
        game="banting",
        preset=scored.preset,
        currency=game.currency,
        table=game.table_ref,
        reference=None,
        request=request,
        document=scored.document,
        players=scored.players,
        house_fee=scored.house_fee,
        engine_version=ENGINE_VERSION,
    )
    uow.chain.append(built.new)
    return round_id
