"""An answer cut short upstream reaches the client through nginx as cut, never as whole.

A streamed answer (the audit export, the ledger's CSV) has its status and headers sent
before its body. When its gunicorn worker dies mid-body (stopped at its timeout, killed, a
node lost), the client must be able to tell: nginx speaks HTTP/1.1 to gunicorn, so the body
comes chunked and nginx sees that its end is missing, and cuts the client's connection
without the last chunk. Over HTTP/1.0 gunicorn ends the body by closing the connection, and
nginx took that close for the end: the client got a well-formed 200 missing its tail.

A worker here streams 200 lines and dies after 50. Debian's nginx (.ci/run installs it):
without it the test is skipped, except under CI=true.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from nginxkit import require_nginx, start_nginx

LINES, DIES_AFTER = 200, 50

APP = f'''
import os, time

def app(environ, start_response):
    if environ["PATH_INFO"] == "/healthz":
        start_response("200 OK", [("Content-Type", "application/json")])
        return [b'{{"status":"ok"}}']
    start_response("200 OK", [("Content-Type", "application/x-ndjson")])

    def lines():
        for n in range({LINES}):
            if n == {DIES_AFTER}:
                time.sleep(0.2)  # what was written so far reaches nginx
                os._exit(1)  # the worker is gone, mid-answer
            yield b'{{"sequence":%d,"pad":"%s"}}\\n' % (n + 1, b"x" * 200)

    return lines()
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answers(port: int, path: str) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", path)
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


@pytest.fixture
def through_nginx() -> Iterator[int]:
    nginx = require_nginx()
    prefix = Path(tempfile.mkdtemp(prefix="capsa-nginx-cut-"))
    prefix.chmod(0o755)
    (prefix / "dying.py").write_text(APP)
    upstream, listen = free_port(), free_port()
    procs = [
        subprocess.Popen(
            # Started in its folder: no gunicorn.conf.py there (the project's is the service's).
            # A graceful stop of 5 s, not 30: past it the master kills a worker still in a
            # request and exits, within the teardown's 10 s.
            [sys.executable, "-m", "gunicorn", "--workers", "1", "--graceful-timeout", "5",
             "--bind", f"127.0.0.1:{upstream}", "dying:app"],
            cwd=prefix, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
    ]
    try:
        procs.append(start_nginx(nginx, prefix, upstream, listen))
        deadline = time.monotonic() + 30
        while not answers(listen, "/healthz"):
            assert time.monotonic() < deadline, (prefix / "nginx.stderr").read_text(errors="replace")
            time.sleep(0.1)
        yield listen
    finally:
        # Every process told to stop before any is waited for, and none left running: once,
        # in a full run of the suite on a loaded machine, gunicorn's master did not exit
        # within 10 s of SIGTERM, the wait raised, and nginx (never told) stayed behind. Not
        # reproduced alone (0.2 s). Past 10 s it still fails the test; the session's group
        # goes with it (SIGQUIT, tried instead, left a worker without its master).
        for proc in procs:
            proc.terminate()
        try:
            for proc in procs:
                proc.wait(10)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            with contextlib.suppress(ProcessLookupError):  # a worker its master left behind
                os.killpg(procs[0].pid, signal.SIGKILL)
        shutil.rmtree(prefix, ignore_errors=True)


def test_a_streamed_answer_whose_worker_dies_arrives_cut_not_whole(through_nginx):
    conn = http.client.HTTPConnection("127.0.0.1", through_nginx, timeout=10)
    conn.request("GET", "/v1/audit/export")
    response = conn.getresponse()
    assert response.status == 200  # sent before the body: only the body's end can tell
    with pytest.raises(http.client.IncompleteRead) as cut:
        response.read()
    got = cut.value.partial.splitlines()
    assert 0 < len(got) <= DIES_AFTER and got[-1].endswith(b'"}')  # whole lines up to the cut
    conn.close()
