from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.as_of_source import AsOfSource, check_as_of_source

T = TypeVar("T", bound="AsOf")


@_attrs_define
class AsOf:
    """
    Attributes:
        sequence (int): The client's chain head in the report's snapshot: every record up to it is in. Example: 42.
        at (datetime.datetime | None): When that record was stored; null for an empty chain. Example:
            2026-11-29T10:00:00.000Z.
        source (AsOfSource): `replica` (READ_DATABASE_URL's standby) or `primary`. Example: replica.
    """

    sequence: int
    at: datetime.datetime | None
    source: AsOfSource

    def to_dict(self) -> dict[str, Any]:
        sequence = self.sequence

        at: None | str
        if isinstance(self.at, datetime.datetime):
            at = self.at.isoformat()
        else:
            at = self.at

        source: str = self.source

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "sequence": sequence,
                "at": at,
                "source": source,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        sequence = d.pop("sequence")

        def _parse_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                at_type_0 = datetime.datetime.fromisoformat(data)

                return at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        at = _parse_at(d.pop("at"))

        source = check_as_of_source(d.pop("source"))

        as_of = cls(
            sequence=sequence,
            at=at,
            source=source,
        )

        return as_of
