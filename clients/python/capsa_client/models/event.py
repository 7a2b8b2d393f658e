from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.event_type import EventType, check_event_type

if TYPE_CHECKING:
    from ..models.event_data import EventData


T = TypeVar("T", bound="Event")


@_attrs_define
class Event:
    """
    Attributes:
        id (str): The `webhook-id` of its deliveries. Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        type_ (EventType | str):  Example: round.settled.
        timestamp (datetime.datetime): When it happened. Example: 2026-11-29T10:00:00.000Z.
        data (EventData): The round document as `GET /v1/rounds/{id}` answered then (`round.settled`: settled;
            `round.voided`: after the void), or for `banting.game.finished` the game as `GET /v1/banting/games/{id}` answers
            it. Example: {'id': 'rnd_01JDX8Q4N6V2C3M5B7Z9K1T3W5', 'game': 'susun', 'status': 'settled'}.
    """

    id: str
    type_: EventType | str
    timestamp: datetime.datetime
    data: EventData

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_: str
        if isinstance(self.type_, str):
            type_ = self.type_
        else:
            type_ = self.type_

        timestamp = self.timestamp.isoformat()

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "type": type_,
                "timestamp": timestamp,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.event_data import EventData

        d = dict(src_dict)
        id = d.pop("id")

        def _parse_type_(data: object) -> EventType | str:
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_0 = check_event_type(data)

                return type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventType | str, data)

        type_ = _parse_type_(d.pop("type"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        data = EventData.from_dict(d.pop("data"))

        event = cls(
            id=id,
            type_=type_,
            timestamp=timestamp,
            data=data,
        )

        return event
