"""Big Two turn timers: the moves the service makes for players whose turn ran out.

Pure: the caller passes the times. Each turn lasts `turn_seconds` from the previous move's
time (the game's start for the first turn); a player still in turn at its deadline is played
for by `hint.auto_move` (a pass where allowed, else the hint), and that auto move is dated at
the deadline, so the next turn's deadline follows from it and the same game and clock always
give the same moves, however late they are applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from ..audit import timestamp
from ..errors import IllegalMove
from .game import GameState, GameStatus, apply_move
from .hint import auto_move
from .moves import MadeMove

MIN_TURN_SECONDS, MAX_TURN_SECONDS = 1, 86_400
TURN_TIMED_OUT = "turn timed out"


def last_move_at(moves: Sequence[MadeMove], started: datetime) -> datetime:
    """When the turn in play began: the last dated move's time, or the game's start."""
    for made in reversed(moves):
        if made.at is not None:
            return made.at
    return started


def deadline(last_move_at: datetime, turn_seconds: int) -> datetime:
    """When the turn that began at `last_move_at` runs out: a move at or after it is late."""
    return last_move_at + timedelta(seconds=turn_seconds)


def overdue_moves(
    state: GameState, last_move_at: datetime, turn_seconds: int, now: datetime
) -> tuple[GameState, list[MadeMove]]:
    """Every auto move due by `now`, in order (each dated at its deadline), and the state
    after them.

    A turn is over at its deadline (`now >= deadline`); the loop stops at the first turn
    still running or when an auto move ends the game.
    """
    made: list[MadeMove] = []
    at = last_move_at
    while not state.finished:
        due = deadline(at, turn_seconds)
        if now < due:
            break
        move = auto_move(state)
        state = apply_move(state, move)
        made.append(MadeMove(move, due, auto=True))
        at = due
    return state, made


def turn_deadline(status: GameStatus, moves: Sequence[MadeMove], started: datetime,
                  turn_seconds: int | None) -> datetime | None:
    """When the turn in play of a timed game runs out; None for an untimed or ended game
    (stored with the game, for the sweeper's look-up of the games due)."""
    if turn_seconds is None or status != GameStatus.PLAYING:
        return None
    return deadline(last_move_at(moves, started), turn_seconds)


def is_due(status: GameStatus, moves: Sequence[MadeMove], started: datetime, turn_seconds: int | None,
           now: datetime) -> bool:
    """Whether the turn in play of a timed game has run out by `now` (no replay needed to say so)."""
    due = turn_deadline(status, moves, started, turn_seconds)
    return due is not None and now >= due


def refuse_if_timed_out(moves: Sequence[MadeMove], turn_seconds: int | None, state: GameState, player: str) -> None:
    """IllegalMove `turn timed out` for a player whose last turn the service played (and who
    is not in turn again): it is late."""
    seat = state.seat_of(player)
    if seat is None or seat == state.turn or turn_seconds is None:
        return
    mine = [n for n, m in enumerate(moves, 1) if m.player == player]
    if mine and moves[mine[-1] - 1].auto:
        last = moves[mine[-1] - 1]
        assert last.at is not None  # an auto move is always dated
        raise IllegalMove(
            f"{TURN_TIMED_OUT}: {player!r}'s turn ended at {timestamp(last.at)}; the service played move {mine[-1]} for it",
            field="player",
        )
