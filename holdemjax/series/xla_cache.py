"""The series engine's compile cache: its four programs compiled once per machine, not once per
process (`use_compile_cache`; `holdemjax series`, `certify` and `replay` turn it on).

Two stores in one folder (``~/.cache/holdemjax/xla``; ``HOLDEMJAX_COMPILE_CACHE=DIR`` moves it,
``=off`` turns it off):

* ``engine/``: the engine's executables as XLA serializes them (`load` / `save`), keyed by
  everything that goes into them: the holdemjax sources, jax and jaxlib, the compiler options,
  the XLA flags, the CPU. A process that finds them neither traces, lowers nor compiles the
  rules (about 5 s on a 2-core machine); what it runs is the executable that was compiled,
  bit for bit (the series goldens replay from a warm cache).
* ``jax/``: JAX's persistent compilation cache for the rest (the key ops of a series).

A missing, damaged or foreign file is compiled again (a checksum guards each file).
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import platform

import jax

__all__ = ["CACHE_ENV", "compile_cache_dir", "use_compile_cache", "executables_dir", "key",
           "load", "save"]

#: The environment variable that moves the compile cache (a folder) or turns it off (``off``).
CACHE_ENV = "HOLDEMJAX_COMPILE_CACHE"
MAGIC = b"holdemjax-engine-1\n"

_state: dict = {"engine": None}  # the executables' folder once `use_compile_cache` ran


def compile_cache_dir() -> pathlib.Path | None:
    """The compile cache's folder: ``$HOLDEMJAX_COMPILE_CACHE`` when set (``off``, ``0`` or
    empty: no cache), else ``xla`` in holdemjax's cache folder (``$HOLDEMJAX_CACHE``, else
    ``$XDG_CACHE_HOME/holdemjax``, else ``~/.cache/holdemjax``)."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        off = value.strip().lower() in ("", "0", "off", "no", "false")
        return None if off else pathlib.Path(value).expanduser()
    root = os.environ.get("HOLDEMJAX_CACHE")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = pathlib.Path(xdg or pathlib.Path.home() / ".cache") / "holdemjax"
    return pathlib.Path(root) / "xla"


def use_compile_cache(folder: pathlib.Path | str | None = None) -> pathlib.Path | None:
    """Turn the compile cache on for this process (and the worker processes it spawns: the
    settings go to the environment too), in ``folder`` or `compile_cache_dir`; returns the
    folder, None when it is off. Call it before the first JAX compile of the process (JAX
    reads its cache setting then) and before `engine.engine`. A JAX cache already set by
    ``JAX_COMPILATION_CACHE_DIR`` is left as it is."""
    folder = compile_cache_dir() if folder is None else pathlib.Path(folder)
    if folder is None:
        return None
    try:
        (folder / "engine").mkdir(parents=True, exist_ok=True)
        (folder / "jax").mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # no writable cache folder: compile as without one
    _state["engine"] = folder / "engine"
    os.environ[CACHE_ENV] = str(folder)
    if not os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        settings = {"jax_compilation_cache_dir": str(folder / "jax"),
                    "jax_persistent_cache_min_compile_time_secs": 0.0,
                    "jax_persistent_cache_min_entry_size_bytes": 0}
        for name, value in settings.items():
            jax.config.update(name, value)
            os.environ[name.upper()] = str(value)
    return folder


def executables_dir() -> pathlib.Path | None:
    """Where `engine.engine` keeps its executables (None: the cache is off)."""
    return _state["engine"]


def _sources() -> str:
    root = pathlib.Path(__file__).resolve().parents[1]  # the holdemjax package
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _cpu() -> str:
    try:
        lines = pathlib.Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        lines = []
    picked = [x for x in lines if x.split(":")[0].strip() in ("model name", "flags")][:2]
    return "|".join([platform.machine(), platform.processor(), *picked])


def key(env_id: str, options: dict) -> str:
    """The executables' key: the format, the sources, the versions, the options, the machine."""
    import jaxlib

    device = jax.devices()[0]
    parts = [MAGIC.decode(), env_id, _sources(), jax.__version__, jaxlib.__version__,
             device.platform, device.device_kind, device.client.platform_version,
             json.dumps(options, sort_keys=True), os.environ.get("XLA_FLAGS", ""),
             str(jax.config.jax_enable_x64), str(jax.config.jax_default_prng_impl),
             str(jax.config.jax_threefry_partitionable), _cpu()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def _path(env_id: str, tag: str) -> pathlib.Path | None:
    folder = executables_dir()
    return None if folder is None else folder / f"{env_id}-{tag}.bin"


def load(env_id: str, tag: str, names) -> dict | None:
    """The serialized executables ``{name: bytes}`` stored under the key ``tag``, or None
    (cache off, missing, damaged)."""
    path = _path(env_id, tag)
    if path is None:
        return None
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    head = len(MAGIC)
    digest, body = blob[head:head + 32], blob[head + 32:]
    if blob[:head] != MAGIC or hashlib.sha256(body).digest() != digest:
        return None
    try:
        index_len = int.from_bytes(body[:8], "little")
        index = json.loads(body[8:8 + index_len])
        out, at = {}, 8 + index_len
        for name, size in index:
            out[name] = body[at:at + size]
            at += size
    except (ValueError, TypeError):
        return None
    return out if sorted(out) == sorted(names) else None


def save(env_id: str, tag: str, payloads: dict) -> None:
    """Store the serialized executables atomically (temp file + rename); skipped when the
    cache is off or cannot be written."""
    path = _path(env_id, tag)
    if path is None:
        return
    index = json.dumps([[name, len(p)] for name, p in payloads.items()]).encode()
    body = len(index).to_bytes(8, "little") + index + b"".join(payloads.values())
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    try:
        tmp.write_bytes(MAGIC + hashlib.sha256(body).digest() + body)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
