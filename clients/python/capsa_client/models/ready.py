from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Ready")


@_attrs_define
class Ready:
    """
    Attributes:
        status (str):  Example: ok.
        database (str):  Example: ok.
    """

    status: str
    database: str

    def to_dict(self) -> dict[str, Any]:
        status = self.status

        database = self.database

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "status": status,
                "database": database,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        status = d.pop("status")

        database = d.pop("database")

        ready = cls(
            status=status,
            database=database,
        )

        return ready
