"""GET /v1/rules: the rule presets."""

from __future__ import annotations

from flask import Response
from flask.views import MethodView

from service.services import presets

from ..schemas.rules import PresetListSchema
from . import AUTH, Blueprint, json_response

blp = Blueprint("rules", __name__, url_prefix="/v1", description="Rule presets (docs/rules.md#rule-sets-presets-and-versions).")


@blp.route("/rules")
class Rules(MethodView):
    @blp.response(200, PresetListSchema)
    @blp.problems(*AUTH)
    def get(self) -> Response:
        """List every version of every preset with every parameter and its source."""
        return json_response(presets.rules())
