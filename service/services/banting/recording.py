"""A finished Big Two game as a round: its request, its scoring, its re-scoring, its record.

The move that ends a game (a player's, or an auto move) records it as a `game: banting`
round in that move's transaction: the normalised request (`round_request`) is scored by
replaying its moves and settling the game (`score_request`), and the record (request,
document, ledger lines) takes its place in the client's chain (`record`). `rescore` is the
verifier's re-scorer of such rounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.adapters.banting import GameRecord
from service.adapters.uow import UnitOfWork
from service.domain.banting.game import GameState, replay, state_document
from service.domain.banting.moves import MadeMove, request_move
from service.domain.banting.rules import params_of
from service.domain.banting.settlement import settle_game, settlement_document
from service.domain.cards import parse_cards
from service.domain.errors import InvalidRound
from service.domain.money import PairLine, PlayerLine, format_money, parse_stake
from service.domain.rules import RuleSet
from service.domain.version import ENGINE_VERSION

from ..ids import new_id, utcnow_ms
from ..recording import round_record


@dataclass(frozen=True)
class ScoredGame:
    """A settled game: the round's score document and its money lines."""

    document: dict[str, Any]
    players: tuple[PlayerLine, ...]
    pairs: tuple[PairLine, ...]
    house_fee: int
    preset: str


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


def score_request(request: Mapping[str, Any]) -> ScoredGame:
    """Replay the moves of a normalised game request and settle it: the round's document."""
    rules = RuleSet.from_json(request["rules"])
    params = params_of(rules)
    currency = request["currency"]
    stake = parse_stake(request["stake"], currency, "stake")
    players = request["players"]
    seats = [p["id"] for p in players]
    leader = request.get("leader")
    state = replay(
        seats,
        [parse_cards(p["hand"], f"players[{i}].hand") for i, p in enumerate(players)],
        params,
        [request_move(m) for m in request["moves"]],
        None if leader is None else seats.index(leader),
    )
    if not state.finished:
        raise InvalidRound("the game has not finished", field="moves")
    settlement = settle_game(state, stake, params)
    settled = settlement_document(state, settlement, currency)
    document = {
        "game": "banting",
        "table": request["table"],
        "reference": request["reference"],
        "currency": currency,
        "stake": format_money(stake, currency),
        "rules": rules.to_json(),
        "engine_version": ENGINE_VERSION,
        "players": settled["players"],
        "pairs": settled["pairs"],
        "house_fee": settled["house_fee"],
        "history": _history(state, request),
    }
    if "turn_seconds" in request:
        document["turn_seconds"] = request["turn_seconds"]
    ids = state.player_ids
    lines = tuple(
        PlayerLine(ids[p.seat], p.points, p.money.result, p.money.winnings, p.money.fee, p.money.net)
        for p in settlement.players
    )
    pairs = tuple(
        PairLine(ids[p.winner], ids[p.loser], stake, p.points, p.amount, p.outcome.value) for p in settlement.pairs
    )
    return ScoredGame(document, lines, pairs, settlement.house_fee, rules.preset)


def _history(state: GameState, request: Mapping[str, Any]) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = state_document(state)["history"]
    if "turn_seconds" not in request:
        return history  # stored before turn timers: the document it was stored with
    return [
        {**e, "auto": bool(m.get("auto")), "at": m.get("at")}
        for e, m in zip(history, request["moves"], strict=True)
    ]


def rescore(request: Mapping[str, Any]) -> dict[str, Any]:
    """The verify re-scorer of `game: banting` rounds: the same score document."""
    return score_request(request).document


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
