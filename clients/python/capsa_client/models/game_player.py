from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="GamePlayer")


@_attrs_define
class GamePlayer:
    """
    Attributes:
        id (str):  Example: a.
        seat (int):  Example: 0.
        cards_left (int):  Example: 13.
        passed (bool): Passed in the current trick (pass_locks turn: since the last play). Example: False.
    """

    id: str
    seat: int
    cards_left: int
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        seat = self.seat

        cards_left = self.cards_left

        passed = self.passed

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "seat": seat,
                "cards_left": cards_left,
                "passed": passed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        seat = d.pop("seat")

        cards_left = d.pop("cards_left")

        passed = d.pop("passed")

        game_player = cls(
            id=id,
            seat=seat,
            cards_left=cards_left,
            passed=passed,
        )

        return game_player
