"""Big Two hints and auto-play: a good legal move from one player's own cards.

`hint(state, player)` ranks every play the player's hand holds (and a pass) with a cost and
returns the cheapest move the referee accepts; `auto_move(state)` is the move the service
makes for a player whose turn timed out: a pass where the referee allows one, otherwise the
hint. Legality is never decided here: each candidate goes through `game.apply_move`, so rule
variants the referee knows (which plays beat which, when a pass is refused) are honoured
without this module knowing them.

The information used is what the player may know: its own cards, the play on the table and
every player's count of cards left (public in the game state). Other hands are never read.
The heuristic (docs/rules.md, "The hint heuristic"):

- a move after which the referee says the player has won (its last cards, or a bomb where
  a bomb ends the game) is taken at once;
- otherwise each move costs `units left + CARD_WEIGHT x cards left + spend`, where units are
  the distinct ranks still held (a pair or three of a kind is one unit: one trick sheds it)
  and spend is `SPEND_WEIGHT x strength(highest card)^2` (strength 0 for a 3 to 1 for a 2),
  so a play that sheds many units with low cards is cheap and a 2 is kept for later;
- a pass costs the units and cards held plus PASS_COST;
- danger (an opponent with one card left): singles are played high, not low, a single
  lead costs DANGER_SINGLE_LEAD more, and a pass costs DANGER_PASS more;
- ties go to the move with fewer cards, then the lower play, so the answer is stable.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..cards import Card
from ..errors import IllegalMove
from .game import NOT_YOUR_TURN, GameFinished, GameState, Move, apply_move
from .plays import Play, big_two_rank, candidate_plays

CARD_WEIGHT = 0.1
SPEND_WEIGHT = 1.6
PASS_COST = 0.6
DANGER_PASS = 3.0
DANGER_SINGLE_LEAD = 2.0
WIN_NOW = -1_000.0


@dataclass(frozen=True, slots=True)
class Hint:
    """The suggested move, its combination (None for a pass) and the cost it was chosen by."""

    move: Move
    play: Play | None
    cost: float


def is_legal(state: GameState, move: Move) -> bool:
    """Whether the referee accepts `move` in `state` (the one legality check)."""
    try:
        apply_move(state, move)
    except IllegalMove:
        return False
    return True


def candidate_moves(state: GameState, seat: int) -> list[tuple[Move, Play | None]]:
    """Every play the seat's hand holds, fewest cards first, then the lowest (ties: the
    lower cards), then a pass; not yet filtered."""
    player = state.player_ids[seat]
    values = {c: i for i, c in enumerate(state.hand(seat))}
    plays = candidate_plays(state.hand(seat), state.params)
    plays.sort(key=lambda p: (p.size, p.key, [values[c] for c in reversed(p.cards)]))
    moves: list[tuple[Move, Play | None]] = [(Move(player, p.cards), p) for p in plays]
    moves.append((Move.pass_turn(player), None))
    return moves


def legal_candidates(state: GameState, seat: int) -> list[tuple[Move, Play | None]]:
    """The candidate moves the referee accepts, in the order of `candidate_moves`."""
    return [(m, p) for m, p in candidate_moves(state, seat) if is_legal(state, m)]


def _units(cards: Iterable[Card]) -> int:
    return len({c.rank for c in cards})


def _strength(card: Card) -> float:
    return big_two_rank(card.rank) / 12


def _cost(state: GameState, seat: int, play: Play | None, danger: bool) -> float:
    hand = state.hands[seat]
    if play is None:
        return _units(hand) + CARD_WEIGHT * len(hand) + PASS_COST + (DANGER_PASS if danger else 0.0)
    rest = hand.difference(play.cards)
    top = _strength(play.cards[-1])
    cost = _units(rest) + CARD_WEIGHT * len(rest)
    if danger and play.size == 1:
        # An opponent on its last card: a single must be as high as possible to hold it off.
        cost += SPEND_WEIGHT * (1.0 - top) ** 2
        if state.table is None:
            cost += DANGER_SINGLE_LEAD
    else:
        cost += SPEND_WEIGHT * top**2
    return cost


def _seat_in_turn(state: GameState, player: str) -> int:
    if state.finished:
        raise GameFinished("the game has finished", field="player")
    seat = state.seat_of(player)
    if seat is None:
        raise IllegalMove(f"{NOT_YOUR_TURN}: {player!r} is not in this game", field="player")
    if seat != state.turn:
        assert state.turn is not None
        raise IllegalMove(f"{NOT_YOUR_TURN}: it is the turn of {state.player_ids[state.turn]!r}", field="player")
    return seat


def hint(state: GameState, player: str) -> Hint:
    """The cheapest legal move for `player`, whose turn it must be (else IllegalMove, or
    GameFinished once the game has ended)."""
    seat = _seat_in_turn(state, player)
    danger = any(len(h) == 1 for s, h in enumerate(state.hands) if s != seat)
    best: Hint | None = None
    for move, play in candidate_moves(state, seat):
        try:
            after = apply_move(state, move)
        except IllegalMove:
            continue
        if after.winner == seat:
            return Hint(move, play, WIN_NOW)
        cost = _cost(state, seat, play, danger)
        if best is None or cost < best.cost:  # ties keep the candidate order
            best = Hint(move, play, cost)
    if best is None:
        raise AssertionError("the referee accepts no move: a pass or a play is always possible")
    return best


def auto_move(state: GameState) -> Move:
    """The move made for the player in turn when its time runs out: a pass where the
    referee allows it, otherwise the hint."""
    if state.turn is None:
        raise GameFinished("the game has finished", field="player")
    player = state.player_ids[state.turn]
    passing = Move.pass_turn(player)
    if is_legal(state, passing):
        return passing
    return hint(state, player).move
