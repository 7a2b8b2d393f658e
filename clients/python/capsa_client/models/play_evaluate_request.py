from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.play_evaluate_request_rules_type_1 import PlayEvaluateRequestRulesType1


T = TypeVar("T", bound="PlayEvaluateRequest")


@_attrs_define
class PlayEvaluateRequest:
    """
    Attributes:
        cards (list[str]): The play: 1, 2, 3 or 5 cards. Example: ['3d', '3s'].
        rules (PlayEvaluateRequestRulesType1 | str | Unset): Rule set: a Banting preset name, or one with parameter
            overrides (docs/rules.md#banting-parameters). Omitted: capsa-banting-id; a Capsa Susun preset is 422 unknown-
            rules. Example: capsa-banting-id.
        beats (list[str] | None | Unset): Optional: the play on the table. Example: ['3c', '3h'].
    """

    cards: list[str]
    rules: PlayEvaluateRequestRulesType1 | str | Unset = UNSET
    beats: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.play_evaluate_request_rules_type_1 import (
            PlayEvaluateRequestRulesType1,
        )

        cards = self.cards

        rules: dict[str, Any] | str | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, PlayEvaluateRequestRulesType1):
            rules = self.rules.to_dict()
        else:
            rules = self.rules

        beats: list[str] | None | Unset
        if isinstance(self.beats, Unset):
            beats = UNSET
        elif isinstance(self.beats, list):
            beats = self.beats

        else:
            beats = self.beats

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cards": cards,
            }
        )
        if rules is not UNSET:
            field_dict["rules"] = rules
        if beats is not UNSET:
            field_dict["beats"] = beats

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.play_evaluate_request_rules_type_1 import (
            PlayEvaluateRequestRulesType1,
        )

        d = dict(src_dict)
        cards = cast(list[str], d.pop("cards"))

        def _parse_rules(data: object) -> PlayEvaluateRequestRulesType1 | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rules_type_1 = PlayEvaluateRequestRulesType1.from_dict(data)

                return rules_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(PlayEvaluateRequestRulesType1 | str | Unset, data)

        rules = _parse_rules(d.pop("rules", UNSET))

        def _parse_beats(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                beats_type_0 = cast(list[str], data)

                return beats_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        beats = _parse_beats(d.pop("beats", UNSET))

        play_evaluate_request = cls(
            cards=cards,
            rules=rules,
            beats=beats,
        )

        return play_evaluate_request
