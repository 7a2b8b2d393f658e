from typing import Literal

PlayerResultNaturalType2Type1 = Literal["dragon", "six_pairs", "three_flushes", "three_straights"]

PLAYER_RESULT_NATURAL_TYPE_2_TYPE_1_VALUES: set[PlayerResultNaturalType2Type1] = {
    "dragon",
    "six_pairs",
    "three_flushes",
    "three_straights",
}


def check_player_result_natural_type_2_type_1(value: str) -> PlayerResultNaturalType2Type1:
    if value in PLAYER_RESULT_NATURAL_TYPE_2_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PLAYER_RESULT_NATURAL_TYPE_2_TYPE_1_VALUES!r}")
