from typing import Literal

AttemptOutcome = Literal["connection_error", "delivered", "http_error", "refused", "timeout"]

ATTEMPT_OUTCOME_VALUES: set[AttemptOutcome] = {
    "connection_error",
    "delivered",
    "http_error",
    "refused",
    "timeout",
}


def check_attempt_outcome(value: str) -> AttemptOutcome:
    if value in ATTEMPT_OUTCOME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ATTEMPT_OUTCOME_VALUES!r}")
