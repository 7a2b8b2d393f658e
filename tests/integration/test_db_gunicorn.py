"""The service under gunicorn.conf.py: workers fork, metrics add up across processes and are
served by the master on METRICS_BIND, never on the API port."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_app, make_tenant

ROOT = Path(__file__).resolve().parents[2]
BODY = (ROOT / "service/examples/round-4p-capsa-susun-id.json").read_bytes()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(port: int, method: str, path: str, headers: dict[str, str], body: bytes | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read(), dict(response.getheaders())
    finally:
        conn.close()


def start(
    sqlite_url: str, tmp_path: Path, metrics_bind: str, **extra: str
) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": sqlite_url,
        "WEB_CONCURRENCY": "2",
        "LOG_LEVEL": "WARNING",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prom"),
        "METRICS_BIND": metrics_bind,
        **extra,
    }
    with (tmp_path / "gunicorn.log").open("wb") as log:  # the child keeps its own copy
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
             "--bind", f"127.0.0.1:{port}", "service.api.wsgi:app"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log,
        )
    return proc, port


def wait_healthy(proc: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            if call(port, "GET", "/healthz", {})[0] == 200:
                return
        except OSError:
            pass
        assert time.monotonic() < deadline and proc.poll() is None, "gunicorn did not start"
        time.sleep(0.2)


@pytest.fixture
def server(sqlite_url, tmp_path):
    metrics_port = free_port()
    proc, port = start(sqlite_url, tmp_path, f"127.0.0.1:{metrics_port}")
    wait_healthy(proc, port)
    yield port, metrics_port
    proc.terminate()
    proc.wait(20)


def scrape(metrics_port: int) -> str:
    status, body, headers = call(metrics_port, "GET", "/metrics", {})
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    return body.decode()


def test_rounds_scored_under_gunicorn_are_counted_across_workers(server, sqlite_url):
    server, metrics_port = server
    tenant = make_tenant(make_app(sqlite_url))
    headers = {**tenant.headers, "Content-Type": "application/json"}
    for _ in range(6):
        status, body, _ = call(server, "POST", "/v1/score", headers, BODY)
        assert status == 200 and json.loads(body)["house_fee"] == "1860"
    status, body, response_headers = call(server, "POST", "/v1/rounds", headers,
                                          BODY.replace(b"example-1", b"gunicorn-1"))
    assert status == 201, body
    assert response_headers["X-Request-ID"]
    metrics = scrape(metrics_port)
    assert 'capsa_rounds_scored_total{preset="capsa-susun-id",stored="false"} 6.0' in metrics
    assert 'capsa_rounds_scored_total{preset="capsa-susun-id",stored="true"} 1.0' in metrics
    assert "capsa_http_request_duration_seconds_bucket" in metrics


def test_a_clients_heavy_reads_are_bounded_across_the_workers(sqlite_url, tmp_path):
    """The bound on a client's heavy reads is the server's, not a worker's: with the client's
    two slots held in the server's directory, every worker refuses its verify."""
    from service.api.heavy_reads import HeavyReads

    slots_dir = tmp_path / "heavy"
    proc, port = start(sqlite_url, tmp_path, "off", HEAVY_READS_PER_CLIENT="2", HEAVY_READS_DIR=str(slots_dir))
    try:
        wait_healthy(proc, port)
        tenant = make_tenant(make_app(sqlite_url))
        held = [HeavyReads(slots_dir, 2).take(tenant.id) for _ in range(2)]
        assert all(held)
        statuses = {call(port, "GET", "/v1/audit/verify", tenant.headers)[0] for _ in range(8)}
        for slot in held:
            assert slot is not None
            slot.release()
        assert statuses == {429}
        assert call(port, "GET", "/v1/audit/verify", tenant.headers)[0] == 200
    finally:
        proc.terminate()
        proc.wait(20)


def test_metrics_are_served_on_their_own_bind_and_the_api_port_answers_404(server):
    port, metrics_port = server
    status, body, headers = call(port, "GET", "/metrics", {})
    unknown = call(port, "GET", "/no-such-route", {})
    assert status == 404 and headers["Content-Type"] == "application/problem+json"
    assert json.loads(body) == json.loads(unknown[1])  # like any unknown route
    before = scrape(metrics_port)
    for _ in range(8):  # more requests than workers: the master sums every worker's counts
        assert call(port, "GET", "/healthz", {})[0] == 200
    after = scrape(metrics_port)
    line = 'capsa_http_request_duration_seconds_count{endpoint="service.Health",method="GET",status="200"}'
    assert count(after, line) - count(before, line) == 8
    assert 'endpoint="unmatched",method="GET",status="404"' in after


def count(text: str, series: str) -> float:
    found = [ln for ln in text.splitlines() if ln.startswith(series + " ")]
    return float(found[0].rsplit(" ", 1)[1]) if found else 0.0


def test_gunicorn_refuses_to_start_when_the_metrics_bind_is_taken(sqlite_url, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        proc, _ = start(sqlite_url, tmp_path, f"127.0.0.1:{busy}")
        try:
            proc.wait(timeout=30)
        finally:
            proc.kill()
    assert proc.returncode != 0
    assert f"METRICS_BIND 127.0.0.1:{busy}" in (tmp_path / "gunicorn.log").read_text()


def _chunked_post(port: int, path: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
    """POST `body` with Transfer-Encoding: chunked (no Content-Length), 16 KiB a chunk."""
    chunks = (body[i:i + 16_384] for i in range(0, len(body), 16_384))
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request("POST", path, body=chunks, headers=headers, encode_chunked=True)
        response = conn.getresponse()
        return response.status, response.read()
    except (BrokenPipeError, ConnectionResetError):  # answered before it read the rest: read it
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_a_chunked_body_over_64_kib_is_413_under_gunicorn_not_cut_to_a_valid_prefix(server, sqlite_url):
    port, _ = server
    tenant = make_tenant(make_app(sqlite_url))
    headers = {**tenant.headers, "Content-Type": "application/json"}
    # 10 MiB of whitespace after valid JSON: the first 64 KiB alone parse, and were answered 200
    status, body = _chunked_post(port, "/v1/score", headers, BODY + b" " * (10 << 20))
    assert status == 413, body[:300]
    assert json.loads(body)["type"] == "/problems/payload-too-large"
    status, body = _chunked_post(port, "/v1/score", headers, BODY + b" " * 1000)  # under the limit
    assert status == 200 and json.loads(body)["house_fee"] == "1860"


def test_a_hup_after_a_key_rotation_signs_with_the_new_key(sqlite_url, tmp_path):
    """docs/audit.md: after `capsa keys create`, a HUP to gunicorn makes every worker sign
    with the new key. The master loads the app (and its keyring) once; the workers forked
    from it after the HUP kept signing with the retired key."""
    import signal

    from service.adapters import keyfile
    from service.domain.signing import Keyring
    from service.services.clock import utcnow_ms

    keys = tmp_path / "signing-keys.json"
    first = Keyring().rotated(utcnow_ms())[0]
    keyfile.save(keys, first)
    tenant = make_tenant(make_app(sqlite_url))
    headers = {**tenant.headers, "Content-Type": "application/json"}
    proc, port = start(sqlite_url, tmp_path, "off", SIGNING_KEY_FILE=str(keys))
    try:
        wait_healthy(proc, port)

        def signed_by(n: int) -> set[str]:
            kids = set()
            for i in range(n):
                status, body, _ = call(port, "POST", "/v1/rounds", headers,
                                       BODY.replace(b"example-1", f"hup-{len(kids)}-{i}-{time.monotonic_ns()}".encode()))
                assert status == 201, body
                kids.add(json.loads(body)["audit"]["kid"])
            return kids

        assert signed_by(4) == {first.active.kid}
        second = first.rotated(utcnow_ms())[0]
        keyfile.save(keys, second)
        assert second.active.kid != first.active.kid
        pids = set(_worker_pids(proc.pid))
        proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 20
        while set(_worker_pids(proc.pid)) & pids or len(_worker_pids(proc.pid)) < 2:
            assert time.monotonic() < deadline, "the workers were not replaced"
            time.sleep(0.2)
        wait_healthy(proc, port)
        assert signed_by(6) == {second.active.kid}
        status, body, _ = call(port, "GET", "/v1/audit/keys", tenant.headers)
        assert [k["kid"] for k in json.loads(body)["keys"]] == [first.active.kid, second.active.kid]
    finally:
        proc.terminate()
        proc.wait(20)


def _worker_pids(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children")
    return [int(p) for p in children.read_text().split()] if children.exists() else []


def test_the_directories_the_server_makes_for_itself_go_when_it_stops(sqlite_url, tmp_path):
    """Without PROMETHEUS_MULTIPROC_DIR and HEAVY_READS_DIR the server makes a temporary
    directory for each; each start left two behind in /tmp. Directories it was given stay."""
    made = tmp_path / "tmp"
    made.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PROMETHEUS_MULTIPROC_DIR", "HEAVY_READS_DIR")}
    port = free_port()
    with (tmp_path / "gunicorn.log").open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
             "--bind", f"127.0.0.1:{port}", "service.api.wsgi:app"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log,
            env={**env, "DATABASE_URL": sqlite_url, "WEB_CONCURRENCY": "1", "LOG_LEVEL": "WARNING",
                 "METRICS_BIND": "off", "TMPDIR": str(made)},
        )
    try:
        wait_healthy(proc, port)
        assert sorted(p.name.rsplit("-", 1)[0] for p in made.iterdir()) == ["capsa-heavy-reads", "capsa-prometheus"]
    finally:
        proc.terminate()
        proc.wait(20)
    assert list(made.iterdir()) == []


@pytest.mark.parametrize("metrics", ["off", "on"])
def test_a_new_master_makes_its_own_directories_and_each_master_removes_only_its_own(sqlite_url, tmp_path, metrics):
    """HUP, then USR2 (a new master on the same socket): gunicorn hands the new master the
    environment of its parent's last reading of gunicorn.conf.py, which names the parent's
    directories. Shared, the old master removed them as it stopped and every request of the
    new one was a 500; or the new one, stopped to roll the upgrade back, removed them under
    the old. Each master makes its own, and removes only those.

    With the metrics served (the default), the new master found their address taken by the
    old one and refused to start: no upgrade at all. It takes the address over once the old
    master stops; rolled back, the old one serves them on."""
    import signal

    metrics_port = free_port()
    metrics_bind = "off" if metrics == "off" else f"127.0.0.1:{metrics_port}"

    def metrics_served() -> bool:
        if metrics == "off":
            return True
        try:
            return call(metrics_port, "GET", "/metrics", {})[0] == 200
        except OSError:
            return False

    made = tmp_path / "tmp"
    made.mkdir()
    pidfile = tmp_path / "gunicorn.pid"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PROMETHEUS_MULTIPROC_DIR", "HEAVY_READS_DIR", "CAPSA_SERVER_TEMP_DIRS")}

    def wait_for(check, what: str) -> None:
        deadline = time.monotonic() + 30
        while not check():
            assert time.monotonic() < deadline, what
            time.sleep(0.2)

    def master(port: int) -> subprocess.Popen[bytes]:
        with (tmp_path / "gunicorn.log").open("ab") as log:
            return subprocess.Popen(  # as its script (USR2 execs the command again: `-m` would not do)
                [str(Path(sys.executable).with_name("gunicorn")), "-c", str(ROOT / "gunicorn.conf.py"),
                 "--pid", str(pidfile), "--bind", f"127.0.0.1:{port}", "service.api.wsgi:app"],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log,
                env={**env, "DATABASE_URL": sqlite_url, "WEB_CONCURRENCY": "1", "LOG_LEVEL": "WARNING",
                     "METRICS_BIND": metrics_bind, "TMPDIR": str(made)},
            )

    def stop(pid: int) -> None:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        wait_for(lambda: _gone(pid), f"master {pid} did not stop")

    def upgraded(old: subprocess.Popen[bytes], port: int) -> int:
        """HUP, USR2: the new master's pid, once it serves."""
        wait_healthy(old, port)
        old.send_signal(signal.SIGHUP)
        wait_healthy(old, port)
        old.send_signal(signal.SIGUSR2)
        second = pidfile.with_name(pidfile.name + ".2")  # the new master's, while the old one runs
        wait_for(lambda: second.exists() and second.read_text().strip().isdigit(), "no new master")
        new_pid = int(second.read_text())
        wait_for(lambda: len(list(made.iterdir())) == 4, "the new master made no directories of its own")
        # Its pid file is written before it handles signals (gunicorn's Arbiter.start): a TERM
        # then ends it unhandled, its directories left. A worker is forked after.
        wait_for(lambda: bool(_worker_pids(new_pid)), "the new master started no worker")
        return new_pid

    # The upgrade completed: the old master stops, the new one serves on.
    port = free_port()
    old = master(port)
    new_pid = None
    try:
        wait_healthy(old, port)
        first = set(made.iterdir())
        new_pid = upgraded(old, port)
        stop(old.pid)
        old.wait(30)
        assert set(made.iterdir()).isdisjoint(first) and len(list(made.iterdir())) == 2
        for _ in range(3):
            assert call(port, "GET", "/healthz", {})[0] == 200
            assert call(port, "GET", "/v1/rules", {})[0] in (200, 401)
        wait_for(metrics_served, "the new master does not serve the metrics")
    finally:
        if old.poll() is None:
            old.terminate()
            old.wait(20)
        if new_pid is not None:
            stop(new_pid)
    assert list(made.iterdir()) == []

    # The upgrade rolled back: the new master stops, the old one serves on.
    pidfile.unlink(missing_ok=True)
    port = free_port()
    old = master(port)
    new_pid = None
    try:
        wait_healthy(old, port)
        first = set(made.iterdir())
        new_pid = upgraded(old, port)
        stop(new_pid)
        assert set(made.iterdir()) == first
        for _ in range(3):
            assert call(port, "GET", "/healthz", {})[0] == 200
        assert metrics_served()
    finally:
        if new_pid is not None:
            stop(new_pid)
        old.terminate()
        old.wait(20)
    assert list(made.iterdir()) == []


def _gone(pid: int) -> bool:
    """Whether the process has ended (a zombie too: the old master's child is not ours to reap)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
