"""The demo pool of ``holdemjax league --demo FOLDER``: distinct bots from what a checkout
ships, built into FOLDER so that a league runs on a fresh clone.

The bundled ``baseline`` and ``random`` modules are copied; the shipped PPO checkpoints are
exported with ``holdemjax export-wasm``, greedy and sampled (two modules each), which needs the C
compiler of the ``sdk`` extra (``pip install -e '.[sdk]'``). The league room imports no
training: the command hands in the checkpoints and their exporter (`Exports`). A module
already in the folder is kept, so the command is cheap to run again.
"""

from __future__ import annotations

import dataclasses
import pathlib
import shutil
from collections.abc import Callable

from holdemjax.league.pool import PoolError

__all__ = ["BUNDLED", "Exports", "build_demo_pool"]

#: the bundled modules the demo copies (`holdemjax.series.policies.bundled`)
BUNDLED = ("baseline", "random")


@dataclasses.dataclass(frozen=True)
class Exports:
    """The checkpoints to export (a bot name -> its ``.msgpack``), each greedy (``NAME.wasm``)
    and sampled (``NAME_sampled.wasm``), and ``export(checkpoint, out, greedy)`` that writes
    one module or raises one of ``errors`` saying why it cannot (no compiler, say)."""

    checkpoints: dict[str, pathlib.Path]
    export: Callable[[pathlib.Path, pathlib.Path, bool], object]
    errors: tuple[type[Exception], ...] = (OSError, ValueError)

    def modules(self) -> dict[str, tuple[pathlib.Path, bool]]:
        """Every module's file name -> (its checkpoint, greedy)."""
        found = {}
        for name, checkpoint in self.checkpoints.items():
            found[f"{name}.wasm"] = (checkpoint, True)
            found[f"{name}_sampled.wasm"] = (checkpoint, False)
        return found


def build_demo_pool(folder, exports: Exports, say=print) -> list[pathlib.Path]:
    """Fill ``folder`` with the demo pool (the modules already there are kept) and return its
    modules. ``say(line)`` before each module it exports. Raises `PoolError` naming the bots that
    could not be built and why (for a missing compiler: ``pip install -e '.[sdk]'``)."""
    from holdemjax.series.policies import bundled

    folder = pathlib.Path(folder)
    if folder.exists() and not folder.is_dir():
        raise PoolError(f"--demo: the pool folder is a file ({folder})")
    folder.mkdir(parents=True, exist_ok=True)
    for name in BUNDLED:
        if not (folder / f"{name}.wasm").is_file():
            shutil.copyfile(bundled(name), folder / f"{name}.wasm")
    modules = exports.modules()
    for file_name, (checkpoint, greedy) in modules.items():
        out = folder / file_name
        if out.is_file():
            continue
        say(f"exporting {out} ({'greedy' if greedy else 'sampled'} {checkpoint.name})")
        try:
            exports.export(checkpoint, out, greedy)
        except exports.errors as exc:
            missing = [n for n in modules if not (folder / n).is_file()]
            raise PoolError(f"--demo: {len(missing)} of the demo's {len(modules) + len(BUNDLED)} "
                            f"bots cannot be built ({', '.join(missing)}): {exc}") from None
    return [folder / f"{name}.wasm" for name in BUNDLED] + [folder / n for n in modules]
