"""POST /v1/arrangements/evaluate: rows, foul, natural and bonuses of one arrangement."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.services.susun import arranging

from ..auth import allow_read
from ..heavy_reads import heavy
from ..schemas.arrangements import (
    EvaluateRequestSchema,
    EvaluationSchema,
    SuggestRequestSchema,
    SuggestResultSchema,
)
from . import BODY, Blueprint, json_response

blp = Blueprint("arrangements", __name__, url_prefix="/v1/arrangements", description="Arrangements.")

EXAMPLE = {
    "rules": "capsa-susun-id",
    "arrangement": {
        "front": ["Ah", "Ad", "7c"],
        "middle": ["9s", "9h", "4d", "4c", "2s"],
        "back": ["Ts", "Js", "Qs", "Ks", "As"],
    },
}


@blp.route("/evaluate")
class Evaluate(MethodView):
    @allow_read
    @blp.arguments(EvaluateRequestSchema, example=EXAMPLE)
    @blp.response(200, EvaluationSchema)
    @blp.problems(*BODY)
    def post(self, body: dict[str, Any]) -> Response:
        """Evaluate an arrangement: each row, foul (with the reason), natural, bonus total.

        With `hand`, the rows must use exactly those 13 cards (else 422 `invalid-cards`).
        """
        return json_response(arranging.evaluate(body))


SUGGEST_EXAMPLE = {
    "rules": "capsa-susun-id",
    "hand": ["Ah", "Ad", "7c", "9s", "9h", "4d", "4c", "2s", "Ts", "Js", "Qs", "Ks", "As"],
    "limit": 3,
}


@blp.route("/suggest")
class Suggest(MethodView):
    @allow_read
    @blp.arguments(SuggestRequestSchema, example=SUGGEST_EXAMPLE)
    @blp.response(200, SuggestResultSchema)
    @blp.problems(*BODY)
    @heavy  # custom rules can make one suggestion cost 0.3 s: two in flight per client
    def post(self, body: dict[str, Any]) -> Response:
        """Suggest the best legal arrangements of a 13-card hand, best first.

        Every one of the 72,072 settings is considered (none skipped that could be the
        best); fouls are never suggested; a natural of the rule set is reported.
        `score` is the expected points of the setting against ONE opponent of a reference
        field whose hands are set by a baseline arranger (strongest five at the back,
        strongest five of the rest in the middle, the other three in front). For each row
        r, with w_r / l_r the probabilities (from shipped per-row strength tables built
        from 200,000 seeded deals) that our row wins / loses, v_r its `row_points` weight,
        B_r our row's bonus (`bonus_by_rank` or `bonus`) and X_r the opponent's expected
        bonus in a row it wins, rows taken as independent:

        score = sum_r [v_r (w_r - l_r) + w_r B_r - X_r]
        + ((tembus_multiplier - 1) x sum_r v_r + scoop_bonus) x (P(sweep) - P(swept))
        + overall_unit x (P(overall won) - P(overall lost)),

        where the overall is won with two rows or more (`overall_rule` two_rows) or, under
        more_rows, also with one row won and two tied. `bonus_paid`, `royalty_flat` and
        `max_one_royalty` change the bonus terms as the rules do; a setting holding a
        natural is worth the natural's value. Super, the opponent's naturals and fouls are
        not modelled.
        """
        return json_response(arranging.suggest(body))
