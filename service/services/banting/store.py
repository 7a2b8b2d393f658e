"""A stored Big Two game as the use cases see it: found, replayed, saved with its moves.

A game's state is its stored moves replayed by the pure referee (`service.domain.banting`).
`save` writes the moves under the game's version check, so two concurrent writers never
both apply; the move that ends the game also records it as a round (`recording.record`) and
tells every listener of finished games (its match: `matches.game_finished`, subscribed in
the package's `__init__`), all in that move's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from service.adapters.banting import GameRecord
from service.adapters.uow import UnitOfWork
from service.domain.banting.game import GameState
from service.domain.banting.moves import MadeMove, replay_made
from service.domain.banting.timers import turn_deadline
from service.domain.errors import FieldError
from service.domain.rules import RuleSet, banting_params
from service.services import deals
from service.services.banting import recording
from service.services.errors import Conflict, NotFound


@dataclass(frozen=True)
class FinishedGame:
    """A game that has just ended, as saved: its record (with its round) and final state."""

    client_id: str
    game: GameRecord
    state: GameState

    @property
    def round_id(self) -> str:
        assert self.game.round_id is not None
        return self.game.round_id

    @property
    def winner(self) -> str:
        assert self.state.winner is not None
        return self.state.player_ids[self.state.winner]


FinishedListener = Callable[[UnitOfWork, FinishedGame], None]
_listeners: list[FinishedListener] = []


def on_finished(listener: FinishedListener) -> None:
    """Call `listener(uow, finished)` in the transaction of every move that ends a game."""
    if listener not in _listeners:
        _listeners.append(listener)


def found(uow: UnitOfWork, client_id: str, game_id: str, lock: bool = False) -> GameRecord:
    """The client's game (locked until the transaction ends, with `lock`), or 404."""
    game = uow.games.get(client_id, game_id, lock=lock)
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    return game


def state_of(game: GameRecord) -> GameState:
    """The game's state: its stored moves replayed on its dealt hands."""
    params = banting_params(RuleSet.from_json(game.rules_json))
    return replay_made(game.players, game.hands, params, game.moves, game.leader)


def finished_conflict(game_id: str) -> Conflict:
    return Conflict(
        f"game {game_id!r} has finished; no more moves",
        errors=[FieldError("path.game_id", "the game has finished")],
    )


def save(
    uow: UnitOfWork, client_id: str, game: GameRecord, state: GameState, moves: Sequence[MadeMove], now: datetime
) -> GameRecord:
    """Write the moves (and, when the game has ended, its round) under the version check;
    the game as saved."""
    saved = replace(game, moves=tuple(moves), status=state.status, version=game.version + 1, updated_at=now)
    if state.finished:
        assert state.winner is not None
        saved = replace(
            saved, winner=state.player_ids[state.winner], round_id=recording.record(uow, client_id, game, moves)
        )
        deals.ended(uow, client_id, game.deal_id, now)
        for listener in _listeners:
            listener(uow, FinishedGame(client_id, saved, state))
    written = uow.games.record_moves(
        game.client_id, game.id, game.version, saved.moves, saved.status, now, saved.winner, saved.round_id,
        turn_deadline(saved.status, saved.moves, saved.created_at, saved.turn_seconds),
    )
    if not written:
        raise Conflict("the game changed while this move was applied; fetch it and retry")
    return saved
