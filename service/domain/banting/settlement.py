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


def real_loss(state: GameState, seat: int, params: BantingParams) -> tuple[int, int]:
    """(multiplier, cards left x multiplier) of a seat; after a bomb that ended the game only
    the bombed seat has a loss (multiplier 0 for the others), the winner never has one."""
    left = len(state.hands[seat])
    if seat == state.winner or (state.bombed is not None and seat != state.bombed):
        return 0, 0
    mult = card_multiplier(left, params)
    return mult, left * mult


def settle_game(state: GameState, stake_minor: int, params: BantingParams | None = None) -> BantingSettlement:
    """Settle a finished game (docs/rules.md#settlement) at `stake_minor` a point.

    `winner_collects`: each loser owes the winner its real loss, cards left x multiplier.
    After a bomb that ended the game only the bombed player owes; the other pairs are `bomb`
    with multiplier 0. `everyone_pays_everyone`: every player pays its real loss l_i to every
    other player, so with n players and T the sum of the real losses player i nets
    T - n x l_i; a pair of players nets the difference of their losses, to the one that lost
    less. `params` defaults to the game's own rule set.
    """
    if state.winner is None:
        raise InvalidRound("the game has not finished", field="game")
    params = params or state.params
    n = len(state.player_ids)
    losses = [real_loss(state, seat, params) for seat in range(n)]
    outcome = WIN if state.bombed is None else BOMB
    pairs: list[BantingPair] = []
    if params.payment == "everyone_pays_everyone":
        total = sum(loss for _, loss in losses)
        points = [total - n * loss for _, loss in losses]
        for a in range(n):
            for b in range(a + 1, n):
                # The pair is read from the side that lost less (the winner's side first).
                first, second = (a, b) if (losses[a][1], a != state.winner) <= (losses[b][1], b != state.winner) else (b, a)
                owed = losses[second][1] - losses[first][1]
                mult = losses[second][0]
                pairs.append(BantingPair(
                    first, second, outcome, len(state.hands[second]), mult, owed, owed * stake_minor
                ))
    else:
        points = [0] * n
        for seat in range(n):
            if seat == state.winner:
                continue
            mult, owed = losses[seat]
            points[seat] = -owed
            points[state.winner] += owed
            pairs.append(BantingPair(
                state.winner, seat, outcome, len(state.hands[seat]), mult, owed, owed * stake_minor
            ))
    money = settle(n, [(p.winner, p.loser, p.amount) for p in pairs], params.fee_rate, params.fee_basis)
    players = tuple(
        BantingPlayer(seat, len(state.hands[seat]), points[seat], money.players[seat]) for seat in range(n)
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
