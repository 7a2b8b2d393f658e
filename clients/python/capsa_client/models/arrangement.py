from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="Arrangement")


@_attrs_define
class Arrangement:
    """
    Attributes:
        front (list[str]): Front row, 3 cards. Example: ['Ah', 'Ad', '7c'].
        middle (list[str]): Middle row, 5 cards. Example: ['9s', '9h', '4d', '4c', '2s'].
        back (list[str]): Back row, 5 cards. Example: ['Ts', 'Js', 'Qs', 'Ks', 'As'].
    """

    front: list[str]
    middle: list[str]
    back: list[str]

    def to_dict(self) -> dict[str, Any]:
        front = self.front

        middle = self.middle

        back = self.back

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "front": front,
                "middle": middle,
                "back": back,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        front = cast(list[str], d.pop("front"))

        middle = cast(list[str], d.pop("middle"))

        back = cast(list[str], d.pop("back"))

        arrangement = cls(
            front=front,
            middle=middle,
            back=back,
        )

        return arrangement
