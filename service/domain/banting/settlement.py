"""Capsa Banting (Big Two) settlement: a finished game to points per loser, money and documents."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ..errors import InvalidRound
from ..money import PlayerMoney, format_money, settle
from .game import GameState, replay
from .plays import Combination, candidate_plays, card_value
from .rules import BantingParams, LastCardPenalty, SettlementRule


class Outcome(StrEnum):
    """A pair's `outcome` in a Banting round (docs/api.md#big-two-games); the value is the API's."""

    WIN = "win"
    BOMB = "bomb"
    # From the versions that name `last_card_penalty` (`BantingParams.names_loser_pairs`): a
    # pair of two losers under everyone pays everyone, read from the side that lost less, and a
    # pair whose points fall on the player who took on all losses.
    LOST_LESS = "lost_less"
    EVEN = "even"
    TAKES_ALL = "takes_all_losses"


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
    outcome: Outcome
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


def take_on_all(losses: list[tuple[int, int]], taker: int) -> list[tuple[int, int]]:
    """yawnoc/big-two-scorer's `compute_real_losses` with a `take_index`: the total of the
    real losses accrues to the taker (at its own multiplier), every other player's is 0."""
    total = sum(loss for _, loss in losses)
    return [(losses[i][0], total) if i == taker else (0, 0) for i in range(len(losses))]


def last_card_taker(state: GameState) -> int | None:
    """The seat that takes on all losses under `last_card_penalty` `takes_all_losses`, or None.

    yawnoc/big-two-scorer (README, "Taking on all losses", its first scenario): the player
    before the winner failed to stop the winner going out on its last card though it could.
    The winner's final play is its last card, a single; the move just before it was the
    previous seat's, made while the winner held that one card, and either
    - on a single: a lower single or a pass, holding a single that beat the table and the
      winner's card; or
    - a lead: a single lower than the winner's card, holding a higher single or any play of
      two or more cards (which a lone card cannot answer).
    A game a bomb ended has no taker.
    """
    if state.params.penalty != LastCardPenalty.TAKES_ALL_LOSSES or state.winner is None or state.bombed is not None:
        return None
    history = state.history
    if len(history) < 2:
        return None
    final, previous = history[-1], history[-2]
    n = len(state.player_ids)
    if final.seat != state.winner or final.play is None or final.play.combination is not Combination.SINGLE:
        return None
    seat = previous.seat
    if (seat + 1) % n != state.winner:
        return None
    params = state.params
    before = replay(state.player_ids, state.dealt, params, state.moves[:-2], leader=history[0].seat)
    if len(before.hands[state.winner]) != 1:
        return None
    last = card_value(final.play.cards[0], params)
    hand = before.hands[seat]
    higher = [c for c in hand if card_value(c, params) > last]
    if before.table is None:
        if previous.play is None or previous.play.combination is not Combination.SINGLE:
            return None
        could = bool(higher) or any(play.size > 1 for play in candidate_plays(hand, params))
        return seat if could else None
    table = before.table.play
    if table.combination is not Combination.SINGLE:
        return None
    on_table = card_value(table.cards[0], params)
    return seat if any(card_value(c, params) > on_table for c in higher) else None


def game_losses(state: GameState, params: BantingParams) -> tuple[int | None, list[tuple[int, int]]]:
    """The taker of all losses (or None) and every seat's (multiplier, real loss) after it."""
    losses = [real_loss(state, seat, params) for seat in range(len(state.player_ids))]
    taker = last_card_taker(replace(state, params=params)) if params.penalty != LastCardPenalty.NONE else None
    return taker, losses if taker is None else take_on_all(losses, taker)


def _label(params: BantingParams, outcome: Outcome, first: int, owed: int, winner: int | None, taker: int | None,
           second: int) -> Outcome:
    """A pair's outcome under everyone pays everyone (`BantingParams.names_loser_pairs`)."""
    if not params.names_loser_pairs:
        return outcome
    if taker is not None and second == taker:
        return Outcome.TAKES_ALL
    if first == winner and outcome is Outcome.BOMB:
        return Outcome.BOMB
    if owed == 0:
        return Outcome.EVEN
    return Outcome.WIN if first == winner else Outcome.LOST_LESS


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
    taker, losses = game_losses(state, params)
    outcome = Outcome.WIN if state.bombed is None else Outcome.BOMB
    pairs: list[BantingPair] = []
    if params.payment == SettlementRule.EVERYONE_PAYS_EVERYONE:
        total = sum(loss for _, loss in losses)
        points = [total - n * loss for _, loss in losses]
        for a in range(n):
            for b in range(a + 1, n):
                # The pair is read from the side that lost less (the winner's side first).
                first, second = (a, b) if (losses[a][1], a != state.winner) <= (losses[b][1], b != state.winner) else (b, a)
                owed = losses[second][1] - losses[first][1]
                mult = losses[second][0]
                label = _label(params, outcome, first, owed, state.winner, taker, second)
                pairs.append(BantingPair(
                    first, second, label, len(state.hands[second]), mult, owed, owed * stake_minor
                ))
    else:
        points = [0] * n
        for seat in range(n):
            if seat == state.winner:
                continue
            mult, owed = losses[seat]
            points[seat] = -owed
            points[state.winner] += owed
            label = outcome if taker is None else Outcome.TAKES_ALL if seat == taker else Outcome.EVEN
            pairs.append(BantingPair(
                state.winner, seat, label, len(state.hands[seat]), mult, owed, owed * stake_minor
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
                "outcome": p.outcome.value,
                "multiplier": p.multiplier,
                "points": p.points,
                "amount": money(p.amount),
            }
            for p in settlement.pairs
        ],
        "house_fee": money(settlement.house_fee),
    }
