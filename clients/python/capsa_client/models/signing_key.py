from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.signing_key_algorithm import (
    SigningKeyAlgorithm,
    check_signing_key_algorithm,
)

T = TypeVar("T", bound="SigningKey")


@_attrs_define
class SigningKey:
    """
    Attributes:
        kid (str): First 16 hex digits of SHA-256 over the raw public key. Example: 21fe31dfa154a261.
        algorithm (SigningKeyAlgorithm):  Example: Ed25519.
        public_key (str): 32 raw bytes, unpadded base64url. Example: 11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo.
        created_at (datetime.datetime):  Example: 2026-12-01T09:00:00.000Z.
        retired_at (datetime.datetime | None): When a newer key took over; its signatures keep verifying.
    """

    kid: str
    algorithm: SigningKeyAlgorithm
    public_key: str
    created_at: datetime.datetime
    retired_at: datetime.datetime | None

    def to_dict(self) -> dict[str, Any]:
        kid = self.kid

        algorithm: str = self.algorithm

        public_key = self.public_key

        created_at = self.created_at.isoformat()

        retired_at: None | str
        if isinstance(self.retired_at, datetime.datetime):
            retired_at = self.retired_at.isoformat()
        else:
            retired_at = self.retired_at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kid": kid,
                "algorithm": algorithm,
                "public_key": public_key,
                "created_at": created_at,
                "retired_at": retired_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kid = d.pop("kid")

        algorithm = check_signing_key_algorithm(d.pop("algorithm"))

        public_key = d.pop("public_key")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_retired_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                retired_at_type_0 = datetime.datetime.fromisoformat(data)

                return retired_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        retired_at = _parse_retired_at(d.pop("retired_at"))

        signing_key = cls(
            kid=kid,
            algorithm=algorithm,
            public_key=public_key,
            created_at=created_at,
            retired_at=retired_at,
        )

        return signing_key
