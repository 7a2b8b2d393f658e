"""Big Two turn timers (`turn_seconds`): overdue turns, the catch-up on access, the sweeper.

Every access (GET, a hand, a hint, a move) first applies the auto moves that are due
(`domain.banting.timers`) and stores them, so they stand even when the request that found
them then fails; each is stored with `"auto": true` and dated at its deadline, so whoever
applies them, and however late, the same moves are stored. A GET, a hand or a hint does it
in a write transaction of its own (`catch_up`); a move in its own transaction, before the
move (`catch_up_in`, and games.move keeps them when the move is refused); `capsa sweep`
for every timed game in play (`play_overdue`).
"""

from __future__ import annotations

import logging
from datetime import datetime

from service.adapters.banting import GameRecord
from service.adapters.uow import Database, UnitOfWork
from service.domain.banting.game import GameState
from service.domain.banting.moves import MadeMove
from service.domain.banting.timers import deadline, is_due, last_move_at, overdue_moves
from service.services.banting import store
from service.services.clock import rfc3339, utcnow_ms

log = logging.getLogger(__name__)


def deadline_text(game: GameRecord, state: GameState) -> str | None:
    """When the turn in play runs out (null when untimed or finished)."""
    if game.turn_seconds is None or state.finished:
        return None
    return rfc3339(deadline(last_move_at(game.moves, game.created_at), game.turn_seconds))


def overdue(game: GameRecord, state: GameState, now: datetime) -> tuple[GameState, list[MadeMove]]:
    """The state after the auto moves due by `now`, and those moves."""
    if game.turn_seconds is None or state.finished:
        return state, []
    return overdue_moves(state, last_move_at(game.moves, game.created_at), game.turn_seconds, now)


def due(game: GameRecord, now: datetime) -> bool:
    """Whether the turn in play has run out (no replay needed to say so)."""
    return is_due(game.status, game.moves, game.created_at, game.turn_seconds, now)


def catch_up_in(uow: UnitOfWork, client_id: str, game: GameRecord, now: datetime) -> tuple[GameRecord, GameState, int]:
    """In this transaction, with the game locked: store the auto moves due by `now` (a round
    too when they end it); the game as it then stands, its state and how many were made."""
    state, added = overdue(game, store.state_of(game), now)
    if not added:
        return game, state, 0
    return store.save(uow, client_id, game, state, [*game.moves, *added], now), state, len(added)


def catch_up(db: Database, client_id: str, game_id: str) -> int:
    """Apply and store the game's overdue auto moves in their own transaction; how many.
    Cheap when none is due: one read, no lock."""
    with db.unit_of_work() as uow:
        game = uow.games.get(client_id, game_id)
        if game is None or not due(game, utcnow_ms()):
            return 0
    with db.unit_of_work(write=True) as uow:
        game = store.found(uow, client_id, game_id, lock=True)
        # Not due any more: another request applied them first (nothing made, nothing written).
        _, _, made = catch_up_in(uow, client_id, game, utcnow_ms())
        uow.commit()
        return made


def sweep(db: Database) -> int:
    """Apply every timed game's overdue auto moves (for a sweeper process; accesses do it
    anyway); how many moves."""
    return sum(moves for _client, _game, moves in play_overdue(db))


SWEEP_BATCH = 100  # due games read per statement


def play_overdue(db: Database, batch: int = SWEEP_BATCH) -> list[tuple[str, str, int]]:
    """Apply every timed game's overdue auto moves: (client id, game id, how many moves) of
    each game this pass played in. The games whose turn ran out are read by their stored
    deadline, `batch` at a time, each tried once a pass: the games in play whose turn runs
    on cost the pass nothing, whoever holds them."""
    now = utcnow_ms()
    played: list[tuple[str, str, int]] = []
    after: tuple[datetime, str, str] | None = None
    while True:
        with db.unit_of_work() as uow:
            due_games = uow.games.due(now, batch, after)
        for _deadline, client_id, game_id in due_games:
            try:
                made = catch_up(db, client_id, game_id)
            except Exception:  # one game that cannot be played for must not stop the others
                log.exception("could not play the overdue turns of game %s", game_id)
                continue
            if made:
                played.append((client_id, game_id, made))
        if len(due_games) < batch:
            return played
        after = due_games[-1]
