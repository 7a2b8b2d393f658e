from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.difference import Difference


T = TypeVar("T", bound="RoundVerify")


@_attrs_define
class RoundVerify:
    """
    Attributes:
        ok (bool): No differences. Example: True.
        differences (list[Difference]): Each field where the stored round and the recomputation differ. Example: [].
    """

    ok: bool
    differences: list[Difference]

    def to_dict(self) -> dict[str, Any]:
        ok = self.ok

        differences = []
        for differences_item_data in self.differences:
            differences_item = differences_item_data.to_dict()
            differences.append(differences_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "ok": ok,
                "differences": differences,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.difference import Difference

        d = dict(src_dict)
        ok = d.pop("ok")

        differences = []
        _differences = d.pop("differences")
        for differences_item_data in _differences:
            differences_item = Difference.from_dict(differences_item_data)

            differences.append(differences_item)

        round_verify = cls(
            ok=ok,
            differences=differences,
        )

        return round_verify
