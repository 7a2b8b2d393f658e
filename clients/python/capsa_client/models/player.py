from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.arrangement import Arrangement


T = TypeVar("T", bound="Player")


@_attrs_define
class Player:
    """
    Attributes:
        id (str): Player id, unique in the round. Example: a.
        hand (list[str] | None | Unset): Optional: the 13 dealt cards; the rows must use exactly these. Example: ['Ah',
            'Ad', '7c', '9s', '9h', '4d', '4c', '2s', 'Ts', 'Js', 'Qs', 'Ks', 'As'].
        arrangement (Arrangement | None | Unset): The rows as set; absent for a surrendering player.
        surrender (bool | Unset): The player surrenders (where the rules allow it). Example: False.
    """

    id: str
    hand: list[str] | None | Unset = UNSET
    arrangement: Arrangement | None | Unset = UNSET
    surrender: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.arrangement import Arrangement

        id = self.id

        hand: list[str] | None | Unset
        if isinstance(self.hand, Unset):
            hand = UNSET
        elif isinstance(self.hand, list):
            hand = self.hand

        else:
            hand = self.hand

        arrangement: dict[str, Any] | None | Unset
        if isinstance(self.arrangement, Unset):
            arrangement = UNSET
        elif isinstance(self.arrangement, Arrangement):
            arrangement = self.arrangement.to_dict()
        else:
            arrangement = self.arrangement

        surrender = self.surrender

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
            }
        )
        if hand is not UNSET:
            field_dict["hand"] = hand
        if arrangement is not UNSET:
            field_dict["arrangement"] = arrangement
        if surrender is not UNSET:
            field_dict["surrender"] = surrender

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.arrangement import Arrangement

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

        def _parse_arrangement(data: object) -> Arrangement | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                arrangement_type_0 = Arrangement.from_dict(data)

                return arrangement_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Arrangement | None | Unset, data)

        arrangement = _parse_arrangement(d.pop("arrangement", UNSET))

        surrender = d.pop("surrender", UNSET)

        player = cls(
            id=id,
            hand=hand,
            arrangement=arrangement,
            surrender=surrender,
        )

        return player
