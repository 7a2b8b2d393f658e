from typing import Literal

MatchStatus = Literal["finished", "playing"]

MATCH_STATUS_VALUES: set[MatchStatus] = {
    "finished",
    "playing",
}


def check_match_status(value: str) -> MatchStatus:
    if value in MATCH_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {MATCH_STATUS_VALUES!r}")
