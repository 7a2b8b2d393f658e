from typing import Literal

SuggestResultNaturalType3Type1 = Literal["dragon", "six_pairs", "three_flushes", "three_straights"]

SUGGEST_RESULT_NATURAL_TYPE_3_TYPE_1_VALUES: set[SuggestResultNaturalType3Type1] = {
    "dragon",
    "six_pairs",
    "three_flushes",
    "three_straights",
}


def check_suggest_result_natural_type_3_type_1(value: str) -> SuggestResultNaturalType3Type1:
    if value in SUGGEST_RESULT_NATURAL_TYPE_3_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SUGGEST_RESULT_NATURAL_TYPE_3_TYPE_1_VALUES!r}")
