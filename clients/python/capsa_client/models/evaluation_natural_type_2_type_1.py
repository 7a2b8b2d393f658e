from typing import Literal

EvaluationNaturalType2Type1 = Literal["dragon", "six_pairs", "three_flushes", "three_straights"]

EVALUATION_NATURAL_TYPE_2_TYPE_1_VALUES: set[EvaluationNaturalType2Type1] = {
    "dragon",
    "six_pairs",
    "three_flushes",
    "three_straights",
}


def check_evaluation_natural_type_2_type_1(value: str) -> EvaluationNaturalType2Type1:
    if value in EVALUATION_NATURAL_TYPE_2_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {EVALUATION_NATURAL_TYPE_2_TYPE_1_VALUES!r}")
