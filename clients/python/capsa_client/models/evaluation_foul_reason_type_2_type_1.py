from typing import Literal

EvaluationFoulReasonType2Type1 = Literal["front beats middle", "middle beats back"]

EVALUATION_FOUL_REASON_TYPE_2_TYPE_1_VALUES: set[EvaluationFoulReasonType2Type1] = {
    "front beats middle",
    "middle beats back",
}


def check_evaluation_foul_reason_type_2_type_1(value: str) -> EvaluationFoulReasonType2Type1:
    if value in EVALUATION_FOUL_REASON_TYPE_2_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {EVALUATION_FOUL_REASON_TYPE_2_TYPE_1_VALUES!r}")
