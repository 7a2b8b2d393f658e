from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="FieldError")


@_attrs_define
class FieldError:
    """
    Attributes:
        field (str): A path into the body, or header.<Name> / query.<name>. Example: players[1].arrangement.front[2].
        message (str):  Example: unknown card 'Xx'.
    """

    field: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        field = self.field

        message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "field": field,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        field = d.pop("field")

        message = d.pop("message")

        field_error = cls(
            field=field,
            message=message,
        )

        return field_error
