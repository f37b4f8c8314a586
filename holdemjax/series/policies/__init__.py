"""The bundled policies (package data, rebuilt byte for byte by ``sdk/build.py``):
``baseline.wasm`` (plays exactly as `holdemjax.bots.baseline`) and ``random.wasm`` (uniform over
the offered actions). ``SHA256SUMS`` lists their hashes."""

from __future__ import annotations

import pathlib

__all__ = ["BUNDLED", "bundled"]

_HERE = pathlib.Path(__file__).resolve().parent
BUNDLED = ("baseline", "random")


def bundled(name: str) -> str:
    """Path of a bundled policy file (``"baseline"`` or ``"random"``)."""
    if name not in BUNDLED:
        raise ValueError(f"unknown bundled policy {name!r}; known: {', '.join(BUNDLED)}")
    return str(_HERE / f"{name}.wasm")
