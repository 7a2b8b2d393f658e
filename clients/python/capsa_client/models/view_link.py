from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ViewLink")


@_attrs_define
class ViewLink:
    """
    Attributes:
        url (str):  Example: /view/rounds/WyJjbGlfMDEiLCJybmRfMDEiXQ.Z2x1.c2ln.
        expires_at (datetime.datetime):  Example: 2026-11-29T11:00:00.000Z.
    """

    url: str
    expires_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        expires_at = self.expires_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
                "expires_at": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        view_link = cls(
            url=url,
            expires_at=expires_at,
        )

        return view_link
