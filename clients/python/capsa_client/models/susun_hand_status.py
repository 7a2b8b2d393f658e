from typing import Literal

SusunHandStatus = Literal["arranging", "settled"]

SUSUN_HAND_STATUS_VALUES: set[SusunHandStatus] = {
    "arranging",
    "settled",
}


def check_susun_hand_status(value: str) -> SusunHandStatus:
    if value in SUSUN_HAND_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SUSUN_HAND_STATUS_VALUES!r}")
