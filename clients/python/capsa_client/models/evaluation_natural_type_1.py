from typing import Literal

EvaluationNaturalType1 = Literal["dragon", "six_pairs", "three_flushes", "three_straights"]

EVALUATION_NATURAL_TYPE_1_VALUES: set[EvaluationNaturalType1] = {
    "dragon",
    "six_pairs",
    "three_flushes",
    "three_straights",
}


def check_evaluation_natural_type_1(value: str) -> EvaluationNaturalType1:
    if value in EVALUATION_NATURAL_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {EVALUATION_NATURAL_TYPE_1_VALUES!r}")
