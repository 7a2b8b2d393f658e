from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="Redelivered")


@_attrs_define
class Redelivered:
    """
    Attributes:
        event_id (str):  Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        webhooks (list[str]): Queued for these. Example: ['whk_01JDX8Q4N6V2C3M5B7Z9K1T3W5'].
    """

    event_id: str
    webhooks: list[str]

    def to_dict(self) -> dict[str, Any]:
        event_id = self.event_id

        webhooks = self.webhooks

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "event_id": event_id,
                "webhooks": webhooks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        event_id = d.pop("event_id")

        webhooks = cast(list[str], d.pop("webhooks"))

        redelivered = cls(
            event_id=event_id,
            webhooks=webhooks,
        )

        return redelivered
