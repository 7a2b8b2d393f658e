"""The client libraries in clients/: generated from openapi.yaml, and working against the service.

- Drift: tools/clients.py (`make clients`) regenerates both into a temporary directory; the
  committed clients/python/capsa_client and clients/typescript/src/schema.ts must be the same,
  file for file and byte for byte (a stale module of a removed endpoint fails too).
- Live: each client scores, stores, replays (same Idempotency-Key and body: the same bytes,
  `Idempotent-Replayed: true`) and voids a round on the service under gunicorn.conf.py, on a
  free port with a fresh SQLite database, with a client made by `create_client`; and the round
  trip of each README runs there too.
- The Python client as a game server gets it: a wheel with py.typed, and mypy --strict checks
  the README's code against it.

The TypeScript halves need Node.js 20+ and npm: without them they are skipped, except under
CI=true, where that is a failure. They run the toolchain of clients/typescript/node_modules,
which tools/clients.py installs with `npm ci` once per package-lock.json (offline afterwards).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import load_script, migrated_sqlite

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "service/examples/round-4p-capsa-susun-id.json"
TS_DIR = ROOT / "clients/typescript"
PY_DIR = ROOT / "clients/python"


generator = load_script("tools/clients.py", "capsa_tools_clients")


# --- Node.js -------------------------------------------------------------------------------

def require_node() -> str:
    """node's path; without node 20+ and npm: skipped, or under CI=true a failure."""
    node, npm = shutil.which("node"), shutil.which("npm")
    problem = None
    if node is None or npm is None:
        problem = "node and npm are not installed"
    else:
        version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
        if int(version.lstrip("v").split(".")[0] or 0) < 20:
            problem = f"node {version} is older than 20"
    if problem is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{problem} (CI=true): the TypeScript client's tests need Node.js 20 and npm")
        pytest.skip(f"{problem}: the TypeScript client's tests need Node.js 20 and npm")
    assert node is not None
    return node


@pytest.fixture(scope="module")
def node() -> str:
    """node, with clients/typescript/node_modules installed from package-lock.json."""
    found = require_node()
    try:
        generator.ensure_node_modules()
    except generator.GenerationError as exc:
        pytest.fail(str(exc))
    return found


# --- Drift ---------------------------------------------------------------------------------

def files(path: Path) -> dict[str, bytes]:
    if path.is_file():
        return {path.name: path.read_bytes()}
    return {
        p.relative_to(path).as_posix(): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def assert_generated_matches_committed(name: str, out: Path) -> None:
    relative = generator.GENERATED[name]
    done = subprocess.run([sys.executable, str(ROOT / "tools/clients.py"), "--out", str(out), name],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"make clients failed for {name}:\n{done.stdout}{done.stderr}"
    fresh, committed = files(out / relative), files(ROOT / relative)
    missing = sorted(set(fresh) - set(committed))
    stale = sorted(set(committed) - set(fresh))
    changed = sorted(f for f in set(fresh) & set(committed) if fresh[f] != committed[f])
    if missing or stale or changed:
        diff = []
        for f in changed[:3]:
            diff += difflib.unified_diff(
                committed[f].decode().splitlines(), fresh[f].decode().splitlines(),
                f"committed/{f}", f"generated/{f}", lineterm="", n=1)
        pytest.fail(
            f"{relative} is not what openapi.yaml generates: run `make clients` and commit it.\n"
            f"missing: {missing}\nstale: {stale}\nchanged: {changed}\n" + "\n".join(diff[:60])
        )


def test_the_python_client_is_what_openapi_yaml_generates(tmp_path):
    assert_generated_matches_committed("python", tmp_path)


def test_the_typescript_types_are_what_openapi_yaml_generates(node, tmp_path):
    assert_generated_matches_committed("typescript", tmp_path)


# --- A live service ------------------------------------------------------------------------

@dataclass
class Service:
    url: str
    key: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> Iterator[Service]:
    """gunicorn with gunicorn.conf.py on a free port, a new SQLite database, a new client."""
    from service.adapters.uow import Database
    from service.services.clients import create_client

    tmp = tmp_path_factory.mktemp("clients-live")
    url = migrated_sqlite(tmp / "capsa.db")
    db = Database(url)
    try:
        _, key = create_client(db, "game-server")
    finally:
        db.engine.dispose()
    port = free_port()
    env = {**os.environ, "DATABASE_URL": url, "WEB_CONCURRENCY": "2", "LOG_LEVEL": "WARNING",
           "PROMETHEUS_MULTIPROC_DIR": str(tmp / "prom"), "METRICS_BIND": "off"}
    with (tmp / "gunicorn.log").open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
             "--bind", f"127.0.0.1:{port}", "service.api.wsgi:app"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("gunicorn did not start:\n" + (tmp / "gunicorn.log").read_text())
            time.sleep(0.2)
        yield Service(base, key)
    finally:
        proc.terminate()
        proc.wait(20)


def example_round(prefix: str) -> dict:
    return {**json.loads(EXAMPLE.read_text()), "reference": f"{prefix}-{uuid.uuid4()}"}


def code_block(readme: Path, language: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, f"{readme}: one ```{language} block expected, found {len(blocks)}"
    return blocks[0]


# --- Python --------------------------------------------------------------------------------

def test_the_python_client_scores_stores_replays_and_voids_a_round(service):
    from capsa_client import AuthenticatedClient
    from capsa_client.api.audit import post_v1_rounds_round_id_void
    from capsa_client.api.rounds import get_v1_rounds_round_id, post_v1_rounds, post_v1_score
    from capsa_client.models import Problem, RoundDocument, RoundRequest, ScoreDocument, VoidRequest

    body = example_round("py")
    request = RoundRequest.from_dict(body)
    assert request.to_dict() == body  # the model sends what the game server gave it
    with AuthenticatedClient(base_url=service.url, token=service.key) as client:
        score = post_v1_score.sync(client=client, body=request)
        assert isinstance(score, ScoreDocument), score
        assert score.house_fee == "1860" and len(score.players) == 4

        key = str(uuid.uuid4())
        first = post_v1_rounds.sync_detailed(client=client, body=request, idempotency_key=key)
        assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
        stored = first.parsed
        assert isinstance(stored, RoundDocument), first.content
        assert stored.status == "settled" and stored.reference == body["reference"]
        assert stored.house_fee == score.house_fee
        assert [p.to_dict() for p in stored.players] == [p.to_dict() for p in score.players]
        assert first.headers["Location"] == f"/v1/rounds/{stored.id}"

        replay = post_v1_rounds.sync_detailed(client=client, body=request, idempotency_key=key)
        assert replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
        assert replay.content == first.content
        other = RoundRequest.from_dict({**body, "stake": "2000"})
        reused = post_v1_rounds.sync_detailed(client=client, body=other, idempotency_key=key)
        assert reused.status_code == 422 and isinstance(reused.parsed, Problem)
        assert reused.parsed.type_ == "/problems/idempotency-key-reused"

        voided = post_v1_rounds_round_id_void.sync_detailed(
            stored.id, client=client, body=VoidRequest(reason="dealer error"), idempotency_key=key + "-void")
        assert voided.status_code == 200 and isinstance(voided.parsed, RoundDocument)
        assert voided.parsed.status == "void" and voided.parsed.void
        assert voided.parsed.void.reason == "dealer error"
        again = post_v1_rounds_round_id_void.sync_detailed(
            stored.id, client=client, body=VoidRequest(reason="dealer error"), idempotency_key=key + "-void")
        assert again.headers["Idempotent-Replayed"] == "true" and again.content == voided.content
        fetched = get_v1_rounds_round_id.sync(stored.id, client=client)
        assert isinstance(fetched, RoundDocument) and fetched.status == "void"
        twice = post_v1_rounds_round_id_void.sync_detailed(stored.id, client=client, body=VoidRequest(reason="again"))
        assert twice.status_code == 409 and isinstance(twice.parsed, Problem)
        assert twice.parsed.type_ == "/problems/conflict" and twice.parsed.status == 409

        # The export's NDJSON is handed over as a File (sync() gave None), its headers declared.
        from capsa_client.api.audit import get_v1_audit_export
        from capsa_client.types import File

        export = get_v1_audit_export.sync_detailed(client=client)
        assert export.status_code == 200 and isinstance(export.parsed, File)
        records = [json.loads(line) for line in export.parsed.payload.read().decode().splitlines()]
        assert [(r["round"], r["kind"]) for r in records][-2:] == [(stored.id, "round"), (stored.id, "void")]
        assert int(export.headers["Capsa-Head-Sequence"]) == records[-1]["sequence"]


def test_the_python_client_reads_problem_and_event_types_added_after_it():
    """Problem and event types grow within /v1 (docs/api.md): the generated models held
    them as closed Literals and raised TypeError on a type they did not know, so a game
    server on an older client crashed reading an answer instead of acting on its status."""
    from capsa_client.models import Event, Problem, Webhook

    problem = {"type": "/problems/added-later", "title": "Added later", "status": 409, "detail": "d", "errors": []}
    parsed = Problem.from_dict(problem)
    assert parsed.type_ == "/problems/added-later" and parsed.status == 409
    assert parsed.to_dict() == problem
    assert Problem.from_dict({**problem, "type": "/problems/conflict"}).type_ == "/problems/conflict"
    event = Event.from_dict({"id": "evt_1", "type": "table.closed", "timestamp": "2026-12-01T00:00:00.000Z", "data": {}})
    assert event.type_ == "table.closed"
    webhook = Webhook.from_dict({
        "id": "wh_1", "url": "https://wallet.example.com/hook", "events": ["round.settled", "table.closed"],
        "description": None, "enabled": True, "disabled_reason": None, "failing_since": None,
        "previous_secret_expires_at": None, "created_at": "2026-12-01T00:00:00.000Z",
        "updated_at": "2026-12-01T00:00:00.000Z"})
    assert webhook.events == ["round.settled", "table.closed"]


def test_the_python_readme_round_trip_runs_against_the_service(service, tmp_path):
    script = tmp_path / "readme_round_trip.py"
    script.write_text(code_block(PY_DIR / "README.md", "python"))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "CAPSA_URL": service.url, "CAPSA_API_KEY": service.key})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "409 /problems/conflict" in done.stdout


def test_the_python_client_installs_as_a_typed_package(tmp_path):
    # pip install ./clients/python builds this same wheel (here with the venv's pinned setuptools),
    # from a copy: setuptools' build/ in the tree would keep the modules of removed endpoints.
    source = tmp_path / "src"
    shutil.copytree(PY_DIR, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "--wheel-dir", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("capsa_client-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        archive.extractall(tmp_path / "site")
    generated = {f"capsa_client/{f}" for f in files(PY_DIR / "capsa_client")}
    assert generated <= names and "capsa_client/py.typed" in names, generated - names
    assert {"Requires-Dist: httpx<0.29,>=0.23.1", "Requires-Dist: attrs>=22.2"} <= set(metadata.splitlines())

    # mypy as a game server runs it: the package in site-packages (where it is checked only if
    # it has py.typed), the README's code as the game server's own.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    (site,) = venv.glob("lib/python*/site-packages")
    dev_site = next(p for p in map(Path, sys.path) if p.name == "site-packages" and (p / "httpx").is_dir())
    (site / "deps.pth").write_text(f"{tmp_path / 'site'}\n{dev_site}\n")
    example = tmp_path / "game_server.py"
    example.write_text(code_block(PY_DIR / "README.md", "python"))
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-executable",
         str(venv / "bin/python"), str(example)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr


# --- TypeScript ----------------------------------------------------------------------------

def tsc(node: str, *args: str) -> None:
    done = subprocess.run([node, str(TS_DIR / "node_modules/typescript/bin/tsc"), *args], cwd=TS_DIR,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"tsc {' '.join(args)}:\n{done.stdout}{done.stderr}"


def test_the_typescript_client_scores_stores_replays_and_voids_a_round(node, service):
    # tsc type-checks the wrapper and the test against the generated schema.ts, then node runs
    # the test (dist/ is the package's build output, where node finds node_modules).
    shutil.rmtree(TS_DIR / "dist", ignore_errors=True)
    tsc(node, "-p", "tsconfig.json")
    env = {**os.environ, "CAPSA_BASE_URL": service.url, "CAPSA_API_KEY": service.key,
           "CAPSA_ROUND_BODY": str(EXAMPLE)}
    done = subprocess.run([node, "--test", "--test-reporter=tap", "dist/test/"], cwd=TS_DIR, env=env,
                          capture_output=True, text=True, timeout=120)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    counts = dict(re.findall(r"^# (pass|fail|skipped|cancelled) (\d+)$", report, re.M))
    assert int(counts.get("pass", 0)) >= 2 and counts.get("fail") == "0", report
    assert counts.get("skipped") == "0" and counts.get("cancelled") == "0", report

    # The README's round trip, as a game server would import the package ("@capsa/client").
    readme = TS_DIR / "dist/readme"
    readme.mkdir()
    (readme / "example.ts").write_text(code_block(TS_DIR / "README.md", "ts"))
    tsc(node, "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext",
        "--types", "node", "--skipLibCheck", "--rootDir", str(TS_DIR), str(readme / "example.ts"))
    ran = subprocess.run([node, str(readme / "example.js")], cwd=TS_DIR, capture_output=True, text=True,
                         timeout=60, env={**os.environ, "CAPSA_URL": service.url, "CAPSA_API_KEY": service.key})
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "409 /problems/conflict" in ran.stdout
