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
        client_id (str): This client's id, as receipts sign it. Example: cl_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        sequence (int): 0 before the first record. Example: 42.
        hash_ (str):  Example: 3f6c0e1b9a7d4c2e8b5a1f0d9c8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c.
        created_at (datetime.datetime | None): When the last record was made; null when none. Example:
            2026-11-29T10:00:00.000Z.
        signed_at (datetime.datetime): When the service signed this head. Example: 2026-11-29T10:00:05.123Z.
        kid (None | str): The key that signed; null without one. Example: 21fe31dfa154a261.
        signature (None | str): Ed25519 signature (unpadded base64url) over the UTF-8 bytes `capsa-
            head-v1\\n{client_id}\\n{sequence}\\n{hash}\\n{signed_at}\\n`. Keep it: two signed heads that cannot lie on one
            chain prove a fork (`capsa audit verify-file --head`). Example:
            JrjmvnS7NTkpb48eaHD0s8kpSwapHqkOKtJT4LwZnwQRReXEQXPCfbRmdvuH05dIqXutnHVhol4uBoP6hTNQCw.
    """

    client_id: str
    sequence: int
    hash_: str
    created_at: datetime.datetime | None
    signed_at: datetime.datetime
    kid: None | str
    signature: None | str

    def to_dict(self) -> dict[str, Any]:
        client_id = self.client_id

        sequence = self.sequence

        hash_ = self.hash_

        created_at: None | str
        if isinstance(self.created_at, datetime.datetime):
            created_at = self.created_at.isoformat()
        else:
            created_at = self.created_at

        signed_at = self.signed_at.isoformat()

        kid: None | str
        kid = self.kid

        signature: None | str
        signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "client_id": client_id,
                "sequence": sequence,
                "hash": hash_,
                "created_at": created_at,
                "signed_at": signed_at,
                "kid": kid,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        client_id = d.pop("client_id")

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

        signed_at = datetime.datetime.fromisoformat(d.pop("signed_at"))

        def _parse_kid(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        kid = _parse_kid(d.pop("kid"))

        def _parse_signature(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        signature = _parse_signature(d.pop("signature"))

        audit_head = cls(
            client_id=client_id,
            sequence=sequence,
            hash_=hash_,
            created_at=created_at,
            signed_at=signed_at,
            kid=kid,
            signature=signature,
        )

        return audit_head
