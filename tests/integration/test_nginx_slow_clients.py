"""Slow clients: nginx in front (deploy/nginx.conf) absorbs them; gunicorn alone does not.

gunicorn's sync workers give a worker to a connection for as long as its client takes to
send the request and read the answer. Here 50 sockets trickle their request a line a second
(40 their headers, 10 their body), and slow readers take a large ledger CSV a byte per
100 ms, while normal requests (GET /healthz, POST /v1/rounds) are sent every 100 ms:

- through nginx (20 s): every normal request is answered correctly within 2 s, and the
  CSV bytes wait in nginx, not in gunicorn's sockets;
- the control, the same slow sockets sent to gunicorn directly (7 s): /healthz fails or
  takes over 2 s, and a slow CSV reader leaves the answer queued on the worker's socket.

The figures are printed for docs/benchmarks.md, "Reliability" (`pytest -s`). Debian's nginx
(/usr/sbin/nginx, `.ci/run` installs it): without it the test is skipped, except under
CI=true, where that is a failure.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from nginxkit import require_nginx, start_nginx

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())
EXPECTED_POINTS = {"a": 49, "b": -1, "c": -25, "d": -23}  # README "A scored example"

WORKERS = 4
SLOW_SOCKETS = 50
SLOW_BODIES = 10  # of the 50: full headers, then the body a byte a second
CSV_READERS = 4
SEED_ROUNDS = 150  # about 100 KB of CSV
NGINX_SECONDS = 20
CONTROL_SECONDS = 6
DEADLINE = 2.0  # every normal request answered within this


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(port: int, proc: subprocess.Popen[bytes], what: str, log: Path) -> None:
    # gunicorn preloads the app (about 20 s on a shared machine at load 15): room to spare.
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if request(port, "GET", "/healthz", timeout=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{what} did not start: {log.read_text(errors='replace')[-2000:]}")


def wait_listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    """Until nginx accepts connections on `port` (whatever its upstream answers)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except ConnectionRefusedError:
            assert time.monotonic() < deadline and proc.poll() is None, "nginx did not start"
            time.sleep(0.1)


def request(port: int, method: str, path: str, headers: dict[str, str] | None = None,
            body: bytes | None = None, timeout: float = DEADLINE) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def unsent_bytes(port: int) -> int:
    """Bytes written by the server listening on `port` that its peers have not taken yet:
    the send queues of its accepted sockets (/proc/net/tcp), which a sync worker has to
    wait on once they are full."""
    total = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, queues = fields[1], fields[3], fields[4]
            if int(local.rsplit(":", 1)[1], 16) == port and state != "0A":  # 0A: LISTEN
                total += int(queues.split(":")[0], 16)
    return total


@dataclass
class Stack:
    gunicorn: int
    nginx: int
    key: str
    logs: Path
    seeding: Seeder  # the CSV's rounds, written while the control runs

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def nginx() -> str:
    return require_nginx()


@pytest.fixture(scope="module")
def stack(nginx: str, sqlite_url: str) -> Iterator[Stack]:
    from service.adapters.uow import Database
    from service.services import clients

    url = sqlite_url  # migrated in a temp dir by conftest
    db = Database(url)
    try:
        _, key = clients.create_client(db, f"slow-{secrets.token_hex(4)}")
    finally:
        db.dispose()
    # Posted in-process (the same HTTP contract, no server's overhead) while gunicorn starts
    # and the control runs, which leaves the CPU idle.
    seeding = Seeder(url, key, SEED_ROUNDS)
    seeding.start()
    # nginx's workers run as nobody when the test runs as root: the prefix must be readable.
    prefix = Path(tempfile.mkdtemp(prefix="capsa-nginx-"))
    prefix.chmod(0o755)
    g_port, n_port = free_port(), free_port()
    g_log = prefix / "gunicorn.log"
    procs: list[subprocess.Popen[bytes]] = []
    try:
        env = {**os.environ, "DATABASE_URL": url, "WEB_CONCURRENCY": str(WORKERS),
               "LOG_LEVEL": "WARNING", "PROMETHEUS_MULTIPROC_DIR": str(prefix / "prom"),
               "METRICS_BIND": "off"}
        with g_log.open("wb") as log:  # the child keeps its own copy
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
                 "--bind", f"127.0.0.1:{g_port}", "service.api.wsgi:app"],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log,
            ))
        wait_for(g_port, procs[0], "gunicorn", g_log)
        procs.append(start_nginx(nginx, prefix, g_port, n_port))
        wait_for(n_port, procs[1], "nginx", prefix / "error.log")
        yield Stack(g_port, n_port, key, prefix, seeding)
    finally:
        seeding.join(60)
        for proc in reversed(procs):
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        shutil.rmtree(prefix, ignore_errors=True)


class SlowSockets:
    """Sockets that each send a request line, then one line a second: headers that never
    end, or (every `count // bodies`-th) complete headers and then the body a byte a second.
    A socket the server drops is opened again, so `count` stay in flight."""

    def __init__(self, port: int, count: int, bodies: int, key: str) -> None:
        self.port, self.count, self.key = port, count, key
        self.bodies = set(range(0, count, count // bodies)) if bodies else set()
        self.dropped = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SlowSockets:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def _open(self, i: int) -> socket.socket | None:
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=1)
        except OSError:
            return None
        s.settimeout(0.2)
        head = f"POST /v1/rounds HTTP/1.1\r\nHost: capsa\r\nAuthorization: Bearer {self.key}\r\n"
        if i in self.bodies:
            head += "Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n"
        s.sendall(head.encode())
        return s

    def _run(self) -> None:
        sockets: list[socket.socket | None] = [self._open(i) for i in range(self.count)]
        tick = 0
        while not self._stop.wait(1.0):
            tick += 1
            for i, s in enumerate(sockets):
                if s is None:
                    sockets[i] = self._open(i)
                    continue
                piece = b" " if i in self.bodies else f"X-Slow-{tick}: {i}\r\n".encode()
                try:
                    s.sendall(piece)
                except OSError:  # dropped by the server (timeout or answer)
                    self.dropped += 1
                    s.close()
                    sockets[i] = self._open(i)
        for s in sockets:
            if s is not None:
                s.close()


class SlowCsvReader(threading.Thread):
    """GET /v1/ledger/entries as CSV, then one byte per 100 ms, with a small receive buffer
    (a client on a slow link) so the answer cannot hide in the reader's kernel buffer."""

    def __init__(self, port: int, key: str) -> None:
        super().__init__(daemon=True)
        self.port, self.key = port, key
        self.received = b""
        self.started = threading.Event()
        self._done = threading.Event()

    def run(self) -> None:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.settimeout(DEADLINE * 5)
            s.connect(("127.0.0.1", self.port))
            s.sendall(
                f"GET /v1/ledger/entries?currency=IDR HTTP/1.1\r\nHost: capsa\r\n"
                f"Authorization: Bearer {self.key}\r\nAccept: text/csv\r\n\r\n".encode()
            )
            while not self._done.is_set():
                chunk = s.recv(1)
                if not chunk:
                    return
                self.received += chunk
                self.started.set()
                self._done.wait(0.1)

    def stop(self) -> None:
        self._done.set()
        self.join(5)


@dataclass
class Traffic:
    """Normal requests sent one after another, one every `every` seconds."""

    port: int
    headers: dict[str, str]
    kinds: tuple[str, ...]
    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def run(self, seconds: float, every: float = 0.1) -> None:
        started = time.monotonic()
        i = 0
        while time.monotonic() - started < seconds:
            kind = self.kinds[i % len(self.kinds)]
            sent = time.monotonic()
            try:
                problem = self._one(kind, i)
            except OSError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            elapsed = time.monotonic() - sent
            self.latencies.append(elapsed)
            if problem is None and elapsed > DEADLINE:
                problem = f"took {elapsed:.2f} s"
            if problem is not None:
                self.failures.append(f"{kind} #{i}: {problem}")
            i += 1
            time.sleep(max(0.0, started + i * every - time.monotonic()))

    def _one(self, kind: str, i: int) -> str | None:
        if kind == "healthz":
            status, body = request(self.port, "GET", "/healthz")
            return None if (status, json.loads(body)) == (200, {"status": "ok"}) else f"{status} {body[:200]!r}"
        payload = dict(EXAMPLE, reference=f"normal-{secrets.token_hex(6)}")
        status, body = request(self.port, "POST", "/v1/rounds", self.headers, json.dumps(payload).encode())
        if status != 201:
            return f"{status} {body[:200]!r}"
        document = json.loads(body)
        points = {p["id"]: p["points"] for p in document["players"]}
        ok = document["id"].startswith("rnd_") and points == EXPECTED_POINTS and document["house_fee"] == "1860"
        return None if ok else f"unexpected round {body[:200]!r}"

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


class Seeder(threading.Thread):
    """Stores `rounds` rounds of four players for the key's client, posted in-process."""

    def __init__(self, url: str, key: str, rounds: int) -> None:
        super().__init__(daemon=True)
        self.url, self.key, self.rounds = url, key, rounds
        self.error: str | None = None

    def run(self) -> None:
        from service.api.app import create_app

        app = create_app({"DATABASE_URL": self.url, "LOG_LEVEL": "WARNING", "RATE_LIMIT": "off"})
        http = app.test_client()
        try:
            for _ in range(self.rounds):
                payload = dict(EXAMPLE, reference=f"seed-{secrets.token_hex(6)}")
                response = http.post("/v1/rounds", json=payload, headers={"Authorization": f"Bearer {self.key}"})
                if response.status_code != 201:
                    self.error = response.get_data(as_text=True)
                    return
        finally:
            app.extensions["capsa"].db.dispose()

    def done(self) -> None:
        self.join(120)
        assert not self.is_alive() and self.error is None, self.error or "seeding did not finish"


def csv_bytes(stack: Stack) -> int:
    status, body = request(stack.gunicorn, "GET", "/v1/ledger/entries?currency=IDR",
                           {**stack.headers, "Accept": "text/csv"}, timeout=30)
    assert status == 200 and body.startswith(b"round,sequence,")
    return len(body)


def test_slow_clients_are_absorbed_by_nginx_and_take_bare_gunicorn_down(stack):
    # The control, gunicorn without nginx. The slow sockets: each holds a worker, and
    # /healthz times out behind them.
    control = Traffic(stack.gunicorn, stack.headers, ("healthz",))
    with SlowSockets(stack.gunicorn, SLOW_SOCKETS, SLOW_BODIES, stack.key):
        time.sleep(1.0)
        control.run(CONTROL_SECONDS - 1.0)
    assert control.failures, "bare gunicorn answered every /healthz despite the slow sockets"
    recovered = time.monotonic() + 15
    while request(stack.gunicorn, "GET", "/healthz", timeout=5)[0] != 200:
        assert time.monotonic() < recovered, "gunicorn did not recover after the control"
    # A slow CSV reader: the answer waits in the worker's socket, which let the worker go
    # only because this CSV fits the kernel's send buffer; a longer one holds the worker
    # until the client has read it (the 42 s seen in production).
    stack.seeding.done()
    csv_size = csv_bytes(stack)
    reader = SlowCsvReader(stack.gunicorn, stack.key)
    reader.start()
    assert reader.started.wait(10), "no CSV from gunicorn"
    time.sleep(0.5)
    queued_on_gunicorn = unsent_bytes(stack.gunicorn)
    reader.stop()
    assert queued_on_gunicorn > csv_size // 2, (queued_on_gunicorn, csv_size)

    # Through nginx, with the same slow sockets and slow CSV readers.
    traffic = Traffic(stack.nginx, stack.headers, ("healthz", "round"))
    readers = [SlowCsvReader(stack.nginx, stack.key) for _ in range(CSV_READERS)]
    samples: list[int] = []
    with SlowSockets(stack.nginx, SLOW_SOCKETS, SLOW_BODIES, stack.key) as slow:
        for r in readers:
            r.start()
        sampling = threading.Event()

        def sample() -> None:
            while not sampling.wait(0.5):
                if all(r.started.is_set() for r in readers):
                    samples.append(unsent_bytes(stack.gunicorn))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        traffic.run(NGINX_SECONDS)
        sampling.set()
        sampler.join(5)
        dropped = slow.dropped
    received = [len(r.received) for r in readers]
    for r in readers:
        r.stop()

    p50, p99 = traffic.percentile(0.50), traffic.percentile(0.99)
    print(
        f"\nslow clients: {SLOW_SOCKETS} sockets ({SLOW_SOCKETS - SLOW_BODIES} trickling headers, "
        f"{SLOW_BODIES} bodies, a line or byte a second; {dropped} dropped by nginx's timeouts "
        f"and reopened) + {CSV_READERS} readers of a {csv_size:,}-byte CSV at 10 B/s, "
        f"{NGINX_SECONDS} s through nginx, {WORKERS} sync workers, load average {os.getloadavg()[0]:.2f}: "
        f"{len(traffic.latencies) - len(traffic.failures)}/{len(traffic.latencies)} normal requests "
        f"(GET /healthz, POST /v1/rounds every 100 ms) answered correctly within {DEADLINE:.0f} s, "
        f"p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, max {max(traffic.latencies) * 1000:.1f} ms; "
        f"CSV bytes queued on gunicorn's sockets: at most {max(samples, default=0):,} "
        f"(bare gunicorn: {queued_on_gunicorn:,})\n"
        f"control, the same slow sockets to gunicorn directly, {CONTROL_SECONDS} s: "
        f"{len(control.failures)} of {len(control.latencies)} GET /healthz failed or took over "
        f"{DEADLINE:.0f} s (first: {control.failures[0]})"
    )
    assert not traffic.failures, traffic.failures[:10]
    assert all(n > 0 for n in received), received  # the readers were answered, slowly
    assert all(n < csv_size for n in received), received  # ...and still reading at the end
    # nginx took each CSV from gunicorn at once: nothing of it waits in gunicorn's sockets.
    assert samples and max(samples) < 16 * 1024, samples


def test_nginx_passes_the_request_id_through_and_makes_one_when_missing(stack):
    conn = http.client.HTTPConnection("127.0.0.1", stack.nginx, timeout=DEADLINE)
    try:
        conn.request("GET", "/healthz", headers={"X-Request-Id": "game-server-42.7"})
        mine = conn.getresponse()
        mine.read()
        conn.request("GET", "/healthz", headers={"X-Request-Id": "not valid!"})
        invalid = conn.getresponse()  # the same connection: keep-alive to clients
        invalid.read()
    finally:
        conn.close()
    assert mine.headers["X-Request-ID"] == "game-server-42.7"
    made = invalid.headers["X-Request-ID"]
    assert len(made) == 32 and int(made, 16) >= 0  # nginx's $request_id, kept by the app
    deadline = time.monotonic() + 5
    while f"id={made}" not in (stack.logs / "access.log").read_text():
        assert time.monotonic() < deadline, "nginx did not log the id it made"
        time.sleep(0.1)


@pytest.mark.parametrize(("size", "refused_by_nginx"), [(64 * 1024, False), (64 * 1024 + 1, True)])
def test_nginx_refuses_a_body_over_the_apps_64_kib_as_problem_json(stack, size, refused_by_nginx):
    body = b'{"pad": "' + b"x" * (size - 11) + b'"}'
    assert len(body) == size
    status, answer = request(stack.nginx, "POST", "/v1/rounds", stack.headers, body)
    if refused_by_nginx:
        assert status == 413
        assert json.loads(answer)["type"] == "/problems/payload-too-large"  # problem+json
    else:  # forwarded: the app reads it and refuses the unknown field
        assert status == 422, answer[:200]


def test_metrics_are_not_reachable_through_nginx(stack):
    status, body = request(stack.nginx, "GET", "/metrics")
    assert status == 404 and json.loads(body)["type"] == "/problems/not-found"


def test_nginx_answers_503_problem_json_with_retry_after_when_gunicorn_is_down(nginx):
    prefix = Path(tempfile.mkdtemp(prefix="capsa-nginx-down-"))
    prefix.chmod(0o755)
    port = free_port()
    proc = start_nginx(nginx, prefix, free_port(), port)  # nothing listens upstream
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE)
                conn.request("GET", "/healthz")
                response = conn.getresponse()
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline and proc.poll() is None, "nginx did not start"
                time.sleep(0.1)
        body = json.loads(response.read())
        conn.close()
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(prefix, ignore_errors=True)
    assert response.status == 503 and response.headers["Content-Type"] == "application/problem+json"
    assert body["type"] == "/problems/unavailable" and response.headers["Retry-After"] == "5"


# -- the edges of nginx's buffers: problem+json, never gunicorn's HTML ------------------------

LINE = 8189  # the longest request line nginx passes (its 8191-byte buffer, with CRLF)
HEADER_LINE = 8189  # the longest header line, likewise


def raw_request(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send `data` as it is; the status, headers (lower-case names) and body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE * 5) as s:
        s.sendall(data)
        answer = http.client.HTTPResponse(s)
        answer.begin()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()


def long_line(length: int, end: bytes = b"\r\n") -> bytes:
    """A request line of `length` bytes (without its end), for a route the app answers 422."""
    head, tail = b"GET /healthz?pad=", b" HTTP/1.1"
    return head + b"a" * (length - len(head) - len(tail)) + tail + end


def get_with(headers: bytes, end: bytes = b"\r\n") -> bytes:
    return b"GET /healthz HTTP/1.1" + end + b"Host: capsa" + end + headers + b"Connection: close" + end + end


def assert_nginx_problem(answer: tuple[int, dict[str, str], bytes], status: int, kind: str) -> None:
    code, headers, body = answer
    assert (code, headers["content-type"]) == (status, "application/problem+json"), (code, headers, body[:300])
    document = json.loads(body)
    assert (document["type"], document["status"]) == (f"/problems/{kind}", status)
    assert document["title"] and document["detail"] and document["errors"] == []


@pytest.mark.parametrize("end", [b"\r\n", b"\n"])
def test_the_longest_request_line_nginx_passes_reaches_the_app_and_one_more_byte_is_414_problem_json(stack, end):
    longest = LINE + (len(b"\r\n") - len(end))  # a bare LF leaves one more byte for the line
    code, headers, body = raw_request(stack.nginx, long_line(longest, end) + b"Host: capsa" + end
                                      + b"Connection: close" + end + end)
    # The app's own answer (the query parameter is unknown), not gunicorn's HTML 400.
    assert (code, headers["content-type"]) == (422, "application/problem+json"), body[:300]
    assert json.loads(body)["errors"][0]["field"] == "query.pad"
    answer = raw_request(stack.nginx, long_line(longest + 1, end) + b"Host: capsa" + end + end)
    assert_nginx_problem(answer, 414, "uri-too-long")


def test_a_header_line_over_nginxs_buffer_is_431_problem_json_and_the_longest_passes(stack):
    pad = b"X-Pad: "
    code, _, body = raw_request(stack.nginx, get_with(pad + b"a" * (HEADER_LINE - len(pad)) + b"\r\n"))
    assert (code, json.loads(body)) == (200, {"status": "ok"})
    answer = raw_request(stack.nginx, get_with(pad + b"a" * (HEADER_LINE + 1 - len(pad)) + b"\r\n"))
    assert_nginx_problem(answer, 431, "request-header-fields-too-large")


def test_headers_over_nginxs_buffers_in_all_are_431_problem_json(stack):
    def pads(count: int) -> bytes:
        return b"".join(b"X-Pad-%d: " % i + b"a" * 8000 + b"\r\n" for i in range(count))

    code, _, body = raw_request(stack.nginx, get_with(pads(4)))
    assert (code, json.loads(body)) == (200, {"status": "ok"})
    assert_nginx_problem(raw_request(stack.nginx, get_with(pads(5))), 431, "request-header-fields-too-large")


def test_as_many_header_lines_as_nginx_passes_reach_the_app_and_more_are_431_problem_json(stack):
    def lines(count: int) -> bytes:
        return b"".join(b"X-%d: v\r\n" % i for i in range(count))

    # nginx takes 1,000 header lines, Host and Connection among them; gunicorn takes them all.
    code, _, body = raw_request(stack.nginx, get_with(lines(998)))
    assert (code, json.loads(body)) == (200, {"status": "ok"})
    assert_nginx_problem(raw_request(stack.nginx, get_with(lines(999))), 431, "request-header-fields-too-large")


def test_a_request_that_is_not_http_is_400_problem_json(stack):
    assert_nginx_problem(raw_request(stack.nginx, b"NOT HTTP AT ALL\r\n\r\n"), 400, "bad-request")


@pytest.mark.parametrize(("data", "status", "kind"), [
    (b"TRACE /healthz HTTP/1.1\r\nHost: capsa\r\n\r\n", 405, "method-not-allowed"),
    (b"POST /v1/score HTTP/1.1\r\nHost: capsa\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "not-implemented"),
    (b"GET /healthz HTTP/2.0\r\nHost: capsa\r\n\r\n", 505, "http-version-not-supported"),
])
def test_what_nginx_refuses_before_the_app_sees_it_is_problem_json_too(stack, data, status, kind):
    """TRACE, a transfer coding nginx does not know and an HTTP version it does not speak
    are refused by nginx itself: in the app's format, with the app's titles, not an HTML page."""
    from service.api.problems import TITLES

    answer = raw_request(stack.nginx, data)
    assert_nginx_problem(answer, status, kind)
    assert json.loads(answer[2])["title"] == TITLES[kind]


def test_gunicorn_takes_what_nginx_passes_and_refuses_beyond_its_limits_as_problem_json(stack):
    # What nginx passes, gunicorn hit directly takes too (its limits sit above nginx's)...
    code, _, _ = raw_request(stack.gunicorn, long_line(8190) + b"Host: capsa\r\nConnection: close\r\n\r\n")
    assert code == 422
    code, _, _ = raw_request(stack.gunicorn, get_with(b"".join(b"X-%d: v\r\n" % i for i in range(1000))))
    assert code == 200
    # ...and what it refuses itself, beyond them or not HTTP, it answers in the API's format
    # (`make run` serves gunicorn with nothing in front), not as its own HTML page.
    line = raw_request(stack.gunicorn, long_line(8191) + b"Host: capsa\r\n\r\n")
    assert_nginx_problem(line, 400, "bad-request")
    assert json.loads(line[2])["detail"] == "Request Line is too large (8191 > 8190)"
    assert line[1]["connection"] == "close"
    fields = get_with(b"".join(b"X-%d: v\r\n" % i for i in range(1101)))
    assert_nginx_problem(raw_request(stack.gunicorn, fields), 431, "request-header-fields-too-large")
    assert_nginx_problem(raw_request(stack.gunicorn, b"NOT HTTP AT ALL\r\n\r\n"), 400, "bad-request")
    assert_nginx_problem(raw_request(stack.gunicorn, get_with(b"Bad Name: v\r\n")), 400, "bad-request")
    coding = b"POST /v1/score HTTP/1.1\r\nHost: capsa\r\nTransfer-Encoding: br\r\n\r\n"
    assert_nginx_problem(raw_request(stack.gunicorn, coding), 501, "not-implemented")


class SilentUpstream:
    """Stands for gunicorn: takes every connection nginx opens and never answers, so each
    request forwarded to it stays in flight for as long as the test needs."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=128)
        self.port = int(self._listener.getsockname()[1])
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def wait_for(self, count: int) -> None:
        deadline = time.monotonic() + 10
        while len(self.accepted) < count:
            assert time.monotonic() < deadline, f"{len(self.accepted)} requests reached the upstream, not {count}"
            time.sleep(0.02)
        time.sleep(0.1)
        assert len(self.accepted) == count, f"{len(self.accepted)} requests reached the upstream, not {count}"

    def close(self) -> None:
        self._listener.close()
        for conn in self.accepted:
            conn.close()
        self._thread.join(5)


def test_exports_in_flight_are_limited_per_address_and_in_all_as_429_problem_json(nginx):
    upstream = SilentUpstream()
    prefix = Path(tempfile.mkdtemp(prefix="capsa-nginx-exports-"))
    prefix.chmod(0o755)
    port = free_port()
    proc = start_nginx(nginx, prefix, upstream.port, port)
    held: list[socket.socket] = []

    def send(source: str, path: str) -> socket.socket:
        s = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE * 5, source_address=(source, 0))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: capsa\r\nAuthorization: Bearer k\r\n\r\n".encode())
        return s

    def refused(source: str, path: str) -> None:
        with send(source, path) as s:
            answer = http.client.HTTPResponse(s)
            answer.begin()
            body = json.loads(answer.read())
        assert (answer.status, answer.headers["Content-Type"]) == (429, "application/problem+json")
        assert body["type"] == "/problems/rate-limited" and answer.headers["Retry-After"] == "5"

    exports = ["/v1/audit/export?limit=50000", "/v1/ledger/entries", "/v1/ledger/players/a/statement"]
    try:
        wait_listening(port, proc)
        for i in range(4):  # four in flight from one address: all forwarded
            held.append(send("127.0.0.1", exports[i % 3]))
        upstream.wait_for(4)
        for path in exports:  # a fifth from it, to any export, is refused by nginx itself
            refused("127.0.0.1", path)
        held.append(send("127.0.0.1", "/v1/ledger/summary"))  # other routes are not counted
        upstream.wait_for(5)
        for address in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):  # 16 exports in flight in all
            held.extend(send(address, exports[0]) for _ in range(4))
        upstream.wait_for(17)
        refused("127.0.0.5", exports[1])  # a new address, but no export is left
        held.pop(0).close()  # one ends: its place is free again
        time.sleep(0.5)
        held.append(send("127.0.0.5", exports[1]))
        upstream.wait_for(18)
    finally:
        for s in held:
            s.close()
        proc.terminate()
        proc.wait(10)
        upstream.close()
        shutil.rmtree(prefix, ignore_errors=True)


def test_nginx_logs_a_round_pages_path_without_its_token(stack):
    """A view link opens the page without a key: nginx's log line leaves the token out, as
    the app's does."""
    token = "WyJjbF8xIiwicm5kXzEiXQ.secret-part-of-the-link"
    conn = http.client.HTTPConnection("127.0.0.1", stack.nginx, timeout=DEADLINE)
    try:
        conn.request("GET", f"/view/rounds/{token}", headers={"X-Request-Id": "view-page-log"})
        conn.getresponse().read()
    finally:
        conn.close()
    deadline = time.monotonic() + 5
    while "id=view-page-log" not in (log := (stack.logs / "access.log").read_text()):
        assert time.monotonic() < deadline, "nginx did not log the request"
        time.sleep(0.1)
    (line,) = [line for line in log.splitlines() if "id=view-page-log" in line]
    assert '"GET /view/rounds/- HTTP/1.1" 404' in line and "secret" not in log


def nginx_logs(nginx: str, requests: list[tuple[str, dict[str, str], int]]) -> tuple[str, str]:
    """Each (target, headers, status) sent to deploy/nginx.conf.template's nginx, with nothing
    listening upstream (a proxied request is a 503), in a request of its own; its access and
    error logs once it has logged them all."""
    prefix = Path(tempfile.mkdtemp(prefix="capsa-nginx-log-"))
    prefix.chmod(0o755)
    port = free_port()
    proc = start_nginx(nginx, prefix, free_port(), port)
    try:
        wait_listening(port, proc)
        for target, headers, status in requests:
            with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) as s:
                head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
                s.sendall(f"GET {target} HTTP/1.1\r\nHost: capsa\r\n{head}Connection: close\r\n\r\n".encode())
                answer = http.client.HTTPResponse(s)
                answer.begin()
                answer.read()
                assert answer.status == status, (target[:40], answer.status)
        deadline = time.monotonic() + 5
        while (prefix / "access.log").read_text().count("\n") < len(requests):
            assert time.monotonic() < deadline, "nginx did not log every request"
            time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(10)
    logs = (prefix / "access.log").read_text(), (prefix / "error.log").read_text()
    shutil.rmtree(prefix, ignore_errors=True)
    return logs


def test_nginx_keeps_a_view_links_token_out_of_both_logs_however_its_path_is_spelt(nginx):
    """The token is a bearer credential: however a client spells the page's path (a doubled
    slash from a base URL ending in `/`, a percent-encoded letter, the absolute form, another
    letter case, dot segments), nginx
    logs it as `/view/rounds/-`; and an upstream failure on such a page (a restart, a
    timeout) writes no request line with the token to the error log, while one on the API
    is still logged there."""
    spellings = ["/view/rounds/TOKEN-A", "//view/rounds/TOKEN-B", "/view/%72ounds/TOKEN-C",
                 "http://capsa/view/rounds/TOKEN-D", "/view//rounds/TOKEN-E", "/VIEW/./rounds/TOKEN-F",
                 "/View/x/../rounds/TOKEN-G", "/view/./rounds/TOKEN-H"]
    access, errors = nginx_logs(nginx, [(target, {}, 503) for target in [*spellings, "/v1/rules"]])
    assert "TOKEN" not in access and "TOKEN" not in errors, (access, errors)
    assert access.count('"GET /view/rounds/- HTTP/1.1" 503') == len(spellings)
    assert 'request: "GET /v1/rules HTTP/1.1"' in errors  # the API's upstream failures are still logged


def test_nginx_keeps_the_token_out_of_its_log_when_it_refuses_a_page_request_itself(nginx):
    """A request nginx answers itself (a header line too long: 431; a URI too long: 414) is
    routed to a page of its own, so $uri no longer names the round page: the raw request line
    is matched then, and it must be in any spelling, percent-escaped letters and slashes
    included."""
    spellings = ["/view/rounds/TOKEN-A", "/view/%72ounds/TOKEN-B", "/%76iew/rounds/TOKEN-C",
                 "/view%2Frounds/TOKEN-D", "/VIEW/%52OUNDS/TOKEN-E", "/view/%72%6F%75%6E%64%73/TOKEN-F",
                 "/VIEW/./rounds/TOKEN-G", "/view/x/../rounds/TOKEN-H", "/view/%2e/rounds/TOKEN-I",
                 "/view/a/b/../../rounds/TOKEN-J"]
    requests = [(target, {"X-Big": "x" * 9000}, 431) for target in spellings]
    requests += [(target + "x" * 9000, {}, 414) for target in spellings[:2]]
    access, errors = nginx_logs(nginx, requests)
    assert "TOKEN" not in access and "TOKEN" not in errors, (access[:2000], errors[:2000])
