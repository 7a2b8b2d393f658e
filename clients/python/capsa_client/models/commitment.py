from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="Commitment")


@_attrs_define
class Commitment:
    """
    Attributes:
        id (str):  Example: dc_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        commitment (str): Hex SHA-256 of the secret server seed drawn now. Example:
            630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd.
        nonce (int): The nonce taken now: the client's count of server seeds drawn before it (commitments, and deals
            made without one). Example: 0.
        created_at (datetime.datetime):  Example: 2026-11-29T10:00:00.000Z.
        used_by (None | str): The deal made from it (dl_); null while unused.
    """

    id: str
    commitment: str
    nonce: int
    created_at: datetime.datetime
    used_by: None | str

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        commitment = self.commitment

        nonce = self.nonce

        created_at = self.created_at.isoformat()

        used_by: None | str
        used_by = self.used_by

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "commitment": commitment,
                "nonce": nonce,
                "created_at": created_at,
                "used_by": used_by,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        commitment = d.pop("commitment")

        nonce = d.pop("nonce")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_used_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        used_by = _parse_used_by(d.pop("used_by"))

        commitment = cls(
            id=id,
            commitment=commitment,
            nonce=nonce,
            created_at=created_at,
            used_by=used_by,
        )

        return commitment
