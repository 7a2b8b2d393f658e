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
        kid (None | str): The signing key (`GET /v1/audit/keys`); null while unsigned. Example: 3f6c0e1b9a7d4c2e.
        signature (None | str): The receipt: Ed25519 signature (unpadded base64url) over the UTF-8 bytes `capsa-
            audit-v1\\n{client_id}\\n{sequence}\\n{hash}\\n`, made once when the record was stored; null until a signing key
            exists (docs/audit.md). Example:
            q1YQ6Zq0z3bq3y2m9hS8l8pZ1m2F1c7vX0b6r8QyN0xkQ2c3M4n5o6p7q8r9s0t1u2v3w4x5y6z7A8B9C0D1Eg.
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
