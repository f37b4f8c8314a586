"""The pool of a league: its bots (one ``.wasm`` module each) and their certification.

`load_pool` reads a folder of modules or a list of files into `Bot` entries (a name from the
file name, the path as given, the bytes and their SHA-256). `certify_module` is the
certification of ``holdemjax certify`` at the league's table: 10 games of the module against
bundled random-action bots, seed 0, judged by `holdemjax.series.output.certify_verdict` (no
fault, no timeout, every action admitted, every game played). For a ``ring-9`` league it is
``holdemjax certify`` itself (``ring-9-series``, eight random bots); for ``sng-6`` the same
test at the six-seat table (``series-10``, five random bots), since a policy may play one table
size only (the exported checkpoints play six seats). The bot that fails it is listed with its
reason and left out of the league. Modules with the same bytes are certified once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib

__all__ = ["Bot", "PoolError", "load_pool", "certify_module", "CERTIFY_VARIANT", "CERTIFY_SEED"]

#: the league's format -> the certification's variant (10 games each)
CERTIFY_VARIANT = {"ring-9": "ring-9-series", "sng-6": "series-10"}
CERTIFY_SEED = 0  # as ``holdemjax certify`` by default: a ring-9 verdict is the same there


class PoolError(ValueError):
    """The pool cannot be read: a missing file or folder, no module, two bots of one name."""


@dataclasses.dataclass(frozen=True)
class Bot:
    """One entrant: ``name`` (its file name without ``.wasm``), ``path`` (as given: replays find
    the file by it), ``sha256`` of ``wasm`` (the module's bytes)."""

    name: str
    path: str
    sha256: str
    wasm: bytes = dataclasses.field(repr=False, compare=False)

    def entry(self) -> dict:
        return {"name": self.name, "path": self.path, "sha256": self.sha256}


def load_pool(sources) -> list[Bot]:
    """The bots of ``sources``: ``.wasm`` files, or folders whose ``*.wasm`` files (sorted by
    name) all enter. Raises `PoolError` naming the bad source."""
    paths: list[pathlib.Path] = []
    for src in sources:
        p = pathlib.Path(src)
        if p.is_dir():
            found = sorted(p.glob("*.wasm"))
            if not found:
                raise PoolError(f"pool folder {src} holds no .wasm module")
            paths += found
        elif p.is_file():
            paths.append(p)
        else:
            raise PoolError(f"no such module file or folder: {src}")
    bots, names = [], {}
    for p in paths:
        try:
            wasm = p.read_bytes()
        except OSError as exc:
            raise PoolError(f"cannot read {p}: {exc.strerror or exc}") from None
        name = p.name[:-5] if p.name.endswith(".wasm") else p.name
        if name in names:
            raise PoolError(f"two bots named {name!r}: {names[name]} and {p} (rename one)")
        names[name] = p
        bots.append(Bot(name, str(p), hashlib.sha256(wasm).hexdigest(), wasm))
    return bots


def certify_module(wasm: bytes, path: str, fmt: str, *, max_wall: float | None) -> dict:
    """Certify one module (its bytes, recorded as ``path``) for a league of format ``fmt``:
    ``{"passed", "problem"}``, the problem being `certify_verdict`'s line without the module's
    name, or why it could not start."""
    from holdemjax.series import results, runner
    from holdemjax.series.output import certify_verdict
    from holdemjax.series.policies import bundled
    from holdemjax.series.protocol import SeriesVoid
    from holdemjax.series.wasm import PolicyLoadError, load_policy

    variant = CERTIFY_VARIANT[fmt]
    spec = runner.VARIANTS[variant]
    policies = []
    try:
        try:
            hero = load_policy(wasm, name=pathlib.Path(path).name)
        except PolicyLoadError as exc:
            return {"passed": False, "problem": f"fails to load: {exc}"}
        hero.path = path
        policies = [hero] + [load_policy(bundled("random")) for _ in range(spec.seats - 1)]
        try:
            series = runner.run_series(policies, variant=variant, seed=CERTIFY_SEED,
                                       max_wall=max_wall)
        except (runner.SeriesFailed, SeriesVoid, ValueError) as exc:
            return {"passed": False, "problem": f"the certification fails: {exc}"}
        passed, verdict = certify_verdict(results.summarize(series), 0, name="\0")
        return {"passed": passed, "problem": None if passed else verdict.replace(" \0:", "")}
    finally:
        for p in policies:
            p.close()
