from typing import Literal

GetV1DealsStatus = Literal["open", "revealed", "used"]

GET_V1_DEALS_STATUS_VALUES: set[GetV1DealsStatus] = {
    "open",
    "revealed",
    "used",
}


def check_get_v1_deals_status(value: str) -> GetV1DealsStatus:
    if value in GET_V1_DEALS_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {GET_V1_DEALS_STATUS_VALUES!r}")
