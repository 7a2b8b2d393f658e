"""The Flask app factory: config, database, blueprints, errors, auth, docs, logs, metrics."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import structlog
import swagger_ui_bundle
from flask import Flask, Response, g, send_from_directory
from werkzeug.exceptions import MethodNotAllowed, NotFound

from service.adapters import keyfile, replicas
from service.adapters.db import DEFAULT_DATABASE_URL, without_password
from service.adapters.uow import Database
from service.domain import settings
from service.domain.errors import SettingError
from service.domain.signing import KeyringError
from service.domain.version import ENGINE_VERSION
from service.services import clients, readiness, view_links
from service.services.clock import utcnow_ms
from service.services.errors import Forbidden, Unauthorized
from service.services.idempotency import Purger
from service.strictjson import MAX_BODY

from . import docs_page, heavy_reads, paths, problems, proxies, queryguard, ratelimit, textguard
from .auth import authenticate_request
from .blueprints import arrangements, banting, deals, health, home, problem_pages, round_pages, rounds, rules
from .blueprints import audit as audit_routes
from .blueprints import ledger as ledger_routes
from .blueprints import susun_games as susun_game_routes
from .blueprints import webhooks as webhook_routes
from .body import check_no_fields, load_body
from .context import current_g, current_request
from .observability import Metrics, configure_logging, init_request, install
from .problems import Problem
from .spec import DESCRIPTION, CapsaApi, spec_yaml
from .state import Capsa, state

log = structlog.get_logger("service.api")

_JSON = ["application/json"]
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


# The files of the Swagger UI bundle the /docs page loads (templates/swagger_ui.html).
DOCS_ASSETS = frozenset({"swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"})


def _number(
    name: str, default: float, *, whole: bool = False, least: float = 0.0, unit: str = "", most: float | None = None
) -> Any:
    """The variable as a number (`settings.number`), at least `least` (and at most `most`)."""
    return settings.number(os.environ, name, default, whole=whole, least=least, unit=unit, most=most)


def _env_config() -> dict[str, Any]:
    return {
        "DATABASE_URL": os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL),
        # The reporting routes' standby (unset: the primary serves them), and the lag past
        # which the primary serves them anyway.
        "READ_DATABASE_URL": os.environ.get("READ_DATABASE_URL", ""),
        "READ_MAX_LAG_S": _number("READ_MAX_LAG_S", replicas.DEFAULT_MAX_LAG_S),
        "LOG_LEVEL": settings.log_level(os.environ, "LOG_LEVEL"),
        "DATABASE_OPTIONS": {},
        # PostgreSQL statement_timeout per connection (0: none); a statement over it is a 503.
        "DATABASE_STATEMENT_TIMEOUT_MS": _number("DATABASE_STATEMENT_TIMEOUT_MS", 5000, whole=True, unit="milliseconds"),
        # Per-client limit on /v1 ("off" disables); counters in memory unless a storage URI.
        # (an empty variable is its default, as an unset one: compose writes `RATE_LIMIT:` so)
        "RATE_LIMIT": os.environ.get("RATE_LIMIT", "").strip() or ratelimit.DEFAULT_RATE_LIMIT,
        # Per-address limit on requests without a valid key ("off" disables).
        "RATE_LIMIT_ANONYMOUS": os.environ.get("RATE_LIMIT_ANONYMOUS", "").strip()
        or ratelimit.DEFAULT_RATE_LIMIT_ANONYMOUS,
        "RATELIMIT_STORAGE_URI": os.environ.get("RATELIMIT_STORAGE_URI", ""),
        "RATELIMIT_KEY_PREFIX": os.environ.get("RATELIMIT_KEY_PREFIX", "capsa"),
        # Per worker: a revoked key is refused by every worker within this many seconds.
        "API_KEY_CACHE_SECONDS": _number("API_KEY_CACHE_SECONDS", clients.CACHE_SECONDS),
        # Per worker: /readyz answers with what it found for this long (0: it checks each time).
        "READY_CACHE_S": _number("READY_CACHE_S", readiness.DEFAULT_CACHE_S, most=60),
        # How long a view link opens (seconds): read here, so a bad value stops the start, not
        # every link request (a 500 each).
        "VIEW_LINK_TTL": _number("VIEW_LINK_TTL", view_links.DEFAULT_TTL, whole=True, least=1,
                                 most=settings.MAX_DURATION_S),
        # The peers whose X-Forwarded-For names the client (gunicorn reads the same variable).
        "FORWARDED_ALLOW_IPS": os.environ.get(
            "FORWARDED_ALLOW_IPS", proxies.DEFAULT_FORWARDED_ALLOW_IPS
        ),
        # Expired Idempotency-Key records deleted by each worker about once a minute.
        "IDEMPOTENCY_PURGE": os.environ.get("IDEMPOTENCY_PURGE", "on") != "off",
        # The receipts' keyring (`capsa keys create`); unset: records are stored unsigned.
        "SIGNING_KEY_FILE": os.environ.get(keyfile.ENV, ""),
        # Heavy reads (verify, exports, CSV) one client may have in flight on this server
        # ("off": no bound), and the directory of their slots, shared by the server's workers.
        "HEAVY_READS_PER_CLIENT": os.environ.get("HEAVY_READS_PER_CLIENT", "").strip()
        or str(heavy_reads.DEFAULT_PER_CLIENT),
        "HEAVY_READS_DIR": os.environ.get(heavy_reads.ENV_DIR, ""),
    }


class CapsaFlask(Flask):
    """Flask, minus a check per hook: `ensure_sync` asked `inspect.iscoroutinefunction`
    of every hook and view on every request (16 calls a stored round, 3% of its CPU). A
    plain function or method is returned as it is; anything else goes to Flask's check."""

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        code = getattr(func, "__code__", None)
        if code is not None and not code.co_flags & inspect.CO_COROUTINE:
            return func
        return super().ensure_sync(func)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app; `config` overrides the environment (DATABASE_URL, LOG_LEVEL, ...)."""
    app = CapsaFlask(__name__)
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY,
        API_TITLE="Capsa scoring service",
        API_VERSION=ENGINE_VERSION,
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        # No badge from validator.swagger.io: the page loads nothing from elsewhere (docs_page.py).
        OPENAPI_SWAGGER_UI_CONFIG={"validatorUrl": None},
        API_SPEC_OPTIONS={
            "info": {"description": DESCRIPTION},
            "servers": [{"url": "/"}],
            "security": [{"bearerAuth": []}],
            "components": {
                "securitySchemes": {
                    "bearerAuth": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "capsa_<prefix>_<secret>, from `capsa clients create`.",
                    }
                }
            },
        },
    )
    app.config.update(_env_config())
    app.config.update(config or {})
    configure_logging(app.config["LOG_LEVEL"])

    key_file = app.config.get("SIGNING_KEY_FILE") or ""
    app.extensions["capsa"] = Capsa(
        db=Database(
            app.config["DATABASE_URL"],
            keyring=keyfile.load(Path(key_file)) if key_file else None,
            clock=utcnow_ms,
            **{
                "statement_timeout_ms": app.config["DATABASE_STATEMENT_TIMEOUT_MS"],
                **app.config["DATABASE_OPTIONS"],
            },
        ),
        metrics=Metrics(),
        keys=clients.KeyCache(app.config["API_KEY_CACHE_SECONDS"]),
        ready=readiness.Probe(app.config["READY_CACHE_S"]),
    )
    capsa = state_of(app)
    heavy_reads.install(app)
    if app.config["READ_DATABASE_URL"]:
        if not str(app.config["READ_DATABASE_URL"]).startswith("postgresql"):
            # SQLite has no standby: another file's empty tables were served as reports.
            raise SettingError(
                "READ_DATABASE_URL must name a PostgreSQL standby of DATABASE_URL (postgresql://...), "
                f"not {without_password(str(app.config['READ_DATABASE_URL']))!r}"
            )
        replica = replicas.Replica(
            app.config["READ_DATABASE_URL"],
            keyring=capsa.db.keyring,
            clock=utcnow_ms,
            max_lag_s=app.config["READ_MAX_LAG_S"],
            **{
                "statement_timeout_ms": app.config["DATABASE_STATEMENT_TIMEOUT_MS"],
                **app.config["DATABASE_OPTIONS"],
            },
        )
        replica.on_probe = capsa.metrics.replica_probed
        capsa.db.replica = replica
    if app.config["IDEMPOTENCY_PURGE"]:
        capsa.purger = Purger(capsa.db)
    app.url_map.converters["id"] = paths.ClientIdConverter
    app.url_map.converters["int"] = paths.AsciiIntegerConverter
    app.url_map.converters["deal"] = paths.DealIdConverter
    api = CapsaApi(app)
    api.register_converter(paths.ClientIdConverter, paths.id_schema)
    api.ma_plugin.converter.add_attribute_function(_openapi_attributes)
    for module in (health, rules, arrangements, rounds, deals, banting):
        api.register_blueprint(module.blp)
    for module in (audit_routes, ledger_routes, round_pages, susun_game_routes):
        api.register_blueprint(module.blp)
    api.register_blueprint(webhook_routes.blp)
    api.register_blueprint(webhook_routes.events_blp)
    app.register_blueprint(round_pages.pages)  # the HTML round view (no key, not in /v1)
    app.register_blueprint(problem_pages.pages)  # /problems/<type> for people (no key)
    app.register_blueprint(home.pages)  # GET / for people and clients, /docs/ -> /docs
    problems.register(app)
    docs_page.install(app)
    install(app, state_of(app).metrics)
    app.before_request(_before_request)
    ratelimit.install(app)  # after authentication (the key is the client), before the body
    app.before_request(_refuse_counted)  # after the limiter: key guessing and refused calls are counted
    app.before_request(_read_body)
    app.after_request(_purge_after_response)
    app.after_request(_never_cached)
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/v1/"):
            # An empty segment names nothing: `/v1/ledger/players//statement` is a 404, not
            # Werkzeug's redirect to the totals of a player named `statement` (the pages,
            # a round's among them, keep the redirect).
            rule.merge_slashes = False
    app.wsgi_app = proxies.TrustedProxies(  # type: ignore[method-assign]  # Flask's middleware idiom
        app.wsgi_app, app.config["FORWARDED_ALLOW_IPS"]
    )
    state_of(app).spec = partial(spec_yaml, api)

    @app.get("/openapi.yaml")
    def openapi_yaml() -> Response:
        return Response(state().spec_yaml, content_type="application/yaml")

    @app.get("/docs/assets/<path:filename>")
    def docs_assets(filename: str) -> Response:
        # Only what /docs loads: the bundle's own pages (index.html, oauth2-redirect.html) are
        # another Swagger UI, without this service's security headers.
        if filename not in DOCS_ASSETS:
            raise NotFound()
        response = send_from_directory(swagger_ui_bundle.swagger_ui_path, filename, max_age=3600)
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    return app


def _openapi_attributes(self: Any, field: Any, **_: Any) -> dict[str, Any]:
    return dict(getattr(field, "openapi", {}))


def state_of(app: Flask) -> Capsa:
    capsa: Capsa = app.extensions["capsa"]
    return capsa


def reload_signing_keys(app: Flask) -> str | None:
    """Read SIGNING_KEY_FILE again (gunicorn's post_fork, in each new worker): the master
    loads the app, and its keyring, once at start, so without this the workers a HUP forks
    after `capsa keys create` would sign with the retired key. A file that no longer reads
    leaves the keyring the app started with; the reason is returned for the log."""
    key_file = app.config.get("SIGNING_KEY_FILE") or ""
    if not key_file:
        return None
    try:
        keyring = keyfile.load(Path(key_file))
    except KeyringError as exc:
        return str(exc)
    db = state_of(app).db
    db.keyring = keyring
    if db.replica is not None:
        db.replica.db.keyring = keyring
    return None


def _before_request() -> None:
    init_request()
    req = current_request()
    path = req.path
    # A path no route takes (404) or a method it does not (405) is answered by its routing
    # error, counted like any other request: by the client's limit with a valid key, else
    # by the address's (a scan of made-up paths is no free ride).
    if isinstance(req.routing_exception, MethodNotAllowed) and path.startswith("/v1/") and "//" in path:
        # Werkzeug's 405 for an empty segment comes from its retry with the slashes merged
        # (`/v1/rounds//void` as `/v1/rounds/void`, a round's GET route), which no /v1/
        # route accepts: no route takes this path.
        req.routing_exception = NotFound()
    routed = req.routing_exception is None
    # Refusals before the view are answered once the rate limit has counted them (the
    # client's, or the address's without a valid key): a missing or bad key (401), a read
    # key's write (403), an answer type the route cannot give (406, which comes first).
    unacceptable = None
    if routed and (path.startswith("/v1/") or path in ratelimit.PROBES):
        accept = req.headers.get("Accept", "").strip()
        types = _answer_types(path)
        if accept and req.accept_mimetypes.best_match(types) is None:
            unacceptable = Problem(406, "not-acceptable", f"this route answers {', '.join(types)} only")
    if path.startswith("/v1/"):
        try:
            authenticate_request()
        except (Unauthorized, Forbidden) as refused:
            if routed:
                g.refused = refused
    if unacceptable is not None:
        if not path.startswith("/v1/"):
            raise unacceptable  # a probe: no limit counts it
        g.refused = unacceptable


def _answer_types(path: str) -> list[str]:
    """The media types a route's answer comes in, one of which Accept must allow: a client
    that accepts only problems (`application/problem+json`, which every error is whatever
    Accept says) or refuses the route's type (`*/*, application/json;q=0`) cannot take it."""
    if path == "/v1/ledger/entries" or (path.startswith("/v1/ledger/players/") and path.endswith("/statement")):
        return [*_JSON, "text/csv"]
    if path == "/v1/audit/export":
        return ["application/x-ndjson"]
    return _JSON


def _refuse_counted() -> None:
    refused = g.pop("refused", None)
    if refused is not None:
        raise refused


def _never_cached(response: Response) -> Response:
    """No cache may keep an answer of the API: a hand, a deal, a secret, a view link's token or
    a ledger is one client's, and one key's view of a resource is not another's (RFC 9111
    5.2.2.5, 4.1). An answer chosen by Accept (JSON or CSV) varies by it too."""
    if current_request().path.startswith("/v1/"):
        headers = response.headers
        headers.setdefault("Cache-Control", "no-store")
        # Set as text, not through `response.vary` (a parsed header set: 8 µs a request).
        vary = "Authorization, Accept" if current_g().get("negotiated") else "Authorization"
        before = headers.get("Vary")
        headers["Vary"] = f"{before}, {vary}" if before else vary
    return response


def _purge_after_response(response: Response) -> Response:
    """Expired Idempotency-Key records go once the answer is out (sync workers send it after
    this request's teardown; the client never waits for the purge)."""
    purger = state().purger
    if purger is not None and purger.due():
        response.call_on_close(_purge_quietly(purger))
    return response


def _purge_quietly(purger: Purger) -> Any:
    def run() -> None:
        try:
            purger.run_if_due()
        except Exception:  # a failed purge is retried a minute later; never the request's error
            log.warning("idempotency_purge_failed", exc_info=True)

    return run


def _read_body() -> None:
    req = current_request()
    if req.routing_exception is not None:
        return
    path = req.path
    if path in ratelimit.PROBES:
        queryguard.check_query_names()
    if path.startswith("/v1/"):
        paths.check_path_ids()  # a player's id quoted at path.player, NUL too
        textguard.check_request_line()
        queryguard.check_query_names()
        if req.method in _BODY_METHODS:
            load_body()
            state = current_g()
            textguard.check_body(state.get("body"), state.get("raw_body"))
            check_no_fields(state.get("body"))
