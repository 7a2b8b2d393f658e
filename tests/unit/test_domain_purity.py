"""The domain is pure: nothing under service/domain imports a web, ORM or schema library, nor
the layers above it; the shared modules know neither game, and the games not each other."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOMAIN = ROOT / "service" / "domain"
MODULES = sorted(DOMAIN.rglob("*.py"))
FORBIDDEN = {"flask", "werkzeug", "sqlalchemy", "psycopg", "psycopg2", "marshmallow", "flask_smorest", "webargs", "alembic"}
LAYERS_ABOVE = ("service.services", "service.adapters", "service.api", "service.commands", "service.cli")
# Every top-level module but the two that gather both games: rules.py (the registry of
# their presets) and rescoring.py (re-scores a stored round of either).
GATHERING = {"__init__", "rules", "rescoring"}
SHARED = tuple(sorted(p.stem for p in DOMAIN.glob("*.py") if p.stem not in GATHERING))
GAMES = ("service.domain.susun", "service.domain.banting")


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module name an import may load, relative imports resolved against `module`'s package.

    `from x import y` yields `x` and `x.y`, since `y` may be a submodule.
    """
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - (node.level - 1)]
                assert len(base) >= 1, f"{module}: the relative import goes above the top package"
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names.add(target)
            names |= {f"{target}.{alias.name}" for alias in node.names}
    return names


def imports_of(path: pathlib.Path) -> set[str]:
    return imported_names(path.read_text(), module_name(path), path.name == "__init__.py")


def within(name: str, packages: tuple[str, ...] | set[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def domain_id(path: pathlib.Path) -> str:
    return path.relative_to(DOMAIN).as_posix()


@pytest.mark.parametrize("path", MODULES, ids=domain_id)
def test_domain_module_imports_no_flask_sqlalchemy_or_marshmallow(path):
    found = {n for n in imports_of(path) if n.split(".")[0] in FORBIDDEN}
    assert not found, f"{domain_id(path)} imports {found}"


@pytest.mark.parametrize("path", MODULES, ids=domain_id)
def test_domain_module_imports_no_service_adapter_api_or_command_code(path):
    found = {n for n in imports_of(path) if within(n, LAYERS_ABOVE)}
    assert not found, f"{domain_id(path)} imports {found}"


@pytest.mark.parametrize("name", SHARED)
def test_a_shared_domain_module_imports_neither_game(name):
    found = {n for n in imports_of(DOMAIN / f"{name}.py") if within(n, GAMES)}
    assert not found, f"{name}.py imports {found}"


@pytest.mark.parametrize("game, other", [(GAMES[0], GAMES[1]), (GAMES[1], GAMES[0])])
def test_one_game_imports_nothing_of_the_other(game, other):
    package = DOMAIN / game.rpartition(".")[2]
    found = {
        (domain_id(path), n)
        for path in sorted(package.rglob("*.py"))
        for n in imports_of(path)
        if within(n, (other,))
    }
    assert not found, f"{game} imports {other}: {sorted(found)}"


@pytest.mark.parametrize(
    "module, source, forbidden",
    [
        ("service.domain.susun.round", "from service.adapters import uow", True),
        ("service.domain.susun.round", "from ...adapters import uow", True),
        ("service.domain.cards", "from .. import services", True),
        ("service.domain.susun.suggest.search", "from ....api.problems import x", True),
        ("service.domain", "from ..commands import arrange", True),
        ("service.domain.cards", "import service.cli", True),
        ("service.domain.cards", "from service import cli", True),
        ("service.domain.susun.round", "from ..errors import CapsaError", False),
        ("service.domain.susun.round", "from .. import audit", False),
        ("service.domain.cards", "from service.domain import audit", False),
        ("service.domain.cards", "from service.domain.money import format_money", False),
    ],
)
def test_the_layer_check_resolves_relative_imports_against_the_package(module, source, forbidden):
    names = imported_names(source, module, is_package=module == "service.domain")
    assert any(within(n, LAYERS_ABOVE) for n in names) is forbidden


def test_the_purity_check_sees_the_domain_modules():
    assert len(MODULES) >= 8
    names = {module_name(p) for p in MODULES}
    assert {"service.domain.cards", "service.domain.susun.round", "service.domain.banting.game"} <= names
