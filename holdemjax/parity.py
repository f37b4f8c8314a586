"""Step-by-step parity with a peer engine: the one driver every side game's parity check uses.

`run_parity(ours, peer, ...)` vmaps both envs over a batch and steps them together with the same
actions until every game has ended, plus one step more (a finished game must come back unchanged
with zero rewards). At every step it compares the public fields (`current_player`,
`legal_action_mask`, `observation`, `rewards`, `terminated`, `truncated`) row by row. The whole
run of one batch is one compiled `lax.while_loop`: the comparisons happen on the device, and only
the counts come back.

Actions: a uniform random legal action from our mask; with probability `illegal_rate`, when the
row has an illegal action, a uniform random illegal one instead (so the illegal-action rule and the
observation after it are compared too). Chance: both envs get the same init keys and, for games
with chance inside a step (`step_keys`), the same step keys. Before playing, the fields' dtypes
and shapes are compared too (`layout`): equal values in another dtype (an ``int8`` board for a
``bool`` one) are a difference. Where our env draws its chance
differently from the peer (a cheaper coin for the first player), `prepare(ours, theirs) -> ours`
copies the peer's draw into our batch after `init` (the observation is then computed again).
`prepare` may also return `(ours, theirs)`: both batches replaced, e.g. to start some games
from set positions built with each engine's own helpers.

`ending(before, action, after, illegal) -> int32 [B]` (batched states) names how each game ended,
as an index into `ending_names`; it is read at the step where the game becomes terminal, so that
a report can show that every kind of ending was reached. Without it, games are counted as
"illegal move" or "ended". `events(before, action, after, illegal) -> bool [B, K]` flags things
that happen during play (a forced pass, a double rolled), one column per name in `event_names`;
the report counts the live (game, step) pairs where each happened.

The peer is used as an oracle only: this module knows no game and imports no peer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.experimental import act_randomly

__all__ = ["FIELDS", "ParityReport", "run_parity"]

#: The public fields compared at every step.
FIELDS = ("current_player", "legal_action_mask", "observation", "rewards", "terminated",
          "truncated")
_DEFAULT_ENDINGS = ("ended", "illegal move")


@dataclasses.dataclass
class ParityReport:
    """What `run_parity` found. `ok` when no (game, step) pair differs and every game ended."""

    label: str
    games: int
    game_steps: int  # live (game, step) pairs compared
    mismatches: dict[str, int]  # field -> mismatching (game, step) pairs
    mismatched_games: int
    first_mismatch: tuple[int, int] | None  # (game, step) of the first mismatch found
    endings: dict[str, int]  # ending kind -> games
    unfinished: int  # games still live after max_steps
    events: dict[str, int] = dataclasses.field(default_factory=dict)  # event -> (game, step)s
    #: field -> "ours <dtype><shape>, peer <dtype><shape>" where the layouts differ
    layout: dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.mismatched_games == 0 and self.unfinished == 0 and not self.layout

    def __str__(self) -> str:
        lines = [f"{self.label}: {self.games} games, {self.game_steps} game-steps compared"]
        for name, what in self.layout.items():
            lines.append(f"  {name:18s} LAYOUT DIFFERS: {what}")
        for name, count in self.mismatches.items():
            lines.append(f"  {name:18s} mismatching (game, step) pairs: {count}")
        lines.append(f"  games with any mismatch: {self.mismatched_games}"
                     + (f" (first: game {self.first_mismatch[0]}, step {self.first_mismatch[1]})"
                        if self.first_mismatch else ""))
        lines.append("  endings: " + ", ".join(f"{k} {v}" for k, v in self.endings.items()))
        if self.events:
            lines.append("  events: " + ", ".join(f"{k} {v}" for k, v in self.events.items()))
        if self.unfinished:
            lines.append(f"  UNFINISHED after the step bound: {self.unfinished}")
        return "\n".join(lines)


def run_parity(ours, peer, *, games: int, max_steps: int, batch: int | None = None,
               seed: int = 0, illegal_rate: float = 0.0,
               prepare: Callable | None = None, step_keys: bool | None = None,
               ending: Callable | None = None, ending_names: Sequence[str] = (),
               pick: Callable | None = None,
               events: Callable | None = None, event_names: Sequence[str] = (),
               fields: Sequence[str] = FIELDS, label: str | None = None,
               progress: Callable[[int, int], None] | None = None) -> ParityReport:
    """Play `games` random games in both envs (in batches of `batch`) and compare every step.

    max_steps: a bound every game ends within (games still live after it are reported as
    unfinished, which makes the report not ok). step_keys: pass per-row step keys to both envs
    (default: whether our env requires one). pick(key, ours) -> int32 [B]: the legal action
    to play (default: uniform over our mask), e.g. to make passes or swaps common enough to
    reach every kind of ending. progress(done, games) is called after each batch.
    """
    if games < 1 or max_steps < 1:
        raise ValueError(f"games and max_steps must be >= 1, got {games} and {max_steps}")
    if not 0.0 <= illegal_rate <= 1.0:
        raise ValueError(f"illegal_rate must be in [0, 1], got {illegal_rate}")
    batch = min(batch or games, games)
    step_keys = ours.requires_step_key if step_keys is None else step_keys
    names = tuple(ending_names) if ending is not None else _DEFAULT_ENDINGS
    label = label or ours.id
    fields = tuple(fields)
    event_names = tuple(event_names) if events is not None else ()
    play = jax.jit(_player(ours, peer, fields, max_steps, illegal_rate, prepare, step_keys,
                           ending, len(names), pick, events, len(event_names)),
                   static_argnums=1)

    layout = _layout_differences(ours, peer, fields, seed)
    mismatches = dict.fromkeys(fields, 0)
    endings = np.zeros(len(names), np.int64)
    happened = np.zeros(len(event_names), np.int64)
    bad_games = steps = unfinished = 0
    first = None
    for start in range(0, games, batch):
        n = min(batch, games - start)
        out = jax.device_get(play(jax.random.fold_in(jax.random.key(seed), start), n))
        for name in fields:
            mismatches[name] += int(out["pairs"][name])
        bad = out["bad"]
        if first is None and bad.any():
            row = int(np.flatnonzero(bad)[0])
            first = (start + row, int(out["first_step"][row]))
        bad_games += int(bad.sum())
        steps += int(out["steps"])
        unfinished += int((~out["done"]).sum())
        kinds = out["kind"][out["done"]]
        endings += np.bincount(kinds, minlength=len(names))[:len(names)]
        happened += np.asarray(out["events"], np.int64)
        if progress is not None:
            progress(start + n, games)
    return ParityReport(label=label, games=games, game_steps=steps, mismatches=mismatches,
                        mismatched_games=bad_games, first_mismatch=first,
                        endings={k: int(v) for k, v in zip(names, endings)},
                        unfinished=unfinished,
                        events={k: int(v) for k, v in zip(event_names, happened)},
                        layout=layout)


def _layout_differences(ours, peer, fields, seed) -> dict[str, str]:
    """The fields whose dtype or shape differ between the two envs' initial states (traced
    only: nothing is compiled)."""
    key = jax.random.key(seed)
    a, b = jax.eval_shape(ours.init, key), jax.eval_shape(peer.init, key)
    out = {}
    for name in fields:
        x, y = getattr(a, name), getattr(b, name)
        if x.dtype != y.dtype or x.shape != y.shape:
            out[name] = f"ours {x.dtype}{list(x.shape)}, peer {y.dtype}{list(y.shape)}"
    return out


def _player(ours, peer, fields, max_steps, illegal_rate, prepare, step_keys, ending, n_kinds,
            pick, events=None, n_events=0):
    def differ(a, b):
        out = {}
        for name in fields:
            x, y = getattr(a, name), getattr(b, name)
            n = x.shape[0]
            out[name] = (x.reshape(n, -1) != y.reshape(n, -1)).any(axis=1)
        return out

    def play(key, n):
        k_init, k_play = jax.random.split(key)
        init_keys = jax.random.split(k_init, n)
        a = jax.vmap(ours.init)(init_keys)
        b = jax.vmap(peer.init)(init_keys)
        if prepare is not None:  # copy the peer's chance draw, then observe again
            a = prepare(a, b)
            a, b = a if isinstance(a, tuple) else (a, b)
            a = a.replace(observation=jax.vmap(ours.observe)(a))
        d = differ(a, b)
        bad = jnp.stack(list(d.values())).any(axis=0)
        carry = dict(
            a=a, b=b, t=jnp.int32(0), extra=jnp.bool_(False),
            pairs={k: v.sum(dtype=jnp.int32) for k, v in d.items()},
            bad=bad, first_step=jnp.where(bad, 0, -1).astype(jnp.int32),
            kind=jnp.zeros(n, jnp.int32), steps=jnp.int32(0),
            events=jnp.zeros(n_events, jnp.int32),
        )

        def cond(c):
            return (c["t"] < max_steps + 1) & ~c["extra"]

        def body(c):
            a, b, t = c["a"], c["b"], c["t"]
            k_legal, k_any, k_pick, k_step = jax.random.split(jax.random.fold_in(k_play, t), 4)
            mask = a.legal_action_mask
            legal = act_randomly(k_legal, mask) if pick is None else pick(k_legal, a)
            illegal = act_randomly(k_any, ~mask)
            go_illegal = ((jax.random.uniform(k_pick, (n,)) < illegal_rate)
                          & ~mask.all(axis=1))
            action = jnp.where(go_illegal, illegal, legal).astype(jnp.int32)
            live = ~(a.terminated | a.truncated)
            if step_keys:
                keys = jax.random.split(k_step, n)
                a2 = jax.vmap(ours.step)(a, action, keys)
                b2 = jax.vmap(peer.step)(b, action, keys)
            else:
                a2 = jax.vmap(ours.step)(a, action)
                b2 = jax.vmap(peer.step)(b, action)
            d = differ(a2, b2)
            row_bad = jnp.stack(list(d.values())).any(axis=0)
            ended = live & (a2.terminated | a2.truncated)
            if ending is not None:
                kind = ending(a, action, a2, go_illegal).astype(jnp.int32)
            else:
                kind = go_illegal.astype(jnp.int32)
            kind = jnp.clip(kind, 0, n_kinds - 1)
            all_done_before = ~live.any()
            happened = c["events"]
            if events is not None:
                flags = events(a, action, a2, go_illegal).reshape(n, n_events) & live[:, None]
                happened = happened + flags.sum(axis=0, dtype=jnp.int32)
            return dict(
                a=a2, b=b2, t=t + 1, extra=all_done_before,
                pairs={k: c["pairs"][k] + v.sum(dtype=jnp.int32) for k, v in d.items()},
                bad=c["bad"] | row_bad,
                first_step=jnp.where((c["first_step"] < 0) & row_bad, t + 1, c["first_step"]),
                kind=jnp.where(ended, kind, c["kind"]),
                steps=c["steps"] + live.sum(dtype=jnp.int32),
                events=happened,
            )

        c = jax.lax.while_loop(cond, body, carry)
        done = c["a"].terminated | c["a"].truncated
        return dict(pairs=c["pairs"], bad=c["bad"], first_step=c["first_step"], kind=c["kind"],
                    steps=c["steps"], done=done, events=c["events"])

    return play


def cli(env_id: str, argv=None, *, games: int = 10_000, batch: int = 1_000,
        illegal_rate: float = 0.01, **config) -> int:
    """The command line of a `benchmarks/parity_<game>.py` script: parse `--games`, `--batch`,
    `--seed`, `--illegal-rate`, run `run_parity(holdemjax.make(env_id), pgx.make(env_id), ...)`
    with the game's `config` (max_steps, prepare, ending, ...), print the report, and return the
    exit status (0 when ok)."""
    import argparse
    import os
    import time

    import pgx  # the oracle: a test/bench dependency only

    import holdemjax

    parser = argparse.ArgumentParser(description=f"Step-by-step parity of {env_id} with pgx.")
    parser.add_argument("--games", type=int, default=games)
    parser.add_argument("--batch", type=int, default=batch)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--illegal-rate", type=float, default=illegal_rate)
    parser.add_argument("--json", nargs="?", const="", default=None, metavar="PATH",
                        help="write the report as a results file (default path: "
                             f"benchmarks/results/parity_{env_id}.json)")
    args = parser.parse_args(argv)
    start = time.time()
    load_before = os.getloadavg()

    def progress(done, total):
        print(f"  {done}/{total} games ({time.time() - start:.0f} s)", flush=True)

    env = holdemjax.make(env_id)
    report = run_parity(env, pgx.make(env_id), games=args.games, batch=args.batch,
                        seed=args.seed, illegal_rate=args.illegal_rate, progress=progress,
                        **config)
    print(report)
    seconds = time.time() - start
    print(f"  {seconds:.1f} s")
    if args.json is not None:
        path = write_report(report, env_id, path=args.json or None, seconds=seconds,
                            params=dict(games=args.games, batch=args.batch, seed=args.seed,
                                        illegal_rate=args.illegal_rate),
                            load_before=load_before)
        print(f"wrote {path}")
    return 0 if report.ok else 1


def write_report(report: ParityReport, env_id: str, *, path=None, seconds: float,
                 params: dict, load_before=None):
    """Write a parity run as ``benchmarks/results/parity_<env_id>.json`` (or ``path``): date,
    machine, versions, command, the run's parameters and the whole report. Returns the path."""
    import json
    import pathlib

    from holdemjax.bench.core import header, results_dir

    doc = {**header(f"parity_{env_id}", f"Step-by-step parity of {env_id} with pgx",
                    load_before=load_before),
           "kind": "parity", "env": env_id,
           "params": params, "seconds": round(seconds, 1), "ok": report.ok,
           "report": dataclasses.asdict(report)}
    path = pathlib.Path(path) if path else results_dir() / f"parity_{env_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path
