"""API keys are cached per gunicorn worker: a revoked key is refused by every worker within
API_KEY_CACHE_SECONDS (the documented revocation delay)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_app, make_tenant
from test_db_gunicorn import call, free_port  # noqa: F401  (the gunicorn fixture's helpers)

from service.services import clients

ROOT = Path(__file__).resolve().parents[2]
CACHE_SECONDS = 1.0
WORKERS = 3


@pytest.fixture
def three_workers(sqlite_url, tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": sqlite_url,
        "WEB_CONCURRENCY": str(WORKERS),
        "API_KEY_CACHE_SECONDS": str(CACHE_SECONDS),
        "LOG_LEVEL": "WARNING",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prom"),
        "METRICS_BIND": "off",  # not under test; 9100 may be any other gunicorn's
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


def test_a_revoked_key_is_refused_by_every_worker_within_the_cache_delay(three_workers, sqlite_url):
    app = make_app(sqlite_url)
    tenant = make_tenant(app)
    # Enough requests that every worker has looked the key up and cached it
    # (each of 40 lands on one of 3 workers: a worker missed by all has odds of 3e-7).
    for _ in range(40):
        assert call(three_workers, "GET", "/v1/rules", tenant.headers)[0] == 200
    clients.revoke_key(app.extensions["capsa"].db, tenant.key.split("_")[1])
    revoked_at = time.monotonic()
    time.sleep(CACHE_SECONDS + 0.2 - (time.monotonic() - revoked_at))
    statuses = [call(three_workers, "GET", "/v1/rules", tenant.headers)[0] for _ in range(40)]
    assert statuses == [401] * 40
    app.extensions["capsa"].db.dispose()
