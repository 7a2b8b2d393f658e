"""gunicorn settings for the Capsa service (`capsa serve`, the Docker image, bench/http.py).

Sync workers: each request owns its worker, so a slow scoring call never stalls another
connection, and no keep-alive connection pins a client to one worker.
"""

import atexit
import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path

bind = os.environ.get("BIND", "127.0.0.1:8000")
_workers = os.environ.get("WEB_CONCURRENCY", "").strip() or str((os.cpu_count() or 1) * 2 + 1)
if not _workers.isdigit() or int(_workers) < 1:  # 0 listened with no worker: every connection hung
    # One line and exit code 2, as for every setting the service cannot run with.
    print(f"capsa serve: WEB_CONCURRENCY must be a whole number of 1 or more, not {_workers!r}", file=sys.stderr)
    raise SystemExit(2)
workers = int(_workers)
worker_class = "sync"
# Timeouts, chosen together with the app's own (DATABASE_STATEMENT_TIMEOUT_MS 5 s, pool wait 5 s,
# connect 3 s), so a request ends with an answer (a 503 at worst) before gunicorn acts:
# - timeout: a worker silent this long is killed and replaced (its client sees a reset). 30 s
#   is far above any legitimate request (p99 of a stored round is a few ms) and above the
#   worst database wait (5 + 5 + 3 s; a write to a primary that stops answering altogether
#   is cut off by DATABASE_WRITE_DEADLINE_S + 5 s, and a read from it after twice the
#   statement timeout, 10 s: service/adapters/uow.py). A killed worker's Idempotency-Key is
#   free at once (claimed in its request's own transaction).
# - graceful_timeout: on SIGTERM/HUP, workers finish their current request within this;
#   20 s covers the worst database wait, and keeps a deploy or `docker stop` (10 s default,
#   raise its grace period) predictable.
# - keepalive: sync workers close the connection after each response and ignore it; it only
#   matters if worker_class is switched to gthread, where a short 2 s stops idle keep-alive
#   connections from pinning every client on one worker.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "20"))
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "2"))
# Above nginx's header limits (deploy/nginx.conf: the request line and each header line in
# a buffer of 8191 bytes, all of them in 4 such buffers, at most 1,000 lines), so nginx
# answers what is too large, as problem+json, and gunicorn never refuses what nginx passed
# with its own HTML 400: the request line at gunicorn's maximum (8190 bytes), a header line
# twice nginx's (nginx appends to X-Forwarded-For) and nginx's 1,000 lines with the ones it
# adds. Beyond these, gunicorn hit directly answers problem+json too (server_refusals.py).
limit_request_line = 8190
limit_request_field_size = 16_384
limit_request_fields = 1_100
max_requests = 10_000
max_requests_jitter = 1_000
# The app is built once in the master; workers fork from it (post_fork drops the DB pool).
preload_app = True
accesslog = None  # the app logs every request as JSON (structlog)
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# Never expose gunicorn itself: sync workers are held by slow clients. nginx goes in front
# (deploy/nginx.conf) and is the only peer whose X-Forwarded-* headers are believed; the app
# reads the same variable for the client address of anonymous rate limits.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# Prometheus metrics, summed over the workers, served by the master on their own address
# (never on the API port: they need no key); "off" disables.
metrics_bind = os.environ.get("METRICS_BIND", "127.0.0.1:9100")

# The temporary directories this master made for itself below, removed when it ends;
# directories the operator named are the operator's and stay. The server sets this variable
# itself (never set it): "<master's pid>:<directory>:...". A HUP reads this file again in the
# same master and makes none. A new master started by USR2 inherits the environment its
# parent last read, these directories with it: it makes its own instead, so that neither
# master removes (or, starting, empties) a directory the other still uses.
MADE_ENV = "CAPSA_SERVER_TEMP_DIRS"
_PREFIXES = ("capsa-prometheus-", "capsa-heavy-reads-")
_inherited = os.environ.get(MADE_ENV, "").split(os.pathsep)
if _inherited[0] != str(os.getpid()):
    for _variable in ("PROMETHEUS_MULTIPROC_DIR", "HEAVY_READS_DIR"):
        if os.environ.get(_variable) in _inherited[1:]:
            del os.environ[_variable]
    os.environ.pop(MADE_ENV, None)


def _make(variable, prefix):
    os.environ[variable] = tempfile.mkdtemp(prefix=prefix)
    os.environ[MADE_ENV] = os.pathsep.join((os.environ.get(MADE_ENV) or str(os.getpid()), os.environ[variable]))


def _remove_made():
    # Only in the master that made them (a worker, forked from it, exits through here too),
    # and only directories of the names made here, in the temporary directory.
    owner, *made = os.environ.get(MADE_ENV, "").split(os.pathsep)
    if owner != str(os.getpid()):
        return
    for path in map(Path, made):
        if path.parent == Path(tempfile.gettempdir()) and path.name.startswith(_PREFIXES):
            shutil.rmtree(path, ignore_errors=True)


# Prometheus multiprocess mode: must be set before prometheus_client is imported by the app.
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    _make("PROMETHEUS_MULTIPROC_DIR", _PREFIXES[0])
# The heavy reads' slots (service/api/heavy_reads.py): one directory for every worker of
# this server, made before they start, so a client's bound holds across them.
if not os.environ.get("HEAVY_READS_DIR"):
    _make("HEAVY_READS_DIR", _PREFIXES[1])
# At the master's end however it ends (a master that fails to start never calls on_exit).
# Each HUP registers it again: the later calls find nothing left to remove.
atexit.register(_remove_made)


def on_starting(server):
    # Values of a previous run would be summed into this one's: its files go (only those: the
    # operator may have named a directory that holds other things too).
    path = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):
        stale.unlink(missing_ok=True)


def when_ready(server):
    from service.api.observability import serve_metrics

    global _metrics
    # A new master started by USR2 (gunicorn names its parent in GUNICORN_PID while that one
    # runs) meets the old one serving the metrics: it takes the address over once it is free.
    _metrics = serve_metrics(metrics_bind, wait="GUNICORN_PID" in os.environ)
    if _metrics is not None and _metrics.serving:
        server.log.info("Serving metrics at http://%s:%s/metrics", *_metrics.address[:2])
    elif _metrics is not None:
        server.log.info("Metrics at http://%s:%s/metrics once the old master frees it", *_metrics.address[:2])


_metrics = None


def pre_fork(server, worker):
    # The preloaded app's objects are shared copy-on-write with the workers. Without this, a
    # worker's first full garbage collection touches every one of them and copies the heap
    # page by page: a one-off ~90 ms stall inside a request, once per worker (and again for
    # each replacement worker). Frozen objects are never scanned (Python's gc docs advise
    # freezing before fork).
    gc.freeze()


def post_fork(server, worker):
    # Connections opened in the master must not be shared by the forked workers.
    from service.adapters.db import dispose_all

    dispose_all()
    if _metrics is not None:
        _metrics.close_in_child()
    # What gunicorn refuses itself (not HTTP, over its limits) answered as problem+json, not
    # its HTML page: `make run` serves gunicorn with no nginx in front.
    from service.api.server_refusals import install

    install()
    # The signing keys as the file holds them now: a HUP after `capsa keys create` forks
    # workers from the app the master loaded at start, with the keyring of that time.
    from service.api.app import reload_signing_keys

    problem = reload_signing_keys(server.app.wsgi())
    if problem is not None:
        server.log.error("signing keys not reloaded, the ones read at start stay: %s", problem)


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
