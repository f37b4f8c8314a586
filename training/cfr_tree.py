"""CFR's game trees: every deal of `kuhn_poker` and `leduc_holdem` stepped along every legal
action through the env (`game_tree`), the infoset keys (`infosets`) and policies as arrays
(`policy_array`). Part of `holdemjax.training.cfr` (its docstring describes the keys), which
re-exports it.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
from collections.abc import Callable, Mapping

import jax
import jax.numpy as jnp
import numpy as np

import holdemjax
from holdemjax.envs import kuhn_poker as kp
from holdemjax.envs import leduc_holdem as lh

__all__ = ["RANKS", "ENV_IDS", "check_env", "GameTree", "game_tree", "infosets", "uniform_policy",
           "policy_array"]

RANKS = "JQK"
_CHUNK = 256  # env steps per jitted call while building trees (one compile per env)


# ---------------------------------------------------------------------- how each env is dealt
@dataclasses.dataclass(frozen=True)
class _Spec:
    deals: Callable[[], list[tuple[float, dict]]]  # chance outcomes: (probability, field values)
    cards: Callable[[np.ndarray], str]  # the cards an observation shows, as ranks
    letters: dict[int, str]  # action id -> letter in infoset keys


def _kuhn_deals():
    # The env deals one of the 6 ordered pairs of distinct cards uniformly (see its docstring).
    pairs = list(itertools.permutations((kp.JACK, kp.QUEEN, kp.KING), 2))
    return [(1 / len(pairs), {"_cards": pair, "current_player": 0}) for pair in pairs]


def _leduc_deals():
    # Every ordered draw of 3 deck positions is equally likely; equal rank triples are merged.
    draws = collections.Counter(tuple(lh.DECK[i] for i in d)
                                for d in itertools.permutations(range(len(lh.DECK)), 3))
    total = sum(draws.values())
    return [(n / total, {"_cards": cards, "_first_player": 0, "current_player": 0})
            for cards, n in sorted(draws.items())]


def _rank(bits) -> str:
    return RANKS[int(np.argmax(bits))] if bits.any() else ""


_SPECS = {
    "kuhn_poker": _Spec(_kuhn_deals, lambda obs: _rank(obs[kp.OBS_CARD]),
                        {kp.BET: "b", kp.PASS: "p"}),
    "leduc_holdem": _Spec(_leduc_deals,
                          lambda obs: _rank(obs[lh.OBS_HAND]) + _rank(obs[lh.OBS_PUBLIC]),
                          {lh.CALL: "c", lh.RAISE: "r", lh.FOLD: "f"}),
}
ENV_IDS = tuple(_SPECS)


def check_env(env_id) -> str:
    if env_id not in _SPECS:
        raise ValueError(f"unknown env id {env_id!r} for CFR; known: {', '.join(ENV_IDS)}")
    return env_id


# ------------------------------------------------------------------------------- the tree
@dataclasses.dataclass(frozen=True, eq=False)
class GameTree:
    """A two-player zero-sum game tree, nodes breadth first (parents before children).

    Decision and terminal nodes only: the deal is folded into `chance` (one root per deal).
    """

    env_id: str
    infosets: tuple[str, ...]  # [I] keys, in order of first appearance (so by depth)
    owner: np.ndarray  # [I] int32 player to act
    legal: np.ndarray  # [I, A] bool legal actions
    parent: np.ndarray  # [N] int32, -1 at roots
    action: np.ndarray  # [N] int32 action leading here, -1 at roots
    depth: np.ndarray  # [N] int32 actions since the deal
    player: np.ndarray  # [N] int32 player to act, -1 at terminals
    infoset: np.ndarray  # [N] int32 infoset index, -1 at terminals
    children: np.ndarray  # [N, A] int32 child node, -1 where illegal or terminal
    chance: np.ndarray  # [N] float64 probability of the node's deal
    utility: np.ndarray  # [N] float64 player 0's total reward at terminals, 0 elsewhere

    @property
    def terminals(self) -> np.ndarray:
        """[T] indices of the terminal nodes."""
        return np.flatnonzero(self.player < 0)


def _stack(states):
    return jax.tree.map(lambda *xs: np.stack(xs), *states)


def _chunked(fn, tree, *args):
    """`fn(tree, *args)` over the leading axis in fixed-size chunks (a single compile)."""
    n, outs = len(args[0]), []
    for lo in range(0, n, _CHUNK):
        pad = lambda x, lo=lo: np.resize(np.asarray(x)[lo:lo + _CHUNK], (_CHUNK, *np.shape(x)[1:]))
        out = fn(jax.tree.map(pad, tree), *map(pad, args))
        outs.append(jax.tree.map(lambda x, lo=lo: np.asarray(x)[:min(_CHUNK, n - lo)], out))
    return jax.tree.map(lambda *xs: np.concatenate(xs), *outs)


@functools.cache
def game_tree(env_id: str) -> GameTree:
    """The full tree of `env_id` (cached), built by stepping the env from every deal."""
    spec = _SPECS[check_env(env_id)]
    env = holdemjax.make(env_id)
    assert not env.requires_step_key, "chance inside step is not supported"
    step = jax.jit(jax.vmap(env.step))
    observe = jax.jit(jax.vmap(env.observe))
    base = env.init(jax.random.key(0))
    deals = spec.deals()
    level = _stack([base.replace(**{k: jnp.asarray(v, getattr(base, k).dtype)
                                    for k, v in fields.items()}) for _, fields in deals])
    parent, action, depth, player, infoset, chance, utility = [], [], [], [], [], [], []
    keys, owner, legal = {}, [], []
    meta = [(-1, -1, p, 0.0, "") for p, _ in deals]  # per row: parent, action, chance, sum, line
    while meta:
        obs = _chunked(observe, level, level.current_player)
        rows, acts = [], []
        for i, (par, act, prob, total, line) in enumerate(meta):
            node = len(parent)
            total += float(level.rewards[i][0])
            done = bool(level.terminated[i])
            parent.append(par), action.append(act), chance.append(prob)
            depth.append(0 if par < 0 else depth[par] + 1)
            utility.append(total if done else 0.0)
            if done:
                assert level.rewards[i].sum() == 0, "only zero-sum games are supported"
                player.append(-1), infoset.append(-1)
                continue
            p, mask = int(level.current_player[i]), np.asarray(level.legal_action_mask[i])
            key = f"p{p}:{spec.cards(obs[i])}:{line}"
            if key not in keys:
                keys[key] = len(keys)
                owner.append(p), legal.append(mask)
            # Perfect recall as keyed: one actor and one mask per infoset.
            assert owner[keys[key]] == p and (legal[keys[key]] == mask).all(), key
            player.append(p), infoset.append(keys[key])
            for a in np.flatnonzero(mask):
                rows.append((i, node, int(a), total, line + spec.letters[int(a)]))
                acts.append(a)
        if not rows:
            break
        idx = np.array([r[0] for r in rows])
        level = _chunked(step, jax.tree.map(lambda x, idx=idx: np.asarray(x)[idx], level),
                         np.asarray(acts, np.int32))
        meta = [(node, a, chance[node], total, line) for _, node, a, total, line in rows]
    children = np.full((len(parent), env.num_actions), -1, np.int32)
    for n, (par, act) in enumerate(zip(parent, action)):
        if par >= 0:
            children[par, act] = n
    i32 = lambda x: np.asarray(x, np.int32)
    return GameTree(env_id, tuple(keys), i32(owner), np.array(legal, bool), i32(parent),
                    i32(action), i32(depth), i32(player), i32(infoset), children,
                    np.asarray(chance), np.asarray(utility))


def infosets(env_id: str) -> tuple[str, ...]:
    """The infoset keys of `env_id`, in the row order of array policies."""
    return game_tree(env_id).infosets


# ------------------------------------------------------------------------------- policies
def uniform_policy(env_id: str) -> dict[str, np.ndarray]:
    """Every infoset: equal probability on each legal action."""
    t = game_tree(env_id)
    return dict(zip(t.infosets, t.legal / t.legal.sum(1, keepdims=True)))


def policy_array(env_id: str, policy) -> np.ndarray:
    """`policy` (mapping, array, "uniform" or a `CFRResult`) as a normalized `[I, A]` array.

    Probabilities on illegal actions are dropped and each row renormalized over the legal
    actions (a row with no legal mass becomes uniform).
    """
    t = game_tree(env_id)
    if hasattr(policy, "average_policy"):  # a `cfr.CFRResult`
        policy = policy.average_policy
    if isinstance(policy, str):
        if policy != "uniform":
            raise ValueError(f"unknown policy {policy!r}; give a mapping, an array or 'uniform'")
        policy = t.legal.astype(np.float64)
    elif isinstance(policy, Mapping):
        missing, extra = set(t.infosets) - set(policy), set(policy) - set(t.infosets)
        if missing or extra:
            raise ValueError(f"{env_id}: policy keys do not match the infosets (missing "
                             f"{sorted(missing)[:5]}, unknown {sorted(extra)[:5]})")
        policy = np.stack([np.asarray(policy[k], np.float64) for k in t.infosets])
    p = np.asarray(policy, np.float64)
    if p.shape != t.legal.shape or not np.isfinite(p).all() or (p < 0).any():
        raise ValueError(f"{env_id}: a policy array needs shape {t.legal.shape} and "
                         f"non-negative entries, got shape {p.shape}")
    p = p * t.legal
    s = p.sum(1, keepdims=True)
    return np.where(s > 0, p / np.where(s > 0, s, 1), t.legal / t.legal.sum(1, keepdims=True))
