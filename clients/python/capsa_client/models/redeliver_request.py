from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="RedeliverRequest")


@_attrs_define
class RedeliverRequest:
    """
    Attributes:
        webhook (str | Unset): Only this endpoint (absent: every enabled endpoint subscribed to the type). Example:
            whk_01JDX8Q4N6V2C3M5B7Z9K1T3W5.
    """

    webhook: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        webhook = self.webhook

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if webhook is not UNSET:
            field_dict["webhook"] = webhook

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        webhook = d.pop("webhook", UNSET)

        redeliver_request = cls(
            webhook=webhook,
        )

        return redeliver_request
