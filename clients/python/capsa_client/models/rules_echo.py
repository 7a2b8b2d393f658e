from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.rules_echo_params import RulesEchoParams


T = TypeVar("T", bound="RulesEcho")


@_attrs_define
class RulesEcho:
    """
    Attributes:
        preset (str):  Example: capsa-susun-id.
        version (int):  Example: 1.
        params (RulesEchoParams): Every parameter of the game. Example: {'tembus_multiplier': 2, 'fee_rate': '0.03'}.
    """

    preset: str
    version: int
    params: RulesEchoParams

    def to_dict(self) -> dict[str, Any]:
        preset = self.preset

        version = self.version

        params = self.params.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "preset": preset,
                "version": version,
                "params": params,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.rules_echo_params import RulesEchoParams

        d = dict(src_dict)
        preset = d.pop("preset")

        version = d.pop("version")

        params = RulesEchoParams.from_dict(d.pop("params"))

        rules_echo = cls(
            preset=preset,
            version=version,
            params=params,
        )

        return rules_echo
