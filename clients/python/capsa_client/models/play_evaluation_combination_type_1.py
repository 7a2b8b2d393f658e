from typing import Literal

PlayEvaluationCombinationType1 = Literal[
    "flush", "four_of_a_kind", "full_house", "pair", "single", "straight", "straight_flush", "three_of_a_kind"
]

PLAY_EVALUATION_COMBINATION_TYPE_1_VALUES: set[PlayEvaluationCombinationType1] = {
    "flush",
    "four_of_a_kind",
    "full_house",
    "pair",
    "single",
    "straight",
    "straight_flush",
    "three_of_a_kind",
}


def check_play_evaluation_combination_type_1(value: str) -> PlayEvaluationCombinationType1:
    if value in PLAY_EVALUATION_COMBINATION_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PLAY_EVALUATION_COMBINATION_TYPE_1_VALUES!r}")
