"""What gunicorn refuses before the app sees a request, answered as problem+json.

A request gunicorn cannot parse (not HTTP, a request line or header over its limits, a
transfer coding it does not take) never reaches Flask: gunicorn writes the answer itself,
an HTML page, through `gunicorn.util.write_error`. nginx in front answers these itself, in
the API's format (docs/operations.md); gunicorn hit directly (`make run`, which serves it on
127.0.0.1:8000, or a proxy that passes what nginx would refuse) now answers them in the
same format too: the same problem types, titles and `Connection: close`.

gunicorn has no setting for that body, so `install()` replaces the one function that writes
it (one call site, `Worker.handle_error`, with the same arguments since gunicorn 19).
"""

from __future__ import annotations

import socket

import gunicorn.util

from service.api.problems import PROBLEM_CONTENT_TYPE, problem_body

# gunicorn's statuses (gunicorn/workers/base.py: Worker.handle_error) and the problem types
# nginx answers the same refusals with (deploy/nginx.conf.template).
PROBLEM_OF_STATUS = {
    400: "bad-request",
    403: "forbidden",
    431: "request-header-fields-too-large",
    500: "internal",
    501: "not-implemented",
}


def problem_bytes(status: int, reason: str, message: str) -> bytes:
    """The whole HTTP answer gunicorn writes for a refusal: status line, headers, body."""
    body = problem_body(status, PROBLEM_OF_STATUS.get(status, "bad-request"), message or reason)
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        f"Content-Type: {PROBLEM_CONTENT_TYPE}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1", "replace") + body


def write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """`gunicorn.util.write_error`'s stand-in: the same arguments, problem+json written."""
    gunicorn.util.write_nonblock(sock, problem_bytes(status_int, reason, mesg))


def install() -> None:
    gunicorn.util.write_error = write_problem
