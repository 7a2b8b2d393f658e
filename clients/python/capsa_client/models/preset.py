from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.preset_game import PresetGame, check_preset_game

if TYPE_CHECKING:
    from ..models.preset_params import PresetParams


T = TypeVar("T", bound="Preset")


@_attrs_define
class Preset:
    """
    Attributes:
        preset (str):  Example: capsa-susun-id.
        version (int):  Example: 1.
        game (PresetGame):  Example: susun.
        description (str):  Example: Capsa Susun as played in ....
        params (PresetParams):  Example: {'tembus_multiplier': 2}.
    """

    preset: str
    version: int
    game: PresetGame
    description: str
    params: PresetParams

    def to_dict(self) -> dict[str, Any]:
        preset = self.preset

        version = self.version

        game: str = self.game

        description = self.description

        params = self.params.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "preset": preset,
                "version": version,
                "game": game,
                "description": description,
                "params": params,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.preset_params import PresetParams

        d = dict(src_dict)
        preset = d.pop("preset")

        version = d.pop("version")

        game = check_preset_game(d.pop("game"))

        description = d.pop("description")

        params = PresetParams.from_dict(d.pop("params"))

        preset = cls(
            preset=preset,
            version=version,
            game=game,
            description=description,
            params=params,
        )

        return preset
