"""The layers hold: read from the source's imports (every import, also those inside
functions), so a shortcut through another layer's internals fails here, not in review.

- Only the storage layer (``db``, ``store``, ``catalog``, ``queries``, ``history``,
  ``ledger``, ``migrations``) touches the database schema or SQLAlchemy.
- Nobody imports another package's private names.
- The engine and the agent never import each other (they meet in ``runners``); the ledger
  and the runners never import the engine; and the engine's side of Errands has no import
  cycle at all.
- ``Engine`` is a coordinator: no base classes, fewer than 20 methods.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

PACKAGE = Path(__file__).resolve().parents[1] / "desktop" / "errands"
STORAGE = ("errands.db", "errands.store", "errands.catalog", "errands.queries",
           "errands.history", "errands.ledger", "errands.migrations")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, but not those under ``if TYPE_CHECKING:`` (names for type hints only,
    never imported when the program runs)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) \
                and node.test.id == "TYPE_CHECKING":
            yield from (n for child in node.orelse for n in [child, *_nodes(child)])
            continue
        yield node
        yield from _nodes(node)


def imports(name: str, path: Path) -> Iterator[tuple[str, tuple[str, ...], int]]:
    """(module imported, names taken from it, line) for every import in the file that
    runs (also inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in _nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, (), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = tuple(a.name for a in node.names)
            yield target, names, node.lineno
            for alias in node.names:  # ``from . import x`` imports the module ``x``
                yield f"{target}.{alias.name}", (), node.lineno


def within(name: str, prefixes: tuple[str, ...] | str) -> bool:
    prefixes = (prefixes,) if isinstance(prefixes, str) else prefixes
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for target, _, _ in imports(name, path):
            if target in known and target != name:
                edges[name].add(target)
    return edges


def test_only_the_storage_layer_touches_the_schema_and_sqlalchemy() -> None:
    found = []
    for name, path in modules().items():
        if within(name, STORAGE):
            continue
        for target, _, line in imports(name, path):
            if within(target, ("errands.db.schema", "sqlalchemy")):
                found.append(f"{name}:{line} imports {target}")
    assert found == []


def test_nobody_imports_a_private_name_from_another_package() -> None:
    """A leading underscore means "this package's own" (the store's row converters were
    imported by the engine: they are public names now, used by the storage layer only)."""
    found = []
    for name, path in modules().items():
        own = name.rpartition(".")[0] if path.name != "__init__.py" else name
        for target, names, line in imports(name, path):
            if not target.startswith("errands") or within(target, own) and (
                    target.count(".") == own.count(".") + 1 or target == own):
                continue
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private:
                found.append(f"{name}:{line} takes {', '.join(private)} from {target}")
    assert found == []


@pytest.mark.parametrize(("importer", "imported"), [
    ("errands.engine", "errands.agent"),
    ("errands.agent", "errands.engine"),
    ("errands.ledger", "errands.engine"),
    ("errands.runners", "errands.engine"),
    ("errands.ledger", "errands.agent"),
])
def test_a_layer_does_not_reach_into_another(importer: str, imported: str) -> None:
    found = [f"{name} imports {target}" for name, targets in graph().items()
             if within(name, importer) for target in targets if within(target, imported)]
    assert found == []


def test_the_engine_side_has_no_import_cycle() -> None:
    """Cycles among the modules of the engine, ledger, runners, agent and storage layers
    (Tarjan's strongly connected components on the import graph)."""
    edges = graph()
    side = ("errands.engine", "errands.ledger", "errands.runners", "errands.agent",
            *STORAGE, "errands.fires", "errands.definition", "errands.records")
    nodes = [n for n in edges if within(n, side)]
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # (recursive: the graph is a few hundred modules)
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges[node]:
            if nxt not in edges or not within(nxt, side):
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in nodes:
        if node not in index:
            visit(node)
    assert cycles == []


def test_the_engine_is_a_coordinator() -> None:
    tree = ast.parse((PACKAGE / "engine" / "core.py").read_text(encoding="utf-8"))
    [engine] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Engine"]
    assert engine.bases == []
    methods = [n.name for n in engine.body
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert len(methods) < 20, methods


def test_the_checks_see_a_violation(tmp_path: Path) -> None:
    """The scanner finds relative, absolute and in-function imports (else every check
    above would pass by seeing nothing)."""
    sample = PACKAGE / "engine" / "timer.py"
    found = {target for target, _, _ in imports("errands.engine.timer", sample)}
    assert "errands.ledger" in found and "errands.engine.base" in found
    text = ("def f():\n    from ..db.schema import RunRow\n    import sqlalchemy\n"
            "if TYPE_CHECKING:\n    from .core import Engine\n")
    probe = tmp_path / "probe.py"
    probe.write_text(text)
    taken = {(t, n) for t, n, _ in imports("errands.engine.probe", probe)}
    assert ("errands.db.schema", ("RunRow",)) in taken and ("sqlalchemy", ()) in taken
    assert not any(t == "errands.engine.core" for t, _ in taken)  # a type hint's import
