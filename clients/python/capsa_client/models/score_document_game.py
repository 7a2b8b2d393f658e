from typing import Literal

ScoreDocumentGame = Literal["banting", "susun"]

SCORE_DOCUMENT_GAME_VALUES: set[ScoreDocumentGame] = {
    "banting",
    "susun",
}


def check_score_document_game(value: str) -> ScoreDocumentGame:
    if value in SCORE_DOCUMENT_GAME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SCORE_DOCUMENT_GAME_VALUES!r}")
