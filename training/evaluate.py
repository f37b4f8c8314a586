"""A policy against five opponents (the baseline bot by default), by seat rotation on
identical deals.

For each deal key ``d`` six tournaments are played from the same ``init`` key: in tournament
``r`` the policy controls player id ``r`` and the opponent controls the other five. The env
seats player ids at random from the key (the same seating in all six), and every hand deals from
the tournament key and the hand index, so the six tournaments share the seating and the cards
while the policy sits once in each seat. The opponents' (and the policy's) per-tournament key is
the same in all six too; the reference bots address their draws by the decision's coordinates,
so identical situations get identical draws.

The score of a tournament is the env's (payouts 0.333 .. 0; ICM at the hand cap; they sum to 1).
Per deal, the rotation average is the mean of the policy's six scores; the reported mean is the
mean over deals, its standard error the deals' standard deviation / sqrt(deals), and ``z`` =
(mean - 1/6) / SE. With six identical policies the six tournaments of a deal are the same game,
so the rotation average is exactly 1/6 for every deal (a test checks it).

Guards: a policy's masked (or out-of-range) action is applied by the env's illegal-action rule
(the game ends, the actor scores -1 there) and counted in ``illegal``; a tournament still running
after ``max_steps`` decisions is stopped at the start of its current hand and settled by ICM
(`SitAndGo.stop`) and counted in ``unfinished``.

The command ``python -m holdemjax.training.evaluate CHECKPOINT --opponent NAME ...`` plays a
panel of opponents and prints the cross-play table (`holdemjax.training.evaluate_cli`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import sys
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

import holdemjax
from holdemjax import luck as holdemjax_luck
from holdemjax.bots import baseline, known_policy
from holdemjax.validate import require_int

__all__ = ["EvalResult", "SCORE_RESOLUTION", "evaluate", "mean_se", "stateless", "z_score",
           "baseline_opponent", "make_env", "main"]

ENV_IDS = ("sng-6", "sng-6-turbo", "certify")


@dataclasses.dataclass(frozen=True)
class EvalResult:
    """What `evaluate` returns. Arrays are numpy; ``per_deal`` and ``seats`` are by deal."""

    env_id: str
    deals: int
    tournaments: int
    mean: float  # mean tournament score of the policy (1/6 = even)
    se: float  # standard error over deals (of the rotation averages)
    z: float  # (mean - 1/6) / se
    per_deal: np.ndarray  # [D] float64 rotation average of each deal
    per_rotation: np.ndarray  # [6] float64 mean score when controlling player id r
    scores: np.ndarray  # [D, 6] float64 the policy's score in each tournament
    seats: np.ndarray  # [D, 6] int32 seat the policy sat at in each tournament
    illegal: int  # masked or out-of-range actions the policy picked
    unfinished: int  # tournaments stopped at max_steps and settled by ICM
    decisions: int  # decisions played (all players)
    seconds: float  # wall time, compilation included
    # With ``luck`` (`holdemjax.luck`): the scores less each tournament's luck, the same mean
    corrected_mean: float | None = None
    corrected_se: float | None = None
    corrected_per_deal: np.ndarray | None = None  # [D] float64
    luck: np.ndarray | None = None  # [D, 6, 5] float64 the policy's luck per tournament, by
    # kind of event (`holdemjax.luck.EVENTS`)

    def summary(self) -> str:
        """One line: mean ± SE (and corrected for luck), z, tournaments."""
        lucky = "" if self.corrected_se is None else (
            f", luck out {self.corrected_mean:.4f} ± {self.corrected_se:.4f}")
        return (f"{self.env_id}: mean score {self.mean:.4f} ± {self.se:.4f} (SE over "
                f"{self.deals:,} deals){lucky}, z = {self.z:+.2f} against 1/6, over "
                f"{self.tournaments:,} rotated tournaments; illegal {self.illegal}, "
                f"unfinished {self.unfinished}, {self.seconds:.0f} s")

    def to_dict(self) -> dict:
        """JSON-able summary (per-deal arrays left out)."""
        return dict(env_id=self.env_id, deals=self.deals, tournaments=self.tournaments,
                    mean=self.mean, se=self.se, z=self.z,
                    per_rotation=self.per_rotation.tolist(), illegal=self.illegal,
                    unfinished=self.unfinished, decisions=self.decisions,
                    seconds=self.seconds,
                    **({} if self.corrected_se is None else dict(
                        corrected_mean=self.corrected_mean, corrected_se=self.corrected_se)))


@functools.cache
def make_env(env_id: str):
    """The (cached) env of ``env_id``: one object per id, so compiled programs are reused."""
    if env_id not in ENV_IDS:
        raise ValueError(f"env_id {env_id!r} is not supported; known: {', '.join(ENV_IDS)}")
    return holdemjax.make(env_id)


@functools.cache
def baseline_opponent(env):
    """``act(state, key)`` of the baseline bot on ``env`` (the default opponent; cached)."""
    return functools.partial(baseline.act, env)


def _check_policy(env, fn, params, name):
    """Trace ``fn`` once on one state: it must return an integer scalar (a menu action id).
    A policy that passed is not traced again for params of the same shapes and dtypes (a
    search calls `evaluate` hundreds of times with one policy)."""
    leaves, treedef = jax.tree.flatten(params)
    try:
        passed = (env, fn, name, treedef,
                  tuple((np.shape(x), jnp.result_type(x)) for x in leaves))
        hash(passed)
    except TypeError:  # leaves that are not arrays: check every time
        passed = None
    if passed is not None and passed in _PASSED:
        return
    key = jax.ShapeDtypeStruct((2,), jnp.uint32)
    try:
        out = jax.eval_shape(fn, params, env.state_shapes, key)
    except Exception as err:  # any tracing failure of user code, reported with its name
        raise ValueError(f"{name} could not be traced on one {env.id} state: {err}") from err
    if not (hasattr(out, "shape") and out.shape == () and jnp.issubdtype(out.dtype,
                                                                          jnp.integer)):
        raise ValueError(f"{name} must return an integer scalar action id, got {out}")
    if passed is not None:
        _PASSED.add(passed)


_PASSED: set = set()  # the (env, policy, name, params' structure) that `_check_policy` passed


@functools.lru_cache(maxsize=16)
def _program(env, policy, opponent, chunk: int, max_steps: int, luck: bool = False,
             known: tuple = (None, None), luck_value: Callable | None = None,
             rollouts: int = 0):
    """Jitted ``(params, base_key, first_deal) -> dict`` for ``chunk`` deals (6 x chunk tables).

    Cached per arguments: the policy's params are data, so several checkpoints of one
    network compile once. With ``luck`` the dict holds each tournament's luck of the policy too
    (`evaluate`'s options; drawn with ``fold_in(deal key, 2)``: the same samples in the six
    tournaments of a deal; the action terms where ``known``, ``(policy's, opponent's) probs``).
    """
    n = env.num_players

    def run(params, base_key, first_deal):
        deals = first_deal + jnp.arange(chunk)
        deal_keys = jax.vmap(lambda d: jax.random.fold_in(base_key, d))(deals)
        env_keys = jnp.repeat(jax.vmap(lambda k: jax.random.fold_in(k, 0))(deal_keys), n, 0)
        bot_keys = jnp.repeat(jax.vmap(lambda k: jax.random.key_data(
            jax.random.fold_in(k, 1)))(deal_keys), n, 0)
        rotation = jnp.tile(jnp.arange(n, dtype=jnp.int32), chunk)  # policy's player id
        luck_keys = jnp.repeat(jax.vmap(lambda k: jax.random.fold_in(k, 2))(deal_keys), n, 0)
        states = jax.vmap(env.init)(env_keys)
        seats = env.tournament(states).seat_of[jnp.arange(chunk * n), rotation]
        num_actions = states.legal_action_mask.shape[-1]

        def line_up(state, key, policy_player):  # the rollouts' policy: the players' own
            key = jax.random.key_data(key)
            return jnp.where(state.current_player == policy_player,
                             jnp.asarray(policy(params, state, key), jnp.int32),
                             jnp.asarray(opponent(state, key), jnp.int32))

        lucks = jnp.zeros((), jnp.float32)  # nothing carried without luck
        if luck and rollouts:
            lucks = holdemjax_luck.games_rollout_first_luck(env, line_up, states, luck_keys,
                                                            rollouts, rotation)
        elif luck and luck_value is not None:  # the env's chance events only: no deal term
            lucks = jnp.zeros((chunk * n, len(holdemjax_luck.EVENTS), n), jnp.float32)
        elif luck:
            lucks = holdemjax_luck.games_first_luck(env, states, luck_keys)

        def body(carry):
            states, scores, lucks, illegal, decisions, i = carry
            live = ~(states.terminated | states.truncated)
            mine = jax.vmap(policy, in_axes=(None, 0, 0))(params, states, bot_keys)
            mine = jnp.asarray(mine, jnp.int32)
            theirs = jax.vmap(opponent)(states, bot_keys).astype(jnp.int32)
            is_policy = states.current_player == rotation
            ok = (mine >= 0) & (mine < num_actions) & jnp.take_along_axis(
                states.legal_action_mask, jnp.clip(mine, 0, num_actions - 1)[:, None], 1)[:, 0]
            illegal = illegal + (live & is_policy & ~ok).sum()
            actions = jnp.where(is_policy, mine, theirs)
            nxt = jax.vmap(env.step)(states, actions)
            if luck and rollouts:
                lucks = lucks + holdemjax_luck.games_rollout_step_luck(
                    env, line_up, states, actions, nxt, luck_keys, i, rollouts, rotation)
            elif luck and luck_value is not None:
                lucks = lucks + holdemjax_luck.games_chance_luck(
                    env, functools.partial(luck_value, params), states, actions, nxt)
            elif luck:
                probs = [jnp.zeros_like(states.legal_action_mask, jnp.float32) if p is None
                         else jax.vmap(p)(states) for p in known]
                probs = jnp.where(is_policy[:, None], probs[0], probs[1])
                lucks = lucks + holdemjax_luck.games_step_luck(env, states, actions, luck_keys,
                                                               probs)
            return (nxt, scores + nxt.rewards, lucks, illegal, decisions + live.sum(), i + 1)

        def cond(carry):
            states, i = carry[0], carry[-1]
            return (~(states.terminated | states.truncated)).any() & (i < max_steps)

        zeros = jnp.zeros((chunk * n, n), jnp.float32)
        states, scores, lucks, illegal, decisions, _ = jax.lax.while_loop(
            cond, body, (states, zeros, lucks, jnp.int32(0), jnp.int32(0), jnp.int32(0)))
        running = ~(states.terminated | states.truncated)
        stopped = jax.vmap(env.stop)(states)  # ICM at the start of the current hand
        scores = scores + jnp.where(running[:, None], stopped.rewards, 0.0)
        mine = scores[jnp.arange(chunk * n), rotation]
        out = dict(scores=mine.reshape(chunk, n), seats=seats.reshape(chunk, n),
                   illegal=illegal, unfinished=running.sum(), decisions=decisions)
        if luck:
            out["luck"] = lucks[jnp.arange(chunk * n), :, rotation].reshape(chunk, n, -1)
        return out

    return jax.jit(run)


def evaluate(policy: Callable, params=None, *, deals: int = 1000, env_id: str = "sng-6",
             seed: int = 0, chunk: int = 128, opponent: Callable | None = None,
             max_steps: int = 20_000, progress: Callable | None = None,
             luck: bool = False, actions: bool = False, policy_probs: Callable | None = None,
             opponent_probs: Callable | None = None,
             luck_value: Callable | None = None, rollouts: int = 0) -> EvalResult:
    """Rotated tournaments of ``policy`` against five copies of ``opponent``.

    ``policy(state, key) -> int32`` menu action, or ``policy(params, state, key)`` when
    ``params`` is given (params are traced data: one compile for many checkpoints).
    ``opponent(state, key)`` defaults to the baseline bot. ``deals`` deals (``6 * deals``
    tournaments) are played in batches of ``chunk`` deals; deal ``d`` uses
    ``fold_in(key(seed), d)``, so results do not depend on ``chunk``. ``progress(deals_done)``
    is called after every batch. ``luck``: also the scores with each tournament's luck taken
    out (`holdemjax.luck`, AIVAT; docs/luck.md): ``corrected_mean`` ± ``corrected_se``, the same
    expectation as the raw mean; by default the chance corrections under the check-down value.
    ``actions``: the action terms of the players whose probabilities are known too
    (``policy_probs`` / ``opponent_probs(state) -> # [A]``, found by `bots.known_policy` for the
    reference bots; off by default: on seat rotation they added variance). ``luck_value(params,
    state) -> # [N]`` (e.g. `ppo.state_value`): the chance term of each step's first board card
    under that value instead (`luck.chance_term`). ``rollouts``: the value that sees play
    instead, the rest of each hand played out by the policy and the opponents, ``rollouts``
    completions a side (`holdemjax.luck.rollout`).
    """
    for name, value, least in (("deals", deals, 2), ("chunk", chunk, 1),
                               ("max_steps", max_steps, 1)):
        require_int(name, value, least, what=f"an int >= {least}")
    if not callable(policy):
        raise ValueError(f"policy must be callable, got {policy!r}")
    env = make_env(env_id)
    if params is None:
        fn = stateless(policy)
        params = jnp.zeros(())
    else:
        fn = policy
    opponent = baseline_opponent(env) if opponent is None else opponent
    _check_policy(env, fn, params, "policy")
    _check_policy(env, stateless(opponent), jnp.zeros(()), "opponent")
    chunk = min(chunk, deals)
    known = (policy_probs or (known_policy(policy) if params is None else None),
             opponent_probs or known_policy(opponent))
    require_int("rollouts", rollouts, 0, what="an int >= 0")
    if (luck_value is not None or rollouts) and (not luck or actions or (
            luck_value is not None and (rollouts or not callable(luck_value)))):
        raise ValueError("luck_value (a callable value(params, state)) or rollouts replace the "
                         f"check-down value: one of them, with luck=True and actions=False; "
                         f"got luck={luck!r}, actions={actions!r}, luck_value={luck_value!r}, "
                         f"rollouts={rollouts!r}")
    run = _program(env, fn, opponent, chunk, max_steps, bool(luck),
                   known if luck and actions else (None, None), luck_value, rollouts)
    start = time.perf_counter()
    base_key = jax.random.key(seed)
    outs = []
    for lo in range(0, deals, chunk):
        outs.append(jax.device_get(run(params, base_key, jnp.int32(lo))))
        if progress is not None:
            progress(min(lo + chunk, deals))
    seconds = time.perf_counter() - start
    scores = np.concatenate([o["scores"] for o in outs])[:deals].astype(np.float64)
    seats = np.concatenate([o["seats"] for o in outs])[:deals]
    per_deal = scores.mean(axis=1)
    mean, se = mean_se(per_deal)
    z = z_score(mean - 1 / 6, se)
    corrected = {}
    if luck:
        lucks = np.concatenate([o["luck"] for o in outs])[:deals].astype(np.float64)
        cpd = (scores - lucks.sum(axis=2)).mean(axis=1)
        cm, cse = mean_se(cpd)
        corrected = dict(corrected_mean=cm, corrected_se=cse, corrected_per_deal=cpd,
                         luck=lucks)
    # The last chunk may run past `deals`; count what was played for the reported totals.
    total = {k: int(sum(o[k] for o in outs)) for k in ("illegal", "unfinished", "decisions")}
    return EvalResult(env_id, deals, 6 * deals, mean, se, float(z), per_deal,
                      scores.mean(axis=0), scores, seats.astype(np.int32), total["illegal"],
                      total["unfinished"], total["decisions"], seconds, **corrected)


#: The scores are float32 shares: a deal's rotation average is 1/6 only to about 1e-8, so
#: differences below this are rounding, not play (six identical policies: z = 0, not +-3).
SCORE_RESOLUTION = 1e-6


def mean_se(per_deal: np.ndarray) -> tuple[float, float]:
    """The mean of per-deal values and its standard error (SD with ddof 1 / sqrt(deals))."""
    return float(per_deal.mean()), float(per_deal.std(ddof=1) / math.sqrt(len(per_deal)))


def z_score(diff: float, se: float) -> float:
    """``diff / se`` (``diff``: a mean score less what it is compared with), with the float32
    rounding of the scores taken as no difference: 0 when ``diff`` and ``se`` are both within
    `SCORE_RESOLUTION`, +-inf when only ``se`` is (every deal scored the same)."""
    if se < SCORE_RESOLUTION:
        return 0.0 if abs(diff) < SCORE_RESOLUTION else math.copysign(math.inf, diff)
    return diff / se


@functools.cache
def stateless(fn):
    """``fn(state, key)`` as ``(params, state, key)`` (cached: one wrapper per function, so
    the programs cached by the policy compile once)."""
    return lambda params, state, key: fn(state, key)


if __name__ == "__main__":  # the command lives in evaluate_cli (it runs the panel)
    from holdemjax.training.evaluate_cli import main

    sys.exit(main())
