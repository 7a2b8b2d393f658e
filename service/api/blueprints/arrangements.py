"""POST /v1/arrangements/evaluate: rows, foul, natural and bonuses of one arrangement."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.services import catalogue

from ..auth import allow_read
from ..schemas import EvaluateRequestSchema, EvaluationSchema
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
        return json_response(catalogue.evaluate(body))
