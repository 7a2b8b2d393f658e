from typing import Literal

GetV1SusunGamesStatus = Literal["arranging", "settled"]

GET_V1_SUSUN_GAMES_STATUS_VALUES: set[GetV1SusunGamesStatus] = {
    "arranging",
    "settled",
}


def check_get_v1_susun_games_status(value: str) -> GetV1SusunGamesStatus:
    if value in GET_V1_SUSUN_GAMES_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {GET_V1_SUSUN_GAMES_STATUS_VALUES!r}")
