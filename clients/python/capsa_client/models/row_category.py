from typing import Literal

RowCategory = Literal[
    "flush",
    "four_of_a_kind",
    "full_house",
    "high_card",
    "pair",
    "royal_flush",
    "straight",
    "straight_flush",
    "three_of_a_kind",
    "two_pair",
]

ROW_CATEGORY_VALUES: set[RowCategory] = {
    "flush",
    "four_of_a_kind",
    "full_house",
    "high_card",
    "pair",
    "royal_flush",
    "straight",
    "straight_flush",
    "three_of_a_kind",
    "two_pair",
}


def check_row_category(value: str) -> RowCategory:
    if value in ROW_CATEGORY_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ROW_CATEGORY_VALUES!r}")
