"""The service under gunicorn.conf.py: workers fork, metrics add up across processes."""

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


@pytest.fixture
def server(sqlite_url, tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": sqlite_url,
        "WEB_CONCURRENCY": "2",
        "LOG_LEVEL": "WARNING",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prom"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
         "--bind", f"127.0.0.1:{port}", "service.api.wsgi:app"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            if call(port, "GET", "/healthz", {})[0] == 200:
                break
        except OSError:
            pass
        assert time.monotonic() < deadline and proc.poll() is None, "gunicorn did not start"
        time.sleep(0.2)
    yield port
    proc.terminate()
    proc.wait(20)


def test_rounds_scored_under_gunicorn_are_counted_across_workers(server, sqlite_url):
    tenant = make_tenant(make_app(sqlite_url))
    headers = {**tenant.headers, "Content-Type": "application/json"}
    for _ in range(6):
        status, body, _ = call(server, "POST", "/v1/score", headers, BODY)
        assert status == 200 and json.loads(body)["house_fee"] == "1860"
    status, body, response_headers = call(server, "POST", "/v1/rounds", headers,
                                          BODY.replace(b"example-1", b"gunicorn-1"))
    assert status == 201, body
    assert response_headers["X-Request-ID"]
    metrics = call(server, "GET", "/metrics", {})[1].decode()
    assert 'capsa_rounds_scored_total{preset="capsa-susun-id",stored="false"} 6.0' in metrics
    assert 'capsa_rounds_scored_total{preset="capsa-susun-id",stored="true"} 1.0' in metrics
    assert "capsa_http_request_duration_seconds_bucket" in metrics
