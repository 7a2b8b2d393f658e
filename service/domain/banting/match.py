"""Big Two matches: games of one table until a player reaches the target, lowest total wins.

Each finished game adds every player's real loss (cards left x multiplier, the settlement's
`real_loss`, after `game_losses` charges a taker of all losses; 0 for the winner) to its total. Once a total reaches `target_points` the match
ends and the players with the lowest total win it. Every game is still settled and stored
on its own; the match only keeps the standings.

A game whose round is voided stays in the standings, marked `void`, and counts no more: its
points are in no total, so a match it had finished plays on when no total reaches the target
without it, and under `previous_winner` the winner of the last game that counts leads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .game import GameState, GameStatus
from .rules import FirstLead
from .settlement import game_losses

DEFAULT_TARGET = 101  # michaelelalam-glitch/Big-Two-Neo: a match ends when a player reaches 101
MIN_TARGET, MAX_TARGET = 1, 10_000  # the target points a match may be given


def game_points(state: GameState) -> dict[str, int]:
    """Each player's match points from a finished game: its real loss (the winner's is 0)."""
    losses = game_losses(state, state.params)[1]
    return {pid: losses[seat][1] for seat, pid in enumerate(state.player_ids)}


@dataclass(frozen=True, slots=True)
class MatchEntry:
    """A finished game's entry in its match: its number, game, round and winner, whether its
    round was voided, each player's points from it and the standings after it (over the
    games that count, so a voided game's are those before it)."""

    n: int
    game: str
    round: str
    winner: str
    void: bool
    points: Mapping[str, int]
    totals: Mapping[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "game": self.game,
            "round": self.round,
            "winner": self.winner,
            "void": self.void,
            "points": dict(self.points),
            "totals": dict(self.totals),
        }


def status_of(totals: Mapping[str, int], target: int) -> GameStatus:
    """A match plays and finishes as its games do: finished once a total reaches the target."""
    return GameStatus.FINISHED if max(totals.values()) >= target else GameStatus.PLAYING


def add_game(
    players: Sequence[str],
    totals: Mapping[str, int],
    played: int,
    target: int,
    game: str,
    round_id: str,
    winner: str,
    points: Mapping[str, int],
) -> tuple[MatchEntry, dict[str, int], GameStatus]:
    """The entry of the next game (after `played` games whose standings are `totals`), the
    totals after it and the match's status after it."""
    after = {pid: int(totals[pid]) + int(points[pid]) for pid in players}
    entry = MatchEntry(played + 1, game, round_id, winner, False, {pid: int(points[pid]) for pid in players}, after)
    return entry, after, status_of(after, target)


def void_game(
    players: Sequence[str], totals: Mapping[str, int], target: int, entry: MatchEntry
) -> tuple[dict[str, int], GameStatus]:
    """The totals and the match's status once a game that counts is voided: its points come
    off the totals (and off the standings after it and every later game). A void only takes
    points away, so a finished match may play on; one in play stays in play."""
    after = {pid: int(totals[pid]) - int(entry.points[pid]) for pid in players}
    return after, status_of(after, target)


def winners(players: Sequence[str], totals: Mapping[str, int], status: GameStatus) -> list[str]:
    """Once the match has finished, the players with the lowest total (seat order); else []."""
    if status != GameStatus.FINISHED:
        return []
    low = min(totals[pid] for pid in players)
    return [pid for pid in players if totals[pid] == low]


def leads_by_winner(lead_rule: str) -> bool:
    """Whether the winner of the last game that counts leads the next (`previous_winner`)."""
    return lead_rule == FirstLead.PREVIOUS_WINNER


def last_winner(entries: Sequence[MatchEntry]) -> str | None:
    """The winner of the newest entry that counts (not voided) among `entries`, newest
    first; None when none of them counts. Under `previous_winner` that player leads the next
    game; before any game counts, the holder of the lowest card does."""
    return next((e.winner for e in entries if not e.void), None)
