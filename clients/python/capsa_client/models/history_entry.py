from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="HistoryEntry")


@_attrs_define
class HistoryEntry:
    """
    Attributes:
        n (int): Move number, from 1. Example: 1.
        player (str):  Example: a.
        play (list[str] | None): null for a pass. Example: ['3d'].
        pass_ (bool):  Example: False.
    """

    n: int
    player: str
    play: list[str] | None
    pass_: bool

    def to_dict(self) -> dict[str, Any]:
        n = self.n

        player = self.player

        play: list[str] | None
        if isinstance(self.play, list):
            play = self.play

        else:
            play = self.play

        pass_ = self.pass_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "n": n,
                "player": player,
                "play": play,
                "pass": pass_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        n = d.pop("n")

        player = d.pop("player")

        def _parse_play(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                play_type_0 = cast(list[str], data)

                return play_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        play = _parse_play(d.pop("play"))

        pass_ = d.pop("pass")

        history_entry = cls(
            n=n,
            player=player,
            play=play,
            pass_=pass_,
        )

        return history_entry
