from typing import Literal

SusunGameStatus = Literal["arranging", "settled"]

SUSUN_GAME_STATUS_VALUES: set[SusunGameStatus] = {
    "arranging",
    "settled",
}


def check_susun_game_status(value: str) -> SusunGameStatus:
    if value in SUSUN_GAME_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SUSUN_GAME_STATUS_VALUES!r}")
