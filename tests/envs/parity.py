"""Step our env and pgx's side by side on a batch and compare every public field."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

FIELDS = ("current_player", "legal_action_mask", "observation", "rewards", "terminated",
          "truncated")


def assert_same(ours, theirs, step: int, fields=FIELDS) -> None:
    for name in fields:
        a, b = np.asarray(getattr(ours, name)), np.asarray(getattr(theirs, name))
        x, y = getattr(ours, name), getattr(theirs, name)
        assert x.dtype == y.dtype, f"step {step}: {name} dtypes {x.dtype} vs {y.dtype}"
        assert a.shape == b.shape, f"step {step}: {name} shapes {a.shape} vs {b.shape}"
        bad = np.flatnonzero((a != b).reshape(a.shape[0], -1).any(axis=1))
        assert bad.size == 0, (f"step {step}: {name} differs in {bad.size} games, "
                               f"first row {bad[0]}: ours {a[bad[0]]} pgx {b[bad[0]]}")


def play_random(env, pgx_env, ours, theirs, key, steps: int, step_keys: bool = False) -> int:
    """Play `steps` random legal moves (ours' mask) in both batched states; returns the
    number of games finished."""
    step_a = jax.jit(jax.vmap(env.step))
    step_b = jax.jit(jax.vmap(pgx_env.step))
    batch = ours.current_player.shape[0]
    assert_same(ours, theirs, 0)
    for t in range(steps):
        k_act, k_step = jax.random.split(jax.random.fold_in(key, t))
        logits = jnp.where(ours.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k_act, logits, axis=-1).astype(jnp.int32)
        keys = jax.random.split(k_step, batch)
        ours = step_a(ours, action, keys)
        theirs = step_b(theirs, action, keys) if step_keys else step_b(theirs, action)
        assert_same(ours, theirs, t + 1)
    return int(np.asarray(ours.terminated).sum())


def markdown_table(text: str, header: str) -> list[list[str]]:
    """The cells of the markdown table whose header row starts with `header` (docs tests)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def parity_config(game: str) -> dict:
    """The `CONFIG` of `benchmarks/parity_<game>.py`: the per-game hooks (max_steps, prepare,
    ending, pick, ...) of the shared driver `holdemjax.parity.run_parity`, so that the CI test
    and the benchmark run the same check at different sizes."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / f"parity_{game}.py"
    spec = importlib.util.spec_from_file_location(f"parity_{game}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.CONFIG)


def speed_rows(results: dict, envs=None) -> list[list[str]]:
    """The speed table of a side game's docs page (header ``| env | batch |``) as a committed
    results file of `benchmarks/bench_envs.py` gives it, for the env ids ``envs`` (all: None)."""
    cells = {(c["side"], c["env"], c["batch"]): c for c in results["cells"]}
    rows = []
    for comp in results["comparisons"]:
        env, batch = comp["key"].split(" B=")
        if envs is not None and env not in envs:
            continue
        ours, peer = cells["holdemjax", env, int(batch)], cells["pgx", env, int(batch)]
        rows.append([f"`{env}`", f"{int(batch):,}", f"{comp['ours_median']:,.0f}",
                     f"{comp['peer_median']:,.0f}", f"**{comp['ratio']:.1f}×**",
                     f"{comp['min']:.1f}–{comp['max']:.1f}×",
                     f"{ours['compile_s']:.1f} / {peer['compile_s']:.1f}"])
    return rows


def assert_speed_doc(text: str, results: dict, envs) -> None:
    """A docs page's speed table, date and load are the committed results file's."""
    rows = speed_rows(results, envs)
    assert rows, f"no comparison of {envs} in the results file"
    assert markdown_table(text, "| env | batch |") == rows
    assert f"Measured {results['date'][:10]}" in text
    load = results["machine"]["load_average_before"]
    assert f"load average {load[0]:.1f}" in text
