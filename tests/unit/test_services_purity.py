"""The use cases keep SQL behind the repositories: a module of the service layer imports no
SQLAlchemy and no ORM model (`service.adapters.models`); repositories take plain values and
hand back frozen records. Checked today for the Big Two services (service/services/banting/);
`PACKAGES` is the list to widen to all of service/services/.
"""

import pathlib

import pytest
from test_domain_purity import ROOT, imports_of, within

SERVICES = ROOT / "service" / "services"
PACKAGES = ("banting",)
MODULES = sorted(p for package in PACKAGES for p in (SERVICES / package).rglob("*.py"))
FORBIDDEN = ("sqlalchemy", "service.adapters.models")


def service_id(path: pathlib.Path) -> str:
    return path.relative_to(SERVICES).as_posix()


@pytest.mark.parametrize("path", MODULES, ids=service_id)
def test_a_service_module_imports_no_sqlalchemy_and_no_orm_model(path):
    found = {n for n in imports_of(path) if within(n, FORBIDDEN)}
    assert not found, f"{service_id(path)} imports {found}"


def test_the_check_sees_every_big_two_module():
    names = {service_id(p) for p in MODULES}
    assert {
        "banting/__init__.py", "banting/games.py", "banting/timers.py", "banting/store.py",
        "banting/recording.py", "banting/matches.py",
    } <= names


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
    ],
)
def test_the_check_resolves_relative_imports(module, source, forbidden):
    from test_domain_purity import imported_names

    assert any(within(n, FORBIDDEN) for n in imported_names(source, module)) is forbidden
