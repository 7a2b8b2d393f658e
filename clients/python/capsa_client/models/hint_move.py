from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="HintMove")


@_attrs_define
class HintMove:
    """
    Attributes:
        player (str):  Example: a.
        play (list[str] | Unset): The cards to play; absent for a pass. Example: ['3d', '4d', '5c', '6h', '7s'].
        pass_ (bool | Unset): Present (true) for a pass. Example: True.
    """

    player: str
    play: list[str] | Unset = UNSET
    pass_: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        player = self.player

        play: list[str] | Unset = UNSET
        if not isinstance(self.play, Unset):
            play = self.play

        pass_ = self.pass_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "player": player,
            }
        )
        if play is not UNSET:
            field_dict["play"] = play
        if pass_ is not UNSET:
            field_dict["pass"] = pass_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        player = d.pop("player")

        play = cast(list[str], d.pop("play", UNSET))

        pass_ = d.pop("pass", UNSET)

        hint_move = cls(
            player=player,
            play=play,
            pass_=pass_,
        )

        return hint_move
