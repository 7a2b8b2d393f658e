from typing import Literal

AsOfSource = Literal["primary", "replica"]

AS_OF_SOURCE_VALUES: set[AsOfSource] = {
    "primary",
    "replica",
}


def check_as_of_source(value: str) -> AsOfSource:
    if value in AS_OF_SOURCE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {AS_OF_SOURCE_VALUES!r}")
