from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.event_subscription import EventSubscription, check_event_subscription

T = TypeVar("T", bound="Webhook")


@_attrs_define
class Webhook:
    """
    Attributes:
        id (str):  Example: whk_01JDX8Q4N6V2C3M5B7Z9K1T3W5.
        url (str):  Example: https://wallet.example.com/capsa/events.
        events (list[EventSubscription | str]):  Example: ['*'].
        description (None | str):  Example: wallet credits.
        enabled (bool): false: no deliveries (see disabled_reason). Example: True.
        disabled_reason (None | str): `disabled` (PATCH) or `failing` (failed for 3 days).
        failing_since (datetime.datetime | None): The first failure since the last success.
        previous_secret_expires_at (datetime.datetime | None): After a rotation: until when the previous secret signs
            too.
        created_at (datetime.datetime):  Example: 2026-11-29T10:00:00.000Z.
        updated_at (datetime.datetime):  Example: 2026-11-29T10:00:00.000Z.
    """

    id: str
    url: str
    events: list[EventSubscription | str]
    description: None | str
    enabled: bool
    disabled_reason: None | str
    failing_since: datetime.datetime | None
    previous_secret_expires_at: datetime.datetime | None
    created_at: datetime.datetime
    updated_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        url = self.url

        events = []
        for events_item_data in self.events:
            events_item: str
            if isinstance(events_item_data, str):
                events_item = events_item_data
            else:
                events_item = events_item_data
            events.append(events_item)

        description: None | str
        description = self.description

        enabled = self.enabled

        disabled_reason: None | str
        disabled_reason = self.disabled_reason

        failing_since: None | str
        if isinstance(self.failing_since, datetime.datetime):
            failing_since = self.failing_since.isoformat()
        else:
            failing_since = self.failing_since

        previous_secret_expires_at: None | str
        if isinstance(self.previous_secret_expires_at, datetime.datetime):
            previous_secret_expires_at = self.previous_secret_expires_at.isoformat()
        else:
            previous_secret_expires_at = self.previous_secret_expires_at

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "url": url,
                "events": events,
                "description": description,
                "enabled": enabled,
                "disabled_reason": disabled_reason,
                "failing_since": failing_since,
                "previous_secret_expires_at": previous_secret_expires_at,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        url = d.pop("url")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:

            def _parse_events_item(data: object) -> EventSubscription | str:
                try:
                    if not isinstance(data, str):
                        raise TypeError()
                    events_item_type_0 = check_event_subscription(data)

                    return events_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(EventSubscription | str, data)

            events_item = _parse_events_item(events_item_data)

            events.append(events_item)

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        enabled = d.pop("enabled")

        def _parse_disabled_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabled_reason"))

        def _parse_failing_since(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                failing_since_type_0 = datetime.datetime.fromisoformat(data)

                return failing_since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        failing_since = _parse_failing_since(d.pop("failing_since"))

        def _parse_previous_secret_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_secret_expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return previous_secret_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        previous_secret_expires_at = _parse_previous_secret_expires_at(d.pop("previous_secret_expires_at"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        webhook = cls(
            id=id,
            url=url,
            events=events,
            description=description,
            enabled=enabled,
            disabled_reason=disabled_reason,
            failing_since=failing_since,
            previous_secret_expires_at=previous_secret_expires_at,
            created_at=created_at,
            updated_at=updated_at,
        )

        return webhook
