from typing import Literal

SubmissionStatus = Literal["arranging", "settled"]

SUBMISSION_STATUS_VALUES: set[SubmissionStatus] = {
    "arranging",
    "settled",
}


def check_submission_status(value: str) -> SubmissionStatus:
    if value in SUBMISSION_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SUBMISSION_STATUS_VALUES!r}")
