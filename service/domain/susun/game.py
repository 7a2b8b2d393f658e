"""A server-run Capsa Susun game's phases and its deadline, with no storage.

A game opens its arrangement phase when it is made; its deadline is its creation time plus
`arrange_seconds` (MIN_ARRANGE_SECONDS to MAX_ARRANGE_SECONDS). It takes submissions while
it is arranging and its deadline is still ahead; at the deadline itself it takes no more and
is due: the next access (or the sweeper) settles it, auto-arranging whoever did not submit.
The last player's submission settles it before the deadline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

MIN_ARRANGE_SECONDS = 1
MAX_ARRANGE_SECONDS = 86_400  # a day


class GameStatus(StrEnum):
    """A server-run Susun game's phase, as the API writes it."""

    ARRANGING = "arranging"
    SETTLED = "settled"


def deadline_of(created_at: datetime, arrange_seconds: int) -> datetime:
    """When the arrangement phase of a game made at `created_at` ends."""
    return created_at + timedelta(seconds=arrange_seconds)


def arrange_seconds_problem(seconds: int) -> str | None:
    """Why `seconds` cannot be an arrangement phase's length (None: it can)."""
    if MIN_ARRANGE_SECONDS <= seconds <= MAX_ARRANGE_SECONDS:
        return None
    return f"must be {MIN_ARRANGE_SECONDS} to {MAX_ARRANGE_SECONDS}, not {seconds!r}"


def is_due(status: GameStatus, deadline: datetime, now: datetime) -> bool:
    """Whether the game must settle now: still arranging and its deadline reached."""
    return status == GameStatus.ARRANGING and deadline <= now


def takes_submissions(status: GameStatus, deadline: datetime, now: datetime) -> bool:
    """Whether a player may still submit or replace its rows: arranging, deadline ahead."""
    return status == GameStatus.ARRANGING and now < deadline


@dataclass(frozen=True, slots=True)
class Submission:
    """What one player sent (or the service chose for it), as the game keeps it."""

    arrangement: Mapping[str, list[str]] | None  # front, middle, back; None for a surrender
    surrender: bool
    auto_arranged: bool
    at: str  # RFC 3339, when it was received (or auto-arranged)

    def to_json(self) -> dict[str, Any]:
        return {
            "arrangement": None if self.arrangement is None else dict(self.arrangement),
            "surrender": self.surrender,
            "auto_arranged": self.auto_arranged,
            "at": self.at,
        }


def player_view(submission: Mapping[str, Any] | None, settled: bool) -> dict[str, Any]:
    """What a game's document says of one player's submission (before `id`): before
    settlement only whether and when the player submitted (an auto-arranged hand is not a
    submission); once settled, its rows, surrender and whether the service arranged it."""
    auto = bool(submission and submission.get("auto_arranged"))
    entry: dict[str, Any] = {
        "submitted": submission is not None and not auto,
        "submitted_at": None if submission is None or auto else submission["at"],
    }
    if settled:
        rows = None if submission is None else submission.get("arrangement")
        entry["arrangement"] = None if rows is None else {k: rows[k] for k in ("front", "middle", "back")}
        entry["surrender"] = bool(submission and submission.get("surrender"))
        entry["auto_arranged"] = auto
    return entry


__all__ = [
    "MAX_ARRANGE_SECONDS",
    "MIN_ARRANGE_SECONDS",
    "GameStatus",
    "Submission",
    "arrange_seconds_problem",
    "deadline_of",
    "is_due",
    "player_view",
    "takes_submissions",
]
