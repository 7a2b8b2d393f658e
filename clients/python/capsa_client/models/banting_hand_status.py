from typing import Literal

BantingHandStatus = Literal["finished", "playing"]

BANTING_HAND_STATUS_VALUES: set[BantingHandStatus] = {
    "finished",
    "playing",
}


def check_banting_hand_status(value: str) -> BantingHandStatus:
    if value in BANTING_HAND_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {BANTING_HAND_STATUS_VALUES!r}")
