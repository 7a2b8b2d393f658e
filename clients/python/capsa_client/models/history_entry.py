from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="HistoryEntry")


@_attrs_define
class HistoryEntry:
    """
    Attributes:
        n (int): Move number, from 1. Example: 1.
        player (str):  Example: a.
        play (list[str] | None): null for a pass. Example: ['3d'].
        pass_ (bool):  Example: False.
        auto (bool | Unset): true when the service made the move because the player's turn timed out. Always in a game's
            state; in a stored round from the turn timers on (older rounds lack it). Example: False.
        at (datetime.datetime | None | Unset): When the move was made (an auto move: its turn's deadline); null for
            moves made before turn timers, absent from rounds stored before them. Example: 2026-11-29T10:00:12.000Z.
    """

    n: int
    player: str
    play: list[str] | None
    pass_: bool
    auto: bool | Unset = UNSET
    at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        n = self.n

        player = self.player

        play: list[str] | None
        if isinstance(self.play, list):
            play = self.play

        else:
            play = self.play

        pass_ = self.pass_

        auto = self.auto

        at: None | str | Unset
        if isinstance(self.at, Unset):
            at = UNSET
        elif isinstance(self.at, datetime.datetime):
            at = self.at.isoformat()
        else:
            at = self.at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "n": n,
                "player": player,
                "play": play,
                "pass": pass_,
            }
        )
        if auto is not UNSET:
            field_dict["auto"] = auto
        if at is not UNSET:
            field_dict["at"] = at

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

        auto = d.pop("auto", UNSET)

        def _parse_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                at_type_0 = datetime.datetime.fromisoformat(data)

                return at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        at = _parse_at(d.pop("at", UNSET))

        history_entry = cls(
            n=n,
            player=player,
            play=play,
            pass_=pass_,
            auto=auto,
            at=at,
        )

        return history_entry
