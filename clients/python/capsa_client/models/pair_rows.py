from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PairRows")


@_attrs_define
class PairRows:
    """
    Attributes:
        front (int): 1 won, 0 tied, -1 lost (first player). Example: 1.
        middle (int):  Example: 1.
        back (int):  Example: 1.
    """

    front: int
    middle: int
    back: int

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
        front = d.pop("front")

        middle = d.pop("middle")

        back = d.pop("back")

        pair_rows = cls(
            front=front,
            middle=middle,
            back=back,
        )

        return pair_rows
