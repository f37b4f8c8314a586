"""No room reads another room's private fields (DESIGN.md, "One rules engine"; issue 14).

A *room* is one of:

* a subpackage of ``holdemjax`` (``holdemjax/poker``, ``holdemjax/series`` with its
  ``policies``, ``holdemjax/duplicate``, ``holdemjax/bots``, ``holdemjax/render``);
* a top-level module of ``holdemjax`` (``holdemjax/api.py``, ``holdemjax/sparse.py``, ...);
* ``envs/`` (the RL adapters, installed as ``holdemjax.envs``) and ``training/``.

A room *defines* a private name ``_x`` when one of its modules assigns it as an attribute
(``self._x = ...``, a class-body field ``_x: T = ...``) or defines a function, class or module
global called ``_x``. A *read of another room's private field* is an attribute read
``obj._x`` (``obj`` not ``self``/``cls``) in room R of a name that some other room defines
and R does not; importing a private name (``from m import _x``) or a private module
(``holdemjax.poker._pots``) of another room counts too. The one exception is pgx's
``State._step_count``, a field of the State contract every game shares (`holdemjax.api`).
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = {"holdemjax": "holdemjax", "envs": "holdemjax.envs", "training": "holdemjax.training"}
#: Private names every room may read, with the reason.
SHARED = {"_step_count": "pgx's State field: the step counter of the State contract (api.py)"}


def _room(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT)
    if rel.parts[0] in ("envs", "training"):
        return rel.parts[0]
    if len(rel.parts) == 2:  # holdemjax/<module>.py
        return f"holdemjax.{rel.stem}"
    return f"holdemjax.{rel.parts[1]}"


def _module_room(module: str) -> str | None:
    """The room of a dotted module name of ours (None for anything else)."""
    parts = module.split(".")
    if parts[0] != "holdemjax":
        return None
    if len(parts) == 1:
        return "holdemjax"
    if parts[1] in ("envs", "training"):
        return parts[1]
    return f"holdemjax.{parts[1]}"


def _files():
    for top in PACKAGES:
        yield from sorted((ROOT / top).rglob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _definitions(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if _private(n)}


def _parsed():
    return [(path, _room(path), ast.parse(path.read_text(), str(path))) for path in _files()]


def violations() -> list[str]:
    parsed = _parsed()
    defined: dict[str, set[str]] = {}
    for _, room, tree in parsed:
        for name in _definitions(tree):
            defined.setdefault(name, set()).add(room)
    found = []
    for path, room, tree in parsed:
        where = path.relative_to(ROOT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                name = node.attr
                if not _private(name) or name in SHARED:
                    continue
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    continue
                owners = defined.get(name, set())
                if owners and room not in owners:
                    found.append(f"{where}:{node.lineno}: reads {ast.unparse(node)} "
                                 f"(private to {', '.join(sorted(owners))})")
            elif isinstance(node, ast.ImportFrom) and node.module:
                other = _module_room(node.module)
                if other is None or other == room:
                    continue
                if any(_private(p) for p in node.module.split(".")):
                    found.append(f"{where}:{node.lineno}: imports the private module "
                                 f"{node.module} of {other}")
                for alias in node.names:
                    if _private(alias.name):
                        found.append(f"{where}:{node.lineno}: imports {alias.name} from "
                                     f"{node.module} ({other})")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    other = _module_room(alias.name)
                    if other not in (None, room) and any(_private(p)
                                                         for p in alias.name.split(".")):
                        found.append(f"{where}:{node.lineno}: imports the private module "
                                     f"{alias.name} of {other}")
    return found


def test_no_room_reads_another_rooms_private_fields():
    found = violations()
    assert not found, "\n".join(found)


def test_the_check_sees_a_private_read(tmp_path):
    """The rule catches what it is for: a host module reading the env's tournament field."""
    tree = ast.parse("def f(state):\n    return state._x.table\n")
    reads = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
             and isinstance(n.ctx, ast.Load) and _private(n.attr)]
    assert reads == ["_x"]
    defined = {}
    for _, room, t in _parsed():
        for name in _definitions(t):
            defined.setdefault(name, set()).add(room)
    assert defined["_x"] == {"envs"}  # so holdemjax.series reading it would be reported
    assert _room(ROOT / "holdemjax" / "series" / "runner.py") == "holdemjax.series"
    assert _room(ROOT / "holdemjax" / "api.py") == "holdemjax.api"
    assert _module_room("holdemjax.poker._pots") == "holdemjax.poker"
