"""`api_test`: the conformance test every environment must pass (shipped in the library).

It plays random legal games under `jit`, `jit(vmap)` and `lax.scan` and checks, at every step:
public field dtypes and shapes, the observation's included (its dtype is the env's declared
`observation_dtype` at init and at every later step, for every player's view); zero rewards at
init and a non-empty mask; the step count; the terminal rules (all-true mask, stepping a finished
game changes nothing and pays nothing); the illegal-action rule; determinism (same key, same
tree); that a vmapped row equals its unbatched run; that compiled steps trace once; that eager
calls (`env.init` / `env.step` / `env.observe` on concrete arrays, which the unbatched runs use)
compile once and then never again, and equal the jitted programs leaf by leaf; and that the SVG
renderer gives well-formed SVG; and, for an env whose steps draw chance
(``num_chance_outcomes`` above 1), that its split of a step (``step_deterministic``,
``chance_outcomes``, ``chance_step``) gives probabilities summing to 1 and, for the outcome the
step drew, the step's public state (tests/test_chance.py checks the distributions). With
``until_end=True`` every game must end within
``max_steps`` (long games: pass a policy that ends them sooner, e.g. `shove_policy`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable

import chex
import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.api import Env, State
from holdemjax.experimental import act_randomly

__all__ = ["api_test", "shove_policy", "CompileCounter"]

Policy = Callable[[jax.Array, State], jax.Array]


def api_test(env: Env, num_games: int = 16, max_steps: int = 256, seed: int = 0, *,
             policy: Policy | None = None, until_end: bool = False) -> None:
    """Raise AssertionError at the first broken rule of the env API.

    num_games: batch size of the vmapped and scanned runs; max_steps: steps played per game
    (games that end sooner are checked at their terminal state). policy(key, state) -> action:
    the legal action to play in an unbatched state (default: uniform over the mask); it is
    vmapped for batches, row i drawing from ``fold_in(key, i)``. until_end: every game must end
    within max_steps (the batched run then stops when all have ended), so the terminal rules are
    checked on every game.
    """
    assert isinstance(env.id, str) and isinstance(env.version, str)
    assert env.num_players >= 1 and env.num_actions >= 1
    assert isinstance(env.observation_dtype, np.dtype), f"{env.id}: observation_dtype"
    key = jax.random.key(seed)
    chex.clear_trace_counter()  # the guard keys on call site, so parametrized tests share it
    pick = _batched(policy or _uniform)
    fns = _Compiled(env, pick)
    _check_jit_loop(env, fns, jax.random.fold_in(key, 1), min(num_games, 3), max_steps,
                    until_end)
    final, steps = _check_vmap_loop(env, fns, jax.random.fold_in(key, 2), num_games, max_steps,
                                    until_end)
    _check_scan(env, fns, jax.random.fold_in(key, 2), num_games, steps, final)
    _check_illegal(env, fns, jax.random.fold_in(key, 3), num_games)
    _check_svg(env, fns, jax.random.fold_in(key, 4))
    _check_chance(env, fns, jax.random.fold_in(key, 5))


def shove_policy(p_all_in: float = 0.5) -> Policy:
    """A policy for `api_test` that ends long games: with probability ``p_all_in`` the legal
    action with the highest id (ALL_IN in the poker menus), else a uniform legal action."""

    def policy(key, state):
        mask = state.legal_action_mask
        k_coin, k_pick = jax.random.split(key)
        top = mask.shape[-1] - 1 - jnp.argmax(mask[::-1])
        return jnp.where(jax.random.uniform(k_coin) < p_all_in, top,
                         act_randomly(k_pick, mask)).astype(jnp.int32)

    return policy


class CompileCounter:
    """Counts XLA compiles (``count``) and traces to a jaxpr (``traces``: `jax.jit`,
    `jax.eval_shape`...) while it is open (JAX's monitoring events)::

        with CompileCounter() as compiles:
            env.step(state, 0)
        assert compiles.count == 0
    """

    _EVENT = "/jax/core/compile/backend_compile_duration"
    _TRACE = "/jax/core/compile/jaxpr_trace_duration"

    def __init__(self):
        self.count = 0
        self.traces = 0

    def _listen(self, event: str, _seconds: float, **_kwargs) -> None:
        if event == self._EVENT:
            self.count += 1
        elif event == self._TRACE:
            self.traces += 1

    def __enter__(self) -> CompileCounter:
        jax.monitoring.register_event_duration_secs_listener(self._listen)
        return self

    def __exit__(self, *exc) -> None:
        jax.monitoring.unregister_event_duration_listener(self._listen)


class _Compiled:
    """The functions the checks share (each compiles once). Unbatched play uses the env's own
    eager calls (one cached program each, `holdemjax.api`); the batched step carries the
    retrace guard."""

    def __init__(self, env: Env, pick):
        # chex counts traces per function source, so each guarded step gets its own function.
        def batched_step(state, action, key):
            return env.step(state, action, key)

        self.eager_compiles = CompileCounter()  # entered only around the env's eager calls

        def counted(fn):
            def call(*args):
                with self.eager_compiles:
                    return fn(*args)
            return call

        self.init, self.step, self.observe = (counted(env.init), counted(env.step),
                                              counted(env.observe))
        self.init_b = jax.jit(jax.vmap(env.init))
        self.step_b = jax.jit(jax.vmap(chex.assert_max_traces(batched_step, n=1)))
        self.pick = jax.jit(pick)


# --------------------------------------------------------------------------- field checks
def _check_fields(env: Env, state: State, batch: tuple[int, ...] = ()) -> None:
    spec = {
        "current_player": (batch, jnp.int32),
        "rewards": (batch + (env.num_players,), jnp.float32),
        "terminated": (batch, jnp.bool_),
        "truncated": (batch, jnp.bool_),
        "legal_action_mask": (batch + (env.num_actions,), jnp.bool_),
        "_step_count": (batch, jnp.int32),
    }
    for name, (shape, dtype) in spec.items():
        value = getattr(state, name)
        assert value.shape == shape, f"{env.id}: {name} has shape {value.shape}, want {shape}"
        assert value.dtype == dtype, f"{env.id}: {name} has dtype {value.dtype}, want {dtype}"
    obs = state.observation
    want = batch + env.observation_shape
    assert obs.shape == want, f"{env.id}: observation shape {obs.shape}, want {want}"
    assert obs.dtype == env.observation_dtype, (f"{env.id}: observation dtype {obs.dtype}, "
                                                f"want {env.observation_dtype}")


def _check_views(env: Env, state: State, observe) -> None:
    """Every player's view (``observe``: the env's `Env.observe`) has the declared shape and
    dtype."""
    for p in range(env.num_players):
        view = observe(state, p)
        assert view.shape == env.observation_shape and view.dtype == env.observation_dtype, (
            f"{env.id}: observe(state, {p}) is {view.dtype}{view.shape}, want "
            f"{env.observation_dtype}{env.observation_shape}")


def _uniform(key, state: State) -> jax.Array:
    return act_randomly(key, state.legal_action_mask)


def _batched(policy: Policy):
    """`policy` for an unbatched state (row 0) or a batch, row i drawing from `fold_in(key, i)`,
    so a row's actions do not depend on the batch it is in."""

    def pick(key, state: State) -> jax.Array:
        if state.legal_action_mask.ndim == 1:
            return jnp.asarray(policy(jax.random.fold_in(key, 0), state), jnp.int32)
        rows = jnp.arange(state.legal_action_mask.shape[0])
        return jax.vmap(lambda i, s: jnp.asarray(policy(jax.random.fold_in(key, i), s),
                                                 jnp.int32))(rows, state)

    return pick


def _step_keys(key, batch: int):
    """Per-row step keys: row i gets `fold_in(key, i)` (unbatched: row 0)."""
    return jax.vmap(lambda i: jax.random.fold_in(key, i))(jnp.arange(batch))


def _trees_equal(a, b, what: str) -> None:
    la, _ = jax.tree.flatten_with_path(a)
    lb, _ = jax.tree.flatten_with_path(b)
    assert jax.tree.structure(a) == jax.tree.structure(b), f"{what}: tree structures differ"
    for (path, x), (_, y) in zip(la, lb):
        where = jax.tree_util.keystr(path)
        if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            x, y = jax.random.key_data(x), jax.random.key_data(y)
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype, f"{what}: {where} shape/dtype differ"
        assert np.array_equal(x, y, equal_nan=True), f"{what}: {where} differs"


# ------------------------------------------------------------------------------ the runs
def _check_jit_loop(env: Env, fns: _Compiled, key, games: int, max_steps: int,
                    until_end: bool) -> None:
    """Unbatched play with eager init/step calls: after the first game's first step nothing
    compiles again (each eager call runs its one cached program)."""
    _play_unbatched(env, fns, key, 1, max_steps, until_end)
    first = fns.eager_compiles.count
    _play_unbatched(env, fns, jax.random.fold_in(key, 7), games - 1, max_steps, until_end)
    again = fns.eager_compiles.count - first
    assert again == 0, f"{env.id}: eager calls compiled {again} programs after the first game"


def _play_unbatched(env: Env, fns: _Compiled, key, games: int, max_steps: int,
                    until_end: bool) -> None:
    for g in range(games):
        k_init, k_play = jax.random.split(jax.random.fold_in(key, g))
        state = fns.init(k_init)
        _check_fields(env, state)
        if g == 0:
            _check_views(env, state, fns.observe)
        assert not bool(state.terminated), f"{env.id}: terminated at init"
        assert bool(state.legal_action_mask.any()), f"{env.id}: no legal action at init"
        assert not np.asarray(state.rewards).any(), f"{env.id}: non-zero rewards at init"
        for t in range(max_steps):
            k_act, k_step = jax.random.split(jax.random.fold_in(k_play, t))
            nxt = fns.step(state, fns.pick(k_act, state), jax.random.fold_in(k_step, 0))
            _check_fields(env, nxt)
            assert int(nxt._step_count) == int(state._step_count) + 1, f"{env.id}: step count"
            state = nxt
            if bool(state.terminated | state.truncated):
                _check_terminal(env, fns.step, state, k_step)
                if g == 0:
                    _check_views(env, state, fns.observe)
                break
        else:
            assert not until_end, f"{env.id}: game {g} did not end within {max_steps} steps"


def _check_terminal(env: Env, step, state: State, key) -> None:
    assert bool(state.legal_action_mask.all()), f"{env.id}: mask not all-true at terminal"
    again = step(state, jnp.int32(0), key)
    assert not np.asarray(again.rewards).any(), f"{env.id}: rewards after terminal"
    _trees_equal(again, state.replace(rewards=jnp.zeros_like(state.rewards)), f"{env.id}: "
                 "stepping a finished game changed it")


def _check_vmap_loop(env: Env, fns: _Compiled, key, batch: int, max_steps: int,
                     until_end: bool) -> tuple[State, int]:
    """Batched play; returns the final state and the number of steps played (all of
    max_steps, or with until_end the step at which every game had ended)."""
    init, step, pick = fns.init_b, fns.step_b, fns.pick
    k_init, k_play = jax.random.split(key)
    state = init(jax.random.split(k_init, batch))
    _check_fields(env, state, (batch,))
    assert not np.asarray(state.rewards).any(), f"{env.id}: non-zero rewards at init"
    t = 0
    for t in range(max_steps):
        if until_end and bool((state.terminated | state.truncated).all()):
            return state, t
        k_act, k_step = jax.random.split(jax.random.fold_in(k_play, t))
        done = np.asarray(state.terminated | state.truncated)
        nxt = step(state, pick(k_act, state), _step_keys(k_step, batch))
        _check_fields(env, nxt, (batch,))
        count = np.asarray(nxt._step_count) - np.asarray(state._step_count)
        assert (count == np.where(done, 0, 1)).all(), f"{env.id}: step count in a batch"
        assert not np.asarray(nxt.rewards)[done].any(), f"{env.id}: rewards after terminal"
        ended = np.asarray(nxt.terminated | nxt.truncated)
        assert np.asarray(nxt.legal_action_mask)[ended].all(), f"{env.id}: terminal mask"
        state = nxt
    live = int((~np.asarray(state.terminated | state.truncated)).sum())
    assert not (until_end and live), f"{env.id}: {live} of {batch} games still live after " \
        f"{max_steps} steps"
    return state, max_steps


def _scan_play(env: Env, pick, state: State, k_play, max_steps: int) -> State:
    """A batch of games played on from ``state`` with ``lax.scan`` (the batched step only: the
    initial states come from the already compiled batched init)."""
    step = jax.vmap(env.step)
    batch = state.current_player.shape[0]

    def body(state, t):
        k_act, k_step = jax.random.split(jax.random.fold_in(k_play, t))
        return step(state, pick(k_act, state), _step_keys(k_step, batch)), None

    state, _ = jax.lax.scan(body, state, jnp.arange(max_steps))
    return state


def _check_scan(env: Env, fns: _Compiled, key, batch: int, max_steps: int,
                loop_final: State) -> None:
    """`lax.scan` replays the Python loop exactly; same key twice is identical; a row does not
    depend on the other rows of its batch and equals its unbatched game (played step by step
    with the unbatched eager step, so no other program is compiled)."""
    pick = fns.pick
    k_init, k_play = jax.random.split(key)
    keys = jax.random.split(k_init, batch)
    scan = jax.jit(lambda s, kp: _scan_play(env, pick, s, kp, max_steps))

    def run(init_keys, kp):
        return scan(fns.init_b(init_keys), kp)

    first = run(keys, k_play)
    _trees_equal(first, loop_final, f"{env.id}: lax.scan differs from the step loop")
    _trees_equal(run(keys, k_play), first, f"{env.id}: same key gave a different state")
    # Row 0 again, with every other row a different game (same compiled program).
    other = jax.random.split(jax.random.fold_in(keys[0], 99), batch)
    mixed = run(jnp.concatenate([keys[:1], other[1:]]), k_play)
    row0 = lambda s: jax.tree.map(lambda x: x[0], s)
    _trees_equal(row0(mixed), row0(first), f"{env.id}: batch row depends on other rows")
    solo = fns.init(keys[0])
    for t in range(max_steps):
        k_act, k_step = jax.random.split(jax.random.fold_in(k_play, t))
        solo = fns.step(solo, pick(k_act, solo), _step_keys(k_step, 1)[0])
    _trees_equal(row0(first), solo, f"{env.id}: vmapped row differs from its unbatched run")


def _check_illegal(env: Env, fns: _Compiled, key, batch: int) -> None:
    """An illegal or out-of-range action ends the game with the documented penalty."""
    state = fns.init_b(jax.random.split(key, batch))
    step = fns.step
    n = env.num_players
    pen = env.illegal_action_penalty
    want_other = -pen / max(n - 1, 1)
    for i in range(batch):
        row = jax.tree.map(lambda x, i=i: x[i], state)
        mask = np.asarray(row.legal_action_mask)
        candidates = [int(a) for a in np.flatnonzero(~mask)[:1]] + [env.num_actions]
        for a in candidates:
            out = step(row, jnp.int32(a), jax.random.fold_in(key, i))
            actor = int(row.current_player)
            want = np.full(n, want_other, np.float32)
            want[actor] = pen
            assert bool(out.terminated), f"{env.id}: illegal action {a} did not end the game"
            np.testing.assert_allclose(np.asarray(out.rewards), want, err_msg=f"{env.id}: "
                                       f"illegal action {a} rewards")
            assert bool(out.legal_action_mask.all()), f"{env.id}: terminal mask after illegal"


def _check_svg(env: Env, fns: _Compiled, key) -> None:
    state = fns.init(key)
    for s in (state, fns.step(state, fns.pick(key, state), key)):
        svg = env.render_svg(s)
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg"), f"{env.id}: render_svg root is {root.tag}"


def _check_chance(env: Env, fns: _Compiled, key) -> None:
    """The split of a step: for the first moves of a game, ``chance_step`` of the afterstate
    with the outcome the step drew (found among those of nonzero probability) is the step.
    The env's own eager calls, one cached program each (an outcome at a time: no batched
    ``chance_step`` to compile, the costliest program of a game whose step is large)."""
    n = env.num_chance_outcomes
    assert isinstance(n, int) and n >= 1, f"{env.id}: num_chance_outcomes {n!r}"
    if n == 1:  # no chance in a step: the afterstate is the step (tests/test_chance.py)
        return
    state = fns.init(key)
    for t in range(4):
        if bool(state.terminated):
            break
        k = jax.random.fold_in(key, t)
        action = fns.pick(k, state)
        nxt = fns.step(state, action, k)
        after = env.step_deterministic(state, action)
        probs = np.asarray(env.chance_outcomes(after))
        assert probs.shape == (n,) and (probs >= 0).all(), f"{env.id}: chance_outcomes"
        assert abs(probs.sum() - 1) < 1e-5, f"{env.id}: chance probabilities sum {probs.sum()}"
        assert any(_public_equal(env.chance_step(after, int(o)), nxt)
                   for o in np.flatnonzero(probs > 0)), (
            f"{env.id}: no outcome of the split gives the step's state at move {t}")
        state = nxt


_PUBLIC = ("current_player", "observation", "rewards", "terminated", "truncated",
           "legal_action_mask", "_step_count")


def _public_equal(a: State, b: State) -> bool:
    """The fields every state has (a game may keep its private ones in another order, e.g. a
    roll's dice)."""
    return all(np.array_equal(np.asarray(getattr(a, f)), np.asarray(getattr(b, f)))
               for f in _PUBLIC)
