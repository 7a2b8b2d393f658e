"""The use cases keep SQL behind the repositories: no module of the service layer
(service/services/, every package of it) imports SQLAlchemy or an ORM model
(`service.adapters.models`); repositories take plain values and hand back frozen records.
"""

import ast
import pathlib

import pytest
from test_domain_purity import ROOT, imports_of, within

SERVICES = ROOT / "service" / "services"
MODULES = sorted(SERVICES.rglob("*.py"))
FORBIDDEN = ("sqlalchemy", "psycopg", "psycopg2", "service.adapters.models")


def service_id(path: pathlib.Path) -> str:
    return path.relative_to(SERVICES).as_posix()


@pytest.mark.parametrize("path", MODULES, ids=service_id)
def test_a_service_module_imports_no_sqlalchemy_and_no_orm_model(path):
    found = {n for n in imports_of(path) if within(n, FORBIDDEN)}
    assert not found, f"{service_id(path)} imports {found}"


def test_the_check_sees_every_module_of_the_service_layer():
    names = {service_id(p) for p in MODULES}
    assert {
        "__init__.py", "deals.py", "clients.py", "idempotency.py",
        "banting/__init__.py", "banting/games.py", "banting/timers.py", "banting/store.py",
        "banting/recording.py", "banting/matches.py",
        "webhooks/endpoints.py", "webhooks/dispatcher.py", "webhooks/events.py",
        "rounds/store.py", "audit/chains.py", "ledger/reports.py", "susun/games.py",
    } <= names
    assert len(names) == len(list(SERVICES.rglob("*.py")))


@pytest.mark.parametrize(
    "module, source, forbidden",
    [
        ("service.services.banting.games", "from service.adapters.models import Game", True),
        ("service.services.banting.games", "from ...adapters.models import Game", True),
        ("service.services.banting.games", "from ...adapters import models", True),
        ("service.services.banting.games", "import sqlalchemy.orm", True),
        ("service.services.banting.games", "from sqlalchemy import select", True),
        ("service.services.banting.games", "from service.adapters.banting import GameRecord", False),
        ("service.services.banting.games", "from ...adapters.uow import UnitOfWork", False),
        ("service.services.banting.games", "from .store import found", False),
        ("service.services.deals", "from service.adapters.models import Deal", True),
        ("service.services.deals", "from ..adapters.models import Deal", True),
        ("service.services.webhooks.endpoints", "from ...adapters.models import Webhook", True),
        ("service.services.webhooks.dispatcher", "from sqlalchemy.orm import Session", True),
        ("service.services.webhooks.endpoints", "from service.adapters.webhooks import WebhookRecord", False),
    ],
)
def test_the_check_resolves_relative_imports(module, source, forbidden):
    from test_domain_purity import imported_names

    assert any(within(n, FORBIDDEN) for n in imported_names(source, module)) is forbidden


ADAPTERS = ROOT / "service" / "adapters"
MODELS = {
    node.name
    for node in ast.parse((ADAPTERS / "models.py").read_text()).body
    if isinstance(node, ast.ClassDef) and node.name not in ("Base", "UTCDateTime", "ExactInteger")
}


def _unquoted(annotation: ast.expr) -> ast.expr:
    """A quoted annotation ('Deal | None') as the expression it spells."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return ast.parse(annotation.value, mode="eval").body
    return annotation


def models_named(path: pathlib.Path) -> set[tuple[str, str, str]]:
    """(class, method, model) for each public method of a class of `path` whose
    annotations name an ORM model: what a service would get or have to build."""
    found = set()
    for cls in ast.parse(path.read_text()).body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for fn in cls.body:
            if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("_"):
                continue
            annotations = [fn.returns, *(a.annotation for a in fn.args.args + fn.args.kwonlyargs)]
            names = {n.id for a in annotations if a is not None for n in ast.walk(_unquoted(a)) if isinstance(n, ast.Name)}
            found |= {(cls.name, fn.name, model) for model in names & MODELS}
    return found


@pytest.mark.parametrize("path", sorted(p for p in ADAPTERS.glob("*.py") if p.name != "models.py"), ids=lambda p: p.name)
def test_no_repository_takes_or_returns_an_orm_row(path):
    assert models_named(path) == set()


def test_the_row_check_sees_a_method_that_returns_a_model(tmp_path):
    assert {"Deal", "Webhook", "SusunGame"} <= MODELS
    source = tmp_path / "deals.py"
    source.write_text(
        "class DealRepository:\n"
        "    def get(self, client_id: str) -> Deal | None: ...\n"
        "    def add(self, row: 'Webhook') -> None: ...\n"
        "    def _private(self) -> Deal: ...\n"
    )
    assert models_named(source) == {("DealRepository", "get", "Deal"), ("DealRepository", "add", "Webhook")}
