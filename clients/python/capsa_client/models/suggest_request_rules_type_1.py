from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.suggest_request_rules_type_1_params import (
        SuggestRequestRulesType1Params,
    )


T = TypeVar("T", bound="SuggestRequestRulesType1")


@_attrs_define
class SuggestRequestRulesType1:
    """A preset with parameter overrides (docs/rules.md#rule-sets-presets-and-versions).

    Example:
        {'preset': 'chinese-poker-1-6', 'params': {'fee_rate': '0.05'}}

    Attributes:
        preset (str):  Example: chinese-poker-1-6.
        version (int | Unset):  Example: 1.
        params (SuggestRequestRulesType1Params | Unset):  Example: {'fee_rate': '0.05', 'wheel': 'second'}.
    """

    preset: str
    version: int | Unset = UNSET
    params: SuggestRequestRulesType1Params | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        preset = self.preset

        version = self.version

        params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = self.params.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "preset": preset,
            }
        )
        if version is not UNSET:
            field_dict["version"] = version
        if params is not UNSET:
            field_dict["params"] = params

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.suggest_request_rules_type_1_params import (
            SuggestRequestRulesType1Params,
        )

        d = dict(src_dict)
        preset = d.pop("preset")

        version = d.pop("version", UNSET)

        _params = d.pop("params", UNSET)
        params: SuggestRequestRulesType1Params | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = SuggestRequestRulesType1Params.from_dict(_params)

        suggest_request_rules_type_1 = cls(
            preset=preset,
            version=version,
            params=params,
        )

        return suggest_request_rules_type_1
