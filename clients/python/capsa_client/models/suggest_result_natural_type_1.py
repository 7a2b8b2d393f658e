from typing import Literal

SuggestResultNaturalType1 = Literal["dragon", "six_pairs", "three_flushes", "three_straights"]

SUGGEST_RESULT_NATURAL_TYPE_1_VALUES: set[SuggestResultNaturalType1] = {
    "dragon",
    "six_pairs",
    "three_flushes",
    "three_straights",
}


def check_suggest_result_natural_type_1(value: str) -> SuggestResultNaturalType1:
    if value in SUGGEST_RESULT_NATURAL_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SUGGEST_RESULT_NATURAL_TYPE_1_VALUES!r}")
