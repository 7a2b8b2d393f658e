from typing import Literal

HintCombinationType1 = Literal[
    "flush", "four_of_a_kind", "full_house", "pair", "single", "straight", "straight_flush", "three_of_a_kind"
]

HINT_COMBINATION_TYPE_1_VALUES: set[HintCombinationType1] = {
    "flush",
    "four_of_a_kind",
    "full_house",
    "pair",
    "single",
    "straight",
    "straight_flush",
    "three_of_a_kind",
}


def check_hint_combination_type_1(value: str) -> HintCombinationType1:
    if value in HINT_COMBINATION_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {HINT_COMBINATION_TYPE_1_VALUES!r}")
