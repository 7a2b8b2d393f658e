from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.suggest_result_natural_type_1 import (
    SuggestResultNaturalType1,
    check_suggest_result_natural_type_1,
)
from ..models.suggest_result_natural_type_2_type_1 import (
    SuggestResultNaturalType2Type1,
    check_suggest_result_natural_type_2_type_1,
)
from ..models.suggest_result_natural_type_3_type_1 import (
    SuggestResultNaturalType3Type1,
    check_suggest_result_natural_type_3_type_1,
)

if TYPE_CHECKING:
    from ..models.rules_echo import RulesEcho
    from ..models.suggestion import Suggestion


T = TypeVar("T", bound="SuggestResult")


@_attrs_define
class SuggestResult:
    """
    Attributes:
        natural (None | SuggestResultNaturalType1 | SuggestResultNaturalType2Type1 | SuggestResultNaturalType3Type1):
        suggestions (list[Suggestion]):
        rules (RulesEcho):
    """

    natural: None | SuggestResultNaturalType1 | SuggestResultNaturalType2Type1 | SuggestResultNaturalType3Type1
    suggestions: list[Suggestion]
    rules: RulesEcho

    def to_dict(self) -> dict[str, Any]:
        natural: None | str
        if isinstance(self.natural, str) or isinstance(self.natural, str) or isinstance(self.natural, str):
            natural = self.natural
        else:
            natural = self.natural

        suggestions = []
        for suggestions_item_data in self.suggestions:
            suggestions_item = suggestions_item_data.to_dict()
            suggestions.append(suggestions_item)

        rules = self.rules.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "natural": natural,
                "suggestions": suggestions,
                "rules": rules,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.rules_echo import RulesEcho
        from ..models.suggestion import Suggestion

        d = dict(src_dict)

        def _parse_natural(
            data: object,
        ) -> None | SuggestResultNaturalType1 | SuggestResultNaturalType2Type1 | SuggestResultNaturalType3Type1:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                natural_type_1 = check_suggest_result_natural_type_1(data)

                return natural_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                natural_type_2_type_1 = check_suggest_result_natural_type_2_type_1(data)

                return natural_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                natural_type_3_type_1 = check_suggest_result_natural_type_3_type_1(data)

                return natural_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None | SuggestResultNaturalType1 | SuggestResultNaturalType2Type1 | SuggestResultNaturalType3Type1, data
            )

        natural = _parse_natural(d.pop("natural"))

        suggestions = []
        _suggestions = d.pop("suggestions")
        for suggestions_item_data in _suggestions:
            suggestions_item = Suggestion.from_dict(suggestions_item_data)

            suggestions.append(suggestions_item)

        rules = RulesEcho.from_dict(d.pop("rules"))

        suggest_result = cls(
            natural=natural,
            suggestions=suggestions,
            rules=rules,
        )

        return suggest_result
