from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="MoveRequest")


@_attrs_define
class MoveRequest:
    """
    Attributes:
        player (str): The player moving. Example: a.
        play (list[str] | None | Unset): The cards played; omit to pass. Example: ['3d'].
        pass_ (bool | Unset): true to pass instead of playing. Example: False.
    """

    player: str
    play: list[str] | None | Unset = UNSET
    pass_: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        player = self.player

        play: list[str] | None | Unset
        if isinstance(self.play, Unset):
            play = UNSET
        elif isinstance(self.play, list):
            play = self.play

        else:
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

        def _parse_play(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                play_type_0 = cast(list[str], data)

                return play_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        play = _parse_play(d.pop("play", UNSET))

        pass_ = d.pop("pass", UNSET)

        move_request = cls(
            player=player,
            play=play,
            pass_=pass_,
        )

        return move_request
