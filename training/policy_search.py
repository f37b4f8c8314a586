"""Paired policy search: coordinate ascent over the push/fold family (`push_fold`) with common
random numbers, then distillation of the result into the PPO network (`distill`).

Why: a tournament's score is a finishing place, its standard deviation per tournament ~0.15,
while a single spot (AA first in, a heads-up shove) moves it by ~0.001. PPO's sampled returns
cannot resolve that (docs/training.md); a comparison of two policies *on the same deals*
(`evaluate.evaluate` plays every candidate on identical cards, seats and bot draws, so most of
the luck cancels in the per-deal difference) can, with a few thousand tournaments.

The search (`search`): start from the passive bot (`push_fold.PASSIVE`). A sweep visits every
spot (`push_fold.spot_names`, heads-up first) in `ORDER`; for each, every threshold of ``grid``
is played against five copies of the opponent on the sweep's deals, the others held fixed, and
the best one replaces the current threshold only if its paired gain over the current policy is
above ``margin`` standard errors (the SE of the per-deal differences). Each sweep draws fresh
deals (seed ``1000 + 10 * seed + sweep``; the evaluations in docs/training.md use seeds 1 and 2,
never drawn here), so a threshold kept for one sample's luck is re-tested on the next.

The command, a whole training run (search + distillation, rich progress, Ctrl-C stops cleanly
and keeps the search so far):

    python -m holdemjax.training.policy_search --seed 0 --out run    # run/checkpoint.msgpack

writes ``search.json`` (every candidate's paired result, the thresholds, times) and a PPO
checkpoint that `evaluate`, `export-wasm`, `preflop_grid` and `exploit` read like any other
(play it with ``--greedy``: the distilled network's most likely action is the searched policy's).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import sys
import time
from collections.abc import Callable

import jax.numpy as jnp
import numpy as np

from holdemjax.training import evaluate as ev
from holdemjax.training import panel, push_fold, records

__all__ = ["GRID", "ORDER", "ONLY", "SearchConfig", "Step", "search", "deal_seed", "main"]

#: Thresholds tried in every spot (bp of ``top``): never, AA, KK+, JJ+, AKs+, top 6 %, 15 %,
#: 30 %, 55 %, every hand.
GRID = (0, 22, 67, 158, 331, 618, 1500, 3000, 5500, 10_000)
#: Spot visiting order: heads-up, then three-handed, then four or more; short stacks first.
#: (The index is ``(players * 2 + facing) * 2 + deep``, `push_fold.spot`.)
ORDER = tuple(sorted(range(push_fold.NUM_PARAMS), key=lambda i: (i // 4, i % 2, (i // 2) % 2)))
#: Which spots a search visits (the others keep their start): all, or for the ablation only the
#: heads-up ones or only the others.
ONLY = ("all", "heads-up", "not-heads-up")


@dataclasses.dataclass(frozen=True)
class SearchConfig:
    """Everything that defines a search (saved with its result)."""

    seed: int = 0
    deals: tuple[int, ...] = (512, 1024)  # deals of each sweep (6 tournaments each)
    grid: tuple[int, ...] = GRID
    margin: float = 2.0  # paired SEs a move must gain over the current policy
    opponent: str = "baseline"  # the five copies the candidates play against
    env_id: str = "sng-6"
    chunk: int = 128
    only: str = "all"  # ONLY

    def __post_init__(self):
        deals = tuple(self.deals)
        if not deals or any(not isinstance(d, int) or d < 2 for d in deals):
            raise ValueError(f"deals must be a non-empty list of ints >= 2, got {self.deals!r}")
        grid = tuple(self.grid)
        if not grid or any(not isinstance(g, int) or not 0 <= g <= push_fold.ALWAYS
                           for g in grid):
            raise ValueError(f"grid must be thresholds in 0..{push_fold.ALWAYS}, got "
                             f"{self.grid!r}")
        if not self.margin >= 0:
            raise ValueError(f"margin must be >= 0, got {self.margin!r}")
        if self.opponent not in panel.OPPONENTS:
            raise ValueError(f"opponent {self.opponent!r} is not one of "
                             f"{', '.join(panel.OPPONENTS)}")
        if not isinstance(self.chunk, int) or self.chunk < 1:
            raise ValueError(f"chunk must be an int >= 1, got {self.chunk!r}")
        if self.only not in ONLY:
            raise ValueError(f"only must be one of {', '.join(ONLY)}, got {self.only!r}")
        object.__setattr__(self, "deals", deals)
        object.__setattr__(self, "grid", grid)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["deals"], d["grid"] = list(self.deals), list(self.grid)
        return d

    def spots(self) -> tuple[int, ...]:
        """The spot indices a sweep visits, in order."""
        if self.only == "heads-up":
            return tuple(i for i in ORDER if i in push_fold.HEADS_UP)
        if self.only == "not-heads-up":
            return tuple(i for i in ORDER if i not in push_fold.HEADS_UP)
        return ORDER


@dataclasses.dataclass(frozen=True)
class Step:
    """One spot of one sweep: every threshold's mean score and its paired difference with the
    current policy on the sweep's deals, and what was kept."""

    sweep: int
    spot: str
    before: int
    after: int
    means: dict  # threshold -> mean score
    diffs: dict  # threshold -> (paired difference with the current policy, its SE)

    def to_dict(self) -> dict:
        return dict(sweep=self.sweep, spot=self.spot, before=self.before, after=self.after,
                    means={str(k): v for k, v in self.means.items()},
                    diffs={str(k): list(v) for k, v in self.diffs.items()})


def deal_seed(seed: int, sweep: int) -> int:
    """The deals of sweep ``sweep`` of a search with ``seed`` (never 1 or 2: evaluation's)."""
    return 1000 + 10 * seed + sweep


def search(config: SearchConfig, *, start=None,
           progress: Callable[[Step], None] | None = None) -> tuple[np.ndarray, list[Step]]:
    """``(thresholds # [NUM_PARAMS] int32, steps)``: coordinate ascent from ``start`` (default
    the passive bot) as the module doc says. ``progress(step)`` after every spot."""
    env = ev.make_env(config.env_id)
    act = push_fold.policy(env)
    bot = panel.opponent(config.opponent, env)
    params = np.array(push_fold.PASSIVE if start is None else start, np.int32)
    names = push_fold.spot_names()
    steps = []
    for sweep, deals in enumerate(config.deals):
        seed = deal_seed(config.seed, sweep)

        def play(p, deals=deals, seed=seed):
            return ev.evaluate(act, jnp.asarray(p, jnp.int32), deals=deals, seed=seed,
                               env_id=config.env_id, chunk=config.chunk, opponent=bot)

        current = play(params)
        for i in config.spots():
            results = {}
            for value in config.grid:
                trial = params.copy()
                trial[i] = value
                results[value] = current if value == params[i] else play(trial)
            diffs = {v: ev.mean_se(r.per_deal - current.per_deal) for v, r in results.items()}
            best = max(config.grid, key=lambda v: (results[v].mean, v == params[i]))
            gain, se = diffs[best]
            before = int(params[i])
            if best != before and gain > config.margin * se:
                params[i] = best
                current = results[best]
            step = Step(sweep, names[i], before, int(params[i]),
                        {v: r.mean for v, r in results.items()}, diffs)
            steps.append(step)
            if progress is not None:
                progress(step)
    return params, steps


# ---------------------------------------------------------------------------------- the CLI
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m holdemjax.training.policy_search",
        description="Paired policy search over the push/fold family against five copies of an "
                    "opponent, then distillation into the PPO network (docs/training.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    d = SearchConfig()
    p.add_argument("--seed", type=int, default=d.seed, help="search and distillation seed")
    p.add_argument("--deals", type=int, nargs="+", default=list(d.deals),
                   help="deals of each sweep (one sweep per number)")
    p.add_argument("--grid", type=int, nargs="+", default=list(d.grid),
                   help="thresholds tried in every spot (bp of the pre-flop percentile)")
    p.add_argument("--margin", type=float, default=d.margin,
                   help="paired SEs a move must gain over the current policy")
    p.add_argument("--opponent", default=d.opponent, choices=panel.OPPONENTS)
    p.add_argument("--env", default=d.env_id, choices=ev.ENV_IDS)
    p.add_argument("--chunk", type=int, default=d.chunk,
                   help="deals per evaluation batch (6 tables each; larger on an accelerator)")
    p.add_argument("--only", default=d.only, choices=ONLY,
                   help="ablation: search only these spots (the others stay passive)")
    p.add_argument("--no-distill", action="store_true", help="stop after the search")
    p.add_argument("--from-search", default=None, metavar="SEARCH_JSON",
                   help="skip the search: distill the thresholds of this search record (a "
                        "search.json of a complete search; its config and steps are kept)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    return p


def main(argv=None) -> int:
    """Command-line entry point; returns an exit status (2: bad input, 130: interrupted)."""
    from rich.console import Console

    args = _parser().parse_args(argv)
    try:
        config = SearchConfig(seed=args.seed, deals=tuple(args.deals), grid=tuple(args.grid),
                              margin=args.margin, opponent=args.opponent, env_id=args.env,
                              only=args.only, chunk=args.chunk)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    previous = None
    if args.from_search:
        try:
            previous = json.loads(pathlib.Path(args.from_search).read_text(encoding="utf-8"))
            if not previous.get("complete") or "thresholds" not in previous:
                raise ValueError("not a complete search")
            config = SearchConfig(**{k: tuple(v) if isinstance(v, list) else v
                                     for k, v in previous["config"].items()})
        except (OSError, ValueError, TypeError, KeyError) as err:
            print(f"error: --from-search {args.from_search}: {err}", file=sys.stderr)
            return 2
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    console = Console()
    record = dict(command=" ".join(["python -m holdemjax.training.policy_search",
                                    *(argv if argv is not None else sys.argv[1:])]),
                  config=config.to_dict(), **records.run_header())
    start = time.perf_counter()
    status = 0
    if previous is not None:
        record = dict(previous, distill_command=record["command"])
        params = np.asarray(previous["thresholds"], np.int32)
        start -= previous["search_s"]  # train_s below counts the search's time too
    else:
        record, params, status = _run_search(config, record, console, args.quiet, start)
    _write(out / "search.json", record)
    if status:
        print(f"interrupted after {len(record['steps'])} spots; the search so far is in "
              f"{out / 'search.json'}", file=sys.stderr)
        return status
    for name, text in push_fold.describe(params).items():
        console.print(f"  {name:<22} {text}")
    if args.no_distill:
        return 0
    from holdemjax.training import distill

    try:
        result = distill.distill(params, env_id=config.env_id, seed=config.seed,
                                 progress=None if args.quiet else console.print)
    except KeyboardInterrupt:
        print("interrupted during distillation; the search is in "
              f"{out / 'search.json'}", file=sys.stderr)
        return 130
    record.update(distill=result.info, train_s=time.perf_counter() - start)
    _write(out / "search.json", record)
    distill.save(out / "checkpoint.msgpack", result, search=record)
    console.print(f"checkpoint: {out / 'checkpoint.msgpack'} (agreement with the searched "
                  f"policy on held-out decisions: {result.info['agreement']:.5f}); "
                  f"{record['train_s']:.0f} s in all")
    return 0


def _run_search(config, record, console, quiet, start):
    """(record, thresholds or None, exit status) of a search with a progress bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    steps: list[Step] = []
    status, params = 0, None
    try:
        with Progress("{task.description}", BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console, disable=quiet) as bar:
            task = bar.add_task("search", total=len(config.spots()) * len(config.deals))

            def show(step: Step):
                steps.append(step)
                bar.update(task, advance=1, description=f"sweep {step.sweep} {step.spot}: "
                           f"{step.before} -> {step.after}")

            params, _ = search(config, progress=show)
    except KeyboardInterrupt:
        status = 130
    record = dict(record, search_s=time.perf_counter() - start, complete=status == 0,
                  steps=[s.to_dict() for s in steps])
    if params is not None:
        record["thresholds"] = params.tolist()
        record["ranges"] = push_fold.describe(params)
    return record, params, status


def _write(path: pathlib.Path, record: dict) -> None:
    text = json.dumps(record, indent=1) + "\n"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


if __name__ == "__main__":
    sys.exit(main())
