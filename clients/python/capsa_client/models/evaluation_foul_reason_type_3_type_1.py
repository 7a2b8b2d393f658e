from typing import Literal

EvaluationFoulReasonType3Type1 = Literal["front beats middle", "middle beats back"]

EVALUATION_FOUL_REASON_TYPE_3_TYPE_1_VALUES: set[EvaluationFoulReasonType3Type1] = {
    "front beats middle",
    "middle beats back",
}


def check_evaluation_foul_reason_type_3_type_1(value: str) -> EvaluationFoulReasonType3Type1:
    if value in EVALUATION_FOUL_REASON_TYPE_3_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {EVALUATION_FOUL_REASON_TYPE_3_TYPE_1_VALUES!r}")
