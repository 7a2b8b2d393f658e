"""Capsa Banting (Big Two) referee (docs/rules.md#leading-playing-and-passing): pure (state, move) -> state.

`new_game` validates the deal and seats the players in request order (play goes in seat
order); `apply_move` returns a new `GameState` or raises `IllegalMove` with one of the
reasons, never changing the state it was given; `state_document` and
`settlement.settlement_document` give the domain-derived parts of the game state (docs/api.md#big-two-games) and
Banting round documents. The HTTP layer can persist the initial hands and the moves and
rebuild a state with `replay`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ..cards import Card, canonical
from ..errors import CapsaError, FieldError, IllegalMove, InvalidCard, InvalidRound, raise_collected
from .plays import (
    DOES_NOT_BEAT,
    NOT_A_COMBINATION,
    Combination,
    NotAPlay,
    Play,
    candidate_plays,
    card_value,
    classify,
    is_bomb,
    sort_cards,
    why_not_beats,
)
from .rules import BantingParams, Bombs, LastCardRule, PassLock

HAND_SIZE = 13
MIN_PLAYERS, MAX_PLAYERS = 2, 4



class GameStatus(StrEnum):
    """A Big Two game's status, and a match's (docs/api.md#big-two-games); the value is the API's."""

    PLAYING = "playing"
    FINISHED = "finished"


class MoveKind(StrEnum):
    """What a move does: play cards or pass; the value is its key in a move body."""

    PLAY = "play"
    PASS = "pass"


# The reasons documented in docs/api.md#big-two-games; messages start with one of them, details may follow.
NOT_YOUR_TURN = "not your turn"
NOT_IN_HAND = "cards not in hand"
MUST_CONTAIN_LOWEST = "must contain the lowest card"
PASSED_ALREADY = "passed already in this trick"
LEADER_CANNOT_PASS = "the leader cannot pass"
MUST_PLAY_HIGHEST = "must play the highest single"
REASONS = (NOT_YOUR_TURN, NOT_IN_HAND, NOT_A_COMBINATION, DOES_NOT_BEAT, MUST_CONTAIN_LOWEST, PASSED_ALREADY,
           LEADER_CANNOT_PASS, MUST_PLAY_HIGHEST)  # and timers.TURN_TIMED_OUT, the timed games'


class GameFinished(CapsaError):
    """A move on a game that has ended (409 conflict)."""

    problem = "conflict"
    title = "Conflict"


@dataclass(frozen=True, slots=True)
class Move:
    """A player's move: `cards` to play, or None for a pass."""

    player: str
    cards: tuple[Card, ...] | None

    @classmethod
    def play(cls, player: str, cards: Iterable[Card]) -> Move:
        return cls(player, tuple(cards))

    @classmethod
    def pass_turn(cls, player: str) -> Move:
        return cls(player, None)

    @property
    def is_pass(self) -> bool:
        return self.cards is None

    @property
    def kind(self) -> MoveKind:
        return MoveKind.PASS if self.cards is None else MoveKind.PLAY


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One applied move: `n` from 1, the player's seat, the play (None for a pass)."""

    n: int
    seat: int
    play: Play | None


@dataclass(frozen=True, slots=True)
class TablePlay:
    """The play to beat and the seat that made it."""

    seat: int
    play: Play


@dataclass(frozen=True, slots=True)
class GameState:
    """A Big Two game at one moment. Immutable: `apply_move` returns a new one.

    Seats are request order. `turn` is None once finished. `passed` is per trick.
    `opening_card` is the lowest dealt card until the first play has contained it.
    `bombed` is the seat whose 2 was bombed when a bomb ended the game.
    """

    params: BantingParams
    player_ids: tuple[str, ...]
    dealt: tuple[tuple[Card, ...], ...]
    hands: tuple[frozenset[Card], ...]
    turn: int | None
    leader: int
    table: TablePlay | None
    passed: tuple[bool, ...]
    history: tuple[HistoryEntry, ...]
    opening_card: Card | None
    winner: int | None = None
    bombed: int | None = None

    @property
    def status(self) -> GameStatus:
        return GameStatus.FINISHED if self.winner is not None else GameStatus.PLAYING

    @property
    def finished(self) -> bool:
        return self.winner is not None

    def seat_of(self, player: str) -> int | None:
        try:
            return self.player_ids.index(player)
        except ValueError:
            return None

    def cards_left(self, seat: int) -> int:
        return len(self.hands[seat])

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The seat's cards, weakest first."""
        return sort_cards(self.hands[seat], self.params)

    @property
    def moves(self) -> tuple[Move, ...]:
        """The applied moves, replayable with `replay`."""
        return tuple(
            Move(self.player_ids[e.seat], None if e.play is None else e.play.cards) for e in self.history
        )


# -- starting a game ------------------------------------------------------------------------


def new_game(
    player_ids: Sequence[str],
    hands: Sequence[Sequence[Card]],
    params: BantingParams,
    leader: int | None = None,
) -> GameState:
    """Seat 2 to 4 players with 13 distinct cards each; the lowest dealt card's holder leads.

    `leader`, a seat, leads instead with any play (`first_lead` `previous_winner`: the winner
    of the match's previous game). Wrong counts or repeated ids raise InvalidRound; a wrong
    hand size or a card held twice (in one hand or two) raises InvalidCard with every problem
    at `players[i].hand[j]`.
    """
    n = len(player_ids)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise InvalidRound(f"a Big Two game is for 2 to 4 players, not {n}", field="players")
    if len(hands) != n:
        raise InvalidRound(f"{len(hands)} hands for {n} players", field="players")
    id_errors = [
        FieldError(f"players[{i}].id", f"{pid!r} is also players[{player_ids.index(pid)}]")
        for i, pid in enumerate(player_ids)
        if player_ids.index(pid) != i
    ]
    raise_collected(id_errors, InvalidRound)
    errors: list[FieldError] = []
    holder: dict[Card, tuple[int, int]] = {}
    for i, hand in enumerate(hands):
        if len(hand) != HAND_SIZE:
            errors.append(FieldError(f"players[{i}].hand", f"a hand has {HAND_SIZE} cards, not {len(hand)}"))
        for j, card in enumerate(hand):
            if card in holder:
                hi, hj = holder[card]
                where = f"players[{hi}]" if hi != i else f"players[{i}].hand[{hj}]"
                errors.append(FieldError(f"players[{i}].hand[{j}]", f"{str(card)!r} is also held by {where}"))
            else:
                holder[card] = (i, j)
    raise_collected(errors, InvalidCard)
    opening: Card | None = min(holder, key=lambda c: card_value(c, params))
    if leader is None:
        assert opening is not None
        leader = holder[opening][0]
    elif not 0 <= leader < n:
        raise InvalidRound(f"no seat {leader} among {n} players", field="leader")
    else:
        opening = None
    return GameState(
        params=params,
        player_ids=tuple(player_ids),
        dealt=tuple(tuple(h) for h in hands),
        hands=tuple(frozenset(h) for h in hands),
        turn=leader,
        leader=leader,
        table=None,
        passed=(False,) * n,
        history=(),
        opening_card=opening,
    )


# -- the referee ----------------------------------------------------------------------------


def apply_move(state: GameState, move: Move) -> GameState:
    """The state after `move`, or IllegalMove (GameFinished once the game has ended).

    Legality is `check_move`'s alone; this applies a move it allows.
    """
    seat, play = check_move(state, move)
    if play is None:
        return _apply_pass(state, seat)
    return _apply_play(state, seat, play)


def check_move(state: GameState, move: Move) -> tuple[int, Play | None]:
    """The one legality check of the referee: (seat, the play or None for a pass), or raise.

    In order: the game is on, the player exists and (`pass_locks` `trick`) has not passed in
    this trick, it is its turn; a pass is not by the trick's leader; a play is in the hand, is
    a combination, contains the lowest dealt card if it is the first play, and beats the table;
    then the last-card rule (`last_card_rule`) for singles and passes.
    """
    if state.finished:
        raise GameFinished("the game has finished", field="player")
    seat = state.seat_of(move.player)
    if seat is None:
        raise IllegalMove(f"{NOT_YOUR_TURN}: {move.player!r} is not in this game", field="player")
    if state.passed[seat] and state.params.pass_rule == PassLock.TRICK:
        raise IllegalMove(f"{PASSED_ALREADY}: {move.player!r} waits for the next trick", field="player")
    if seat != state.turn:
        assert state.turn is not None
        raise IllegalMove(f"{NOT_YOUR_TURN}: it is the turn of {state.player_ids[state.turn]!r}", field="player")
    if move.cards is None:
        problem = _pass_problem(state, seat)
        if problem is not None:
            raise problem
        return seat, None
    cards = move.cards
    hand = state.hands[seat]
    missing = [(i, c) for i, c in enumerate(cards) if c not in hand]
    if missing:
        shown = " ".join(str(c) for _, c in missing)
        raise IllegalMove(f"{NOT_IN_HAND}: {shown}", field=f"play[{missing[0][0]}]")
    play = classify(cards, state.params)
    if isinstance(play, NotAPlay):
        raise IllegalMove(play.reason, field="play")
    problem = _play_problem(state, seat, play)
    if problem is not None:
        raise problem
    return seat, play


def _pass_problem(state: GameState, seat: int) -> IllegalMove | None:
    """Why the seat in turn may not pass, or None (part of `check_move`)."""
    table = state.table
    if table is None:
        # Leading a trick (the table is empty) is the one time a pass is refused.
        return IllegalMove(f"{LEADER_CANNOT_PASS}: lead any combination", field="pass")
    if state.params.last_card == LastCardRule.HIGHEST_SINGLE_NO_PASS and table.play.combination is Combination.SINGLE:
        highest = _last_card_single(state, seat)
        if highest is not None:
            mine, on_table = card_value(highest, state.params), card_value(table.play.cards[0], state.params)
            # One deck: two cards never have one value, so `>=` would be the same test.
            if mine > on_table:  # pragma: no mutate
                return IllegalMove(f"{MUST_PLAY_HIGHEST}: the next player holds one card; play {highest}", field="pass")
    return None


def _play_problem(state: GameState, seat: int, play: Play) -> IllegalMove | None:
    """Why the seat in turn may not make this play of its cards, or None (part of `check_move`)."""
    if state.opening_card is not None and state.opening_card not in play.cards:
        return IllegalMove(f"{MUST_CONTAIN_LOWEST}: {state.opening_card}", field="play")
    if state.table is not None:
        reason = why_not_beats(play, state.table.play, state.params)
        if reason is not None:
            return IllegalMove(reason, field="play")
    if play.combination is Combination.SINGLE:
        highest = _last_card_single(state, seat)
        if highest is not None and play.cards[0] != highest:
            return IllegalMove(f"{MUST_PLAY_HIGHEST}: the next player holds one card; play {highest}", field="play")
    return None


def _last_card_single(state: GameState, seat: int) -> Card | None:
    """The seat's highest card when the last-card rule binds it (the next seat holds one
    card), else None."""
    if state.params.last_card == LastCardRule.NONE:
        return None
    nxt = (seat + 1) % len(state.player_ids)
    if len(state.hands[nxt]) != 1:
        return None
    return max(state.hands[seat], key=lambda c: card_value(c, state.params))


def _apply_pass(state: GameState, seat: int) -> GameState:
    passed = tuple(p or i == seat for i, p in enumerate(state.passed))
    history = (*state.history, HistoryEntry(len(state.history) + 1, seat, None))
    return _advance(replace(state, passed=passed, history=history), seat)


def _apply_play(state: GameState, seat: int, play: Play) -> GameState:
    params = state.params
    bomb = state.table is not None and is_bomb(play, state.table.play, params)
    hands = (*state.hands[:seat], state.hands[seat] - set(play.cards), *state.hands[seat + 1 :])
    history = (*state.history, HistoryEntry(len(state.history) + 1, seat, play))
    # `pass_locks` `turn`: a pass lasts until the next play; `trick`: until the trick ends.
    passed = (False,) * len(hands) if params.pass_rule == PassLock.TURN else state.passed
    after = replace(
        state,
        hands=hands,
        table=TablePlay(seat, play),
        passed=passed,
        history=history,
        opening_card=None,
    )
    if bomb and params.bomb_ends_game:
        assert state.table is not None
        # The bomb wins outright even when it also empties the hand: only the bombed player pays.
        return replace(after, winner=seat, bombed=state.table.seat, turn=None)
    if not hands[seat]:
        return replace(after, winner=seat, turn=None)
    return _advance(after, seat)


def _advance(state: GameState, mover: int) -> GameState:
    """Give the turn to the next seat (under `trick`, the next that has not passed); when it
    comes back to the last player, everyone else having passed, that player leads a new trick."""
    assert state.table is not None
    n = len(state.player_ids)
    if state.params.pass_rule == PassLock.TRICK:
        # The table's seat has not passed in its trick, so the search stops within n seats
        # (one seat more, `n + 2`, is never reached).
        nxt = next(s for s in ((mover + k) % n for k in range(1, n + 1)) if not state.passed[s])  # pragma: no mutate
    else:
        nxt = (mover + 1) % n
    if nxt == state.table.seat:
        return replace(state, table=None, passed=(False,) * n, leader=nxt, turn=nxt)
    return replace(state, turn=nxt)


def replay(
    player_ids: Sequence[str],
    hands: Sequence[Sequence[Card]],
    params: BantingParams,
    moves: Iterable[Move],
    leader: int | None = None,
) -> GameState:
    """The state after applying `moves` to a new game (raising on the first illegal one)."""
    state = new_game(player_ids, hands, params, leader)
    for move in moves:
        state = apply_move(state, move)
    return state


def legal_moves(state: GameState) -> list[Move]:
    """Every move the player in turn may make, in a stable order, then a pass if allowed.

    The candidates (plays of the table's size, bombs, a pass) are filtered by the referee's
    own checks (`check_move`'s parts), so every rule variant is honoured here too.
    """
    if state.turn is None:
        return []
    seat = state.turn
    player = state.player_ids[seat]
    params = state.params
    table = state.table
    # Sorted, not the frozenset's order (which follows string hashing): a seeded random
    # player then makes the same game in every process.
    hand = state.hand(seat)
    if table is None:
        plays = candidate_plays(hand, params)
    else:
        plays = candidate_plays(hand, params, table.play.size)
        rule = params.bomb_rule
        on_a_two = table.play.size == 1 and table.play.cards[0].rank == 2
        if rule == Bombs.BARE_QUADS or (rule == Bombs.FIVE_CARD_ON_TWO and on_a_two):
            sizes = (4, 5) if rule == Bombs.BARE_QUADS else (5,)
            plays += [
                p
                for size in sizes
                if size != table.play.size
                for p in candidate_plays(hand, params, size)
                if p.combination is Combination.FOUR_OF_A_KIND
            ]
    # The candidates are the player's own cards, classified: the rest of `check_move`.
    moves = [Move(player, p.cards) for p in plays if _play_problem(state, seat, p) is None]
    if _pass_problem(state, seat) is None:
        moves.append(Move.pass_turn(player))
    return moves


def random_game(
    player_ids: Sequence[str],
    hands: Sequence[Sequence[Card]],
    params: BantingParams,
    rng: random.Random,
) -> GameState:
    """A game played to its end by players choosing uniformly among their legal moves."""
    state = new_game(player_ids, hands, params)
    while not state.finished:
        state = apply_move(state, rng.choice(legal_moves(state)))
    return state


# -- documents ------------------------------------------------------------------------------


def _play_document(play: Play) -> list[str]:
    return canonical(play.cards)


def state_document(state: GameState) -> dict[str, Any]:
    """The domain-derived fields of the game state (docs/api.md#big-two-games), JSON-ready.

    `status`, `players` [{id, seat, cards_left, passed}], `turn`, `leader`, `table_play`,
    `history` [{n, player, play, pass}] and `winner`; the HTTP layer adds id, version,
    rules, currency, stake, table and round. Hands are never shown.
    """
    ids = state.player_ids
    table = state.table
    return {
        "status": state.status.value,
        "players": [
            {
                "id": pid,
                "seat": seat,
                "cards_left": len(state.hands[seat]),
                "passed": state.passed[seat],
            }
            for seat, pid in enumerate(ids)
        ],
        "turn": None if state.turn is None else ids[state.turn],
        "leader": ids[state.leader],
        "table_play": None
        if table is None
        else {
            "player": ids[table.seat],
            "cards": _play_document(table.play),
            "combination": table.play.combination.value,
        },
        "history": [
            {
                "n": e.n,
                "player": ids[e.seat],
                "play": None if e.play is None else _play_document(e.play),
                "pass": e.play is None,
            }
            for e in state.history
        ],
        "winner": None if state.winner is None else ids[state.winner],
    }
