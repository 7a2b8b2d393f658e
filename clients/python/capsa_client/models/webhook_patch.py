from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.webhook_patch_events_item import (
    WebhookPatchEventsItem,
    check_webhook_patch_events_item,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="WebhookPatch")


@_attrs_define
class WebhookPatch:
    """
    Attributes:
        url (str | Unset): http(s) URL, no credentials or fragment. Loopback, private and link-local addresses are
            refused (checked again on every resolved address at delivery) unless the service runs with
            WEBHOOK_ALLOW_PRIVATE. Example: https://wallet.example.com/capsa/events.
        events (list[WebhookPatchEventsItem] | Unset): `round.settled` (every stored round, a finished Big Two game's
            too), `round.voided`, `banting.game.finished` (as well as its `round.settled`), each once, or `*` (every type)
            alone. Example: ['round.settled', 'round.voided'].
        description (None | str | Unset): Free text, at most 500 characters: no control character (newlines and line
            separators included) and no bidirectional formatting character. Example: wallet credits.
        enabled (bool | Unset): false stops deliveries; true resumes them, with what was missed: the events stored
            meanwhile, and the deliveries that had failed for good or wait for a late retry, sent again at once with a fresh
            schedule. Example: True.
    """

    url: str | Unset = UNSET
    events: list[WebhookPatchEventsItem] | Unset = UNSET
    description: None | str | Unset = UNSET
    enabled: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        events: list[str] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item: str = events_item_data
                events.append(events_item)

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        enabled = self.enabled

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if url is not UNSET:
            field_dict["url"] = url
        if events is not UNSET:
            field_dict["events"] = events
        if description is not UNSET:
            field_dict["description"] = description
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url", UNSET)

        _events = d.pop("events", UNSET)
        events: list[WebhookPatchEventsItem] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = check_webhook_patch_events_item(events_item_data)

                events.append(events_item)

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        enabled = d.pop("enabled", UNSET)

        webhook_patch = cls(
            url=url,
            events=events,
            description=description,
            enabled=enabled,
        )

        return webhook_patch
