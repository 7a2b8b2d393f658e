from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.row import Row


T = TypeVar("T", bound="Rows")


@_attrs_define
class Rows:
    """
    Attributes:
        front (Row):
        middle (Row):
        back (Row):
    """

    front: Row
    middle: Row
    back: Row

    def to_dict(self) -> dict[str, Any]:
        front = self.front.to_dict()

        middle = self.middle.to_dict()

        back = self.back.to_dict()

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
        from ..models.row import Row

        d = dict(src_dict)
        front = Row.from_dict(d.pop("front"))

        middle = Row.from_dict(d.pop("middle"))

        back = Row.from_dict(d.pop("back"))

        rows = cls(
            front=front,
            middle=middle,
            back=back,
        )

        return rows
