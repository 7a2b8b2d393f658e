from typing import Literal

RoundDocumentStatus = Literal["settled", "void"]

ROUND_DOCUMENT_STATUS_VALUES: set[RoundDocumentStatus] = {
    "settled",
    "void",
}


def check_round_document_status(value: str) -> RoundDocumentStatus:
    if value in ROUND_DOCUMENT_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ROUND_DOCUMENT_STATUS_VALUES!r}")
