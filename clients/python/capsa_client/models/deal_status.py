from typing import Literal

DealStatus = Literal["open", "revealed", "used"]

DEAL_STATUS_VALUES: set[DealStatus] = {
    "open",
    "revealed",
    "used",
}


def check_deal_status(value: str) -> DealStatus:
    if value in DEAL_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DEAL_STATUS_VALUES!r}")
