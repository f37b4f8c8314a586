"""Issue 36 point 8 (clean rooms), read from the source: the modules of holdemjax.duplicate
import one another without a cycle (imports inside functions count: a cycle hidden in a function
is still a cycle), nobody outside store.py (and database.py, its connections) touches `Store`'s
private attributes, and only the store's modules speak SQL."""

from __future__ import annotations

import ast
import pathlib

from tests.graphs import cycles

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "holdemjax" / "duplicate"
#: The store's modules: the repository, and the file with its connections and transactions.
STORE = ("store", "database")
#: What only the store's modules may touch: `Store`'s connection, transactions and private readers.
STORE_PRIVATE = {"_db", "_tx", "_one", "_record", "_row", "_participants", "_progress",
                 "_authorized", "_lines", "_conn", "_local"}


def _modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text()) for p in sorted(PACKAGE.glob("*.py"))}


def _imports(tree: ast.Module) -> set[str]:
    """The sibling modules ``tree`` imports (anywhere in it)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "holdemjax.duplicate":
                found |= {a.name for a in node.names}
            elif node.module.startswith("holdemjax.duplicate."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names
                      if a.name.startswith("holdemjax.duplicate.")}
    return found


def test_no_import_cycle_inside_duplicate():
    """Issue 36 finding 10: cli -> service -> pages -> cli (through `HERO_LOADERS`) and
    match <-> seat were cycles."""
    modules = _modules()
    graph = {name: _imports(tree) & set(modules) for name, tree in modules.items()}
    assert cycles(graph) == set()


def test_nobody_outside_store_touches_its_private_attributes():
    """Issue 36 finding 10: seat.py, doors.py, match.py and service.py read `Store._db`,
    `_tx`, `_record`, `_authorized`."""
    bad = []
    for name, tree in _modules().items():
        if name in STORE:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in STORE_PRIVATE:
                bad.append(f"{name}.py:{node.lineno} .{node.attr}")
    assert bad == []


def test_only_store_and_schema_speak_sql():
    """Issue 36 point 8: SQL lives in the store's modules (and its layout in schema.py) alone."""
    words = ("SELECT ", "INSERT ", "UPDATE ", "DELETE ", "BEGIN ")
    bad = []
    for name, tree in _modules().items():
        if name in (*STORE, "schema"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and any(
                    node.value.lstrip().startswith(w) for w in words):
                bad.append(f"{name}.py:{node.lineno} {node.value[:30]!r}")
    assert bad == []
