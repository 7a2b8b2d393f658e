from typing import Literal

DifferenceAbsent = Literal["recomputed", "stored"]

DIFFERENCE_ABSENT_VALUES: set[DifferenceAbsent] = {
    "recomputed",
    "stored",
}


def check_difference_absent(value: str) -> DifferenceAbsent:
    if value in DIFFERENCE_ABSENT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DIFFERENCE_ABSENT_VALUES!r}")
