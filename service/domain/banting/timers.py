"""Big Two turn timers: the moves the service makes for players whose turn ran out.

Pure: the caller passes the times. Each turn lasts `turn_seconds` from the previous move's
time (the game's start for the first turn); a player still in turn at its deadline is played
for by `hint.auto_move` (a pass where allowed, else the hint), and that auto move is dated at
the deadline, so the next turn's deadline follows from it and the same game and clock always
give the same moves, however late they are applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from .game import GameState, Move, apply_move
from .hint import auto_move

MIN_TURN_SECONDS, MAX_TURN_SECONDS = 1, 86_400
TURN_TIMED_OUT = "turn timed out"


@dataclass(frozen=True, slots=True)
class AutoMove:
    """A move made for a player whose turn timed out, dated at that turn's deadline."""

    move: Move
    at: datetime


def deadline(last_move_at: datetime, turn_seconds: int) -> datetime:
    """When the turn that began at `last_move_at` runs out: a move at or after it is late."""
    return last_move_at + timedelta(seconds=turn_seconds)


def overdue_moves(
    state: GameState, last_move_at: datetime, turn_seconds: int, now: datetime
) -> tuple[GameState, list[AutoMove]]:
    """Every auto move due by `now`, in order, and the state after them.

    A turn is over at its deadline (`now >= deadline`); the loop stops at the first turn
    still running or when an auto move ends the game.
    """
    made: list[AutoMove] = []
    at = last_move_at
    while not state.finished:
        due = deadline(at, turn_seconds)
        if now < due:
            break
        move = auto_move(state)
        state = apply_move(state, move)
        made.append(AutoMove(move, due))
        at = due
    return state, made
