"""The reference for bench/http.py (its own folder: bench/ holds a file named http.py): a bare Flask app that parses the same body and answers small JSON."""

import json

from flask import Flask, Response, request

app = Flask(__name__)


@app.post("/v1/rounds")
def rounds() -> Response:
    body = json.loads(request.get_data())
    return Response(
        json.dumps({"players": len(body["players"])}), status=201, content_type="application/json"
    )
