"""The delivery client's answer parser, fed as a receiver's bytes arrive: whole, and a byte
at a time. It says the status, the reason and whether the connection may carry another
request (keep-alive, and the answer read to its end)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from service.adapters.delivery import _READ, BadAnswer, _Connection


class Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.aborted = False

    def write(self, data: Any) -> None:
        self.written.append(bytes(data))

    def abort(self) -> None:
        self.aborted = True


def answer(raw: bytes, pieces: int) -> tuple[Any, bool]:
    """Feed `raw` in pieces of `pieces` bytes (0: whole): the answer (or the error), and
    whether the connection was aborted."""
    loop = asyncio.new_event_loop()
    try:
        conn = _Connection(loop)
        transport = Transport()
        conn.connection_made(transport)
        future = conn.ask(b"POST / HTTP/1.1\r\n\r\n")
        step = pieces or len(raw)
        for at in range(0, len(raw), step):
            conn.data_received(raw[at : at + step])
            if future.done():
                break
        if not future.done():
            return None, transport.aborted
        error = future.exception()
        if error is not None:
            return error, transport.aborted
        got = future.result()
        return (got.status, got.reason, got.reusable), transport.aborted
    finally:
        loop.close()


HEAD = b"HTTP/1.1 200 OK\r\n"
CASES = {
    "length": (HEAD + b"Content-Length: 2\r\n\r\nok", (200, "OK", True)),
    "length, close": (HEAD + b"Connection: close\r\nContent-Length: 2\r\n\r\nok", (200, "OK", False)),
    "no content": (b"HTTP/1.1 204 No Content\r\n\r\n", (204, "No Content", True)),
    "chunked": (HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3;x=y\r\nabc\r\n0\r\n\r\n", (200, "OK", True)),
    "chunked, trailers": (HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: 1\r\nX-U: 2\r\n\r\n",
                          (200, "OK", True)),
    "interim first": (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                      + HEAD + b"Content-Length: 0\r\n\r\n", (200, "OK", True)),
    "HTTP/1.0": (b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", (200, "OK", False)),
    "HTTP/1.0 keep-alive": (b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
                            (200, "OK", True)),
    "error": (b"HTTP/1.1 503 Busy Now\r\nContent-Length: 4\r\n\r\nbusy", (503, "Busy Now", True)),
    "long body": (HEAD + b"Content-Length: 100000\r\n\r\n" + b"x" * (_READ + 10), (200, "OK", False)),
    "long trailers": (HEAD + b"Transfer-Encoding: chunked\r\n\r\n0\r\n" + b"X: " + b"t" * (_READ + 10),
                      (200, "OK", False)),
}


@pytest.mark.parametrize("pieces", [0, 1, 7])
@pytest.mark.parametrize("case", list(CASES))
def test_an_answer_is_read_to_its_end_whole_or_a_byte_at_a_time(case: str, pieces: int) -> None:
    raw, expected = CASES[case]
    got, _ = answer(raw, pieces)
    assert got == expected


def test_an_answer_not_yet_ended_waits_for_more() -> None:
    for raw in (HEAD + b"Content-Length: 5\r\n\r\nok", HEAD + b"Transfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n"):
        assert answer(raw, 0) == (None, False)


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b"HTTP/1.1 100 Continue\r\n\r\n" * 9, "got more than 8 interim (1xx) answers"),
        (b"HTTP/1.1 2000 OK\r\n\r\n", "BadStatusLine: b'HTTP/1.1 2000 OK'"),
        (HEAD + b"Content-Length: ten\r\n\r\n", "invalid Content-Length 'ten'"),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n", "invalid chunk size b'zz'"),
        (HEAD + b"X: 1\r\n" * 101, "got more than 100 headers"),
    ],
)
def test_a_bad_answer_is_refused_and_its_connection_aborted(raw: bytes, said: str) -> None:
    got, aborted = answer(raw, 0)
    assert isinstance(got, BadAnswer) and str(got) == said and aborted
