"""A finished Big Two game as a round's score: its moves replayed and the game settled.

A game's normalised request (its rules, stake, players' hands and moves) scores to the
round's document by replaying the moves and settling the game; re-verifying a stored
`game: banting` round scores its request again (`rescore`). Nothing here is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.domain.banting.game import GameState, replay, state_document
from service.domain.banting.moves import request_move
from service.domain.banting.settlement import settle_game, settlement_document
from service.domain.cards import parse_cards
from service.domain.errors import InvalidRound
from service.domain.money import PairLine, PlayerLine, format_money, parse_stake
from service.domain.rules import RuleSet, banting_params
from service.domain.version import ENGINE_VERSION


@dataclass(frozen=True)
class ScoredGame:
    """A settled game: the round's score document and its money lines."""

    document: dict[str, Any]
    players: tuple[PlayerLine, ...]
    pairs: tuple[PairLine, ...]
    house_fee: int
    preset: str


def score_request(request: Mapping[str, Any]) -> ScoredGame:
    """Replay the moves of a normalised game request and settle it: the round's document."""
    rules = RuleSet.from_json(request["rules"])
    params = banting_params(rules)
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
