from typing import Literal

GetV1EventsType = Literal["banting.game.finished", "round.settled", "round.voided"]

GET_V1_EVENTS_TYPE_VALUES: set[GetV1EventsType] = {
    "banting.game.finished",
    "round.settled",
    "round.voided",
}


def check_get_v1_events_type(value: str) -> GetV1EventsType:
    if value in GET_V1_EVENTS_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {GET_V1_EVENTS_TYPE_VALUES!r}")
