"""Schemathesis over every operation with all its default checks: no 500, every answer as documented.

One run per CI (SQLite only: the HTTP behaviour does not depend on the engine), bounded to
FUZZ_EXAMPLES examples per operation and mode (default 30: some 3,000 requests, about 70 s
of one worker, most of it schemathesis drawing them; 60 took 140-165 s, the longest file of a
CI held to 20 minutes); `make fuzz` runs 1000 and prints the figures (examples run, failures
per operation).

Checks: every default check of schemathesis 4 (`not_a_server_error`, status code, content
type, headers and body conformance, `negative_data_rejection`, `positive_data_acceptance`,
`missing_required_header`, `ignored_auth`, `unsupported_method`, ...). A schema-valid body
may still break a game rule (a card twice, an unknown preset, a deal that does not exist),
which the contract answers 422; random path ids name nothing (404); a `reference` or deal used
twice is 409: those are the statuses declared acceptable for positive data. 5xx never is.

Driven through hypothesis directly: schemathesis 4.32's pytest fixture loader does not work
with pytest 9 (it reads a removed `Function._nodeid`).
"""

from __future__ import annotations

import os
import time
from typing import Any

import pytest
import schemathesis
from conftest import make_app, make_tenant
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.config import SchemathesisConfig

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "30"))
POSITIVE_ACCEPTED = ["2xx", "404", "409", "422"]
CONFIG = {
    "checks": {
        "positive_data_acceptance": {"expected-statuses": POSITIVE_ACCEPTED},
    }
}


@pytest.fixture(scope="module")
def fuzz_app(sqlite_url: str) -> Any:
    # Rate limits off: thousands of requests from one client are the point here.
    return make_app(sqlite_url, RATE_LIMIT="off", RATE_LIMIT_ANONYMOUS="off")


def operations(app: Any) -> list[Any]:
    config = SchemathesisConfig.from_dict(CONFIG)
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app, config=config)
    return [result.ok() for result in schema.get_all_operations()]


def vanishes(case: Any) -> bool:
    """A query parameter whose value is an empty list or object is not in the URL at all:
    the server sees a valid request that schemathesis counts as an unknown parameter."""
    return any(value in ([], {}) for value in (case.query or {}).values())


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_operation_answers_500_or_breaks_its_documented_contract(fuzz_app, mode):
    headers = make_tenant(fuzz_app).headers
    ops = operations(fuzz_app)
    assert len(ops) >= 8
    documented = {(r.rule, m) for r in fuzz_app.url_map.iter_rules() for m in r.methods or ()}
    assert len(ops) >= len([1 for rule, m in documented if rule.startswith("/v1/") and m in ("GET", "POST")])
    examples = 0
    failures: dict[str, str] = {}
    started = time.monotonic()
    for operation in ops:
        ran = [0]

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def check(case: Any) -> None:
            if vanishes(case):
                return
            ran[0] += 1  # noqa: B023 - check() runs within this iteration
            case.call_and_validate(headers=headers)

        try:
            check()
        except Unsatisfiable:
            # Nothing to make invalid (no parameters, no body): only positive cases exist.
            assert mode == GenerationMode.NEGATIVE
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - schemathesis raises a BaseExceptionGroup
            failures[operation.label] = str(exc)[:2000]
        examples += ran[0]
    print(
        f"\nschemathesis {mode.value}: {len(ops)} operations, {examples} examples, "
        f"{len(failures)} failing operations, {time.monotonic() - started:.1f} s "
        f"(FUZZ_EXAMPLES={EXAMPLES})"
    )
    assert not failures, "\n\n".join(f"{label}:\n{text}" for label, text in failures.items())
