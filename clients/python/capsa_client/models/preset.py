from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.preset_game import PresetGame, check_preset_game
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.preset_params import PresetParams
    from ..models.preset_sources import PresetSources


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
        source (str | Unset): Where the preset comes from. Example: yawnoc/big-two-scorer (big2.py, test_big2.py,
            README.md).
        sources (PresetSources | Unset): Each parameter's source. Example: {'settlement': 'yawnoc/big-two-scorer
            (everyone_pays_everyone)'}.
    """

    preset: str
    version: int
    game: PresetGame
    description: str
    params: PresetParams
    source: str | Unset = UNSET
    sources: PresetSources | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        preset = self.preset

        version = self.version

        game: str = self.game

        description = self.description

        params = self.params.to_dict()

        source = self.source

        sources: dict[str, Any] | Unset = UNSET
        if not isinstance(self.sources, Unset):
            sources = self.sources.to_dict()

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
        if source is not UNSET:
            field_dict["source"] = source
        if sources is not UNSET:
            field_dict["sources"] = sources

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.preset_params import PresetParams
        from ..models.preset_sources import PresetSources

        d = dict(src_dict)
        preset = d.pop("preset")

        version = d.pop("version")

        game = check_preset_game(d.pop("game"))

        description = d.pop("description")

        params = PresetParams.from_dict(d.pop("params"))

        source = d.pop("source", UNSET)

        _sources = d.pop("sources", UNSET)
        sources: PresetSources | Unset
        if isinstance(_sources, Unset):
            sources = UNSET
        else:
            sources = PresetSources.from_dict(_sources)

        preset = cls(
            preset=preset,
            version=version,
            game=game,
            description=description,
            params=params,
            source=source,
            sources=sources,
        )

        return preset
