"""Big Two moves as they travel: a move body, a stored move, a finished game's round request.

A `Move` is the referee's (game.py). A move body is `{"player", "play": [cards]}` or
`{"player", "pass": true}` (`parse_move`, `move_body`). A game keeps each move made as a
`MadeMove`: the move, when it was made and whether the service made it for a player whose
turn ran out (`auto`, timers.py); `to_json` / `from_json` are its stored form and
`request_json` its form in the round request a finished game is recorded from (hashed in the
chain: docs/audit.md). Moves stored before turn timers have neither `at` nor `auto`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..audit import timestamp
from ..cards import canonical, parse_cards
from ..errors import InvalidRound
from .game import GameState, Move, MoveKind, replay
from .rules import BantingParams


@dataclass(frozen=True, slots=True)
class MadeMove:
    """A move of a game as stored: the move, its time (None: stored before turn timers) and
    whether the service made it for a player whose turn ran out."""

    move: Move
    at: datetime | None = None
    auto: bool = False

    @property
    def player(self) -> str:
        return self.move.player

    @property
    def at_text(self) -> str | None:
        """`at` as stored and shown: RFC 3339 with milliseconds (None before turn timers)."""
        return None if self.at is None else timestamp(self.at)

    def _play(self) -> list[str] | None:
        return None if self.move.cards is None else canonical(self.move.cards)

    def to_json(self) -> dict[str, Any]:
        """`{"player", "play": [cards] or null, "at": RFC 3339 or null, "auto"}`."""
        return {
            "player": self.move.player,
            MoveKind.PLAY.value: self._play(),
            "at": self.at_text,
            "auto": self.auto,
        }

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> MadeMove:
        """The stored form back (`at` and `auto` absent before turn timers)."""
        at = stored.get("at")
        return cls(
            _move(str(stored["player"]), stored.get(MoveKind.PLAY.value)),
            None if at is None else datetime.fromisoformat(at),
            bool(stored.get("auto")),
        )

    def request_json(self) -> dict[str, Any]:
        """The move in a finished game's round request: `{"player", "play", "pass", "at", "auto"}`."""
        return {
            "player": self.move.player,
            MoveKind.PLAY.value: self._play(),
            MoveKind.PASS.value: self.move.is_pass,
            "at": self.at_text,
            "auto": self.auto,
        }


def _move(player: str, play: Sequence[object] | None) -> Move:
    if play is None:
        return Move.pass_turn(player)
    return Move.play(player, parse_cards(play, MoveKind.PLAY.value))


def request_move(moved: Mapping[str, Any]) -> Move:
    """A move of a round request (`request_json`'s form, or a stored move): its player and play."""
    return _move(str(moved["player"]), moved.get(MoveKind.PLAY.value))


def parse_move(body: Mapping[str, Any]) -> Move:
    """A move body: `{"player", "play": [...]}` or `{"player", "pass": true}`, exactly one of
    the two (InvalidRound naming `pass` or `play` otherwise)."""
    player = str(body["player"])
    play, passes = body.get(MoveKind.PLAY.value), body.get(MoveKind.PASS.value)
    if play is not None and passes:
        raise InvalidRound("a move either plays cards or passes, not both", field=MoveKind.PASS.value)
    if passes:
        return Move.pass_turn(player)
    if play is None:
        field = MoveKind.PASS if passes is False else MoveKind.PLAY
        raise InvalidRound('a move needs "play": [cards] or "pass": true', field=field.value)
    return Move.play(player, parse_cards(play, MoveKind.PLAY.value))


def move_body(move: Move) -> dict[str, Any]:
    """The move body that makes `move`: `{"player", "pass": true}` or `{"player", "play": [...]}`."""
    if move.cards is None:
        return {"player": move.player, MoveKind.PASS.value: True}
    return {"player": move.player, MoveKind.PLAY.value: canonical(move.cards)}


def replay_made(
    player_ids: Sequence[str],
    hands: Sequence[Sequence[object]],
    params: BantingParams,
    moves: Sequence[MadeMove],
    leader: str | None = None,
) -> GameState:
    """The state of a stored game: its hands (card texts), its moves, its leader (a player)."""
    return replay(
        player_ids,
        [parse_cards(h, "hands") for h in hands],
        params,
        [m.move for m in moves],
        None if leader is None else list(player_ids).index(leader),
    )
