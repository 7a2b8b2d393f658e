from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.arrangement import Arrangement
    from ..models.evaluate_request_rules_type_1 import EvaluateRequestRulesType1


T = TypeVar("T", bound="EvaluateRequest")


@_attrs_define
class EvaluateRequest:
    """
    Attributes:
        arrangement (Arrangement):
        rules (EvaluateRequestRulesType1 | str | Unset): Rule set: a preset name, or a preset with parameter overrides.
            Omitted: capsa-susun-id. Example: capsa-susun-id.
        hand (list[str] | None | Unset): Optional: the 13 cards the rows must use. Example: ['Ah', 'Ad', '7c', '9s',
            '9h', '4d', '4c', '2s', 'Ts', 'Js', 'Qs', 'Ks', 'As'].
    """

    arrangement: Arrangement
    rules: EvaluateRequestRulesType1 | str | Unset = UNSET
    hand: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.evaluate_request_rules_type_1 import EvaluateRequestRulesType1

        arrangement = self.arrangement.to_dict()

        rules: dict[str, Any] | str | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, EvaluateRequestRulesType1):
            rules = self.rules.to_dict()
        else:
            rules = self.rules

        hand: list[str] | None | Unset
        if isinstance(self.hand, Unset):
            hand = UNSET
        elif isinstance(self.hand, list):
            hand = self.hand

        else:
            hand = self.hand

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "arrangement": arrangement,
            }
        )
        if rules is not UNSET:
            field_dict["rules"] = rules
        if hand is not UNSET:
            field_dict["hand"] = hand

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.arrangement import Arrangement
        from ..models.evaluate_request_rules_type_1 import EvaluateRequestRulesType1

        d = dict(src_dict)
        arrangement = Arrangement.from_dict(d.pop("arrangement"))

        def _parse_rules(data: object) -> EvaluateRequestRulesType1 | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rules_type_1 = EvaluateRequestRulesType1.from_dict(data)

                return rules_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EvaluateRequestRulesType1 | str | Unset, data)

        rules = _parse_rules(d.pop("rules", UNSET))

        def _parse_hand(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                hand_type_0 = cast(list[str], data)

                return hand_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        hand = _parse_hand(d.pop("hand", UNSET))

        evaluate_request = cls(
            arrangement=arrangement,
            rules=rules,
            hand=hand,
        )

        return evaluate_request
