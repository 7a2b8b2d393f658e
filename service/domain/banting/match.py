"""Big Two matches: games of one table until a player reaches the target, lowest total wins.

Each finished game adds every player's real loss (cards left x multiplier, the settlement's
`real_loss`, after `game_losses` charges a taker of all losses; 0 for the winner) to its total. Once a total reaches `target_points` the match
ends and the players with the lowest total win it. Every game is still settled and stored
on its own; the match only keeps the standings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def totals(players: Sequence[str], entries: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The players' totals over the finished games' entries."""
    return {pid: sum(int(e["points"][pid]) for e in entries) for pid in players}


def add_game(
    players: Sequence[str],
    entries: Sequence[Mapping[str, Any]],
    target: int,
    game: str,
    round_id: str,
    winner: str,
    points: Mapping[str, int],
) -> tuple[list[dict[str, Any]], GameStatus]:
    """The entries with this game's standings appended, and the match's status after it
    (a match plays and finishes as its games do: a `GameStatus`)."""
    entry: dict[str, Any] = {
        "n": len(entries) + 1,
        "game": game,
        "round": round_id,
        "winner": winner,
        "points": {pid: int(points[pid]) for pid in players},
    }
    after = [*(dict(e) for e in entries), entry]
    entry["totals"] = totals(players, after)
    status = GameStatus.FINISHED if max(entry["totals"].values()) >= target else GameStatus.PLAYING
    return after, status


def winners(players: Sequence[str], entries: Sequence[Mapping[str, Any]], status: GameStatus) -> list[str]:
    """Once the match has finished, the players with the lowest total (seat order); else []."""
    if status != GameStatus.FINISHED:
        return []
    total = totals(players, entries)
    low = min(total.values())
    return [pid for pid in players if total[pid] == low]


def next_leader(entries: Sequence[Mapping[str, Any]], lead_rule: str) -> str | None:
    """Who leads the next game: the previous game's winner under `previous_winner`, else None
    (the holder of the lowest card)."""
    if lead_rule != FirstLead.PREVIOUS_WINNER or not entries:
        return None
    return str(entries[-1]["winner"])
