from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="BantingPlayer")


@_attrs_define
class BantingPlayer:
    """
    Attributes:
        id (str): Player id, unique in the game; seats follow this order. Example: a.
        hand (list[str] | None | Unset): The 13 dealt cards (omit with a deal, or give the dealt ones). Example: ['3d',
            '5c', '5d', '5h', '5s', '9d', '4c', '6c', '8c', 'Tc', 'Qc', 'Kd', 'Ad'].
    """

    id: str
    hand: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        hand: list[str] | None | Unset
        if isinstance(self.hand, Unset):
            hand = UNSET
        elif isinstance(self.hand, list):
            hand = self.hand

        else:
            hand = self.hand

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
            }
        )
        if hand is not UNSET:
            field_dict["hand"] = hand

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        def _parse_hand(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                hand_type_0 = cast(list[str], data)

                return hand_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        hand = _parse_hand(d.pop("hand", UNSET))

        banting_player = cls(
            id=id,
            hand=hand,
        )

        return banting_player
