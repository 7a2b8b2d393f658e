"""Service routes, rules, evaluate, the OpenAPI document, docs, metrics, logs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import make_app, migrated_sqlite
from httpkit import SWEEP_A, problem, two_player_round

ROOT = Path(__file__).resolve().parents[2]


def test_healthz_answers_ok(http):
    response = http.get("/healthz")
    assert response.status_code == 200 and response.get_json() == {"status": "ok"}


def test_readyz_answers_when_the_database_does(http, db_url):
    answer = http.get("/readyz").get_json()
    if db_url.startswith("sqlite"):
        assert answer == {"status": "ok", "database": "ok"}
    else:  # the shared test server: one node, nothing a commit waits for
        assert answer == {"status": "ok", "database": "ok", "replication": "asynchronous", "standbys": 0}


def test_readyz_replication_values_are_the_ones_the_spec_lists(http):
    """The spec listed the enum's names (SYNCHRONOUS, ...), not the values sent: the
    generated clients refused every PostgreSQL /readyz."""
    from service.adapters.db import Replication

    spec = yaml.safe_load(http.get("/openapi.yaml").get_data(as_text=True))
    listed = spec["components"]["schemas"]["Ready"]["properties"]["replication"]["enum"]
    assert listed == [r.value for r in Replication]
    assert {"synchronous", "waiting", "asynchronous", "unknown"} == set(listed)


def test_every_operation_lists_the_422_an_unknown_query_parameter_gets(http):
    """Every route refuses a query parameter it does not take (422 on query.<name>): 19
    operations did not list 422, so clients generated from the spec had no type for it."""
    spec = yaml.safe_load(http.get("/openapi.yaml").get_data(as_text=True))
    methods = {"get", "post", "put", "patch", "delete"}
    missing = [f"{m.upper()} {p}" for p, ops in spec["paths"].items() for m, op in ops.items()
               if m in methods and "422" not in op["responses"]]
    assert missing == []
    assert http.get("/healthz?verbose=1").status_code == 422


def test_every_operation_that_reads_a_body_lists_what_a_bad_body_gets(app, http, tenant):
    """Every POST, PUT and PATCH reads its body (malformed JSON 400, too large 413, another
    type 415): POST /v1/rounds/{id}/view-link answered them without listing them."""
    spec = yaml.safe_load(http.get("/openapi.yaml").get_data(as_text=True))
    missing = [f"{m.upper()} {p}: {code}" for p, ops in spec["paths"].items() for m, op in ops.items()
               if m in ("post", "put", "patch") for code in ("400", "413", "415") if code not in op["responses"]]
    assert missing == []
    round_id = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).get_json()["id"]
    answer = http.post(f"/v1/rounds/{round_id}/view-link", data="{", headers={
        **tenant.headers, "Content-Type": "application/json"})
    problem(answer, 400, "malformed-json")


def test_every_time_in_an_answer_is_declared_a_date_time():
    """Webhook, attempt, event and statement times were plain strings in the generated
    clients, where round, deal and game times were datetimes."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    times = re.compile(r".*_at|.*_since|timestamp|since|until|deadline|settled_at")
    plain = [f"{name}.{prop}" for name, schema in spec["components"]["schemas"].items()
             for prop, field in schema.get("properties", {}).items()
             if times.fullmatch(prop) and field.get("type") in ("string", ["string", "null"])
             and field.get("format") != "date-time"]
    assert plain == []


def test_the_spec_gives_retry_after_on_409_only_for_an_idempotency_key_in_flight(http):
    spec = yaml.safe_load(http.get("/openapi.yaml").get_data(as_text=True))
    said = spec["components"]["responses"]["CONFLICT"]["headers"]["Retry-After"]["description"]
    assert said.startswith("With `idempotency-in-flight` only")


def test_readyz_refuses_a_database_never_migrated_or_behind_this_release(tmp_path):
    """Every request would fail on such a database (503, or a missing column in the
    sweeper and the dispatcher) while /readyz said ok: a skipped `capsa db upgrade` was
    never caught by the deployment's readiness check."""
    from service.adapters.migrate import shipped_revisions, upgrade

    for name, revision in (("never", None), ("behind", shipped_revisions()[-2]), ("current", "head")):
        url = f"sqlite:///{tmp_path / name}.db"
        if revision is not None:
            upgrade(url, revision)
        else:
            (tmp_path / f"{name}.db").touch()
        app = make_app(url)
        try:
            answer = app.test_client().get("/readyz")
        finally:
            app.extensions["capsa"].db.dispose()
        if name == "current":
            assert answer.status_code == 200, answer.get_json()
        else:
            assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
            assert answer.get_json()["detail"].endswith("run `capsa db upgrade`")
            assert (revision or "no capsa tables") in answer.get_json()["detail"]


def test_readyz_refuses_a_postgresql_whose_timeouts_are_not_the_expected_ones():
    # Through pgbouncer the timeouts are the role's: a role without them is not ready.
    from conftest import drop_pg_database, migrated_pg_database, pg_admin_url

    from service.adapters.db import Pooler, PostgresSettings

    admin = pg_admin_url()
    if admin is None:
        pytest.skip("TEST_DATABASE_URL is not set")
    url, name = migrated_pg_database(admin)  # the server's defaults: no timeouts
    app = make_app(url, DATABASE_STATEMENT_TIMEOUT_MS=5000,
                   DATABASE_OPTIONS={"postgres": PostgresSettings(pooler=Pooler.PGBOUNCER)})
    try:
        answer = app.test_client().get("/readyz")
    finally:
        app.extensions["capsa"].db.dispose()
        drop_pg_database(admin, name)
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
    assert answer.get_json()["detail"] == (
        "statement_timeout is 0 ms, expected 5000 ms: set it with ALTER ROLE ... SET statement_timeout = 5000 "
        "(DATABASE_POOLER=pgbouncer); lock_timeout is 0 ms, expected 2000 ms: set it with ALTER ROLE ... SET "
        "lock_timeout = 2000 (DATABASE_POOLER=pgbouncer)"
    )


def test_readyz_refuses_a_primary_that_refuses_writes():
    """A database set read-only (`default_transaction_read_only`, as an operator fences a
    node) answered every write 503 while /readyz said 200 ok."""
    from conftest import drop_pg_database, migrated_pg_database, pg_admin_url
    from sqlalchemy import create_engine, text

    admin = pg_admin_url()
    if admin is None:
        pytest.skip("TEST_DATABASE_URL is not set")
    url, name = migrated_pg_database(admin)
    app = make_app(url, READY_CACHE_S=0)  # each /readyz checks: no answer a second old
    try:
        assert app.test_client().get("/readyz").status_code == 200
        engine = create_engine(admin, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on'))
        engine.dispose()
        app.extensions["capsa"].db.dispose()  # new sessions take the database's setting
        answer = app.test_client().get("/readyz")
    finally:
        app.extensions["capsa"].db.dispose()
        drop_pg_database(admin, name)
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
    assert answer.get_json()["detail"] == "the database refuses writes (default_transaction_read_only is on)"


def test_a_flood_of_readyz_checks_the_database_once_a_second_a_process(tmp_path, monkeypatch):
    """/readyz is never rate limited (a probe is never refused), and each one ran two or
    three statements, ten times the CPU of /healthz: a flood of it from one address cost as
    much as unlimited writes. A process now answers with what it found for a second."""
    from service.services import readiness

    url = migrated_sqlite(tmp_path / "ready.db")
    checks: list[int] = []
    real = readiness.check
    monkeypatch.setattr(readiness, "check", lambda db: checks.append(1) or real(db))
    ticks = [1000.0]
    app = make_app(url, RATE_LIMIT_ANONYMOUS="2/minute")
    app.extensions["capsa"].ready.clock = lambda: ticks[0]
    try:
        http = app.test_client()
        answers = [http.get("/readyz") for _ in range(50)]
        assert [a.status_code for a in answers] == [200] * 50  # never limited
        assert len(checks) == 1 and len({a.headers["X-Request-ID"] for a in answers}) == 50
        ticks[0] += 0.999
        http.get("/readyz")
        assert len(checks) == 1
        ticks[0] += 0.001  # a second after the check: checked again
        assert http.get("/readyz").get_json() == {"status": "ok", "database": "ok"} and len(checks) == 2
        app.extensions["capsa"].ready.cache_s = 0  # READY_CACHE_S=0: each request checks
        http.get("/readyz")
        http.get("/readyz")
        assert len(checks) == 4
    finally:
        app.extensions["capsa"].db.dispose()


def test_a_readyz_check_slower_than_the_cache_is_kept_from_when_it_ended(tmp_path, monkeypatch):
    """Kept from when it started, a check that took longer than READY_CACHE_S (a database
    that does not answer: seconds to the connect timeout) was stale when kept, and every
    request of a flood during the outage checked again."""
    from service.services import readiness

    ticks = [1000.0]
    checks: list[int] = []

    def slow(db: Any) -> Any:
        checks.append(1)
        ticks[0] += 3.0  # the connect timeout
        raise readiness.DatabaseUnavailable("connection timeout expired")

    monkeypatch.setattr(readiness, "check", slow)
    app = make_app(f"sqlite:///{tmp_path / 'down.db'}")
    app.extensions["capsa"].ready.clock = lambda: ticks[0]
    try:
        http = app.test_client()
        answers = [http.get("/readyz") for _ in range(5)]
        assert [a.status_code for a in answers] == [503] * 5 and len(checks) == 1
        assert answers[-1].get_json()["detail"] == "the database does not answer"
        ticks[0] += 1
        assert http.get("/readyz").status_code == 503 and len(checks) == 2
    finally:
        app.extensions["capsa"].db.dispose()


def test_a_readyz_refusal_is_kept_for_the_second_too_and_then_checked_again(tmp_path):
    from service.adapters.migrate import upgrade

    url = f"sqlite:///{tmp_path / 'later.db'}"
    (tmp_path / "later.db").touch()
    ticks = [1000.0]
    app = make_app(url)
    app.extensions["capsa"].ready.clock = lambda: ticks[0]
    try:
        http = app.test_client()
        assert http.get("/readyz").status_code == 503
        upgrade(url)
        refused = http.get("/readyz")
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
        ticks[0] += 1
        assert http.get("/readyz").status_code == 200
    finally:
        app.extensions["capsa"].db.dispose()


def test_the_request_id_is_echoed_or_made(http):
    assert http.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers[
        "X-Request-ID"] == "abc-123"
    made = http.get("/healthz", headers={"X-Request-ID": "bad id"}).headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    # as docs/api.md says: 1-128 characters of A-Z a-z 0-9 . _ : -
    longest = "a.b_c:d-" * 16
    assert http.get("/healthz", headers={"X-Request-ID": longest}).headers["X-Request-ID"] == longest
    made = http.get("/healthz", headers={"X-Request-ID": longest + "x"}).headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)


def test_served_openapi_is_the_committed_file(http):
    response = http.get("/openapi.yaml")
    assert response.status_code == 200
    committed = (ROOT / "openapi.yaml").read_text(encoding="utf-8")
    assert response.get_data(as_text=True) == committed, (
        "openapi.yaml drifted from the code: run `capsa openapi` and commit the file"
    )


def test_every_schema_property_has_an_example_and_every_problem_type_is_documented():
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    missing = []
    for name, schema in spec["components"]["schemas"].items():
        for prop, definition in schema.get("properties", {}).items():
            documented = "example" in definition or "$ref" in json.dumps(definition) or (
                definition.get("type") == "array" and "example" in definition.get("items", {})
            )
            if not documented:
                missing.append(f"{name}.{prop}")
    assert missing == []
    text = json.dumps(spec)
    for kind in ["malformed-json", "validation", "invalid-cards", "unknown-rules",
                 "unauthorized", "forbidden", "not-found", "conflict", "idempotency-key-reused",
                 "idempotency-in-flight", "payload-too-large", "unsupported-media-type",
                 "unavailable", "method-not-allowed", "not-acceptable", "internal"]:
        assert f"/problems/{kind}" in text
    post_rounds = spec["paths"]["/v1/rounds"]["post"]["responses"]
    assert {"201", "400", "401", "403", "409", "413", "415", "422", "503"} <= set(post_rounds)


def test_docs_are_served_without_a_cdn(http):
    page = http.get("/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    scripts = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert scripts and all(s.startswith("/docs/assets/") for s in scripts), scripts
    for asset in scripts:
        with http.get(asset) as answer:  # a streamed file: closing the answer closes it
            assert answer.status_code == 200 and answer.headers["X-Content-Type-Options"] == "nosniff"
    assert http.get("/openapi.json").status_code == 200
    # The bundle's own pages are not served: its index.html was a second Swagger UI with no
    # security headers, which fetched a third party's example spec onto this origin.
    for page in ("index.html", "oauth2-redirect.html", "swagger-initializer.js", "index.j2"):
        assert http.get(f"/docs/assets/{page}").status_code == 404


def test_the_docs_page_runs_only_its_own_scripts_and_its_nonced_one_and_is_never_framed(http):
    pages = [http.get("/docs") for _ in range(2)]
    nonces = []
    for page in pages:
        nonce = re.fullmatch(r".*<script nonce=\"([A-Za-z0-9_-]{24})\">.*", page.get_data(as_text=True), re.S)
        assert nonce is not None
        nonces.append(nonce.group(1))
        assert page.headers["Content-Security-Policy"] == (
            f"default-src 'none'; script-src 'self' 'nonce-{nonce.group(1)}'; style-src 'self'; "
            "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )
        assert page.headers["X-Content-Type-Options"] == "nosniff" and page.headers["Referrer-Policy"] == "no-referrer"
        assert page.headers["Cache-Control"] == "no-store"
        assert page.get_data(as_text=True).count("<script") == 3  # the two assets and the nonced one
    assert nonces[0] != nonces[1]
    assert '"validatorUrl": null' in pages[0].get_data(as_text=True)  # no badge fetched from elsewhere


def test_metrics_count_rounds_per_preset_and_latency_per_endpoint(db_url, tenant):
    app = make_app(db_url)
    http = app.test_client()
    from conftest import make_tenant

    me = make_tenant(app)
    for _ in range(2):
        http.post("/v1/score", json=two_player_round(), headers=me.headers)
    keyed, body = {**me.headers, "Idempotency-Key": "metrics-1"}, two_player_round()
    for _ in range(3):  # stored once, replayed twice: a replay stores no round and is not counted
        assert http.post("/v1/rounds", json=body, headers=keyed).status_code == 201
    http.get("/v1/rounds/rnd_abc", headers=me.headers)
    # Served by gunicorn's master on METRICS_BIND (tests/integration/test_metrics_bind.py).
    text = app.extensions["capsa"].metrics.exposition().get_data(as_text=True)
    assert 'capsa_rounds_scored_total{preset="capsa-susun-id",stored="false"} 2.0' in text
    assert 'capsa_rounds_scored_total{preset="capsa-susun-id",stored="true"} 1.0' in text
    assert 'endpoint="rounds.RoundById"' in text and "rnd_abc" not in text
    # a second app in the same process registers its metrics again without clashing
    assert "capsa_rounds_scored_total" in make_app(db_url).extensions["capsa"].metrics.exposition().get_data(as_text=True)


def test_a_method_no_route_has_is_one_label_value_however_many_are_sent(db_url):
    # Anyone, without a key, can send any method token: each one a label value of its own
    # would grow the metrics (and every scrape) without bound.
    app = make_app(db_url)
    http = app.test_client()
    for method in ("XAAQ", "XABQ", "XACQ", "PROPFIND"):
        assert http.open("/v1/rounds", method=method).status_code == 405
    http.open("/healthz", method="BREW")
    text = app.extensions["capsa"].metrics.exposition().get_data(as_text=True)
    methods = set(re.findall(r'capsa_http_request_duration_seconds_count\{[^}]*method="([^"]*)"', text))
    assert methods == {"other"}


def test_every_request_is_logged_with_id_client_status_and_duration(http, tenant):
    import logging

    import structlog
    from structlog.testing import capture_logs

    wrapper = structlog.get_config()["wrapper_class"]
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.INFO))
    try:
        with capture_logs() as logs:
            http.get("/v1/rules", headers={**tenant.headers, "X-Request-ID": "log-me"})
    finally:
        structlog.configure(wrapper_class=wrapper)
    (entry,) = [e for e in logs if e["event"] == "request"]
    assert entry["status"] == 200 and entry["client_id"] == tenant.id
    assert entry["endpoint"] == "rules.Rules" and entry["duration_ms"] >= 0
    assert entry["method"] == "GET" and entry["path"] == "/v1/rules"


def test_logs_are_json_lines():
    import structlog

    processors = structlog.get_config()["processors"]
    assert isinstance(processors[-1], structlog.processors.JSONRenderer)


def test_the_standard_librarys_log_records_are_json_lines_too():
    # Libraries (alembic, Flask-Limiter) and some of this service's modules log through
    # `logging`: their lines, tracebacks included, are JSON like the rest.
    import subprocess
    import sys

    script = """
import logging
from service.api.observability import configure_logging
configure_logging("INFO")
logging.getLogger("some.library").warning("storage %s unreachable", "redis")
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("service.services.rollups").exception("fold failed")
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first["event"] == "storage redis unreachable" and first["level"] == "warning"
    assert first["logger"] == "some.library" and first["timestamp"].endswith("Z")
    assert second["level"] == "error" and "ZeroDivisionError" in second["exception"]


def test_rules_lists_every_version_of_every_preset_with_every_parameter_and_its_source(http, tenant):
    items = http.get("/v1/rules", headers=tenant.headers).get_json()["items"]
    assert [(i["preset"], i["version"], i["latest"]) for i in items if i["game"] == "susun"] == [
        ("capsa-susun-id", 1, False), ("capsa-susun-id", 2, False), ("capsa-susun-id", 3, True),
        ("chinese-poker-2-4", 1, False), ("chinese-poker-2-4", 2, False), ("chinese-poker-2-4", 3, True),
        ("chinese-poker-1-6", 1, False), ("chinese-poker-1-6", 2, False), ("chinese-poker-1-6", 3, True),
        ("chinese-poker-tw", 1, False), ("chinese-poker-tw", 2, True),
        ("chinese-poker-royalties", 1, False), ("chinese-poker-royalties", 2, True)]
    assert [i["preset"] for i in items if i["game"] == "banting" and i["latest"]] == [
        "capsa-banting-id", "pusoy-dos", "big-two-hk", "big-two-tw", "big-two-yawnoc"]
    by = {(i["preset"], i["version"]): i for i in items}
    v1, v2, v3 = by[("capsa-susun-id", 1)], by[("capsa-susun-id", 2)], by[("capsa-susun-id", 3)]
    assert len(v1["params"]) == 19 and len(v2["params"]) == 23 and v2["description"]
    assert len(v3["params"]) == 24 and v3["params"]["front_vs_five"] == "five_stronger"
    assert v2["params"]["tembus_multiplier"] == 2 and v2["params"]["row_points"] == [1, 1, 1]
    for item in items:
        assert set(item["sources"]) == set(item["params"]), item["preset"]
    tw = by[("chinese-poker-tw", 1)]
    assert tw["params"]["scoop_bonus"] == 3 and "TaiwaneseScoreCalculator.cs" in tw["sources"]["scoop_bonus"]
    royalties = by[("chinese-poker-royalties", 1)]
    assert royalties["params"]["bonus_by_rank"]["front.pair"]["A"] == 9
    assert "royalty.ts" in royalties["sources"]["bonus_by_rank"]
    banting = by[("capsa-banting-id", 1)]
    assert banting["game"] == "banting" and banting["params"]["suit_order"] == "dchs"
    v2 = by[("capsa-banting-id", 2)]
    assert not v2["latest"] and "straight_flush_order" not in v2["params"]
    latest = by[("capsa-banting-id", 3)]
    assert latest["latest"] and latest["params"]["straights"] == "standard" and latest["source"]
    assert latest["params"]["last_card_penalty"] == "none"
    assert by[("pusoy-dos", 2)]["params"]["straight_flush_order"] == "suit_first"
    assert "pusoy_dos" in by[("pusoy-dos", 2)]["sources"]["straight_flush_order"]
    assert by[("big-two-yawnoc", 2)]["params"]["last_card_penalty"] == "takes_all_losses"


def test_evaluate_describes_rows_bonuses_and_fouls(http, tenant):
    ok = http.post("/v1/arrangements/evaluate", json={"arrangement": SWEEP_A},
                   headers=tenant.headers)
    assert ok.status_code == 200
    doc = ok.get_json()
    assert doc["rows"]["front"] == {"category": "three_of_a_kind", "cards": ["2c", "2d", "2h"],
                                    "bonus": 5}
    assert doc["foul"] is False and doc["natural"] is None and doc["bonus_total"] == 5
    fouled = {"front": ["Ah", "Ad", "7c"], "middle": ["9s", "8h", "4d", "3c", "2s"],
              "back": ["Ts", "Js", "Qs", "Ks", "As"]}
    doc = http.post("/v1/arrangements/evaluate", json={"arrangement": fouled},
                    headers=tenant.headers).get_json()
    assert doc["foul"] is True and doc["foul_reason"] == "front beats middle"


def test_evaluate_with_a_hand_requires_exactly_those_cards(http, tenant):
    hand = [c for row in SWEEP_A.values() for c in row]
    ok = http.post("/v1/arrangements/evaluate", json={"arrangement": SWEEP_A, "hand": hand},
                   headers=tenant.headers)
    assert ok.status_code == 200
    other = hand[:-1] + ["As"]
    problem(http.post("/v1/arrangements/evaluate", json={"arrangement": SWEEP_A, "hand": other},
                      headers=tenant.headers), 422, "invalid-cards")


@pytest.mark.parametrize(("name", "value"), [
    ("READ_MAX_LAG_S", "abc"), ("READ_MAX_LAG_S", "-1"), ("DATABASE_STATEMENT_TIMEOUT_MS", "5s"),
    ("DATABASE_STATEMENT_TIMEOUT_MS", "-5"), ("API_KEY_CACHE_SECONDS", "5s"), ("API_KEY_CACHE_SECONDS", "nan"),
    ("VIEW_LINK_TTL", "1h"), ("VIEW_LINK_TTL", "0"), ("VIEW_LINK_TTL", "-100"),
    # past any date a link could end at: every link request was a 500 (OverflowError)
    ("VIEW_LINK_TTL", "300000000000"), ("VIEW_LINK_TTL", "315360001"),
])
def test_a_setting_the_app_cannot_start_with_names_itself(monkeypatch, name, value):
    """A bare ValueError ('could not convert string to float') named neither the variable
    nor why; VIEW_LINK_TTL was read on the first link request: a 500 for every one (1h), or
    links that never opened (0)."""
    from service.domain.errors import SettingError

    monkeypatch.setenv(name, value)
    with pytest.raises(SettingError, match=f"^{name} must be .*not {value!r}$"):
        make_app("sqlite://")


def test_view_link_ttl_is_read_at_start_and_used(monkeypatch, tmp_path):
    from conftest import make_tenant

    url = migrated_sqlite(tmp_path / "ttl.db")
    monkeypatch.setenv("VIEW_LINK_TTL", "120")
    app = make_app(url)
    try:
        tenant = make_tenant(app)
        http = app.test_client()
        made = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).get_json()
        link = http.post(f"/v1/rounds/{made['id']}/view-link", headers=tenant.headers).get_json()
    finally:
        app.extensions["capsa"].db.dispose()
    from datetime import datetime

    made_at = datetime.fromisoformat(made["created_at"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(link["expires_at"].replace("Z", "+00:00"))
    assert 119 <= (expires - made_at).total_seconds() <= 125


@pytest.mark.parametrize("name", ["RATE_LIMIT", "RATE_LIMIT_ANONYMOUS", "HEAVY_READS_PER_CLIENT"])
def test_an_empty_limit_setting_is_its_default_not_off(monkeypatch, name):
    """`RATE_LIMIT=` (what compose writes for a variable left blank) switched the limit off:
    only `off` is documented to."""
    from service.api import heavy_reads, ratelimit

    monkeypatch.setenv(name, "")
    app = make_app("sqlite://")
    try:
        defaults = {"RATE_LIMIT": ratelimit.DEFAULT_RATE_LIMIT,
                    "RATE_LIMIT_ANONYMOUS": ratelimit.DEFAULT_RATE_LIMIT_ANONYMOUS,
                    "HEAVY_READS_PER_CLIENT": str(heavy_reads.DEFAULT_PER_CLIENT)}
        assert app.config[name] == defaults[name]
    finally:
        app.extensions["capsa"].db.dispose()


def test_a_read_url_that_is_not_postgresql_stops_the_start(tmp_path):
    """A SQLite READ_DATABASE_URL (another file) was taken for a current standby: its empty
    tables answered every report (0 rounds, as_of source replica)."""
    from service.domain.errors import SettingError

    with pytest.raises(SettingError, match="^READ_DATABASE_URL must name a PostgreSQL standby .*not 'sqlite:///"):
        make_app("sqlite://", READ_DATABASE_URL=f"sqlite:///{tmp_path / 'other.db'}")
