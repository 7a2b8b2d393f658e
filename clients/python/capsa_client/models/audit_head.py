from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="AuditHead")


@_attrs_define
class AuditHead:
    """
    Attributes:
        sequence (int): 0 before the first record. Example: 42.
        hash_ (str):  Example: 3f6c0e1b9a7d4c2e8b5a1f0d9c8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c.
        created_at (datetime.datetime | None): When the last record was made; null when none. Example:
            2026-11-29T10:00:00.000Z.
    """

    sequence: int
    hash_: str
    created_at: datetime.datetime | None

    def to_dict(self) -> dict[str, Any]:
        sequence = self.sequence

        hash_ = self.hash_

        created_at: None | str
        if isinstance(self.created_at, datetime.datetime):
            created_at = self.created_at.isoformat()
        else:
            created_at = self.created_at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "sequence": sequence,
                "hash": hash_,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        sequence = d.pop("sequence")

        hash_ = d.pop("hash")

        def _parse_created_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_at_type_0 = datetime.datetime.fromisoformat(data)

                return created_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        created_at = _parse_created_at(d.pop("created_at"))

        audit_head = cls(
            sequence=sequence,
            hash_=hash_,
            created_at=created_at,
        )

        return audit_head
