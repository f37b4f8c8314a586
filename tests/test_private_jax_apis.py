"""The private JAX APIs the series engine relies on are fenced (issue 35): jax and jaxlib are
pinned to the range tested, and each API is checked where the code reaches for it, so a jax
that moves one fails here by name instead of silently compiling every time (the compile
cache falls back to compiling when it cannot load an executable)."""

from __future__ import annotations

import inspect
import pathlib
import tomllib

import jax
import jaxlib
from packaging.requirements import Requirement

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEPENDENCIES = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]


def test_jax_and_jaxlib_are_pinned_to_the_range_tested():
    installed = {"jax": jax.__version__, "jaxlib": jaxlib.__version__}
    for name, version in installed.items():
        (spec,) = [r for r in map(Requirement, DEPENDENCIES) if r.name == name]
        assert any(s.operator in ("<", "<=", "==", "~=") for s in spec.specifier), (
            f"{name} has no upper bound in pyproject.toml: the series engine uses its private "
            "APIs (holdemjax/series/xla_cache.py, engine.py)")
        assert spec.specifier.contains(version), f"{name} {version} is outside {spec}"


def test_the_compile_caches_private_apis_are_where_it_reaches_for_them():
    from jax._src import compiler
    from jax.experimental import serialize_executable as se

    # xla_cache.deserialize: the compile options an executable was compiled with ...
    params = inspect.signature(compiler.get_compile_options).parameters
    missing = {"num_replicas", "num_partitions", "env_options_overrides", "backend"} - set(params)
    assert not missing, f"jax._src.compiler.get_compile_options lost {sorted(missing)}"
    # ... its unpickler, whose persistent_load it overrides to pass them ...
    unpickler = getattr(se, "_JaxPjrtUnpickler", None)
    assert unpickler is not None, "jax.experimental.serialize_executable._JaxPjrtUnpickler moved"
    assert "persistent_load" in vars(unpickler), "_JaxPjrtUnpickler.persistent_load moved"
    # ... and the Compiled constructor it builds the step with.
    compiled = inspect.signature(jax.stages.Compiled).parameters
    assert "no_kwargs" in compiled, f"jax.stages.Compiled takes {list(compiled)}"


def test_the_engines_dispatch_switch_is_where_it_reaches_for_it():
    from jax._src import xla_bridge

    # engine.run_inline: async dispatch can be turned off only before the backends start.
    assert callable(getattr(xla_bridge, "backends_are_initialized", None)), (
        "jax._src.xla_bridge.backends_are_initialized moved")
    assert "jax_cpu_enable_async_dispatch" in jax.config.values
