"""Per-client rate limits (in memory, and in Redis with TEST_REDIS_URL) and the statement timeout."""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import make_app, make_tenant
from httpkit import problem, two_player_round

REDIS_ENV = "TEST_REDIS_URL"


def rounds_of(app: Any, tenant: Any) -> int:
    from sqlalchemy import func, select

    from service.adapters.models import Round

    with app.extensions["capsa"].db.unit_of_work() as uow:
        return int(uow.session.scalar(select(func.count()).where(Round.client_id == tenant.id)) or 0)


def assert_rate_limited(response: Any) -> int:
    body = problem(response, 429, "rate-limited")
    retry_after = int(response.headers["Retry-After"])
    assert 1 <= retry_after <= 61  # the window (60 s) rounded up to whole seconds
    assert "limit" in body["detail"]
    return retry_after


def shared_limiter(store: Any) -> Any:
    """A worker's limiter counting in a shared store, `store` standing in memory for Redis."""
    from service.api import ratelimit

    limiter = ratelimit.Limiter("redis://127.0.0.1:1/0", {}, "t")  # never connected: the store is replaced
    assert limiter.shared
    limiter.storage = store
    return limiter


@pytest.fixture(scope="module")
def limited_app(db_url: str) -> Iterator[Any]:
    app = make_app(db_url, RATE_LIMIT="5/minute")
    yield app
    app.extensions["capsa"].db.dispose()


def test_a_client_over_its_limit_gets_429_with_retry_after_and_nothing_is_written(limited_app):
    http, tenant = limited_app.test_client(), make_tenant(limited_app)
    for _ in range(4):
        assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
    assert http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).status_code == 201
    assert rounds_of(limited_app, tenant) == 1
    refused = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers)
    assert_rate_limited(refused)
    assert "rate limit of 5 per 1 minute exceeded for this client" in refused.json["detail"]
    assert_rate_limited(http.get("/v1/rules", headers=tenant.headers))
    # Every key of the client shares its budget: the limit key is the client, not the key.
    assert_rate_limited(http.get("/v1/rules", headers=tenant.read_headers))
    assert rounds_of(limited_app, tenant) == 1


def test_limits_are_per_client_and_requests_without_a_key_never_use_a_clients_budget(limited_app):
    http, busy, other = limited_app.test_client(), make_tenant(limited_app), make_tenant(limited_app)
    for _ in range(5):
        assert http.get("/v1/rules", headers=busy.headers).status_code == 200
    assert_rate_limited(http.get("/v1/rules", headers=busy.headers))
    assert http.get("/v1/rules", headers=other.headers).status_code == 200
    for _ in range(10):
        assert http.get("/healthz").status_code == 200
        # Authentication comes first: a request without a valid key is 401, counted against
        # its address (RATE_LIMIT_ANONYMOUS, test_api_anonymous_limit.py), never a client.
        problem(http.get("/v1/rules"), 401, "unauthorized")
    assert http.get("/v1/rules", headers=other.headers).status_code == 200


def test_a_rate_limited_malformed_body_is_429_not_400(limited_app):
    http, tenant = limited_app.test_client(), make_tenant(limited_app)
    for _ in range(5):
        http.get("/v1/rules", headers=tenant.headers)
    response = http.post("/v1/rounds", data=b"{not json", content_type="application/json",
                         headers=tenant.headers)
    assert_rate_limited(response)


@pytest.mark.parametrize("value", ["off", "", "0"])
def test_the_limit_can_be_switched_off(sqlite_url, value):
    app = make_app(sqlite_url, RATE_LIMIT=value, RATE_LIMIT_ANONYMOUS="3/minute")
    http, tenant = app.test_client(), make_tenant(app)
    for _ in range(30):
        assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
    # With both limits off there is no limiter at all.
    both_off = make_app(sqlite_url, RATE_LIMIT=value, RATE_LIMIT_ANONYMOUS=value)
    assert "capsa_limiter" not in both_off.extensions


def test_the_default_limit_is_on_and_documented(sqlite_url):
    from service.api.ratelimit import DEFAULT_RATE_LIMIT

    app = make_app(sqlite_url)
    assert app.config["RATE_LIMIT"] == os.environ.get("RATE_LIMIT", DEFAULT_RATE_LIMIT)
    spec = app.extensions["capsa"].spec_yaml
    assert "TOO_MANY_REQUESTS" in spec and "/problems/rate-limited" in spec


# --- Redis: counters shared by every worker -------------------------------------------------


@pytest.fixture
def redis_url() -> Iterator[tuple[str, str]]:
    url = os.environ.get(REDIS_ENV)
    if not url:
        pytest.skip(f"{REDIS_ENV} is not set")
    import redis

    prefix = f"capsa-test-{secrets.token_hex(6)}"
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.fail(f"{REDIS_ENV}={url} does not answer: {exc}")
    yield url, prefix
    keys = list(client.scan_iter(match=f"*{prefix}*"))
    if keys:
        client.delete(*keys)
    assert not list(client.scan_iter(match=f"*{prefix}*"))
    client.close()


def test_redis_counters_are_shared_by_every_worker(sqlite_url, redis_url):
    url, prefix = redis_url
    config = {"RATE_LIMIT": "6/minute", "RATELIMIT_STORAGE_URI": url, "RATELIMIT_KEY_PREFIX": prefix}
    # Two apps stand for two gunicorn workers: with memory:// each would allow 6.
    worker_1, worker_2 = make_app(sqlite_url, **config), make_app(sqlite_url, **config)
    tenant = make_tenant(worker_1)
    a, b = worker_1.test_client(), worker_2.test_client()
    for i in range(6):
        assert (a if i % 2 else b).get("/v1/rules", headers=tenant.headers).status_code == 200
    assert_rate_limited(a.get("/v1/rules", headers=tenant.headers))
    assert_rate_limited(b.get("/v1/rules", headers=tenant.headers))
    import redis

    stored = list(redis.Redis.from_url(url).scan_iter(match=f"*{prefix}*"))
    # The keys Flask-Limiter gave the counters, used before: counts carry over an upgrade.
    assert stored == [f"LIMITS:LIMITER/{prefix}/{tenant.id}/global/6/1/minute".encode()]


def test_a_store_that_answers_at_start_is_not_logged_as_unreachable(sqlite_url, redis_url):
    from structlog.testing import capture_logs

    from service.api.observability import configure_logging

    url, prefix = redis_url
    configure_logging("WARNING")
    with capture_logs() as logs:
        app = make_app(sqlite_url, RATE_LIMIT="3/minute", RATELIMIT_STORAGE_URI=url, RATELIMIT_KEY_PREFIX=prefix)
    assert app.extensions["capsa_limiter"].shared
    assert [e for e in logs if e["event"].startswith("rate_limit")] == []


def test_a_redis_retry_after_is_never_shorter_than_what_the_counter_has_left(sqlite_url, redis_url):
    # Redis gives a key's TTL in whole seconds, rounded to the nearest: Retry-After could be
    # half a second short, and a client that waited that long was refused again (2 in 8).
    import redis

    url, prefix = redis_url
    app = make_app(sqlite_url, RATE_LIMIT="1/minute", RATELIMIT_STORAGE_URI=url, RATELIMIT_KEY_PREFIX=prefix)
    http, tenant = app.test_client(), make_tenant(app)
    import time

    assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
    time.sleep(0.7)  # the counter's TTL is then about 59.3 s, which Redis says is 59
    refused = http.get("/v1/rules", headers=tenant.headers)
    retry_after = assert_rate_limited(refused)
    (key,) = redis.Redis.from_url(url).scan_iter(match=f"*{prefix}*")
    left_ms = redis.Redis.from_url(url).pttl(key)
    assert retry_after * 1000 >= left_ms and retry_after <= 61


def test_a_request_costs_one_redis_command_and_its_fields_match_the_counter(sqlite_url, redis_url):
    """The count and its window's end come back from one script: a count, then a TTL, were two
    round trips a request (0.17-0.20 ms of a worker's CPU here), and after a flush between
    them the TTL could belong to no counter at all."""
    import redis

    url, prefix = redis_url
    app = make_app(sqlite_url, RATE_LIMIT="3/minute", RATELIMIT_STORAGE_URI=url, RATELIMIT_KEY_PREFIX=prefix)
    http, tenant = app.test_client(), make_tenant(app)
    connection = app.extensions["capsa_limiter"].storage.get_connection()
    sent: list[str] = []
    execute = connection.execute_command

    def counted(*args: Any, **options: Any) -> Any:
        sent.append(str(args[0]).upper())
        return execute(*args, **options)

    connection.execute_command = counted
    first = http.get("/v1/rules", headers=tenant.headers)
    assert first.headers["RateLimit"] in ('"client";r=2;t=60', '"client";r=2;t=61')
    # The first use of the script after Redis started may load it (EVALSHA, SCRIPT LOAD, EVALSHA).
    assert sent[-1] == "EVALSHA" and set(sent) <= {"EVALSHA", "SCRIPT LOAD"}
    (key,) = redis.Redis.from_url(url).scan_iter(match=f"*{prefix}*")
    assert key == f"LIMITS:LIMITER/{prefix}/{tenant.id}/global/3/1/minute".encode()
    assert int(redis.Redis.from_url(url).get(key)) == 1
    sent.clear()
    assert http.get("/v1/rules", headers=tenant.headers).headers["RateLimit"].startswith('"client";r=1;t=6')
    http.get("/v1/rules", headers=tenant.headers)
    retry_after = assert_rate_limited(http.get("/v1/rules", headers=tenant.headers))
    assert sent == ["EVALSHA"] * 3 and 59 <= retry_after <= 61
    assert int(redis.Redis.from_url(url).get(key)) == 4
    # A Redis restarted (or its scripts flushed) loads the script again on the next count.
    redis.Redis.from_url(url).script_flush()
    sent.clear()
    assert_rate_limited(http.get("/v1/rules", headers=tenant.headers))
    assert sent == ["EVALSHA", "SCRIPT LOAD", "EVALSHA"]
    assert int(redis.Redis.from_url(url).get(key)) == 5


def test_concurrent_requests_never_exceed_the_redis_limit(sqlite_url, redis_url):
    url, prefix = redis_url
    app = make_app(sqlite_url, RATE_LIMIT="20/minute", RATELIMIT_STORAGE_URI=url,
                   RATELIMIT_KEY_PREFIX=prefix)
    tenant = make_tenant(app)
    statuses: list[int] = []
    lock = threading.Lock()

    def hammer() -> None:
        http = app.test_client()
        for _ in range(10):
            status = http.get("/v1/rules", headers=tenant.headers).status_code
            with lock:
                statuses.append(status)

    threads = [threading.Thread(target=hammer) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(set(statuses)) == [200, 429]
    assert statuses.count(200) == 20 and statuses.count(429) == 30


def test_an_unreachable_rate_limit_store_is_logged_at_start_without_its_password(sqlite_url):
    # A mistyped host or password showed only as one vague fallback warning per worker.
    from structlog.testing import capture_logs

    from service.api.observability import configure_logging

    configure_logging("WARNING")  # once per process: not inside the capture, which it would undo
    with capture_logs() as logs:
        make_app(sqlite_url, RATE_LIMIT="3/minute", RATELIMIT_STORAGE_URI="redis://:s3cret@127.0.0.1:1/0")
    (said,) = [e for e in logs if e["event"] == "rate_limit_storage_unreachable"]
    assert said["log_level"] == "error" and said["storage"] == "redis://:***@127.0.0.1:1/0"
    assert "s3cret" not in str(logs)
    from service.adapters.db import without_password

    assert without_password("redis+unix:///run/r.sock?db=0&password=s3cret") == "redis+unix:///run/r.sock?db=0&password=***"


def test_an_unreachable_rate_limit_store_falls_back_and_never_answers_500(sqlite_url):
    app = make_app(sqlite_url, RATE_LIMIT="3/minute", RATELIMIT_STORAGE_URI="redis://127.0.0.1:1/0",
                   RATELIMIT_KEY_PREFIX=f"capsa-test-{secrets.token_hex(4)}")
    http, tenant = app.test_client(), make_tenant(app)
    statuses = [http.get("/v1/rules", headers=tenant.headers).status_code for _ in range(5)]
    assert 500 not in statuses and statuses[0] == 200
    assert set(statuses) <= {200, 429}


@pytest.mark.parametrize("scheme", ["redis+unix", "redis"])
def test_a_stopped_redis_delays_a_request_half_a_second_whatever_the_url_scheme(sqlite_url, tmp_path, scheme):
    """The short socket timeouts were given to redis:// and rediss:// only: with a
    redis+unix:// (or redis+sentinel://) store, a Redis stopped mid-run (a hung host, a
    stopped process) held every request until gunicorn killed its worker, then a 500."""
    import shutil
    import signal
    import socket
    import subprocess
    import time

    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed")
    sock = tmp_path / "redis.sock"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    redis = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--unixsocket", str(sock), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while not sock.exists():
            assert time.monotonic() < deadline and redis.poll() is None, "redis-server did not start"
            time.sleep(0.05)
        url = f"redis+unix://{sock}" if scheme == "redis+unix" else f"redis://127.0.0.1:{port}/0"
        app = make_app(sqlite_url, RATE_LIMIT="100/minute", RATELIMIT_STORAGE_URI=url,
                       RATELIMIT_KEY_PREFIX=f"capsa-test-{secrets.token_hex(4)}")
        http, tenant = app.test_client(), make_tenant(app)
        assert http.get("/v1/rules", headers=tenant.headers).status_code == 200  # connected
        redis.send_signal(signal.SIGSTOP)
        try:
            answers: list[tuple[int, float]] = []

            def ask() -> None:
                started = time.monotonic()
                answers.append((http.get("/v1/rules", headers=tenant.headers).status_code, time.monotonic() - started))

            asking = threading.Thread(target=ask, daemon=True)
            asking.start()
            asking.join(10)
            assert not asking.is_alive(), "the request waited on the stopped Redis"
            ((status, took),) = answers
            assert status == 200 and took < 3
        finally:
            redis.send_signal(signal.SIGCONT)
    finally:
        redis.terminate()
        redis.wait(10)


# --- PostgreSQL statement timeout -----------------------------------------------------------


@pytest.mark.postgres
def test_a_statement_over_the_timeout_is_a_503_with_retry_after_and_writes_nothing(postgres_url):
    from sqlalchemy import create_engine, text

    app = make_app(postgres_url, DATABASE_STATEMENT_TIMEOUT_MS=300)
    http, tenant = app.test_client(), make_tenant(app)
    # Through pgbouncer the app sends no `options`: the timeout is the role's (here the test
    # database's, 5 s: tests/conftest.py), and the lock below ends at its lock_timeout.
    pooled = os.environ.get("DATABASE_POOLER") == "pgbouncer"
    with app.extensions["capsa"].db.engine.connect() as conn:
        assert conn.execute(text("SHOW statement_timeout")).scalar() == ("5s" if pooled else "300ms")
    locker = create_engine(postgres_url)
    try:
        with locker.connect() as conn:
            conn.execute(text("LOCK TABLE rounds IN ACCESS EXCLUSIVE MODE"))
            response = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers)
            conn.rollback()
    finally:
        locker.dispose()
    problem(response, 503, "unavailable")
    assert int(response.headers["Retry-After"]) >= 1
    assert rounds_of(app, tenant) == 0
    # The lock is gone: the same request now succeeds.
    assert http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).status_code == 201
    app.extensions["capsa"].db.dispose()


def test_the_statement_timeout_is_configurable_and_off_with_zero(postgres_url):
    from sqlalchemy import text

    from service.adapters.uow import Database

    db = Database(postgres_url, statement_timeout_ms=0)
    try:
        with db.engine.connect() as conn:
            assert conn.execute(text("SHOW statement_timeout")).scalar() == "0"
    finally:
        db.dispose()


def test_refusals_before_the_view_count_against_the_clients_budget_too(limited_app):
    """A read key's write (403) and an answer type the route cannot give (406) are refused
    before the view, but still after the limit has counted them: a client cannot send
    without limit what costs a key look-up each."""
    http = limited_app.test_client()
    reader, picky = make_tenant(limited_app), make_tenant(limited_app)
    for _ in range(5):
        problem(http.post("/v1/rounds", json=two_player_round(), headers=reader.read_headers), 403, "forbidden")
    assert_rate_limited(http.post("/v1/rounds", json=two_player_round(), headers=reader.read_headers))
    html = {**picky.headers, "Accept": "text/html"}
    for _ in range(5):
        problem(http.get("/v1/rules", headers=html), 406, "not-acceptable")
    assert_rate_limited(http.get("/v1/rules", headers=html))
    assert_rate_limited(http.get("/v1/rules", headers=picky.headers))  # the same budget


def test_a_store_that_fails_after_counting_still_gives_the_429_its_retry_after(sqlite_url, monkeypatch):
    # Reading the counter's TTL failed (the store went away between the two): the error was
    # swallowed and the limiter's own 429 went out, without Retry-After.
    from service.api import ratelimit

    app = make_app(sqlite_url, RATE_LIMIT="1/minute")
    http, tenant = app.test_client(), make_tenant(app)
    assert http.get("/v1/rules", headers=tenant.headers).status_code == 200

    def gone(self: Any, key: str) -> float:
        raise ConnectionError("the store went away")

    monkeypatch.setattr(ratelimit.LocalCounters, "get_expiry", gone)
    refused = http.get("/v1/rules", headers=tenant.headers)
    assert assert_rate_limited(refused) == 60
    assert "RateLimit" not in refused.headers  # no figures rather than wrong ones


def test_counting_a_request_in_memory_starts_no_thread(limited_app, monkeypatch):
    """`limits`' MemoryStorage started a thread to expire its keys whenever its last one
    (10 ms long) had ended: on a worker whose requests came more than 10 ms apart, one a
    request (about 0.35 ms of CPU here, and a wait for the thread to start)."""
    import time

    http, tenant = limited_app.test_client(), make_tenant(limited_app)
    started: list[str] = []
    real_start = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        started.append(thread.name)
        real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start)
    for _ in range(3):
        assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
        time.sleep(0.03)
    assert started == []


def test_local_counters_start_a_window_again_once_it_ends_and_drop_ended_windows(monkeypatch):
    from service.api import ratelimit

    now = [1_000_000.0]
    monkeypatch.setattr(ratelimit.time, "time", lambda: now[0])
    counters = ratelimit.LocalCounters()
    assert [counters.incr("a", 60) for _ in range(3)] == [1, 2, 3]
    assert counters.get("a") == 3 and counters.get_expiry("a") == 1_000_060.0
    now[0] += 59.5
    assert counters.incr("a", 60) == 4 and counters.incr("b", 60) == 1
    now[0] += 0.5  # a's window ends; b's runs until 1,000,119.5
    assert counters.get("a") == 0 and counters.get_expiry("a") == now[0]
    assert counters.incr("a", 60) == 1 and counters.get_expiry("a") == now[0] + 60
    now[0] += 60  # both ended: the next count drops them
    counters.incr("c", 60)
    assert sorted(counters._counts) == ["c"]
    counters.clear("c")
    assert counters.get("c") == 0 and counters.reset() == 0


def test_a_store_that_stops_answering_is_counted_in_memory_and_tried_again_after_1_2_4_to_32_s(monkeypatch):
    """docs/operations.md: when Redis stops answering, requests fall back to in-memory
    counting, and each worker tries it again after 1, 2, 4 ... 32 s."""
    from limits import parse
    from structlog.testing import capture_logs

    from service.api import ratelimit

    now = [1_000_000.0]
    monkeypatch.setattr(ratelimit.time, "time", lambda: now[0])
    store_up, asked = [False], []

    class Flaky(ratelimit.LocalCounters):
        def incr(self, key: str, expiry: int, amount: int = 1) -> int:
            if not store_up[0]:
                raise ConnectionError("the store does not answer")
            return super().incr(key, expiry, amount)

        def check(self) -> bool:
            asked.append(now[0])
            return store_up[0]

    limiter = shared_limiter(Flaky())
    policy = ratelimit.Policy("client", parse("1000/hour"), "global")
    with capture_logs() as logs:
        assert limiter.count(policy, "c").count == 1
    assert [(e["event"], e["log_level"]) for e in logs] == [("rate_limit_storage_unavailable", "warning")]
    went_down = now[0]
    for _ in range(140):  # 70 s, a request every half second
        now[0] += 0.5
        limiter.count(policy, "c")
    gaps = [later - earlier for earlier, later in zip([went_down, *asked], asked)]
    assert gaps == [1.5, 2.5, 4.5, 8.5, 16.5, 32.5, 1.5, 2.5]  # the first request past each wait
    assert limiter.count(policy, "c").count == 142  # in memory, all along
    assert limiter.storage._counts == {}
    store_up[0] = True
    counts = []
    with capture_logs() as logs:
        for _ in range(10):
            now[0] += 0.5
            counts.append(limiter.count(policy, "c").count)
    assert [(e["event"], e["log_level"]) for e in logs] == [("rate_limit_storage_recovered", "warning")]
    # Tried again 4.5 s after the last try: counted in memory until then, in the store after.
    assert counts == [*range(143, 151), 1, 2]
    assert list(limiter.storage._counts.values()) == [(2, now[0] - 0.5 + 3600)]



def test_a_window_started_again_by_a_flush_of_the_shared_store_is_named_by_the_store(monkeypatch):
    """A window end kept by a worker from an earlier request named the flushed window's end,
    4 s earlier than the new one's: Retry-After 57 where the store's counter had 60 s left."""
    from limits import parse

    from service.api import ratelimit

    now = [1_000_000.0]
    monkeypatch.setattr(ratelimit.time, "time", lambda: now[0])
    store = ratelimit.LocalCounters()  # stands for Redis, shared by two workers
    first, second = shared_limiter(store), shared_limiter(store)
    policy = ratelimit.Policy("client", parse("2/minute"), "global")
    assert first.count(policy, "c").seconds_left == 61  # a shared store's whole seconds: one more
    now[0] += 4
    store.reset()  # FLUSHALL, a restart or an eviction
    assert second.count(policy, "c").seconds_left == 61  # a new window, to 1,000,064
    counted = first.count(policy, "c")
    assert (counted.count, counted.seconds_left) == (2, 61)


def test_a_429_says_the_same_seconds_in_retry_after_and_in_its_ratelimit_field(sqlite_url, monkeypatch):
    """The two were computed apart, in the hook that counted and in the one that adds the
    fields: a second's boundary passing between them made them differ."""
    from service.api import ratelimit

    app = make_app(sqlite_url, RATE_LIMIT="1/minute")
    http, tenant = app.test_client(), make_tenant(app)
    now = [2_000_000.5]

    def ticking() -> float:
        now[0] += 0.3
        return now[0]

    monkeypatch.setattr(ratelimit.time, "time", ticking)
    assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
    for _ in range(5):
        refused = http.get("/v1/rules", headers=tenant.headers)
        assert_rate_limited(refused)
        assert refused.headers["RateLimit"] == f'"client";r=0;t={refused.headers["Retry-After"]}'


def test_any_memory_uri_counts_in_this_workers_memory(sqlite_url):
    """`memory:///` (and `memory://` with options) is the same store as `memory://`: it was
    taken for a shared one, a second more on each Retry-After."""
    app = make_app(sqlite_url, RATE_LIMIT="1/minute", RATELIMIT_STORAGE_URI="memory:///")
    http, tenant = app.test_client(), make_tenant(app)
    assert http.get("/v1/rules", headers=tenant.headers).status_code == 200
    assert assert_rate_limited(http.get("/v1/rules", headers=tenant.headers)) == 60
    assert not app.extensions["capsa_limiter"].shared


def test_retry_after_is_the_windows_whole_seconds_left_rounded_up_and_at_least_one(sqlite_url, monkeypatch):
    from service.api import ratelimit

    app = make_app(sqlite_url, RATE_LIMIT="1/minute")
    http, tenant = app.test_client(), make_tenant(app)
    now = [3_000_000.0]
    monkeypatch.setattr(ratelimit.time, "time", lambda: now[0])
    assert http.get("/v1/rules", headers=tenant.headers).status_code == 200  # the window ends at +60
    for elapsed, retry_after in ((0.0, 60), (29.5, 31), (59.0, 1), (59.8, 1)):
        now[0] = 3_000_000.0 + elapsed
        assert assert_rate_limited(http.get("/v1/rules", headers=tenant.headers)) == retry_after
    counters = app.extensions["capsa_limiter"].storage._counts
    assert list(counters) == [f"LIMITER/capsa/{tenant.id}/global/1/1/minute"]


def test_an_addresss_counter_has_its_own_scope(sqlite_url):
    app = make_app(sqlite_url, RATE_LIMIT="1/minute", RATE_LIMIT_ANONYMOUS="2/minute")
    answer = app.test_client().get("/openapi.yaml", environ_base={"REMOTE_ADDR": "192.0.2.9"})
    assert answer.status_code == 200
    assert list(app.extensions["capsa_limiter"].storage._counts) == ["LIMITER/capsa/192.0.2.9/anonymous/2/1/minute"]


def test_an_asyncio_store_stops_the_app_from_starting(sqlite_url):
    with pytest.raises(ValueError, match="RATELIMIT_STORAGE_URI='async\\+memory://' is an asyncio store"):
        make_app(sqlite_url, RATE_LIMIT="1/minute", RATELIMIT_STORAGE_URI="async+memory://")


def test_a_store_whose_ping_fails_does_not_answer():
    from service.api import ratelimit

    class Broken(ratelimit.LocalCounters):
        def check(self) -> bool:
            raise ConnectionError("no route to the store")

    limiter = shared_limiter(Broken())
    assert not limiter.answers()
    limiter.storage = ratelimit.LocalCounters()
    assert limiter.answers()
