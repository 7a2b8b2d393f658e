from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.difference_absent import DifferenceAbsent, check_difference_absent
from ..types import UNSET, Unset

T = TypeVar("T", bound="Difference")


@_attrs_define
class Difference:
    """
    Attributes:
        field (str): Path into the round's result, or what else differs: `audit.hash`, `record.engine_version`, `round.`
            and `ledger_lines[n].` (the live rows), `request.deal` and `deal.` (its deal), and for a voided round its void's
            own, prefixed `void.`. Example: players[0].points.
        stored (Any): What is stored. Example: 11.
        recomputed (Any): What today's engine / the live rows give. Example: 12.
        absent (DifferenceAbsent | Unset): Only where one side lacks the key `field` names: that side (`stored` or
            `recomputed`), whose value is then given as null. Example: recomputed.
    """

    field: str
    stored: Any
    recomputed: Any
    absent: DifferenceAbsent | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        field = self.field

        stored = self.stored

        recomputed = self.recomputed

        absent: str | Unset = UNSET
        if not isinstance(self.absent, Unset):
            absent = self.absent

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "field": field,
                "stored": stored,
                "recomputed": recomputed,
            }
        )
        if absent is not UNSET:
            field_dict["absent"] = absent

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        field = d.pop("field")

        stored = d.pop("stored")

        recomputed = d.pop("recomputed")

        _absent = d.pop("absent", UNSET)
        absent: DifferenceAbsent | Unset
        if isinstance(_absent, Unset):
            absent = UNSET
        else:
            absent = check_difference_absent(_absent)

        difference = cls(
            field=field,
            stored=stored,
            recomputed=recomputed,
            absent=absent,
        )

        return difference
