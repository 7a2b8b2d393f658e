"""The deployment files say what the service needs: nginx in front, nothing else published,
the proxy alone trusted, the image built from the locks. Docker cannot run here, so the
Dockerfile and docker-compose.yml are read; deploy/nginx.conf is also checked by nginx."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]
from nginxkit import render, require_nginx

from service.adapters.migrate import upgrade
from service.api.app import MAX_BODY

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = (ROOT / "deploy/nginx.conf.template").read_text()
CONF = (ROOT / "deploy/nginx.conf").read_text()
# `make nginx-conf`: the local run, nginx on 8080 in front of `make run` on 8000.
LOCAL = {"UPSTREAM": "127.0.0.1:8000", "LISTEN": "127.0.0.1:8080"}
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def directives(conf: str, name: str) -> list[str]:
    """The values of every `name ...;` directive (comments dropped)."""
    text = "\n".join(line.split("#", 1)[0] for line in conf.splitlines())
    return [m.group(1).strip() for m in re.finditer(rf"(?m)^[ \t]*{name}[ \t]+([^;{{}}]*);", text)]


def test_the_committed_nginx_conf_is_the_template_rendered_for_a_local_run():
    assert CONF == render(TEMPLATE, **LOCAL), "deploy/nginx.conf is stale: run `make nginx-conf`"


def test_the_template_has_no_variable_but_upstream_and_listen():
    # The nginx image's envsubst replaces every variable set in the container (PATH, HOME,
    # NGINX_VERSION, ...): anything but these two must be one of nginx's own, lower case.
    assert set(re.findall(r"\$\{(\w+)\}", TEMPLATE)) == set(LOCAL)
    assert all(name.islower() for name in re.findall(r"\$(\w+)", TEMPLATE)), re.findall(r"\$([A-Z]\w*)", TEMPLATE)


def test_the_nginx_conf_buffers_both_ways_and_limits_what_the_app_limits():
    assert directives(CONF, "include") == []  # self-contained: no system file
    assert directives(CONF, "proxy_request_buffering") == ["on"]
    assert directives(CONF, "proxy_buffering") == ["on"]
    assert directives(CONF, "client_max_body_size") == [f"{MAX_BODY // 1024}k"]
    for timeout in ("client_header_timeout", "client_body_timeout", "send_timeout", "keepalive_timeout"):
        assert len(directives(CONF, timeout)) == 1, timeout
    for name in ("pid", "error_log", "access_log", "client_body_temp_path", "proxy_temp_path"):
        for value in directives(CONF, name):
            assert not value.startswith("/"), f"{name} must lie under the prefix (-p), not {value}"
    # the main error log, and the round pages' (critical errors only: a view link is a token)
    assert directives(CONF, "error_log") == ["error.log warn", "error.log crit"]
    # HTTP/1.1 upstream: a body cut short comes to the client cut (test_nginx_cut_answers.py)
    assert directives(CONF, "proxy_http_version") == ["1.1"]
    headers = dict(v.split(None, 1) for v in directives(CONF, "proxy_set_header"))
    assert headers["Connection"] == '""'  # not the client's: gunicorn's sync workers close anyway
    assert headers["X-Forwarded-For"] == "$proxy_add_x_forwarded_for"
    assert headers["X-Forwarded-Proto"] == "$scheme"
    assert "X-Request-Id" in headers
    assert directives(CONF, "listen") == [LOCAL["LISTEN"]]
    assert directives(CONF, "server") == [LOCAL["UPSTREAM"]]


def test_gunicorns_header_limits_sit_above_nginxs_so_nginx_answers_first(monkeypatch, tmp_path):
    import runpy

    # Set, so that reading the settings leaves this process's environment as it was.
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.setenv("HEAVY_READS_DIR", str(tmp_path))
    monkeypatch.delenv("CAPSA_SERVER_TEMP_DIRS", raising=False)
    gunicorn = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    (large,) = directives(CONF, "large_client_header_buffers")
    count, size = map(int, large.split())
    # The longest request line nginx passes is its buffer less a bare LF; gunicorn's
    # limit_request_line counts the line without its end.
    assert gunicorn["limit_request_line"] >= size - 1
    # A header line nginx passes, with what nginx appends to X-Forwarded-For (", " and an
    # IPv6 address).
    assert gunicorn["limit_request_field_size"] >= size + len(", ") + 45
    # nginx's 1,000 header lines and the 3 it adds (X-Forwarded-For, -Proto, X-Request-Id).
    assert gunicorn["limit_request_fields"] >= 1000 + 3
    assert (count, size) == (4, 8191)  # the numbers docs/limits.md and the 414/431 details say


def test_gunicorn_names_one_directory_of_heavy_read_slots_for_all_its_workers(monkeypatch, tmp_path):
    import runpy

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.delenv("HEAVY_READS_DIR", raising=False)  # restored (unset) after the test
    monkeypatch.delenv("CAPSA_SERVER_TEMP_DIRS", raising=False)  # the directories it made: the same
    runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    made = Path(os.environ["HEAVY_READS_DIR"])  # in the master's environment: the workers inherit it
    assert made.is_dir() and made.name.startswith("capsa-heavy-reads-")
    made.rmdir()
    monkeypatch.setenv("HEAVY_READS_DIR", str(tmp_path / "mine"))  # one named by the operator stays
    runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert os.environ["HEAVY_READS_DIR"] == str(tmp_path / "mine")


def test_gunicorn_clears_only_the_metrics_files_of_the_directory_an_operator_names(monkeypatch, tmp_path):
    import runpy

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    (tmp_path / "counter_123.db").write_bytes(b"x")  # a previous run's values: summed otherwise
    (tmp_path / "histogram_456.db").write_bytes(b"x")
    (tmp_path / "notes.txt").write_text("the operator's")
    (tmp_path / "sub").mkdir()
    runpy.run_path(str(ROOT / "gunicorn.conf.py"))["on_starting"](None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "sub"]
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "new"))  # made when missing
    runpy.run_path(str(ROOT / "gunicorn.conf.py"))["on_starting"](None)
    assert (tmp_path / "new").is_dir()


def test_exports_are_limited_in_flight_per_address_and_in_all_with_bounded_temp_files():
    assert directives(CONF, "limit_conn_zone") == [
        "$binary_remote_addr zone=capsa_exports_per_address:10m",
        "$capsa_every_client zone=capsa_exports:64k",
    ]
    assert directives(CONF, "limit_conn") == ["capsa_exports_per_address 4", "capsa_exports 16"]
    assert directives(CONF, "limit_conn_status") == ["429"]
    # 16 MiB for any answer, 320 MiB for an export (16 of them: 5 GiB of temp files at most).
    assert directives(CONF, "proxy_max_temp_file_size") == ["16m", "320m"]
    exports = re.search(r"location ~ (\S+) \{", CONF)
    assert exports is not None
    routes = re.compile(exports.group(1))
    for path in ("/v1/audit/export", "/v1/ledger/entries", "/v1/ledger/players/p-1/statement"):
        assert routes.search(path), path
    for path in ("/v1/ledger/summary", "/v1/ledger/players/a/statement/x", "/v1/rounds", "/v1/audit/exports"):
        assert not routes.search(path), path


def test_nginx_accepts_the_committed_conf():
    nginx = require_nginx()
    with tempfile.TemporaryDirectory() as prefix:
        done = subprocess.run([nginx, "-t", "-p", f"{prefix}/", "-c", str(ROOT / "deploy/nginx.conf")],
                              capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr


def test_compose_publishes_nginx_only_and_trusts_only_its_address():
    services = COMPOSE["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"nginx"}
    nginx, app = services["nginx"], services["app"]
    assert nginx["image"].split(":")[0] == "nginx"
    assert nginx["environment"]["UPSTREAM"] == "app:8000"
    mount = "./deploy/nginx.conf.template:/etc/nginx/templates/nginx.conf.template:ro"
    assert mount in nginx["volumes"] and nginx["environment"]["NGINX_ENVSUBST_OUTPUT_DIR"] == "/etc/nginx"
    address = nginx["networks"]["backend"]["ipv4_address"]
    assert app["environment"]["FORWARDED_ALLOW_IPS"] == address
    assert app["networks"] == ["backend"] and COMPOSE["networks"]["backend"]["internal"] is True


def test_the_dockerfile_installs_the_locks_with_hashes_and_trusts_no_proxy_by_default():
    (base,) = re.findall(r"(?m)^ARG PYTHON_IMAGE=(\S+)$", DOCKERFILE)
    # A digest, or at least the full version (python:3.11.15-slim-bookworm), never a moving tag.
    assert "@sha256:" in base or re.fullmatch(r"python:3\.11\.\d+-slim-\w+", base), base
    assert re.findall(r"(?m)^FROM (\S+)", DOCKERFILE) == ["${PYTHON_IMAGE}", "${PYTHON_IMAGE}"]
    assert "--require-hashes -r requirements-build.lock" in DOCKERFILE
    assert "--require-hashes -r requirements.lock" in DOCKERFILE
    assert "--without-pip /opt/venv" in DOCKERFILE and "uninstall --yes --quiet setuptools wheel pip" in DOCKERFILE
    assert " -e " not in DOCKERFILE and "pip install ." not in DOCKERFILE
    assert "FORWARDED_ALLOW_IPS" not in re.sub(r"(?m)^#.*$", "", DOCKERFILE)  # gunicorn.conf.py's 127.0.0.1
    for lock in ("requirements.lock", "requirements-build.lock"):
        assert lock not in (ROOT / ".dockerignore").read_text().split()


def test_compose_runs_the_sweeper_on_the_backend_network_against_the_apps_database():
    services = COMPOSE["services"]
    sweeper, app = services["sweeper"], services["app"]
    assert sweeper["command"][:2] == ["capsa", "sweep"] and "--once" not in sweeper["command"]
    assert sweeper["environment"]["DATABASE_URL"] == app["environment"]["DATABASE_URL"]
    assert sweeper["networks"] == ["backend"] and not sweeper.get("ports")
    assert sweeper["restart"] == "unless-stopped" and sweeper["healthcheck"] == {"disable": True}
def test_compose_runs_the_webhook_dispatcher_with_a_way_out_that_the_app_lacks():
    dispatcher = COMPOSE["services"]["dispatcher"]
    assert dispatcher["command"] == ["capsa", "webhooks", "dispatch"]
    assert set(dispatcher["networks"]) == {"backend", "egress"}
    assert "ports" not in dispatcher  # its metrics stay on the backend network
    assert "egress" not in COMPOSE["services"]["app"]["networks"]
    assert COMPOSE["networks"]["backend"]["internal"] is True


OPERATIONS = (ROOT / "docs/operations.md").read_text()


def _compose_table() -> dict[str, dict[str, str]]:
    """docs/operations.md's table of the Compose services: name -> command, check, reads."""
    section = OPERATIONS[OPERATIONS.index("### Docker Compose"):OPERATIONS.index("### Health checks")]
    rows: dict[str, dict[str, str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| `") or len(cells) != 4:
            continue
        name = re.match(r"`(\w+)`", cells[0])
        assert name, line
        rows[name.group(1)] = {"command": cells[1], "check": cells[2], "reads": cells[3]}
    return rows


def _settings() -> set[str]:
    """Every variable docs/operations.md's settings table names (its first column)."""
    return set(re.findall(r"(?m)^\| `([A-Z][A-Z0-9_]+)` \|", OPERATIONS))


def test_the_operations_guide_lists_every_compose_service_with_the_variables_it_reads():
    services, table = COMPOSE["services"], _compose_table()
    assert set(table) == set(services)
    for name, service in services.items():
        reads = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", table[name]["reads"]))
        assert reads == set(service.get("environment") or {}), name
        if service.get("build") == ".":
            # The image's own settings: each one the service reads is documented as a setting.
            assert reads <= _settings(), (name, reads - _settings())
        assert ("(tools)" in table[name]["command"]) == (service.get("profiles") == ["tools"]), name
    tools = {name for name, service in services.items() if service.get("profiles") == ["tools"]}
    assert tools == {"migrate", "keys"}
    # The guide's steps start every service that is not a one-time tool.
    steps = OPERATIONS[OPERATIONS.index("docker compose up -d db"):OPERATIONS.index("### Health checks")]
    started = {word for line in steps.splitlines() if line.startswith("docker compose up -d")
               for word in line.split("#")[0].split()[4:]}
    assert started == set(services) - tools
    assert {f"docker compose run --rm {tool}" for tool in tools} <= {
        line.split("#")[0].strip() for line in steps.splitlines()
    }


def test_every_long_running_compose_service_has_a_health_check_that_fits_what_it_serves():
    services = COMPOSE["services"]
    # The image's check asks for the HTTP API on 8000: only the app serves it.
    assert "healthcheck" not in services["app"] and "/healthz" in DOCKERFILE
    assert services["sweeper"]["healthcheck"] == {"disable": True}
    check = " ".join(services["dispatcher"]["healthcheck"]["test"])
    bind = services["dispatcher"]["environment"]["WEBHOOK_METRICS_BIND"]
    assert f"127.0.0.1:{bind.rsplit(':', 1)[1]}/metrics" in check
    assert services["db"]["healthcheck"]["test"][1].startswith("pg_isready")
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    for name in ("app", "sweeper", "dispatcher", "nginx", "redis"):
        assert services[name]["restart"] == "unless-stopped", name


def test_compose_shares_rate_limits_through_redis_and_signs_with_a_key_in_a_volume():
    services = COMPOSE["services"]
    app, keys = services["app"], services["keys"]
    assert app["environment"]["RATELIMIT_STORAGE_URI"] == "redis://redis:6379/0"
    assert app["depends_on"]["redis"] == {"condition": "service_healthy"}
    assert services["redis"]["networks"] == ["backend"] and "ports" not in services["redis"]
    keyfile = app["environment"]["SIGNING_KEY_FILE"]
    assert keys["environment"]["SIGNING_KEY_FILE"] == keyfile
    assert keys["command"] == ["capsa", "keys", "create"]
    assert keys["environment"]["DATABASE_URL"] == app["environment"]["DATABASE_URL"]
    folder = str(Path(keyfile).parent)
    assert f"keys:{folder}:ro" in app["volumes"] and f"keys:{folder}" in keys["volumes"]
    assert "keys" in COMPOSE["volumes"]
    # A new named volume takes the image directory's owner and mode: the capsa user's alone.
    assert re.search(rf"mkdir -p [^\n]*{folder}", DOCKERFILE) and f"chmod 700 {folder}" in DOCKERFILE
    sweeper = services["sweeper"]  # it stores rounds too: signed as they are stored
    assert sweeper["environment"]["SIGNING_KEY_FILE"] == keyfile and f"keys:{folder}:ro" in sweeper["volumes"]
    for name, service in services.items():
        if name not in ("keys", "app", "sweeper"):  # the dispatcher, with a way out, never holds it
            assert "SIGNING_KEY_FILE" not in (service.get("environment") or {}), name


@pytest.mark.parametrize("value", ["0", "-2", "abc", "2.5"])
def test_a_worker_count_gunicorn_cannot_serve_with_stops_it_in_one_line(monkeypatch, tmp_path, capsys, value):
    """WEB_CONCURRENCY=0 listened and booted no worker: every connection hung, with no
    error; abc was a ValueError traceback. One line, and the exit code of a wrong setting."""
    import runpy

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.setenv("WEB_CONCURRENCY", value)
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert stop.value.code == 2
    assert capsys.readouterr().err == f"capsa serve: WEB_CONCURRENCY must be a whole number of 1 or more, not {value!r}\n"


@pytest.mark.parametrize(("url", "code"), [("garbage", 3), ("sqlite:///{tmp}/typo.db", 3)])
def test_capsa_serve_refuses_a_url_that_is_none_or_a_sqlite_file_that_is_not_there(tmp_path, url, code):
    """`capsa serve` went straight to gunicorn: a URL that is none was a 58-line traceback,
    and a mistyped SQLite path made an empty database and served 503s from it. As every
    other command: one line, exit 3, and no file made."""
    url = url.format(tmp=tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--port", "1"], cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "METRICS_BIND": "off", "DATABASE_URL": url}, timeout=60,
    )
    assert done.returncode == code and done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "typo.db").exists()


@pytest.mark.parametrize(
    ("env", "line"),
    [
        ({"READ_MAX_LAG_S": "5s"}, "capsa serve: READ_MAX_LAG_S must be a number, 0 or more, not '5s'"),
        ({"SIGNING_KEY_FILE": "/nowhere/keys.json"},
         "capsa serve: SIGNING_KEY_FILE '/nowhere/keys.json' does not exist; create it with `capsa keys create`"),
        ({"RATE_LIMIT": "abc"},
         "capsa serve: RATE_LIMIT='abc' is not a rate limit such as '600/minute': couldn't parse rate limit string 'abc'"),
        ({"LOG_LEVEL": "verbose"},
         "capsa serve: LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (any case), not 'verbose'"),
    ],
)
def test_a_setting_the_app_cannot_run_with_stops_capsa_serve_in_one_line_with_exit_2(tmp_path, env, line):
    """The app's own settings were checked in gunicorn's import of the app: a 52-line
    traceback and exit 1, where README's exit codes promise one line naming the variable
    and exit 2."""
    upgrade(url := f"sqlite:///{tmp_path}/s.db")
    environ = {**os.environ, "METRICS_BIND": "off", "DATABASE_URL": url, **env}
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--port", "1"], cwd=ROOT, env=environ,
        capture_output=True, text=True, timeout=60,
    )
    assert (done.returncode, done.stderr.strip().splitlines()[-1]) == (2, line)
    assert "Traceback" not in done.stderr
