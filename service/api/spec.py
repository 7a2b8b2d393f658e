"""The OpenAPI document: info, security, problem responses; YAML as committed in openapi.yaml."""

from __future__ import annotations

import http
from typing import Any

import yaml  # type: ignore[import-untyped]
from flask_smorest import Api
from flask_smorest.utils import prepare_response

from .fields import OPEN_ENUMS
from .problems import PROBLEM_BY_STATUS, TITLES
from .schemas.problems import PROBLEM_TYPES, ProblemSchema

PROBLEM_CONTENT_TYPE = "application/problem+json"

DESCRIPTION = """\
Scores Capsa Susun / Chinese Poker rounds and stores them.

Bodies are JSON (`application/json`, UTF-8, at most 64 KiB). Money is a decimal **string**
worth a whole number of the currency's minor units (`"1000"` for IDR, `"12.50"` for USD;
answers carry exactly the currency's digits), never a JSON number. Everything under `/v1` needs `Authorization: Bearer <api key>`; a `read` key
may call every GET, the POSTs that store nothing (`/v1/score`, `/v1/arrangements/evaluate`,
`/v1/arrangements/suggest`, `/v1/banting/plays/evaluate`) and `POST /v1/rounds/{id}/view-link`.

Every error is an RFC 9457 problem (`application/problem+json`) with `type`, `title`,
`status`, `detail` and `errors: [{field, message}]`, where `field` is a path into the body
(`players[1].arrangement.front[2]`) or `header.<Name>` / `query.<name>`. Each `type`
opens, in a browser, a page that explains it (`/problems` lists them all). An empty POST
body without a Content-Type reads as `{}`; an empty body sent as `application/json` is 400,
except where the body is optional or none is read (any empty body is then `{}`).

Rate limits: every `/v1` answer carries `RateLimit-Policy: "client";q=1200;w=60` (the
quota per window of `w` seconds; `"anonymous"` for a request without a valid key) and
`RateLimit: "client";r=1187;t=42` (requests left, seconds until the window resets), as
the IETF httpapi ratelimit-headers draft defines them; over the quota: 429 with Retry-After.
The heavy reads (verify, the audit export, the ledger's CSV, statements, reports over a
period, suggestions, and pages of over 100 events) are also bounded in flight: 2
per client on each server by default, another answered 429 with Retry-After.

Lists (`GET /v1/rounds`, `/v1/deals`, `/v1/banting/games`, `/v1/ledger/entries`) are
newest first, in pages: pass `next_cursor` back as `cursor` until it is null.

The client developers' guide is docs/api.md in the service's repository.

Limits:

- A body over 64 KiB is 413, with a Content-Length or chunked.
- A query parameter the operation does not list, or one given twice, is 422 on
  `query.<name>`; so is a time whose UTC instant is outside 0001-01-01 to 9999-12-31.
- Every amount of a round (pair amounts, results, winnings, fees, nets, the house fee) is
  at most 10^18 minor units: a round beyond that is 422 on `stake`; a stake is at most 10^15.
- `Idempotency-Key` (one per request: two headers are 422) keeps its answer for **24 hours**
  after the request; after that the record is deleted (by the service itself, about once a
  minute, or by `capsa idempotency purge`) and the key is free again.
- A CSV export of ledger lines carries at most 100,000 lines; `Link: rel="next"` names the rest.

Problem types:

""" + "\n".join(f"- `/problems/{p}` ({s}): {d}" for p, (s, d) in PROBLEM_TYPES.items())

_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "schema": {"type": "integer", "example": 1},
    }
}


def _problem_example(status: int, problem: str) -> dict[str, Any]:
    return {
        "type": f"/problems/{problem}",
        "title": TITLES.get(problem, problem),
        "status": status,
        "detail": PROBLEM_TYPES[problem][1],
        "errors": [],
    }


class CapsaApi(Api):  # type: ignore[misc]  # flask-smorest ships no types
    """flask-smorest's Api with problem+json error responses documented and produced."""

    ERROR_SCHEMA = ProblemSchema

    def _init_spec(self, *args: Any, **kwargs: Any) -> None:
        super()._init_spec(*args, **kwargs)
        for name, values in OPEN_ENUMS.items():
            self.spec.components.schema(name, {"type": "string", "enum": values})

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            if status < 400:
                continue
            problem = PROBLEM_BY_STATUS.get(status, "internal" if status >= 500 else "validation")
            response: dict[str, Any] = {
                "description": f"{status.phrase}: problem `/problems/{problem}`.",
                "schema": self.ERROR_SCHEMA,
                "example": _problem_example(int(status), problem),
            }
            if status in (429, 503):
                response["headers"] = _RETRY_AFTER
            if status == 409:  # only the in-flight retry is told to wait; a conflict is final
                response["headers"] = {"Retry-After": {
                    **_RETRY_AFTER["Retry-After"],
                    "description": "With `idempotency-in-flight` only: seconds to wait before retrying with the "
                    "same Idempotency-Key. Other 409s carry none: do not retry them unchanged.",
                }}
            if status == 401:
                response["headers"] = {
                    "WWW-Authenticate": {
                        "description": "`Bearer`",
                        "schema": {"type": "string", "example": 'Bearer realm="capsa"'},
                    }
                }
            if status == 422:
                response["description"] = (
                    "Valid JSON that cannot be processed: schema violations (`validation`), "
                    "and bodies that fit the schema but break the game rules: "
                    "`invalid-cards`, `unknown-rules`, bad money, `idempotency-key-reused`."
                )
            prepare_response(response, self.spec, PROBLEM_CONTENT_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        default = {
            "description": "Any other error, as a problem.",
            "schema": self.ERROR_SCHEMA,
            "example": _problem_example(500, "internal"),
        }
        prepare_response(default, self.spec, PROBLEM_CONTENT_TYPE)
        self.spec.components.response("DEFAULT_ERROR", default, lazy=True)

    def _register_pagination_header(self) -> None:
        """Our lists page with an opaque cursor in the body, not flask-smorest's header."""

    def handle_http_exception(self, error: Any) -> Any:
        from .problems import handle_http_exception

        return handle_http_exception(error)


class _Dumper(yaml.SafeDumper):  # type: ignore[misc]  # PyYAML's stubs are not installed
    """Block style for multi-line strings, so descriptions read as written."""


def _block_style(dumper: yaml.SafeDumper, value: str) -> Any:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _block_style)
_ORDER = ("openapi", "info", "servers", "security", "tags", "paths", "components")


def spec_yaml(api: Api) -> str:
    spec = api.spec.to_dict()
    ordered = {k: spec[k] for k in _ORDER if k in spec}
    ordered.update({k: v for k, v in spec.items() if k not in ordered})
    return str(
        yaml.dump(ordered, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    )
