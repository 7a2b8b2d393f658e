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


def counts(entry: Mapping[str, Any]) -> bool:
    """Whether a game's entry counts: its round was not voided (entries stored before voids
    were marked have no `void`)."""
    return not entry.get("void", False)


def totals(players: Sequence[str], entries: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The players' totals over the finished games' entries that count."""
    return {pid: sum(int(e["points"][pid]) for e in entries if counts(e)) for pid in players}


def _status(players: Sequence[str], entries: Sequence[Mapping[str, Any]], target: int) -> GameStatus:
    return GameStatus.FINISHED if max(totals(players, entries).values()) >= target else GameStatus.PLAYING


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
        "void": False,
        "points": {pid: int(points[pid]) for pid in players},
    }
    after = [*(dict(e) for e in entries), entry]
    entry["totals"] = totals(players, after)
    return after, _status(players, after, target)


def void_game(
    players: Sequence[str], entries: Sequence[Mapping[str, Any]], target: int, round_id: str
) -> tuple[list[dict[str, Any]], GameStatus] | None:
    """The entries with the game of `round_id` marked void and the standings after each game
    taken again without it, and the match's status after that; None when no entry that
    counts holds that round. A void only takes points away, so a finished match may play on;
    one in play stays in play."""
    if not any(e["round"] == round_id and counts(e) for e in entries):
        return None
    after: list[dict[str, Any]] = []
    running = dict.fromkeys(players, 0)  # the totals so far, one pass (a total each entry was O(n^2))
    for e in entries:
        entry = dict(e)
        entry["void"] = not counts(e) or e["round"] == round_id
        if counts(entry):
            for pid in players:
                running[pid] += int(entry["points"][pid])
        entry["totals"] = dict(running)
        after.append(entry)
    return after, _status(players, after, target)


def winners(players: Sequence[str], entries: Sequence[Mapping[str, Any]], status: GameStatus) -> list[str]:
    """Once the match has finished, the players with the lowest total (seat order); else []."""
    if status != GameStatus.FINISHED:
        return []
    total = totals(players, entries)
    low = min(total.values())
    return [pid for pid in players if total[pid] == low]


def next_leader(entries: Sequence[Mapping[str, Any]], lead_rule: str) -> str | None:
    """Who leads the next game: under `previous_winner` the winner of the last game that
    counts, else (or before any game counts) None: the holder of the lowest card."""
    counted = [e for e in entries if counts(e)]
    if lead_rule != FirstLead.PREVIOUS_WINNER or not counted:
        return None
    return str(counted[-1]["winner"])
