from typing import Literal

SuggestResultNaturalType2Type1 = Literal["dragon", "six_pairs", "three_flushes", "three_straights"]

SUGGEST_RESULT_NATURAL_TYPE_2_TYPE_1_VALUES: set[SuggestResultNaturalType2Type1] = {
    "dragon",
    "six_pairs",
    "three_flushes",
    "three_straights",
}


def check_suggest_result_natural_type_2_type_1(value: str) -> SuggestResultNaturalType2Type1:
    if value in SUGGEST_RESULT_NATURAL_TYPE_2_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SUGGEST_RESULT_NATURAL_TYPE_2_TYPE_1_VALUES!r}")
