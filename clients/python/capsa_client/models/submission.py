from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.submission_status import SubmissionStatus, check_submission_status

if TYPE_CHECKING:
    from ..models.evaluation import Evaluation


T = TypeVar("T", bound="Submission")


@_attrs_define
class Submission:
    """
    Attributes:
        game (str):  Example: sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        player (str):  Example: a.
        status (SubmissionStatus):  Example: arranging.
        version (int):  Example: 2.
        surrender (bool):  Example: False.
        evaluation (Evaluation | None): As POST /v1/arrangements/evaluate answers; null for a surrender.
        round_ (None | str): Set when this submission was the last and settled the game.
    """

    game: str
    player: str
    status: SubmissionStatus
    version: int
    surrender: bool
    evaluation: Evaluation | None
    round_: None | str

    def to_dict(self) -> dict[str, Any]:
        from ..models.evaluation import Evaluation

        game = self.game

        player = self.player

        status: str = self.status

        version = self.version

        surrender = self.surrender

        evaluation: dict[str, Any] | None
        if isinstance(self.evaluation, Evaluation):
            evaluation = self.evaluation.to_dict()
        else:
            evaluation = self.evaluation

        round_: None | str
        round_ = self.round_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "game": game,
                "player": player,
                "status": status,
                "version": version,
                "surrender": surrender,
                "evaluation": evaluation,
                "round": round_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.evaluation import Evaluation

        d = dict(src_dict)
        game = d.pop("game")

        player = d.pop("player")

        status = check_submission_status(d.pop("status"))

        version = d.pop("version")

        surrender = d.pop("surrender")

        def _parse_evaluation(data: object) -> Evaluation | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                evaluation_type_0 = Evaluation.from_dict(data)

                return evaluation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Evaluation | None, data)

        evaluation = _parse_evaluation(d.pop("evaluation"))

        def _parse_round_(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        round_ = _parse_round_(d.pop("round"))

        submission = cls(
            game=game,
            player=player,
            status=status,
            version=version,
            surrender=surrender,
            evaluation=evaluation,
            round_=round_,
        )

        return submission
