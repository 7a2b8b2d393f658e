from typing import Literal

PairResultOutcome = Literal[
    "bomb",
    "even",
    "foul",
    "lost_less",
    "natural",
    "normal",
    "scoop",
    "super",
    "surrender",
    "takes_all_losses",
    "tembus",
    "tie",
    "win",
]

PAIR_RESULT_OUTCOME_VALUES: set[PairResultOutcome] = {
    "bomb",
    "even",
    "foul",
    "lost_less",
    "natural",
    "normal",
    "scoop",
    "super",
    "surrender",
    "takes_all_losses",
    "tembus",
    "tie",
    "win",
}


def check_pair_result_outcome(value: str) -> PairResultOutcome:
    if value in PAIR_RESULT_OUTCOME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PAIR_RESULT_OUTCOME_VALUES!r}")
