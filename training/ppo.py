"""PPO self-play on the tournament envs (`sng-6` by default), end to end under `jit`.

One compiled function, `Trainer.step`, does a whole iteration: a rollout (`lax.scan` of
``rollout_steps`` decisions over ``num_tables`` tables with ``jax.vmap(env.step)`` and
`holdemjax.auto_reset`), per-player GAE, and ``epochs`` x ``minibatches`` clipped-PPO updates
(optax adam with gradient clipping). The network is `holdemjax.training.networks.ActorCritic`
(Flax linen) over the observation, the legal mask applied to its logits.

Tables. Every table draws, at the start of each tournament, what sits at it (probabilities
``opp_self``, ``opp_pool``, ``opp_baseline``):

* *self*: all six player ids play the current policy;
* *pool*: ``learners`` ids play the current policy, the others one frozen past policy drawn from
  the pool (``pool_size`` snapshots kept on device, one taken every ``pool_every`` iterations,
  the oldest replaced first; the initial policy is the first);
* *baseline*: ``learners`` ids play the current policy, the others `holdemjax.bots.baseline.act`.

Which ids the learner controls is drawn too (the env seats ids at random anyway). Every
decision made by the current policy is training data (the current policy's decisions are
on-policy whichever seat makes them); frozen and baseline decisions are not.

Rewards: the env's ``zero_sum=True`` tournament score (score - 1/6), paid at the end of a
tournament to every player. Returns are per player: a decision's advantage runs to that player's
next decision (or to the end of its tournament), GAE with ``gamma`` and ``gae_lambda`` over the
player's own decisions. A decision whose successor (its next decision or the tournament's end)
is not in the rollout is not trained on (its value still bootstraps the earlier ones); the
tables carry on into the next rollout, so nothing is lost but that tail.

``python -m holdemjax.training.ppo --help`` lists the options; docs/training.md explains the
outputs (checkpoints, ``metrics.jsonl``, ``learning_curve.png``) and GPU settings.

The code is split along its seams: `ppo_config` (the `Config`), `ppo_trainer` (the compiled
`Trainer`), `ppo_checkpoint` (checkpoints and trained policies); this module has the training
loop (`train`), the learning-curve plot and the CLI, and re-exports the rest.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import pathlib
import shutil
import sys
import time

import jax
import numpy as np

from holdemjax.training.ppo_checkpoint import (
    action_probs,
    checkpoint_info,
    load_checkpoint,
    load_state,
    policy,
    save_checkpoint,
    save_state,
    state_value,
)
from holdemjax.training.ppo_config import (
    BASELINE,
    CHECKPOINT_FORMAT,
    CHECKPOINTS,
    ENV_IDS,
    LEARNER,
    LR_SCHEDULES,
    OBJECTIVES,
    PANEL,
    PANEL_BOTS,
    POOL,
    PRIORS,
    SHAPINGS,
    TABLE_KINDS,
    TRAINED_BOTS,
    Config,
    make_env,
    make_network,
)
from holdemjax.training.ppo_trainer import Setup, Trainer, TrainState, Transition
from holdemjax.training.records import run_header

__all__ = ["ENV_IDS", "CHECKPOINT_FORMAT", "LEARNER", "POOL", "BASELINE", "PANEL", "TABLE_KINDS",
           "SHAPINGS", "OBJECTIVES", "LR_SCHEDULES", "PRIORS", "PANEL_BOTS", "TRAINED_BOTS",
           "CHECKPOINTS", "Config", "make_env", "make_network", "Setup", "TrainState",
           "Transition", "Trainer", "train", "plot_metrics", "save_checkpoint",
           "load_checkpoint", "checkpoint_info", "save_state", "load_state", "run_info", "policy",
           "action_probs", "state_value",
           "main"]


# ------------------------------------------------------------------------- the training loop
def _summary(records, window: int, kind: str = "baseline"):
    """(mean score, standard error, tournaments) of the last ``window`` iterations' ``kind``
    tables."""
    recent = records[-window:]
    count = sum(r[f"tournaments_{kind}"] for r in recent)
    if count == 0:
        return float("nan"), float("nan"), 0
    s = sum(r[f"score_sum_{kind}"] for r in recent)
    sq = sum(r[f"score_sq_{kind}"] for r in recent)
    mean = s / count
    var = max(sq / count - mean ** 2, 0.0)
    return mean, math.sqrt(var / max(count - 1, 1)), count


def _read_records(path: pathlib.Path, count: int) -> list:
    """The first ``count`` records of a ``metrics.jsonl`` (a resumed run's history)."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    if len(lines) < count:
        raise ValueError(f"{path} holds {len(lines)} records; the saved state is at iteration "
                         f"{count}")
    return [json.loads(line) for line in lines[:count]]


def plot_metrics(records, path) -> pathlib.Path:
    """The learning curve (score against the baseline, losses, entropy) as a PNG/SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = pathlib.Path(path)
    steps = np.array([r["env_steps"] for r in records], np.float64)
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    window = max(1, len(records) // 15)
    means, ses = [], []
    for i in range(len(records)):
        m, se, count = _summary(records[: i + 1], window)
        if count < 30:  # too few finished tournaments in the window to plot a mean
            m = se = float("nan")
        means.append(m), ses.append(se)
    means, ses = np.array(means), np.array(ses)
    ax = axes[0]
    ax.plot(steps, means, color="C3", label=f"current policy vs 5 baselines ({window}-it window)")
    ax.fill_between(steps, means - 2 * ses, means + 2 * ses, color="C3", alpha=0.2)
    ax.axhline(1 / 6, color="k", lw=0.8, ls="--", label="1/6 (even)")
    ax.set(xlabel="env steps", ylabel="mean tournament score", title="score at baseline tables")
    ax.legend(fontsize=7)
    for key, color in (("pg_loss", "C0"), ("v_loss", "C1")):
        axes[1].plot(steps, [r[key] for r in records], color=color, label=key)
    axes[1].set(xlabel="env steps", title="losses")
    axes[1].legend(fontsize=7)
    axes[2].plot(steps, [r["entropy"] for r in records], color="C2", label="entropy")
    axes[2].plot(steps, [r["approx_kl"] * 100 for r in records], color="C4",
                 label="approx KL x 100")
    axes[2].set(xlabel="env steps", title="policy")
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _to_host(metrics) -> dict:
    return {k: (int(v) if np.issubdtype(np.asarray(v).dtype, np.integer) else float(v))
            for k, v in jax.device_get(metrics).items()}


def train(config: Config, out_dir=None, *, log_every: int = 1, checkpoint_every: int = 0,
          init_params=None, console=None, quiet: bool = False, devices=None,
          resume: bool = False, keep_every: int = 0, run_info=None):
    """Run ``config.iterations`` iterations; returns ``(params, records)``.

    With ``out_dir``: writes ``metrics.jsonl`` (one record per iteration, appended as it
    goes), ``checkpoint.msgpack`` and the whole training state ``state.msgpack`` (every
    ``checkpoint_every`` iterations, 0 = only at the end; ``keep_every``: also a copy of the
    checkpoint as ``checkpoint-<iteration>.msgpack`` every so many iterations) and
    ``learning_curve.png`` at the end. ``resume``: continue from ``state.msgpack`` where it
    stopped, to the same parameters bit for bit as an uninterrupted run. ``init_params``
    continues from given parameters (the optimizer and pool start afresh). ``run_info``: JSON-able
    facts stored in every checkpoint (command, machine). Prints a progress line every
    ``log_every`` iterations (rich markup) unless ``quiet``. ``devices``: the devices the tables
    are split over (``None``: every device JAX sees; an int n: the first n; see `Trainer`).
    """
    from rich.console import Console

    console = console or Console(highlight=False, soft_wrap=True)
    out = pathlib.Path(out_dir) if out_dir is not None else None
    saved = None  # a saved state is read (and refused if it is not this config's) first
    if out is not None and resume and (out / "state.msgpack").exists():
        saved = load_state(out / "state.msgpack", config)
    trainer = Trainer.of(config, devices)
    t0 = time.perf_counter()
    ts = trainer.init(params=init_params)
    # Compile apart from the timed iterations (once per trainer: shapes follow the config).
    if trainer.compiled is None:
        trainer.compiled = trainer.step.lower(ts).compile()
    compiled = trainer.compiled
    compile_s = time.perf_counter() - t0
    if not quiet:
        console.print(f"[bold]PPO[/] {config.env_id}: {config.num_tables} tables x "
                      f"{config.rollout_steps} steps, {config.iterations} iterations, "
                      f"{trainer.sharding.size} device(s); compiled in {compile_s:.1f} s")
    log, records, env_steps, run_s, start_at = None, [], 0, 0.0, 0
    run_info = dict(run_info or {})
    if saved is not None:
        leaves, info = saved
        ts = trainer.restore(leaves, ts)
        start_at, env_steps, run_s = info["iteration"], info["env_steps"], info["train_s"]
        records = _read_records(out / "metrics.jsonl", start_at)
        run_info["resumed_at"] = info.get("resumed_at", []) + [start_at]
        if not quiet:
            console.print(f"resumed from {out / 'state.msgpack'} at iteration {start_at}")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        log = open(out / "metrics.jsonl", "w", encoding="utf-8")
        for rec in records:  # what the interrupted run had logged up to its saved state
            log.write(json.dumps(rec) + "\n")
        log.flush()

    def save(iteration, **extra):
        info = dict(run_info, iteration=iteration, env_steps=env_steps, train_s=run_s,
                    compile_s=compile_s, **extra)
        save_checkpoint(out / "checkpoint.msgpack", ts.params, config, **info)
        save_state(out / "state.msgpack", trainer.state_leaves(ts), config, **info)
        if keep_every and iteration % keep_every == 0:
            shutil.copyfile(out / "checkpoint.msgpack", out / f"checkpoint-{iteration}.msgpack")

    try:
        for i in range(start_at, config.iterations):
            start = time.perf_counter()
            ts, metrics = compiled(ts)
            rec = _to_host(metrics)  # waits for the iteration
            seconds = time.perf_counter() - start
            run_s += seconds
            env_steps += rec["decisions"]
            rec.update(iteration=i + 1, env_steps=env_steps, seconds=seconds,
                       steps_per_s=rec["decisions"] / seconds, wall_s=run_s,
                       compile_s=compile_s)
            records.append(rec)
            if log is not None:
                log.write(json.dumps(rec) + "\n")
                log.flush()
            if not quiet and ((i + 1) % log_every == 0 or i + 1 == config.iterations):
                m, se, cnt = _summary(records, 10)
                console.print(
                    f"it {i + 1:>4}/{config.iterations} | {env_steps / run_s:>7,.0f} steps/s | "
                    f"vs baseline [bold]{m:.3f}[/] ± {se:.3f} (n={cnt}, last 10 it) | "
                    f"pg {rec['pg_loss']:+.4f} v {rec['v_loss']:.4f} "
                    f"ent {rec['entropy']:.3f} kl {rec['approx_kl']:.4f} | "
                    f"{run_s + compile_s:,.0f} s")
            if (out is not None and checkpoint_every and (i + 1) % checkpoint_every == 0
                    and i + 1 < config.iterations):
                save(i + 1)
    finally:
        if log is not None:
            log.close()
    if out is not None:
        save(config.iterations, steps_per_s=env_steps / max(run_s, 1e-9))
        if records:
            plot_metrics(records, out / "learning_curve.png")
    return ts.params, records


# ---------------------------------------------------------------------------------- the CLI
_HELP = {
    "env_id": "tournament env to train on",
    "num_tables": "tables played in parallel (batch)",
    "rollout_steps": "decisions per table per iteration",
    "iterations": "training iterations",
    "epochs": "PPO epochs per iteration",
    "minibatches": "minibatches per epoch",
    "learning_rate": "adam learning rate",
    "lr_schedule": "learning-rate schedule: constant, or linear down to 0 over the run",
    "gamma": "discount per own decision",
    "gae_lambda": "GAE lambda",
    "clip_eps": "PPO clip range",
    "value_coef": "value loss weight",
    "entropy_coef": "entropy bonus weight",
    "max_grad_norm": "global gradient norm clip",
    "hidden": "hidden layer widths of the actor and critic MLPs",
    "prior": "initial policy: uniform (near uniform over the legal actions) or passive (fold "
             "~0.9 facing a bet, check ~0.9 when free)",
    "learners": "player ids the current policy controls at pool and baseline tables",
    "opp_self": "share of tables in pure self-play",
    "opp_pool": "share of tables against a past snapshot",
    "opp_baseline": "share of tables against the baseline bot",
    "opp_panel": "share of tables against one bot of --panel-bots (drawn per tournament)",
    "panel_bots": "the bots a panel table may seat",
    "pool_size": "snapshots kept in the opponent pool",
    "pool_every": "iterations between snapshots",
    "shaping": "potential-based reward shaping (icm: expected score of the stacks at each hand "
               "start; chips: chip share; none: the tournament score only)",
    "objective": "where a decision's return stops: tournament (its end: the score), hand (its "
                 "hand's end: the hand's change of the shaping potential, e.g. of ICM) or "
                 "hand-td (the hand's change plus the critic's value of the next decision)",
    "stop_when_out": "a table whose learners are all out starts a new tournament at once",
    "luck_out": "the advantages' rewards less each step's luck (AIVAT's chance corrections "
                "under the tournament's value, holdemjax.luck.step_luck; docs/luck.md)",
    "seed": "random seed",
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m holdemjax.training.ppo",
        description="PPO self-play on a holdemjax tournament env (docs/training.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    defaults = Config()
    for f in dataclasses.fields(Config):
        flag = "--" + f.name.replace("_", "-")
        value = getattr(defaults, f.name)
        if f.name == "hidden":
            p.add_argument(flag, type=int, nargs="+", default=list(value), help=_HELP[f.name])
        elif f.name == "panel_bots":
            p.add_argument(flag, nargs="+", choices=(*PANEL_BOTS, *TRAINED_BOTS),
                           default=list(value), help=_HELP[f.name])
        elif isinstance(value, bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=value,
                           help=_HELP[f.name])
        elif f.name in ("env_id", "shaping", "objective", "lr_schedule", "prior"):
            choices = {"env_id": ENV_IDS, "shaping": SHAPINGS, "objective": OBJECTIVES,
                       "lr_schedule": LR_SCHEDULES, "prior": PRIORS}[f.name]
            p.add_argument(flag, choices=choices, default=value, help=_HELP[f.name])
        else:
            p.add_argument(flag, type=type(value), default=value, help=_HELP[f.name])
    p.add_argument("--out", default="ppo_run", help="output folder (metrics, checkpoint, plot)")
    p.add_argument("--log-every", type=int, default=1, help="iterations between progress lines")
    p.add_argument("--checkpoint-every", type=int, default=0,
                   help="iterations between checkpoints (0: only at the end)")
    p.add_argument("--init", default=None, help="start from this checkpoint's parameters")
    p.add_argument("--resume", action="store_true",
                   help="continue from OUT/state.msgpack where it stopped (the same parameters "
                        "bit for bit as an uninterrupted run); a fresh start if there is none")
    p.add_argument("--keep-every", type=int, default=0,
                   help="also keep OUT/checkpoint-<iteration>.msgpack every so many iterations")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--devices", type=int, default=None,
                   help="devices the tables are split over (default: every device JAX sees; "
                        "num-tables must divide by it)")
    return p


def run_info(argv=None, prog: str = "python -m holdemjax.training.ppo") -> dict:
    """The run record stored in a run's checkpoints: the command (``prog`` and ``argv``, by
    default this process's arguments), date, machine and versions."""
    argv = sys.argv[1:] if argv is None else argv
    return dict(run_header(), command=" ".join([prog, *argv]))


def main(argv=None) -> int:
    """Command-line entry point; returns an exit status."""
    args = _parser().parse_args(argv)
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(Config)}
    try:
        config = Config.from_dict(values)
        init_params = None
        if args.init:
            init_params, old = load_checkpoint(args.init)
            if (old.hidden, old.env_id) != (config.hidden, config.env_id):
                raise ValueError(f"--init {args.init}: network {old.hidden} on {old.env_id} "
                                 f"does not match {config.hidden} on {config.env_id}")
        if args.log_every < 1 or args.checkpoint_every < 0 or args.keep_every < 0:
            raise ValueError("--log-every must be >= 1, --checkpoint-every and --keep-every "
                             ">= 0")
        if args.resume and args.init:
            raise ValueError("--resume continues a run's own state; it takes no --init")
        Trainer.of(config, args.devices)  # refuses a device count the batch does not fit
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    _, records = train(config, args.out, log_every=args.log_every,
                       checkpoint_every=args.checkpoint_every, init_params=init_params,
                       quiet=args.quiet, devices=args.devices, resume=args.resume,
                       keep_every=args.keep_every, run_info=run_info(argv))
    if records and not args.quiet:
        total = records[-1]["env_steps"]
        wall = records[-1]["wall_s"]
        print(f"done: {total:,} env steps in {wall:.0f} s ({total / wall:,.0f} steps/s, "
              f"compile {records[-1]['compile_s']:.0f} s); outputs in {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
