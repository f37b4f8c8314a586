"""The learner's throughput and its split: decisions per second of `holdemjax.training.learn`'s
settings end to end (`Trainer.step`, one whole iteration), and apart: the env alone (the same
`jit(scan(vmap(step)))` of the rollout's length with random legal actions and auto-reset), the
rollout (env + the acting network on every row + the opponents' bots), and the update (GAE and
PPO's epochs on a rollout's batch). The acting share is rollout - env. Compile times apart.
Writes benchmarks/results/learner_speed.json.

    python benchmarks/bench_learner.py                 # 1,024 and 4,096 tables
    python benchmarks/bench_learner.py --tables 1024 --repeats 3 --no-write
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import jax
import jax.numpy as jnp

import holdemjax
from holdemjax.bench import core
from holdemjax.training import learn, ppo


def _timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    jax.block_until_ready(out)
    return out, time.perf_counter() - start


def measure(num_tables: int, repeats: int) -> dict:
    """Compile and run times of one table count (medians of ``repeats`` calls each)."""
    config = learn.config(0, num_tables=num_tables)
    trainer = ppo.Trainer(config)
    env, steps = trainer.env, config.rollout_steps
    ts = trainer.init()
    decisions = num_tables * steps

    step_env = jax.vmap(holdemjax.auto_reset(env.step, env.init))

    def env_only(state, key):
        def one(carry, k):
            s, k = carry[0], jax.random.split(k, num_tables + 1)
            logits = jnp.where(s.legal_action_mask, 0.0, -1e9)
            a = jax.random.categorical(k[0], logits).astype(jnp.int32)
            return (step_env(s, a, k[1:]),), None
        return jax.lax.scan(one, (state,), jax.random.split(key, steps))[0][0]

    def update(ts, traj):
        adv, train = trainer._advantages(traj)
        flat = lambda x: x.reshape((-1,) + x.shape[2:])
        data = (flat(traj.features), flat(traj.mask), flat(traj.action), flat(traj.logp),
                flat(adv), flat(adv + traj.value), flat(train).astype(jnp.float32))
        return trainer.update(ts.params, ts.opt_state, data, ts.key)

    programs = {}
    for name, fn, args in (("env", env_only, (ts.env_state, jax.random.key(1))),
                           ("rollout", trainer._rollout, (ts,))):
        start = time.perf_counter()
        programs[name] = jax.jit(fn).lower(*args).compile()
        programs[name + "_compile_s"] = time.perf_counter() - start
    _, traj = programs["rollout"](ts)
    start = time.perf_counter()
    programs["update"] = jax.jit(update).lower(ts, traj).compile()
    programs["update_compile_s"] = time.perf_counter() - start
    start = time.perf_counter()
    whole = trainer.step.lower(ts).compile()
    compile_s = time.perf_counter() - start

    times = {k: [] for k in ("env", "rollout", "update", "iteration")}
    state = ts.env_state
    for r in range(repeats):  # interleaved: one of each per round
        state, s = _timed(programs["env"], state, jax.random.key(2 + r))
        times["env"].append(s)
        _, s = _timed(programs["rollout"], ts)
        times["rollout"].append(s)
        _, s = _timed(programs["update"], ts, traj)
        times["update"].append(s)
        (ts, _), s = _timed(whole, ts)
        times["iteration"].append(s)
    med = {k: statistics.median(v) for k, v in times.items()}
    return dict(tables=num_tables, rollout_steps=steps, decisions_per_iteration=decisions,
                seconds=times, median_s=med,
                decisions_per_s=dict(end_to_end=decisions / med["iteration"],
                                     env_only=decisions / med["env"]),
                split_s=dict(env=med["env"], acting_and_bots=med["rollout"] - med["env"],
                             update=med["update"]),
                compile_s=dict(iteration=compile_s, env=programs["env_compile_s"],
                               rollout=programs["rollout_compile_s"],
                               update=programs["update_compile_s"]))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, nargs="+", default=[1024, 4096])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args(argv)
    load_before = __import__("os").getloadavg()
    rows = []
    for n in args.tables:
        row = measure(n, args.repeats)
        rows.append(row)
        print(json.dumps({k: row[k] for k in ("tables", "decisions_per_s", "split_s",
                                              "compile_s")}), flush=True)
    doc = dict(core.header("learner_speed", "The learner's decisions per second and split",
                           load_before=load_before),
               config=learn.LEARNER.to_dict(), rows=rows,
               notes=["end_to_end: one whole Trainer.step (rollout, GAE, epochs x minibatches "
                      "updates); env_only: the same scan of vmap(env.step) with auto-reset and "
                      "random legal actions; acting_and_bots = rollout - env: everything else a "
                      "rollout step computes on every row (the network's features and both "
                      "heads, the baseline bot and every bot of the config's panel_bots, the "
                      "ICM potential of the state each step reaches, the table draws); update: "
                      f"GAE and the epochs; medians of {args.repeats} interleaved rounds"])
    if not args.no_write:
        path = core.results_dir() / "learner_speed.json"
        path.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
