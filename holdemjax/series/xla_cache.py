"""The series engine's compile cache: its five programs compiled once per machine, not once per
process (`use_compile_cache`; `holdemjax series`, `certify` and `replay` turn it on).

The engine's executables as XLA serializes them (`load` / `save`), one file per format in
``~/.cache/holdemjax/xla/engine`` (``HOLDEMJAX_COMPILE_CACHE=DIR`` moves it, ``=off`` turns it
off), keyed by everything that goes into them: the holdemjax sources, jax and jaxlib, the
compiler options, the XLA flags, the CPU. A process that finds them neither traces, lowers nor
compiles the rules (series.json's cold run times it); what it runs is the executable that was
compiled, bit for bit (the series goldens replay from a warm cache). A missing, damaged or
foreign file is compiled again (`holdemjax.series.cache_files` reads, checks and writes the
files).

JAX's own persistent cache is not turned on: an executable that it loaded (rather than
compiled) does not serialize whole on XLA:CPU (a fresh process then misses a kernel), so a
step that came from it is not stored (`jax_cache_hits`).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pathlib
import platform

import jax

from holdemjax.series import cache_files

__all__ = ["CACHE_ENV", "compile_cache_dir", "use_compile_cache", "executables_dir", "key",
           "load", "save", "deserialize", "jax_cache_hits"]

#: The environment variable that moves the compile cache (a folder) or turns it off (``off``).
CACHE_ENV = "HOLDEMJAX_COMPILE_CACHE"
MAGIC = b"holdemjax-engine-1\n"

_state: dict = {"engine": None}  # the executables' folder once `use_compile_cache` ran


def compile_cache_dir() -> pathlib.Path | None:
    """The compile cache's folder: ``$HOLDEMJAX_COMPILE_CACHE`` when set (``off``, ``0`` or
    empty: no cache), else ``xla`` in holdemjax's cache folder
    (`holdemjax.series.cache_files.cache_root`)."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        off = value.strip().lower() in ("", "0", "off", "no", "false")
        return None if off else pathlib.Path(value).expanduser()
    return cache_files.cache_root() / "xla"


def use_compile_cache(folder: pathlib.Path | str | None = None) -> pathlib.Path | None:
    """Turn the compile cache on for this process (and the worker processes it spawns: the
    folder goes to the environment too), in ``folder`` or `compile_cache_dir`; returns the
    folder, None when it is off. Call it before `engine.engine` (an engine already built
    stays as it is)."""
    folder = compile_cache_dir() if folder is None else pathlib.Path(folder)
    if folder is None:
        return None
    try:
        (folder / "engine").mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # no writable cache folder: compile as without one
    _state["engine"] = folder / "engine"
    os.environ[CACHE_ENV] = str(folder)
    return folder


_jax_cache_hits = [0]
jax.monitoring.register_event_listener(
    lambda event, **_: event == "/jax/compilation_cache/cache_hits"
    and _jax_cache_hits.__setitem__(0, _jax_cache_hits[0] + 1))


def jax_cache_hits() -> int:
    """How many executables JAX's own persistent cache loaded in this process (set by the
    user's ``JAX_COMPILATION_CACHE_DIR``): one loaded so is not stored (see above)."""
    return _jax_cache_hits[0]


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
    body = None if path is None else cache_files.read(path, MAGIC)
    if body is None:
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
    """Store the serialized executables (`cache_files.write`: atomic; skipped when the cache
    is off or cannot be written)."""
    path = _path(env_id, tag)
    if path is None:
        return
    index = json.dumps([[name, len(p)] for name, p in payloads.items()]).encode()
    cache_files.write(path, MAGIC, len(index).to_bytes(8, "little") + index
                      + b"".join(payloads.values()))


def deserialize(payload: bytes, in_tree, out_tree, options: dict) -> jax.stages.Compiled:
    """A step's executable from `jax.experimental.serialize_executable.serialize`'s bytes,
    loaded with the compiler options it was compiled with: XLA:CPU links the executable's
    kernels by them (without, a fresh process can miss a kernel: ``Function ... not found``).
    Only this process's own cache files are read (the bytes are trusted code)."""
    from jax._src import compiler
    from jax.experimental import serialize_executable as se

    backend = jax.devices()[0].client
    compile_options = compiler.get_compile_options(
        1, 1, env_options_overrides=options, backend=backend)

    class Unpickler(se._JaxPjrtUnpickler):
        def persistent_load(self, pid):
            if pid[0] == "exec":
                return self.backend.deserialize_executable(pid[1], self.execution_devices,
                                                           compile_options)
            return super().persistent_load(pid)

    unloaded, args_info, no_kwargs = Unpickler(io.BytesIO(payload), backend).load()
    return jax.stages.Compiled(unloaded.load(), [], in_tree.unflatten(args_info), out_tree,
                               no_kwargs=no_kwargs)
