from typing import Literal

GetV1BantingGamesStatus = Literal["finished", "playing"]

GET_V1_BANTING_GAMES_STATUS_VALUES: set[GetV1BantingGamesStatus] = {
    "finished",
    "playing",
}


def check_get_v1_banting_games_status(value: str) -> GetV1BantingGamesStatus:
    if value in GET_V1_BANTING_GAMES_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {GET_V1_BANTING_GAMES_STATUS_VALUES!r}")
