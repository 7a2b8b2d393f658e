"""The API layer talks to the services, not to the adapters: a view, a schema or a hook that
needs a type or a value of the database layer gets it from the service that owns it. Only
the modules that wire the app together import adapters: the app factory and its state
(the Database, the keyring, the replica), the problem mapping (storage errors as 503 and
409) and the rate limiter's storage (a Redis URL shown without its password)."""

import pathlib

import pytest
from test_domain_purity import ROOT, imports_of, within

API = ROOT / "service" / "api"
MODULES = sorted(API.rglob("*.py"))
WIRING = {"app.py", "state.py", "problems.py", "ratelimit.py"}


def api_id(path: pathlib.Path) -> str:
    return path.relative_to(API).as_posix()


@pytest.mark.parametrize("path", [p for p in MODULES if api_id(p) not in WIRING], ids=api_id)
def test_an_api_module_imports_no_adapter(path):
    found = {n for n in imports_of(path) if within(n, ("service.adapters",))}
    assert not found, f"{api_id(path)} imports {found}: import it from the service that owns it"


def test_the_check_sees_the_views_schemas_and_hooks():
    names = {api_id(p) for p in MODULES}
    assert {"blueprints/health.py", "blueprints/ledger.py", "schemas/health.py", "observability.py"} <= names
    assert WIRING <= names
