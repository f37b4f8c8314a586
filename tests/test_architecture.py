"""docs/architecture.md stays true: every module and file it names exists, and the rooms import
only what its "Rooms and arrows" table allows (the rooms of tests/test_rooms.py)."""

from __future__ import annotations

import ast
import importlib.util
import re

from tests.test_rooms import ROOT, _files, _module_room, _room

DOC = ROOT / "docs" / "architecture.md"
#: Rooms whose imports are checked against the table (the tournament, host and training side).
CHECKED = ("holdemjax.cli", "training", "holdemjax.duplicate", "holdemjax.series",
           "holdemjax.bots", "envs", "holdemjax.render", "holdemjax.poker")


def _arrows() -> dict[str, set[str]]:
    text = DOC.read_text().split("## Rooms and arrows")[1].split("\n## ")[0]
    allowed: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`([\w.]+)`", cells[0])
        targets = set(re.findall(r"`([\w.]+)`", cells[2]))
        for name in names:
            allowed[name] = targets
    return allowed


def _imports() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in _files():
        room = _room(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                other = _module_room(name)
                if other not in (None, room, "holdemjax"):
                    found.setdefault(room, set()).add(other)
    return found


def test_every_module_and_file_named_exists():
    text = DOC.read_text()
    paths = set(re.findall(r"`((?:holdemjax|envs|training|tests|docs)/[\w/.]+\.(?:py|md))`",
                           text))
    assert len(paths) > 30
    for rel in paths:
        assert (ROOT / rel).is_file(), rel
    # files named by their directory's row, e.g. `test_table_pokerkit.py` after tests/poker/...
    for name in set(re.findall(r"`(holdemjax(?:\.\w+)+)`", text)):
        assert _resolves(name), name


def _resolves(name: str) -> bool:
    """``name`` is a module of ours, or an attribute of one (``holdemjax.poker.table.Kind``)."""
    parts = name.split(".")
    for cut in range(len(parts), 1, -1):
        module = ".".join(parts[:cut])
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            obj = importlib.import_module(module)
            for attr in parts[cut:]:
                if not hasattr(obj, attr):
                    return False
                obj = getattr(obj, attr)
            return True
    return False


def test_rooms_import_only_downward():
    allowed, actual = _arrows(), _imports()
    assert set(CHECKED) <= set(allowed)
    wrong = {room: sorted(actual.get(room, set()) - allowed[room]) for room in CHECKED}
    assert not any(wrong.values()), wrong


def test_nothing_imports_the_top_rooms():
    actual = _imports()
    # the command is the top; training sits under it alone (export-wasm, the checkpoint hero)
    for top, above in (("holdemjax.cli", set()), ("training", {"holdemjax.cli"})):
        users = {room for room, targets in actual.items() if top in targets}
        assert users <= above | {"holdemjax.__init__"}, (top, users)


def test_no_source_file_over_450_lines():
    """Files split along their seams (issue 14; STYLE.md aims for ~400): none of the library's,
    the envs' or training's modules grows past 450 lines."""
    long = {str(p.relative_to(ROOT)): n for p in _files()
            if (n := len(p.read_text().splitlines())) > 450}
    assert not long, long
