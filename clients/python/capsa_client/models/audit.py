from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Audit")


@_attrs_define
class Audit:
    """
    Attributes:
        sequence (int):  Example: 42.
        hash_ (str):  Example: 0000000000000000000000000000000000000000000000000000000000000000.
        previous_hash (str):  Example: 0000000000000000000000000000000000000000000000000000000000000000.
    """

    sequence: int
    hash_: str
    previous_hash: str

    def to_dict(self) -> dict[str, Any]:
        sequence = self.sequence

        hash_ = self.hash_

        previous_hash = self.previous_hash

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "sequence": sequence,
                "hash": hash_,
                "previous_hash": previous_hash,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        sequence = d.pop("sequence")

        hash_ = d.pop("hash")

        previous_hash = d.pop("previous_hash")

        audit = cls(
            sequence=sequence,
            hash_=hash_,
            previous_hash=previous_hash,
        )

        return audit
