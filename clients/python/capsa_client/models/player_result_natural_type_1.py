from typing import Literal

PlayerResultNaturalType1 = Literal["dragon", "six_pairs", "three_flushes", "three_straights"]

PLAYER_RESULT_NATURAL_TYPE_1_VALUES: set[PlayerResultNaturalType1] = {
    "dragon",
    "six_pairs",
    "three_flushes",
    "three_straights",
}


def check_player_result_natural_type_1(value: str) -> PlayerResultNaturalType1:
    if value in PLAYER_RESULT_NATURAL_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PLAYER_RESULT_NATURAL_TYPE_1_VALUES!r}")
