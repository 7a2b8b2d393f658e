from typing import Literal

EventType = Literal["banting.game.finished", "round.settled", "round.voided"]

EVENT_TYPE_VALUES: set[EventType] = {
    "banting.game.finished",
    "round.settled",
    "round.voided",
}


def check_event_type(value: str) -> EventType:
    if value in EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {EVENT_TYPE_VALUES!r}")
