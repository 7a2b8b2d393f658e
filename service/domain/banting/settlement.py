"""Capsa Banting (Big Two) settlement: a finished game to points per loser, money and documents."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InvalidRound
from ..money import PlayerMoney, format_money, settle
from .game import GameState
from .rules import BantingParams

WIN = "win"
BOMB = "bomb"


def card_multiplier(cards_left: int, params: BantingParams) -> int:
    """3 at `triple_at` cards or more, else 2 at `double_at` or more, else 1."""
    if cards_left >= params.triple_at:
        return 3
    if cards_left >= params.double_at:
        return 2
    return 1


@dataclass(frozen=True, slots=True)
class BantingPair:
    """Winner against one loser: points the loser owes (cards left x multiplier)."""

    winner: int
    loser: int
    outcome: str
    cards_left: int
    multiplier: int
    points: int
    amount: int


@dataclass(frozen=True, slots=True)
class BantingPlayer:
    """A player's cards left, points and money (minor units)."""

    seat: int
    cards_left: int
    points: int
    money: PlayerMoney


@dataclass(frozen=True, slots=True)
class BantingSettlement:
    """A finished game settled: players in seat order, one pair per loser, the house's fee."""

    stake: int
    players: tuple[BantingPlayer, ...]
    pairs: tuple[BantingPair, ...]
    house_fee: int


def settle_game(state: GameState, stake_minor: int, params: BantingParams | None = None) -> BantingSettlement:
    """Settle a finished game (docs/rules.md#settlement) at `stake_minor` a point.

    Each loser owes the winner cards left x multiplier points. After a bomb that ended the
    game only the bombed player owes; the other pairs are `bomb` with multiplier 0.
    `params` defaults to the game's own rule set.
    """
    if state.winner is None:
        raise InvalidRound("the game has not finished", field="game")
    params = params or state.params
    winner = state.winner
    pairs: list[BantingPair] = []
    for seat in range(len(state.player_ids)):
        if seat == winner:
            continue
        left = len(state.hands[seat])
        if state.bombed is None:
            outcome, mult = WIN, card_multiplier(left, params)
        else:
            outcome = BOMB
            mult = card_multiplier(left, params) if seat == state.bombed else 0
        points = left * mult
        pairs.append(BantingPair(winner, seat, outcome, left, mult, points, points * stake_minor))
    money = settle(
        len(state.player_ids),
        [(p.winner, p.loser, p.amount) for p in pairs],
        params.fee_rate,
        params.fee_basis,
    )
    owed = {p.loser: p.points for p in pairs}
    players = tuple(
        BantingPlayer(
            seat,
            len(state.hands[seat]),
            sum(owed.values()) if seat == winner else -owed[seat],
            money.players[seat],
        )
        for seat in range(len(state.player_ids))
    )
    return BantingSettlement(stake_minor, players, tuple(pairs), money.house_fee)


def settlement_document(state: GameState, settlement: BantingSettlement, currency: str) -> dict[str, Any]:
    """The settled parts of the Banting round document (docs/api.md#big-two-games): players, pairs, house_fee."""
    ids = state.player_ids

    def money(minor: int) -> str:
        return format_money(minor, currency)

    return {
        "players": [
            {
                "id": ids[p.seat],
                "cards_left": p.cards_left,
                "points": p.points,
                "result": money(p.money.result),
                "winnings": money(p.money.winnings),
                "fee": money(p.money.fee),
                "net": money(p.money.net),
            }
            for p in settlement.players
        ],
        "pairs": [
            {
                "players": [ids[p.winner], ids[p.loser]],
                "stake": money(settlement.stake),
                "rows": None,
                "outcome": p.outcome,
                "multiplier": p.multiplier,
                "points": p.points,
                "amount": money(p.amount),
            }
            for p in settlement.pairs
        ],
        "house_fee": money(settlement.house_fee),
    }
