from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="MatchPlayer")


@_attrs_define
class MatchPlayer:
    """
    Attributes:
        id (str):  Example: a.
        points (int): Total over the finished games that count (not voided). Example: 12.
    """

    id: str
    points: int

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        points = self.points

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "points": points,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        points = d.pop("points")

        match_player = cls(
            id=id,
            points=points,
        )

        return match_player
