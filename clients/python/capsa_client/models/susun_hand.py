from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.susun_hand_status import SusunHandStatus, check_susun_hand_status

T = TypeVar("T", bound="SusunHand")


@_attrs_define
class SusunHand:
    """
    Attributes:
        game (str):  Example: sg_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        player (str):  Example: a.
        hand (list[str]):  Example: ['Ah', 'Ad', '7c', '9s', '9h', '4d', '4c', '2s', 'Ts', 'Js', 'Qs', 'Ks', 'As'].
        status (SusunHandStatus):  Example: arranging.
        deadline (datetime.datetime):  Example: 2026-11-29T10:01:00.000Z.
    """

    game: str
    player: str
    hand: list[str]
    status: SusunHandStatus
    deadline: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        game = self.game

        player = self.player

        hand = self.hand

        status: str = self.status

        deadline = self.deadline.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "game": game,
                "player": player,
                "hand": hand,
                "status": status,
                "deadline": deadline,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        game = d.pop("game")

        player = d.pop("player")

        hand = cast(list[str], d.pop("hand"))

        status = check_susun_hand_status(d.pop("status"))

        deadline = datetime.datetime.fromisoformat(d.pop("deadline"))

        susun_hand = cls(
            game=game,
            player=player,
            hand=hand,
            status=status,
            deadline=deadline,
        )

        return susun_hand
