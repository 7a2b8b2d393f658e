from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Void")


@_attrs_define
class Void:
    """
    Attributes:
        at (datetime.datetime):  Example: 2026-11-29T11:00:00.000Z.
        reason (str):  Example: dealer error.
    """

    at: datetime.datetime
    reason: str

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "at": at,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        reason = d.pop("reason")

        void = cls(
            at=at,
            reason=reason,
        )

        return void
