"""gunicorn settings for the Capsa service (`capsa serve`, the Docker image, bench/http.py).

Sync workers: each request owns its worker, so a slow scoring call never stalls another
connection, and no keep-alive connection pins a client to one worker (PITFALLS.md).
"""

import os
import shutil
import tempfile

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", str((os.cpu_count() or 1) * 2 + 1)))
worker_class = "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 30
keepalive = 2
max_requests = 10_000
max_requests_jitter = 1_000
# The app is built once in the master; workers fork from it (post_fork drops the DB pool).
preload_app = True
accesslog = None  # the app logs every request as JSON (structlog)
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")

# Prometheus multiprocess mode: must be set before prometheus_client is imported by the app.
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="capsa-prometheus-")


def on_starting(server):
    # Values of a previous run would be summed into this one's.
    path = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path, exist_ok=True)


def post_fork(server, worker):
    # Connections opened in the master must not be shared by the forked workers.
    from service.adapters.db import dispose_all

    dispose_all()


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
