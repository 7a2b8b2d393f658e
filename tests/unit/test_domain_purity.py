"""The domain is pure: nothing under service/domain imports a web, ORM or schema library."""

import ast
import pathlib

import pytest

DOMAIN = pathlib.Path(__file__).resolve().parents[2] / "service" / "domain"
FORBIDDEN = {"flask", "sqlalchemy", "marshmallow", "flask_smorest", "webargs", "alembic"}


@pytest.mark.parametrize("path", sorted(DOMAIN.rglob("*.py")), ids=lambda p: p.name)
def test_domain_module_imports_no_flask_sqlalchemy_or_marshmallow(path):
    tree = ast.parse(path.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert not imported & FORBIDDEN, f"{path.name} imports {imported & FORBIDDEN}"


def test_the_purity_check_sees_the_domain_modules():
    assert len(list(DOMAIN.rglob("*.py"))) >= 8
