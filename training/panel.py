"""The evaluation panel: a policy against five copies of each opponent of a list, by seat rotation
on identical deals (`holdemjax.training.evaluate.evaluate` per line-up), as a cross-play table,
a JSON record and a plot.

Opponents by name (`OPPONENTS`): the reference bots ``baseline`` and ``random``, ``passive``
(checks when checking is free, else folds: it never puts a chip in voluntarily), ``allin``
(the menu's all-in whenever it is legal, else check/call), the duplicate reference tiers
``beginner``, ``intermediate`` and ``advanced`` as JAX bots (`holdemjax.bots.tiers`: the host
tiers' decisions, tested), a shipped trained policy by name (``example``: `TRAINED_BOTS`),
or the path of a PPO checkpoint (a trained policy as opponent, sampling). Each line-up's
``z`` is against the fair share 1/6 of six seats.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import pathlib
from collections.abc import Callable

import jax.numpy as jnp

from holdemjax.bots import baseline, random_bot
from holdemjax.bots import tiers as jax_tiers
from holdemjax.poker.actions import CHECK_CALL, FOLD
from holdemjax.training import evaluate as ev
from holdemjax.training import ppo_checkpoint
from holdemjax.training.evaluate import baseline_opponent
from holdemjax.training.ppo_config import CHECKPOINTS, TRAINED_BOTS
from holdemjax.training.records import run_header

__all__ = ["OPPONENTS", "Paired", "passive_move", "opponent", "run_panel", "run_versus", "table",
           "record", "plot"]

FAIR = 1 / 6
OPPONENTS = ("baseline", "random", "passive", "allin", *jax_tiers.TIERS)


def passive_move(mask):
    """The passive bot's move for legal masks ``# [..., A]``: check when checking is free, else
    fold (the menu offers FOLD only when facing a bet). ``# [...] int32``."""
    mask = jnp.asarray(mask)
    return jnp.where(mask[..., FOLD], FOLD, CHECK_CALL).astype(jnp.int32)


def _passive(env, state, key):
    """The passive bot: `passive_move` of the state's legal mask."""
    return passive_move(state.legal_action_mask)


def _allin(env, state, key):
    """The menu's all-in whenever it is legal, else check/call."""
    mask = state.legal_action_mask
    return jnp.where(mask[env.menu.ALL_IN], env.menu.ALL_IN, CHECK_CALL).astype(jnp.int32)


_BOTS = {"baseline": baseline.act, "random": random_bot.act, "passive": _passive,
         "allin": _allin}


@functools.cache
def opponent(name: str, env) -> Callable:
    """``act(state, key)`` of the opponent ``name`` on ``env`` (cached per name: one compiled
    evaluation per line-up). ``name``: one of `OPPONENTS` or a PPO checkpoint path."""
    if name == "baseline":
        return baseline_opponent(env)  # evaluate's default: its compiled programs are shared
    if name in _BOTS:
        return functools.partial(_BOTS[name], env)
    if name in jax_tiers.TIERS:
        return functools.partial(jax_tiers.act, jax_tiers.params_of(name), env)
    if name in TRAINED_BOTS:  # a shipped trained policy, by name
        name = str(CHECKPOINTS / TRAINED_BOTS[name])
    if not (name.endswith(".msgpack") or os.path.sep in name or pathlib.Path(name).exists()):
        raise ValueError(f"opponent {name!r} is neither a known opponent "
                         f"({', '.join((*OPPONENTS, *TRAINED_BOTS))}) nor a checkpoint path")
    params, config = ppo_checkpoint.load_checkpoint(name)
    if config.env_id != env.id:
        raise ValueError(f"opponent checkpoint {name} plays {config.env_id}, not {env.id}")
    fn = ppo_checkpoint.policy(config)
    return lambda state, key: fn(params, state, key)


def run_panel(policy: Callable, params, names, *, deals: int, env_id: str = "sng-6",
              seed: int = 0, chunk: int = 128, progress: Callable | None = None,
              luck: bool = False, luck_value: Callable | None = None,
              rollouts: int = 0) -> list:
    """``[(name, EvalResult)]``: `evaluate` of ``policy`` (with ``params``, as there) against
    five copies of each opponent in ``names``, on the same deals (same ``seed``).
    ``progress(name, deals_done)`` is called after every batch; ``luck``: each line-up's
    score with the luck taken out too (`evaluate`'s ``luck``, ``luck_value``, ``rollouts``)."""
    names = list(names)
    if not names:
        raise ValueError("the panel needs at least one opponent")
    env = ev.make_env(env_id)
    bots = [opponent(n, env) for n in names]  # every name checked before anything runs
    out = []
    for name, bot in zip(names, bots):
        step = None if progress is None else functools.partial(progress, name)
        out.append((name, ev.evaluate(policy, params, deals=deals, env_id=env_id, seed=seed,
                                      chunk=chunk, opponent=bot, progress=step, luck=luck,
                                      luck_value=luck_value, rollouts=rollouts)))
    return out


@dataclasses.dataclass(frozen=True)
class Paired:
    """The policy against a reference player on the same deals of one line-up: ``reference``
    (its name) played the policy's seat of every tournament; ``mean`` is its score, ``diff`` the
    mean of the per-deal differences (policy - reference), ``se`` their SD / sqrt(deals) and
    ``z = diff / se``. The deals are the same, so most of their luck cancels: the paired SE is
    the fair test of "beats the reference's score" (an unpaired one is several times larger)."""

    reference: str
    mean: float
    diff: float
    se: float
    z: float

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def run_versus(reference: str, results, *, deals: int, env_id: str = "sng-6", seed: int = 0,
               chunk: int = 128, progress: Callable | None = None) -> list:
    """``[Paired]``, one per line-up of ``results`` (`run_panel`'s, same ``deals``, ``seed``
    and ``env_id``): the bot or checkpoint ``reference`` (a name `opponent` accepts) evaluated
    in the policy's seat against the same opponents on the same deals."""
    env = ev.make_env(env_id)
    ref = opponent(reference, env)
    out = []
    for name, r in results:
        if r.deals != deals:
            raise ValueError(f"line-up {name!r} has {r.deals} deals, not {deals}")
        step = None if progress is None else functools.partial(progress, name)
        base = ev.evaluate(ref, deals=deals, env_id=env_id, seed=seed, chunk=chunk,
                           opponent=opponent(name, env), progress=step)
        diff, se = ev.mean_se(r.per_deal - base.per_deal)
        out.append(Paired(reference, base.mean, diff, se, ev.z_score(diff, se)))
    return out


def table(results, title: str = "cross-play", versus=None):
    """A rich table of the line-ups: mean score, SE, z against 1/6, mean ± 2 SE."""
    from rich.table import Table

    t = Table(title=title, caption="score: the policy's mean tournament score against five "
              "copies of the opponent (1/6 = even); z = (mean - 1/6) / SE, against the fair "
              "share 1/6")
    cols = ["opponent", "mean", "SE", "z vs 1/6", "mean ± 2 SE", "tournaments", "illegal",
            "unfinished"]
    if versus:
        ref = versus[0].reference
        cols[5:5] = [f"{ref}'s mean", f"- {ref} (paired)", f"z vs {ref}"]
    lucky = any(r.corrected_se is not None for _, r in results)
    if lucky:
        cols[4:4] = ["luck out ± SE", "SE ratio"]
    for col in cols:
        t.add_column(col, justify="left" if col == "opponent" else "right")
    for i, (name, r) in enumerate(results):
        row = [name, f"{r.mean:.4f}", f"{r.se:.4f}", f"{r.z:+.2f}",
               f"{r.mean - 2 * r.se:.4f} .. {r.mean + 2 * r.se:.4f}",
               f"{r.tournaments:,}", str(r.illegal), str(r.unfinished)]
        if versus:
            v = versus[i]
            row[5:5] = [f"{v.mean:.4f}", f"{v.diff:+.5f} ± {v.se:.5f}", f"{v.z:+.2f}"]
        if lucky:
            row[4:4] = (["-", "-"] if r.corrected_se is None else
                        [f"{r.corrected_mean:.4f} ± {r.corrected_se:.4f}",
                         f"{r.se / r.corrected_se:.2f}x" if r.corrected_se > 0 else "-"])
        t.add_row(*row)
    return t


def record(results, versus=None, **about) -> dict:
    """The JSON record: ``about`` (policy, seed, ...), the machine and versions (`run_header`),
    and one entry per line-up (`EvalResult.to_dict` plus its name, and with ``versus``
    (`run_versus`'s) its `Paired` under ``"versus"``)."""
    return dict(about, fair_share=FAIR, z="(mean - 1/6) / SE, against the fair share 1/6",
                **run_header(),
                lineups=[dict(opponent=name, **r.to_dict(),
                              **({} if not versus else {"versus": versus[i].to_dict()}))
                         for i, (name, r) in enumerate(results)])


def plot(results, path, title: str = "score ± 2 SE against five copies of each opponent"):
    """A PNG at ``path``: each line-up's mean score ± 2 SE, and the fair share 1/6."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n if len(n) <= 24 else "…" + n[-23:] for n, _ in results]
    means = [r.mean for _, r in results]
    errs = [2 * r.se for _, r in results]
    fig, ax = plt.subplots(figsize=(1.2 * len(names) + 2.5, 3.6))
    ax.errorbar(range(len(names)), means, yerr=errs, fmt="o", capsize=4)
    ax.axhline(FAIR, color="grey", linestyle="--", label="fair share 1/6")
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_ylabel("mean tournament score")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
