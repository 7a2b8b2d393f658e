"""Request ids, structured JSON logs (structlog) and Prometheus metrics (multiprocess-safe).

The metrics are not served on the API port: they count business volume and need no key, so
gunicorn's master serves them on a bind of their own (METRICS_BIND, `serve_metrics`).
"""

from __future__ import annotations

import errno
import logging
import os
import posixpath
import re
import sys
import threading
import time
import uuid
from typing import Any

import orjson
import structlog
from flask import Flask, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)

from service.services.readiness import ReplicaState, Replication, lag_gauge_value

from .context import current_g, current_request

_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_configured = False
DEFAULT_METRICS_BIND = "127.0.0.1:9100"
_OFF = frozenset({"", "off", "none", "false", "disabled"})


def _json_line(event: dict[str, Any], **_: Any) -> str:
    """A log line's JSON by orjson (a request's access line: 9.9 us instead of 13.5 with the
    standard library's encoder); a value it cannot encode is written as its `repr`, as before."""
    return orjson.dumps(event, default=repr, option=orjson.OPT_NON_STR_KEYS).decode()


def configure_logging(level: str = "INFO") -> None:
    """JSON lines on stdout, once per process (structlog's configuration is global)."""
    global _configured
    if _configured:
        return
    stamp: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    # The standard library's records (the libraries', and this service's own modules that
    # log through `logging`) as the same JSON lines, with their logger's name, their
    # traceback as text and the request's id: the log store reads one format.
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*stamp, structlog.stdlib.add_logger_name, structlog.stdlib.ExtraAdder()],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                structlog.processors.JSONRenderer(serializer=_json_line),
            ],
        )
    )
    logging.basicConfig(handlers=[handler], level=level.upper())
    structlog.configure(
        processors=[
            *stamp,
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(serializer=_json_line),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
        ),
        logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        cache_logger_on_first_use=False,  # tests change the level at run time
    )
    _configured = True


class Metrics:
    """Per-app metrics in their own registry, so a new app per test registers nothing twice.

    Under gunicorn (PROMETHEUS_MULTIPROC_DIR set) the values live in per-process files that
    the master's `MetricsServer` sums; the registry here then only names the metrics.
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.latency = Histogram(
            "capsa_http_request_duration_seconds",
            "Request latency by endpoint name (never by path), method (\"other\" for any but the standard ones) and status.",
            ["endpoint", "method", "status"],
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=self.registry,
        )
        self.rounds = Counter(
            "capsa_rounds_scored_total",
            "Rounds scored, by rule preset; stored is false for POST /v1/score previews.",
            ["preset", "stored"],
            registry=self.registry,
        )

        # Set by each check /readyz makes (the probes call it every few seconds, and a worker
        # checks at most once every READY_CACHE_S): the last answer wins.
        self.replication = Gauge(
            "capsa_database_replication",
            "1 for the replication state /readyz last saw (synchronous, waiting, asynchronous, unknown), 0 for the others.",
            ["state"],
            multiprocess_mode="mostrecent",
            registry=self.registry,
        )
        # Unlabelled, so made at first use: in a gunicorn master (which builds the app before
        # PROMETHEUS_MULTIPROC_DIR exists) a value would open its file at once.
        self._standbys: Gauge | None = None
        self._lock = threading.Lock()
        # Made at the first probe: a gauge without labels opens its multiprocess file when
        # made, which the preloading master must not do (and without a standby, never).
        self.replica_lag: Gauge | None = None

    def database_state(self, replication: Replication, standbys: int) -> None:
        for each in Replication:
            self.replication.labels(state=str(each)).set(1 if each is replication else 0)
        with self._lock:
            if self._standbys is None:
                self._standbys = Gauge(
                    "capsa_database_standbys",
                    "Streaming standbys of the primary, as /readyz last saw them.",
                    multiprocess_mode="mostrecent",
                    registry=self.registry,
                )
        self._standbys.set(standbys)

    def replica_probed(self, found: ReplicaState) -> None:
        with self._lock:
            if self.replica_lag is None:
                self.replica_lag = Gauge(
                    "capsa_replica_lag_seconds",
                    "The reports' standby (READ_DATABASE_URL) behind the primary, as last probed; NaN "
                    "when it does not answer. Past READ_MAX_LAG_S the primary serves the reports.",
                    registry=self.registry,
                    multiprocess_mode="livemax",
                )
            self.replica_lag.set(lag_gauge_value(found))

    def round_scored(self, preset: str, stored: bool) -> None:
        self.rounds.labels(preset=preset, stored=str(stored).lower()).inc()

    def exposition(self) -> Response:
        """The text exposition of these metrics (of every process in multiprocess mode)."""
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # untyped upstream
            data = generate_latest(registry)
        else:
            data = generate_latest(self.registry)
        return Response(data, content_type=CONTENT_TYPE_LATEST)


def metrics_address(bind: str | None) -> tuple[str, int] | None:
    """`host:port` (`[::1]:9100` for IPv6) as (host, port); None when metrics are off."""
    value = (bind or "").strip()
    if value.lower() in _OFF:
        return None
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"METRICS_BIND must be host:port or off, not {value!r}")
    return host.removeprefix("[").removesuffix("]"), int(port)


class MetricsServer:
    """The Prometheus endpoint of a gunicorn master: every worker's values, summed from the
    files in PROMETHEUS_MULTIPROC_DIR, on its own address (any path answers).

    With `wait`, an address in use is taken once it is free: a new master started by USR2
    meets its old master still serving there, and takes the address over when that one
    stops (a try every `WAIT_S`); until then the old master answers. Without it, an address
    in use refuses the start."""

    WAIT_S = 0.5

    def __init__(self, host: str, port: int, wait: bool = False) -> None:
        self.registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(self.registry)  # type: ignore[no-untyped-call]  # untyped upstream
        self.address: tuple[Any, ...] = (host, port)
        self.httpd: Any = None
        self._lock = threading.Lock()
        try:
            self._bind()
        except OSError as exc:
            if not (wait and exc.errno == errno.EADDRINUSE):
                raise RuntimeError(f"METRICS_BIND {host}:{port}: {exc.strerror or exc}") from exc
            threading.Thread(target=self._bind_when_free, name="metrics-bind", daemon=True).start()

    def _bind(self) -> None:
        with self._lock:
            self.httpd, self.thread = start_http_server(self.address[1], addr=self.address[0], registry=self.registry)
            self.address = self.httpd.server_address

    def _bind_when_free(self) -> None:
        while True:
            time.sleep(self.WAIT_S)
            try:
                self._bind()
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    logging.getLogger("service").error("METRICS_BIND %s:%s: %s", *self.address[:2], exc)
                    return
            else:
                logging.getLogger("service").info("Serving metrics at http://%s:%s/metrics", *self.address[:2])
                return

    @property
    def serving(self) -> bool:
        return self.httpd is not None

    def close_in_child(self) -> None:
        """In a forked worker: drop the inherited listening socket (the master keeps serving)."""
        with self._lock:
            if self.httpd is not None:
                self.httpd.socket.close()
                self.httpd = None


def serve_metrics(bind: str | None, wait: bool = False) -> MetricsServer | None:
    """Start serving the metrics on `bind` in a daemon thread (gunicorn's `when_ready`);
    with `wait`, once the address is free (`MetricsServer`)."""
    address = metrics_address(bind)
    if address is None:
        return None
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        raise RuntimeError("serve_metrics needs PROMETHEUS_MULTIPROC_DIR (set by gunicorn.conf.py)")
    return MetricsServer(*address, wait=wait)


log = structlog.get_logger("service.access")


def init_request() -> None:
    """First before_request hook: the request id and the clock."""
    incoming = current_request().headers.get("X-Request-ID", "")
    request_id = incoming if _REQUEST_ID.fullmatch(incoming) else uuid.uuid4().hex
    state = current_g()
    state.request_id, state.started = request_id, time.perf_counter()
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(request_id=request_id)


VIEW_PAGES = "/view/rounds/"  # a round page's path: the rest is a bearer token (a view link)


def loggable_path(path: str) -> str:
    """The request's path as logged: a view link's token left out (anyone holding the link
    may open the round's page, so a log reader must not get it), however many slashes the
    client put between the path's parts (the router redirects those to the page), and, as
    nginx's log has it, in any case and with dot segments (`/VIEW/rounds/...`,
    `/x/../view/rounds/...`: not the page, a 404, but the token all the same).

    >>> loggable_path("/View/./rounds/t0ken"), loggable_path("/v1/rounds")
    ('/view/rounds/-', '/v1/rounds')
    """
    collapsed = _SLASHES.sub("/", path)
    if collapsed.startswith(VIEW_PAGES):
        return VIEW_PAGES + "-"
    folded = collapsed.lower()
    if "view" in folded and posixpath.normpath(folded).startswith(VIEW_PAGES):
        return VIEW_PAGES + "-"
    return path


_SLASHES = re.compile("/{2,}")
# The methods a label may name: a caller may send any token as a method (405), and each one
# a label value of its own would grow every scrape without bound; the rest are "other".
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def install(app: Flask, metrics: Metrics) -> None:
    @app.after_request
    def _log_and_measure(response: Response) -> Response:
        state, req = current_g(), current_request()
        started = state.get("started")
        duration = time.perf_counter() - started if started is not None else 0.0
        response.headers["X-Request-ID"] = state.get("request_id", "")
        endpoint = req.endpoint or "unmatched"
        method = req.method if req.method in _METHODS else "other"
        metrics.latency.labels(endpoint, method, str(response.status_code)).observe(duration)
        principal = state.get("principal")
        log.info(
            "request",
            method=req.method,
            path=loggable_path(req.path),
            endpoint=endpoint,
            status=response.status_code,
            duration_ms=round(duration * 1000, 2),
            client_id=principal.client_id if principal else None,
        )
        return response
