from typing import Literal

PresetGame = Literal["banting", "susun"]

PRESET_GAME_VALUES: set[PresetGame] = {
    "banting",
    "susun",
}


def check_preset_game(value: str) -> PresetGame:
    if value in PRESET_GAME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PRESET_GAME_VALUES!r}")
