from typing import Literal

TablePlayCombination = Literal[
    "flush", "four_of_a_kind", "full_house", "pair", "single", "straight", "straight_flush", "three_of_a_kind"
]

TABLE_PLAY_COMBINATION_VALUES: set[TablePlayCombination] = {
    "flush",
    "four_of_a_kind",
    "full_house",
    "pair",
    "single",
    "straight",
    "straight_flush",
    "three_of_a_kind",
}


def check_table_play_combination(value: str) -> TablePlayCombination:
    if value in TABLE_PLAY_COMBINATION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TABLE_PLAY_COMBINATION_VALUES!r}")
