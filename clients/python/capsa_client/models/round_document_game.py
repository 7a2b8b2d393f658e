from typing import Literal

RoundDocumentGame = Literal["banting", "susun"]

ROUND_DOCUMENT_GAME_VALUES: set[RoundDocumentGame] = {
    "banting",
    "susun",
}


def check_round_document_game(value: str) -> RoundDocumentGame:
    if value in ROUND_DOCUMENT_GAME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ROUND_DOCUMENT_GAME_VALUES!r}")
