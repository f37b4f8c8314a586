"""docs/architecture.md stays true: every module and file it names exists, it names every module
of the package, and every room imports only what its "Rooms and arrows" table allows (the rooms
of tests/test_rooms.py); the host has one hand driver and one wire-code -> engine-kind map."""

from __future__ import annotations

import ast
import importlib.util
import re

from tests.graphs import cycles
from tests.test_rooms import ROOT, _files, _module_room, _room

DOC = ROOT / "docs" / "architecture.md"


def _rooms() -> set[str]:
    """Every room of the package, read from its files (`tests.test_rooms._room`)."""
    return {_room(path) for path in _files()}


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


def _face() -> dict[str, str]:
    """The package face's names -> the module that defines each (`holdemjax.__init__._FACE`:
    loaded on first use, PEP 562), and ``__version__``, defined by the face itself."""
    tree = ast.parse((ROOT / "holdemjax" / "__init__.py").read_text())
    face = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                and any(getattr(t, "id", None) == "_FACE" for t in node.targets))
    return {**face, "__version__": "holdemjax.__init__"}


def _resolve(name: str, face: dict[str, str]) -> str | None:
    """The module a dotted name of ours reaches: ``holdemjax.make`` (``from holdemjax import
    make``, or ``holdemjax.make`` after ``import holdemjax``) is `holdemjax.registry`'s; the bare
    package loads nothing of its own (None)."""
    parts = name.split(".")
    if parts[0] != "holdemjax":
        return name
    if len(parts) == 1:
        return None
    return face.get(parts[1], name)


def _module_imports(tree: ast.AST) -> list[str]:
    """Every dotted name of ours ``tree`` imports, anywhere in it (a function's imports count),
    and every ``holdemjax.X`` it reads after ``import holdemjax``."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "holdemjax":
            names.append(f"holdemjax.{node.attr}")
    return names


def _imports() -> dict[str, set[str]]:
    """Room -> the other rooms it imports; an import of the package's face counts as an import
    of the module that defines the name (no exemption for the top package)."""
    found: dict[str, set[str]] = {}
    face = _face()
    for path in _files():
        room = _room(path)
        for name in _module_imports(ast.parse(path.read_text())):
            module = _resolve(name, face)
            other = None if module is None else (
                "holdemjax.__init__" if module == "holdemjax.__init__" else _module_room(module))
            if other not in (None, room):
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
    """Every room of the package (walked from its files) has its row in the table of arrows,
    and imports only the rooms the row names."""
    allowed, actual = _arrows(), _imports()
    assert _rooms() - set(allowed) == set(), "rooms without a row in docs/architecture.md"
    wrong = {room: sorted(actual.get(room, set()) - allowed[room]) for room in _rooms()}
    assert not any(wrong.values()), wrong


def _without_main_block(tree: ast.Module) -> ast.Module:
    """``tree`` less its ``if __name__ == "__main__":`` block: that code runs only when the file
    is the program (``python -m``), never when the module is imported, so its imports make no
    cycle (a module's command may live in a module that imports it)."""
    def is_main(node):
        test = getattr(node, "test", None)
        return (isinstance(node, ast.If) and isinstance(test, ast.Compare)
                and isinstance(test.left, ast.Name) and test.left.id == "__name__"
                and any(isinstance(c, ast.Constant) and c.value == "__main__"
                        for c in test.comparators))
    return ast.Module(body=[n for n in tree.body if not is_main(n)], type_ignores=[])


def _room_graph() -> dict[str, set[str]]:
    """Module -> the modules of its own room it imports (anywhere in it: a function's import
    counts, a cycle hidden in a function is still a cycle; the ``__main__`` block does not)."""
    modules = {_module_name(p, ROOT): p for p in _files()}
    graph = {}
    for name, path in modules.items():
        room, targets = _room(path), set()
        tree = _without_main_block(ast.parse(path.read_text()))
        for imported in _module_imports(tree):
            parts = imported.split(".")
            for cut in (len(parts), len(parts) - 1):
                module = ".".join(parts[:cut])
                if module in modules:
                    targets.add(module)
                    break
        graph[name] = {t for t in targets if t != name and _room(modules[t]) == room}
    return graph


def import_cycles() -> set[tuple[str, ...]]:
    """Import cycles between modules of one room (`tests.graphs.cycles`)."""
    return cycles(_room_graph())


def test_no_import_cycle_inside_a_room():
    """Issue 53 point 5: no import cycle inside a room, envs/ or training/ (a function-local
    import counts)."""
    assert import_cycles() == set()


def test_every_module_is_on_the_map():
    """Issue 35: docs/architecture.md names every module of the package (its path from the
    repository root in backquotes, e.g. `envs/go.py`), walked from the package's files."""
    text = DOC.read_text()
    missing = [str(p.relative_to(ROOT)) for p in _files()
               if f"`{p.relative_to(ROOT).as_posix()}`" not in text]
    assert not missing, f"modules missing from docs/architecture.md: {missing}"


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


# ------------------------------------------------------------ one host hand driver, one map
#: Code that builds a `HandLog` without driving a hand through the engine, with the reason.
LOG_READERS = {"training/export_parity.py": "rebuilds the protocol history of RL env states "
                                            "(it plays the env, not a host hand)"}
#: The host tables of issue 35 that play hands: each goes through the one driver.
DRIVER_USERS = ("holdemjax/series/game.py", "holdemjax/duplicate/match.py",
                "holdemjax/duplicate/rotation.py")
WIRE_CODES = ("FOLD", "CHECK", "CALL", "RAISE")  # protocol.Code
WIRE_WORDS = ("fold", "check", "call", "raise")  # protocol.ACTIONS
ENGINE_KINDS = ("FOLD", "CHECK_CALL", "RAISE")  # table.Kind
#: The protocol's two modules: the contract's namespace and its rules half (which defines the
#: codes and their map; the first re-exports them).
PROTOCOLS, TABLE = ("holdemjax.series.protocol", "holdemjax.host.protocol"), "holdemjax.poker.table"


def _package_files(root=ROOT):
    for top in ("holdemjax", "envs", "training"):
        yield from sorted((root / top).rglob("*.py"))


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> the dotted name it is bound to by the module's imports."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                    a.name.split(".")[0]
    return names


def _refers(node: ast.AST, names: dict, module: str, attrs, enum: str) -> bool:
    """``node`` names one of ``module``'s constants ``attrs`` (``table.RAISE``, ``RAISE``
    imported from it, ``table.Kind.RAISE``; inside ``module`` itself a bare ``RAISE``)."""
    if isinstance(node, ast.Name):
        return names.get(node.id) in {f"{module}.{a}" for a in attrs} or (
            names.get("__module__") == module and node.id in attrs)
    if isinstance(node, ast.Attribute) and node.attr in attrs:
        base = node.value
        if isinstance(base, ast.Attribute) and base.attr == enum:
            base = base.value
        elif isinstance(base, ast.Name) and base.id == enum:
            return names.get(enum) == f"{module}.{enum}" or names.get("__module__") == module
        return isinstance(base, ast.Name) and names.get(base.id) == module
    return False


def _code(node, names) -> bool:
    return any(_refers(node, names, module, WIRE_CODES, "Code") for module in PROTOCOLS)


def _wire(node, names) -> bool:
    return (isinstance(node, ast.Constant) and node.value in WIRE_WORDS) or _code(node, names)


def _kind(node, names) -> bool:
    return _refers(node, names, TABLE, ENGINE_KINDS, "Kind")


def _module_name(path, root) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[0] in ("envs", "training"):
        parts.insert(0, "holdemjax")
    return ".".join(p for p in parts if p != "__init__")


def wire_kind_maps(root=ROOT) -> list[str]:
    """Where the package writes wire codes (or reply words) -> engine kinds: a dict display
    with a wire key and an engine-kind value, or a function outside the protocol that compares
    or maps the protocol's codes and names the engine's CHECK_CALL (``file:line``)."""
    found = []
    for path in _package_files(root):
        tree = ast.parse(path.read_text())
        names = {**_aliases(tree), "__module__": _module_name(path, root)}
        rel = path.relative_to(root)
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and any(k is not None and _wire(k, names)
                                                  for k in node.keys) \
                    and any(_kind(v, names) for v in node.values):
                found.append(f"{rel}:{node.lineno}")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and names["__module__"] not in PROTOCOLS:
                inner = list(ast.walk(node))
                if any(_code(n, names) for n in inner) and any(
                        _refers(n, names, TABLE, ("CHECK_CALL",), "Kind") for n in inner):
                    found.append(f"{rel}:{node.lineno}")
    return found


def hand_log_builders(root=ROOT) -> list[str]:
    """``file::scope`` of every top-level class or function that builds a `HandLog` (the record
    a host hand driver keeps of the hand it plays), `LOG_READERS` left out."""
    found = []
    for path in _package_files(root):
        rel = str(path.relative_to(root))
        if rel in LOG_READERS:
            continue
        for top in ast.parse(path.read_text()).body:
            if any(isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr",
                                                                               None)) == "HandLog"
                   for n in ast.walk(top)):
                found.append(f"{rel}::{getattr(top, 'name', type(top).__name__)}")
    return found


def test_one_host_hand_driver():
    """Issue 35: one host hand driver (`holdemjax.host.hand.HostHand`). No other class or
    function builds the record of a hand it drives through the engine, and the series, the
    duplicate lines (reference lines included) and seat rotation import the driver."""
    assert hand_log_builders() == ["holdemjax/host/hand.py::HostHand"]
    for rel in DRIVER_USERS:
        names = _aliases(ast.parse((ROOT / rel).read_text()))
        used = {v for v in names.values() if v.startswith("holdemjax.host.hand.")}
        assert used & {"holdemjax.host.hand.HostHand", "holdemjax.host.hand.lone_hand",
                       "holdemjax.host.hand.lone_start"}, (rel, used)


def test_one_wire_code_to_engine_kind_map():
    """Issue 35: the wire codes (and reply words) map to the engine's kinds in one place,
    `protocol.KIND_OF` (`protocol.kind_of`, `protocol.code_of`); nobody else writes the map."""
    from holdemjax.poker import table
    from holdemjax.series import protocol

    line = next(i for i, text in enumerate((ROOT / "holdemjax/host/protocol.py").read_text()
                                           .splitlines(), 1) if text.startswith("KIND_OF = "))
    assert wire_kind_maps() == [f"holdemjax/host/protocol.py:{line}"]
    assert [protocol.kind_of(w) for w in protocol.ACTIONS] \
        == [protocol.kind_of(c) for c in protocol.Code] \
        == [table.FOLD, table.CHECK_CALL, table.CHECK_CALL, table.RAISE]


# ------------------------------------------------------------------- one hand loop (issue 53)
#: Where a hand is stepped (``.apply(...)``, `HostHand.apply`): the one loop, and the duplicate
#: line's `Hand.apply`, an override that hands on to the driver's.
HAND_STEPPERS = ["holdemjax/duplicate/match.py::Hand.apply",
                 "holdemjax/host/loop.py::play_hand"]
#: The host tables that play hands: each goes through the one loop.
LOOP_USERS = ("holdemjax/series/game.py", "holdemjax/duplicate/match.py",
              "holdemjax/duplicate/live.py", "holdemjax/duplicate/verify.py",
              "holdemjax/duplicate/rotation.py")


def hand_steps(root=ROOT) -> list[str]:
    """``file::scope`` of every call of a method called ``apply`` in holdemjax/."""
    found = set()

    def visit(node, scope: str, rel: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = f"{scope}.{child.name}" if scope else child.name
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and child.func.attr == "apply":
                found.add(f"{rel}::{scope}")
            visit(child, inner, rel)

    for path in sorted((root / "holdemjax").rglob("*.py")):
        visit(ast.parse(path.read_text()), "", str(path.relative_to(root)))
    return sorted(found)


def test_one_hand_loop():
    """Issue 53: the hand driver is stepped by `loop.play_hand` alone (and the duplicate line's
    override of the step, which hands on to it), and every host table that plays hands (the
    series, duplicate and reference lines, browser lines, verification, seat rotation's host
    loop) imports the loop."""
    assert hand_steps() == HAND_STEPPERS
    for rel in LOOP_USERS:
        names = _aliases(ast.parse((ROOT / rel).read_text()))
        assert "holdemjax.host.loop.play_hand" in names.values(), rel


def calls_of(name: str, root=ROOT) -> list[str]:
    """``file`` of every call of a function called ``name`` in holdemjax/ (bare or dotted)."""
    found = set()
    for path in sorted((root / "holdemjax").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and name in (getattr(node.func, "id", None),
                                                       getattr(node.func, "attr", None)):
                found.add(str(path.relative_to(root)))
    return sorted(found)


def test_one_policy_turn():
    """Issue 53: a wasm seat's decision and notifications are one policy turn
    (`turn.decision_turn`, `turn.notify_turn`) for the series and a duplicate wasm hero; the
    rule for a call's outcome is applied there alone."""
    assert calls_of("apply_outcome") == ["holdemjax/series/turn.py"]
    users = ["holdemjax/duplicate/policy.py", "holdemjax/series/game.py"]
    assert calls_of("decision_turn") == calls_of("notify_turn") == users
