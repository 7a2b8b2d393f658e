from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.row_category import RowCategory, check_row_category

T = TypeVar("T", bound="Row")


@_attrs_define
class Row:
    """
    Attributes:
        category (RowCategory):  Example: pair.
        cards (list[str]):  Example: ['Ah', 'Ad', '7c'].
        bonus (int): What this row earns if won. Example: 0.
    """

    category: RowCategory
    cards: list[str]
    bonus: int

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        cards = self.cards

        bonus = self.bonus

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "category": category,
                "cards": cards,
                "bonus": bonus,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        category = check_row_category(d.pop("category"))

        cards = cast(list[str], d.pop("cards"))

        bonus = d.pop("bonus")

        row = cls(
            category=category,
            cards=cards,
            bonus=bonus,
        )

        return row
