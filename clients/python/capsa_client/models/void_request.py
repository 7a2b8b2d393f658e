from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="VoidRequest")


@_attrs_define
class VoidRequest:
    """
    Attributes:
        reason (str): Why the round is void: 1-500 characters, not only whitespace or characters that show nothing
            (U+200B, U+00AD, ...), no control character (newlines and line separators included) and no bidirectional
            formatting character. Example: dealer error.
    """

    reason: str

    def to_dict(self) -> dict[str, Any]:
        reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        reason = d.pop("reason")

        void_request = cls(
            reason=reason,
        )

        return void_request
