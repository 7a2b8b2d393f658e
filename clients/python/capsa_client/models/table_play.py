from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.table_play_combination import (
    TablePlayCombination,
    check_table_play_combination,
)

T = TypeVar("T", bound="TablePlay")


@_attrs_define
class TablePlay:
    """
    Attributes:
        player (str):  Example: a.
        cards (list[str]):  Example: ['3d'].
        combination (TablePlayCombination):  Example: single.
    """

    player: str
    cards: list[str]
    combination: TablePlayCombination

    def to_dict(self) -> dict[str, Any]:
        player = self.player

        cards = self.cards

        combination: str = self.combination

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "player": player,
                "cards": cards,
                "combination": combination,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        player = d.pop("player")

        cards = cast(list[str], d.pop("cards"))

        combination = check_table_play_combination(d.pop("combination"))

        table_play = cls(
            player=player,
            cards=cards,
            combination=combination,
        )

        return table_play
