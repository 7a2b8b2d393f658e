from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.arrangement import Arrangement
    from ..models.rows import Rows


T = TypeVar("T", bound="Suggestion")


@_attrs_define
class Suggestion:
    """
    Attributes:
        arrangement (Arrangement):
        rows (Rows):
        bonus_total (int):  Example: 11.
        score (float): The objective: expected points against one baseline opponent. Example: 2.734512.
    """

    arrangement: Arrangement
    rows: Rows
    bonus_total: int
    score: float

    def to_dict(self) -> dict[str, Any]:
        arrangement = self.arrangement.to_dict()

        rows = self.rows.to_dict()

        bonus_total = self.bonus_total

        score = self.score

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "arrangement": arrangement,
                "rows": rows,
                "bonus_total": bonus_total,
                "score": score,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.arrangement import Arrangement
        from ..models.rows import Rows

        d = dict(src_dict)
        arrangement = Arrangement.from_dict(d.pop("arrangement"))

        rows = Rows.from_dict(d.pop("rows"))

        bonus_total = d.pop("bonus_total")

        score = d.pop("score")

        suggestion = cls(
            arrangement=arrangement,
            rows=rows,
            bonus_total=bonus_total,
            score=score,
        )

        return suggestion
