from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.suggest_request_rules_type_1 import SuggestRequestRulesType1


T = TypeVar("T", bound="SuggestRequest")


@_attrs_define
class SuggestRequest:
    """
    Attributes:
        hand (list[str]): The 13 cards to set. Example: ['Ah', 'Ad', '7c', '9s', '9h', '4d', '4c', '2s', 'Ts', 'Js',
            'Qs', 'Ks', 'As'].
        rules (str | SuggestRequestRulesType1 | Unset): Rule set: a preset name, or a preset with parameter overrides.
            Omitted: capsa-susun-id. Example: capsa-susun-id.
        limit (int | Unset): How many distinct legal settings to return, best first (1-20). Default: 3. Example: 3.
    """

    hand: list[str]
    rules: str | SuggestRequestRulesType1 | Unset = UNSET
    limit: int | Unset = 3

    def to_dict(self) -> dict[str, Any]:
        from ..models.suggest_request_rules_type_1 import SuggestRequestRulesType1

        hand = self.hand

        rules: dict[str, Any] | str | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, SuggestRequestRulesType1):
            rules = self.rules.to_dict()
        else:
            rules = self.rules

        limit = self.limit

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "hand": hand,
            }
        )
        if rules is not UNSET:
            field_dict["rules"] = rules
        if limit is not UNSET:
            field_dict["limit"] = limit

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.suggest_request_rules_type_1 import SuggestRequestRulesType1

        d = dict(src_dict)
        hand = cast(list[str], d.pop("hand"))

        def _parse_rules(data: object) -> str | SuggestRequestRulesType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rules_type_1 = SuggestRequestRulesType1.from_dict(data)

                return rules_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(str | SuggestRequestRulesType1 | Unset, data)

        rules = _parse_rules(d.pop("rules", UNSET))

        limit = d.pop("limit", UNSET)

        suggest_request = cls(
            hand=hand,
            rules=rules,
            limit=limit,
        )

        return suggest_request
