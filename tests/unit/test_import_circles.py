"""Imports under service/ run one way: no module imports, through any chain of imports, a
module that imports it back. Every import counts, those under TYPE_CHECKING and inside
functions too (they hide a circle rather than break it); a module's import of its own
package does not (Python loads the package first anyway, and `from . import x` names it).
"""

import pathlib

import pytest
from test_domain_purity import ROOT, imports_of, module_name

SERVICE = ROOT / "service"


def import_graph(root: pathlib.Path) -> dict[str, set[str]]:
    """Each module under `root` -> the modules under `root` it imports."""
    modules = {module_name(p): p for p in sorted(root.rglob("*.py"))}
    return {
        name: {n for n in imports_of(path) if n in modules and n != name and not name.startswith(n + ".")}
        for name, path in modules.items()
    }


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_module_under_service_is_in_an_import_circle():
    assert circles(import_graph(SERVICE)) == []


def test_the_graph_sees_the_layers_and_their_imports():
    graph = import_graph(SERVICE)
    assert {"service.adapters.uow", "service.adapters.chain", "service.domain.rules", "service.api.app"} <= set(graph)
    assert "service.adapters.chain" in graph["service.adapters.uow"]
    assert "service.adapters.transactions" in graph["service.adapters.chain"]


@pytest.mark.parametrize(
    "graph, expected",
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [["a", "b"], ["c", "d"]]),
    ],
)
def test_circles_finds_each_strongly_connected_group(graph, expected):
    assert circles(graph) == expected


def test_an_import_under_type_checking_or_in_a_function_counts(tmp_path, monkeypatch):
    package = tmp_path / "service" / "adapters"
    package.mkdir(parents=True)
    (tmp_path / "service" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "uow.py").write_text("from . import chain\n")
    (package / "chain.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .uow import UnitOfWork\n"
    )
    (package / "lazy.py").write_text("def f():\n    from service.adapters import uow\n")
    (package / "leaf.py").write_text("from service.adapters import records\n")
    import test_domain_purity

    monkeypatch.setattr(test_domain_purity, "ROOT", tmp_path)
    graph = import_graph(tmp_path / "service")
    assert graph["service.adapters.lazy"] == {"service.adapters.uow"}
    assert graph["service.adapters.leaf"] == set()  # the package itself, and no such module
    assert circles(graph) == [["service.adapters.chain", "service.adapters.uow"]]
