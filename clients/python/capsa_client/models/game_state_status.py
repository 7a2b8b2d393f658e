from typing import Literal

GameStateStatus = Literal["finished", "playing"]

GAME_STATE_STATUS_VALUES: set[GameStateStatus] = {
    "finished",
    "playing",
}


def check_game_state_status(value: str) -> GameStateStatus:
    if value in GAME_STATE_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {GAME_STATE_STATUS_VALUES!r}")
