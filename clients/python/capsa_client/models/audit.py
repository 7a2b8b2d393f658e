from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="Audit")


@_attrs_define
class Audit:
    """
    Attributes:
        sequence (int):  Example: 42.
        hash_ (str):  Example: 0000000000000000000000000000000000000000000000000000000000000000.
        previous_hash (str):  Example: 0000000000000000000000000000000000000000000000000000000000000000.
        kid (None | str): The signing key (`GET /v1/audit/keys`); null while unsigned. Example: 21fe31dfa154a261.
        signature (None | str): The receipt: Ed25519 signature (unpadded base64url) over the UTF-8 bytes `capsa-
            audit-v1\\n{client_id}\\n{sequence}\\n{hash}\\n`, made once when the record was stored; null until a signing key
            exists (docs/audit.md). Example:
            JrjmvnS7NTkpb48eaHD0s8kpSwapHqkOKtJT4LwZnwQRReXEQXPCfbRmdvuH05dIqXutnHVhol4uBoP6hTNQCw.
    """

    sequence: int
    hash_: str
    previous_hash: str
    kid: None | str
    signature: None | str

    def to_dict(self) -> dict[str, Any]:
        sequence = self.sequence

        hash_ = self.hash_

        previous_hash = self.previous_hash

        kid: None | str
        kid = self.kid

        signature: None | str
        signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "sequence": sequence,
                "hash": hash_,
                "previous_hash": previous_hash,
                "kid": kid,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        sequence = d.pop("sequence")

        hash_ = d.pop("hash")

        previous_hash = d.pop("previous_hash")

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

        audit = cls(
            sequence=sequence,
            hash_=hash_,
            previous_hash=previous_hash,
            kid=kid,
            signature=signature,
        )

        return audit
