from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="AuditRecord")


@_attrs_define
class AuditRecord:
    """
    Attributes:
        sequence (int):  Example: 1.
        hash_ (str):  Example: 3f6c0e1b9a7d4c2e8b5a1f0d9c8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c.
        previous_hash (str):  Example: 0000000000000000000000000000000000000000000000000000000000000000.
        canonical (str): The RFC 8785 canonical JSON exactly as hashed. Example:
            {"created_at":"2026-11-29T10:00:00.000Z","kind":"round","round":"rnd_x","sequence":1}.
        kid (None | str): The receipt's key; null while unsigned. Example: 21fe31dfa154a261.
        signature (None | str): The record's receipt (see the round document's `audit.signature`). Example:
            JrjmvnS7NTkpb48eaHD0s8kpSwapHqkOKtJT4LwZnwQRReXEQXPCfbRmdvuH05dIqXutnHVhol4uBoP6hTNQCw.
    """

    sequence: int
    hash_: str
    previous_hash: str
    canonical: str
    kid: None | str
    signature: None | str

    def to_dict(self) -> dict[str, Any]:
        sequence = self.sequence

        hash_ = self.hash_

        previous_hash = self.previous_hash

        canonical = self.canonical

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
                "canonical": canonical,
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

        canonical = d.pop("canonical")

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

        audit_record = cls(
            sequence=sequence,
            hash_=hash_,
            previous_hash=previous_hash,
            canonical=canonical,
            kid=kid,
            signature=signature,
        )

        return audit_record
