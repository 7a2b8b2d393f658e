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
        version (int):  Example: 2.
        latest (bool): This is the version a request without one gets. Example: True.
        game (PresetGame):  Example: susun.
        description (str):  Example: Capsa Susun as played in ....
        params (PresetParams):  Example: {'tembus_multiplier': 2}.
        sources (PresetSources): Where each parameter's value comes from: a seed, a Decision of docs/rules.md, or a
            peer's repository and file. Example: {'tembus_multiplier': 'seed 000'}.
        source (str | Unset): Where the preset comes from. Example: yawnoc/big-two-scorer (big2.py, test_big2.py,
            README.md).
    """

    preset: str
    version: int
    latest: bool
    game: PresetGame
    description: str
    params: PresetParams
    sources: PresetSources
    source: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        preset = self.preset

        version = self.version

        latest = self.latest

        game: str = self.game

        description = self.description

        params = self.params.to_dict()

        sources = self.sources.to_dict()

        source = self.source

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "preset": preset,
                "version": version,
                "latest": latest,
                "game": game,
                "description": description,
                "params": params,
                "sources": sources,
            }
        )
        if source is not UNSET:
            field_dict["source"] = source

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.preset_params import PresetParams
        from ..models.preset_sources import PresetSources

        d = dict(src_dict)
        preset = d.pop("preset")

        version = d.pop("version")

        latest = d.pop("latest")

        game = check_preset_game(d.pop("game"))

        description = d.pop("description")

        params = PresetParams.from_dict(d.pop("params"))

        sources = PresetSources.from_dict(d.pop("sources"))

        source = d.pop("source", UNSET)

        preset = cls(
            preset=preset,
            version=version,
            latest=latest,
            game=game,
            description=description,
            params=params,
            sources=sources,
            source=source,
        )

        return preset
