from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.banting_hand_status import BantingHandStatus, check_banting_hand_status

T = TypeVar("T", bound="BantingHand")


@_attrs_define
class BantingHand:
    """
    Attributes:
        game (str):  Example: gm_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        player (str):  Example: a.
        hand (list[str]): The cards the player holds now, lowest first in the game's ranking. Example: ['3d', '4c',
            '5d', '5c', '5h', '5s', '6c', '8c', '9d', 'Tc', 'Qc', 'Kd', 'Ad'].
        status (BantingHandStatus):  Example: playing.
        version (int): The game version the hand was read at. Example: 1.
    """

    game: str
    player: str
    hand: list[str]
    status: BantingHandStatus
    version: int

    def to_dict(self) -> dict[str, Any]:
        game = self.game

        player = self.player

        hand = self.hand

        status: str = self.status

        version = self.version

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "game": game,
                "player": player,
                "hand": hand,
                "status": status,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        game = d.pop("game")

        player = d.pop("player")

        hand = cast(list[str], d.pop("hand"))

        status = check_banting_hand_status(d.pop("status"))

        version = d.pop("version")

        banting_hand = cls(
            game=game,
            player=player,
            hand=hand,
            status=status,
            version=version,
        )

        return banting_hand
