"""The Dockerfile's steps without Docker (no engine runs here): the image's venv, made the
same way, migrates and serves from a directory that is not the source tree.

As in the build stage: pinned build tools from requirements-build.lock, a venv made without
pip that gets requirements.lock (hash-checked) and then the project's wheel (not editable,
--no-deps --no-index). As in the runtime stage: `capsa db upgrade`, then
`gunicorn -c gunicorn.conf.py service.api.wsgi:app`, from another working directory.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())

pytestmark = pytest.mark.packaging


def run(*argv: str | Path, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{argv}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(port: int, method: str, path: str, headers: dict[str, str] | None = None,
         body: bytes | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_the_wheel_installed_from_the_lock_migrates_and_serves_outside_the_source_tree(tmp_path):
    # Nothing of this checkout or of the test's own venv may leak in.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    base_python = getattr(sys, "_base_executable", sys.executable)
    build, venv, dist, work = tmp_path / "build", tmp_path / "venv", tmp_path / "dist", tmp_path / "work"
    work.mkdir()

    # The build stage.
    run(base_python, "-m", "venv", build, cwd=work, env=env)
    run(build / "bin/pip", "install", "-q", "--require-hashes", "-r", ROOT / "requirements-build.lock",
        cwd=work, env=env)
    run(base_python, "-m", "venv", "--without-pip", venv, cwd=work, env=env)
    run(build / "bin/pip", "--python", venv / "bin/python", "install", "-q", "--require-hashes",
        "-r", ROOT / "requirements.lock", cwd=work, env=env)
    run(build / "bin/pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--wheel-dir", dist, ROOT,
        cwd=work, env=env)
    (wheel,) = dist.glob("capsa_service-*.whl")
    run(build / "bin/pip", "--python", venv / "bin/python", "install", "-q", "--no-deps", "--no-index",
        wheel, cwd=work, env=env)

    # What the runtime stage copies: the service, installed, and no installer.
    probe = run(venv / "bin/python", "-c",
                "import importlib.util as u, service; "
                "print(service.__file__); print([m for m in ('pip', 'setuptools', 'wheel') if u.find_spec(m)])",
                cwd=work, env=env).splitlines()
    assert probe[0].startswith(str(venv / "lib")), probe  # the wheel, not this checkout
    assert probe[1] == "[]", probe
    assert not (venv / "bin/pip").exists()

    # The runtime stage, from a directory with no source in it.
    port, metrics = free_port(), free_port()
    env.update(DATABASE_URL="sqlite:///var/capsa.db", BIND=f"127.0.0.1:{port}",  # as in /app
               METRICS_BIND=f"127.0.0.1:{metrics}", PROMETHEUS_MULTIPROC_DIR=str(work / "prom"),
               WEB_CONCURRENCY="2", LOG_LEVEL="WARNING", PATH=f"{venv / 'bin'}:{env.get('PATH', '')}")
    assert "database upgraded" in run(venv / "bin/capsa", "db", "upgrade", cwd=work, env=env)
    key = run(venv / "bin/capsa", "clients", "create", "packaged", cwd=work, env=env).strip().splitlines()[-1]
    with (work / "gunicorn.log").open("wb") as log:
        server = subprocess.Popen([venv / "bin/gunicorn", "-c", ROOT / "gunicorn.conf.py", "service.api.wsgi:app"],
                                  cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, body = call(port, "GET", "/healthz")
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, (work / "gunicorn.log").read_text()
                time.sleep(0.2)
        assert (status, json.loads(body)) == (200, {"status": "ok"})
        payload = json.dumps(dict(EXAMPLE, reference="packaged-1")).encode()
        status, body = call(port, "POST", "/v1/rounds",
                            {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}, payload)
        assert status == 201, body
        assert json.loads(body)["house_fee"] == "1860"
        assert b"capsa_rounds_scored_total" in call(metrics, "GET", "/metrics")[1]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
