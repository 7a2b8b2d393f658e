from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Difference")


@_attrs_define
class Difference:
    """
    Attributes:
        field (str): Path into the round document, or `audit.hash`. Example: players[0].points.
        stored (Any): What is stored. Example: 11.
        recomputed (Any): What today's engine / the live rows give. Example: 12.
    """

    field: str
    stored: Any
    recomputed: Any

    def to_dict(self) -> dict[str, Any]:
        field = self.field

        stored = self.stored

        recomputed = self.recomputed

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "field": field,
                "stored": stored,
                "recomputed": recomputed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        field = d.pop("field")

        stored = d.pop("stored")

        recomputed = d.pop("recomputed")

        difference = cls(
            field=field,
            stored=stored,
            recomputed=recomputed,
        )

        return difference
