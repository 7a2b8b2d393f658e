"""gunicorn's own refusals (before the app sees a request) are written as problem+json.

The served half (gunicorn with and without nginx in front) is in
tests/integration/test_nginx_slow_clients.py; this half needs no nginx."""

from __future__ import annotations

import http.client
import json
import socket

import gunicorn.util

from service.api import server_refusals


def _answer(status: int, reason: str, message: str) -> tuple[http.client.HTTPResponse, dict]:
    """The answer as a client reads it: status line and headers, and the parsed body."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        server_refusals.write_problem(ours, status, reason, message)
        ours.shutdown(socket.SHUT_WR)
        answer = http.client.HTTPResponse(theirs)
        answer.begin()
        return answer, json.loads(answer.read())


def test_a_refusal_is_problem_json_with_the_api_type_title_and_gunicorns_words():
    answer, body = _answer(431, "Request Header Fields Too Large", "Error parsing headers: 'limit request headers fields'")
    assert (answer.status, answer.reason) == (431, "Request Header Fields Too Large")
    assert answer.getheader("Content-Type") == "application/problem+json"
    assert answer.getheader("Connection") == "close"
    assert body == {
        "type": "/problems/request-header-fields-too-large",
        "title": "Request header fields too large",
        "status": 431,
        "detail": "Error parsing headers: 'limit request headers fields'",
        "errors": [],
    }


def test_a_refusal_without_words_says_its_reason_and_long_words_are_cut():
    assert _answer(500, "Internal Server Error", "")[1] == {
        "type": "/problems/internal", "title": "Internal error", "status": 500,
        "detail": "Internal Server Error", "errors": [],
    }
    detail = _answer(400, "Bad Request", "Invalid Request Line '" + "x" * 9000 + "'")[1]["detail"]
    assert len(detail) == 512 and detail.endswith("…")


def test_install_replaces_the_function_gunicorn_writes_its_refusals_with(monkeypatch):
    monkeypatch.setattr(gunicorn.util, "write_error", gunicorn.util.write_error)
    server_refusals.install()
    assert gunicorn.util.write_error is server_refusals.write_problem
