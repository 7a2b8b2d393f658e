from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.play_evaluation_combination_type_1 import (
    PlayEvaluationCombinationType1,
    check_play_evaluation_combination_type_1,
)
from ..models.play_evaluation_combination_type_2_type_1 import (
    PlayEvaluationCombinationType2Type1,
    check_play_evaluation_combination_type_2_type_1,
)
from ..models.play_evaluation_combination_type_3_type_1 import (
    PlayEvaluationCombinationType3Type1,
    check_play_evaluation_combination_type_3_type_1,
)

if TYPE_CHECKING:
    from ..models.rules_echo import RulesEcho


T = TypeVar("T", bound="PlayEvaluation")


@_attrs_define
class PlayEvaluation:
    """
    Attributes:
        combination (None | PlayEvaluationCombinationType1 | PlayEvaluationCombinationType2Type1 |
            PlayEvaluationCombinationType3Type1):  Example: pair.
        valid (bool):  Example: True.
        beats (bool | None): null when no `beats` play was given. Example: True.
        reason (None | str): Why not valid or not beating.
        rules (RulesEcho):
    """

    combination: (
        None
        | PlayEvaluationCombinationType1
        | PlayEvaluationCombinationType2Type1
        | PlayEvaluationCombinationType3Type1
    )
    valid: bool
    beats: bool | None
    reason: None | str
    rules: RulesEcho

    def to_dict(self) -> dict[str, Any]:
        combination: None | str
        if isinstance(self.combination, str) or isinstance(self.combination, str) or isinstance(self.combination, str):
            combination = self.combination
        else:
            combination = self.combination

        valid = self.valid

        beats: bool | None
        beats = self.beats

        reason: None | str
        reason = self.reason

        rules = self.rules.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "combination": combination,
                "valid": valid,
                "beats": beats,
                "reason": reason,
                "rules": rules,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.rules_echo import RulesEcho

        d = dict(src_dict)

        def _parse_combination(
            data: object,
        ) -> (
            None
            | PlayEvaluationCombinationType1
            | PlayEvaluationCombinationType2Type1
            | PlayEvaluationCombinationType3Type1
        ):
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                combination_type_1 = check_play_evaluation_combination_type_1(data)

                return combination_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                combination_type_2_type_1 = check_play_evaluation_combination_type_2_type_1(data)

                return combination_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                combination_type_3_type_1 = check_play_evaluation_combination_type_3_type_1(data)

                return combination_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None
                | PlayEvaluationCombinationType1
                | PlayEvaluationCombinationType2Type1
                | PlayEvaluationCombinationType3Type1,
                data,
            )

        combination = _parse_combination(d.pop("combination"))

        valid = d.pop("valid")

        def _parse_beats(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        beats = _parse_beats(d.pop("beats"))

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        rules = RulesEcho.from_dict(d.pop("rules"))

        play_evaluation = cls(
            combination=combination,
            valid=valid,
            beats=beats,
            reason=reason,
            rules=rules,
        )

        return play_evaluation
