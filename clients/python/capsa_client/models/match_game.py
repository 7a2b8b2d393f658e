from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.match_game_points import MatchGamePoints
    from ..models.match_game_totals import MatchGameTotals


T = TypeVar("T", bound="MatchGame")


@_attrs_define
class MatchGame:
    """
    Attributes:
        n (int): Game number in the match, from 1. Example: 1.
        game (str):  Example: gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        round_ (str):  Example: rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        winner (str):  Example: a.
        void (bool): The game's round was voided: its points count in no total, and a match it had finished plays on
            when no total reaches the target without it. Example: False.
        points (MatchGamePoints): Each player's points from this game: its real loss (cards left x multiplier, after a
            bomb or a taker of all losses as the rules say; 0 for the winner). Example: {'a': 0, 'b': 8}.
        totals (MatchGameTotals): The standings after this game, over the games that count. Example: {'a': 0, 'b': 8}.
    """

    n: int
    game: str
    round_: str
    winner: str
    void: bool
    points: MatchGamePoints
    totals: MatchGameTotals

    def to_dict(self) -> dict[str, Any]:
        n = self.n

        game = self.game

        round_ = self.round_

        winner = self.winner

        void = self.void

        points = self.points.to_dict()

        totals = self.totals.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "n": n,
                "game": game,
                "round": round_,
                "winner": winner,
                "void": void,
                "points": points,
                "totals": totals,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.match_game_points import MatchGamePoints
        from ..models.match_game_totals import MatchGameTotals

        d = dict(src_dict)
        n = d.pop("n")

        game = d.pop("game")

        round_ = d.pop("round")

        winner = d.pop("winner")

        void = d.pop("void")

        points = MatchGamePoints.from_dict(d.pop("points"))

        totals = MatchGameTotals.from_dict(d.pop("totals"))

        match_game = cls(
            n=n,
            game=game,
            round_=round_,
            winner=winner,
            void=void,
            points=points,
            totals=totals,
        )

        return match_game
