"""One series: six (or nine) policies, many tournaments, one rules engine, compute as the clock.

This module runs a series: it checks the arguments, starts the policies, cuts the series into
blocks of `BLOCK` tournaments (run here or in worker processes, with the same results) and
merges them into a `results.Series`. The tournaments themselves are played by
`holdemjax.series.game.Game` (per decision: the tournament engine, the ``act`` message, the
policy on its fuel budget, `hand.apply_outcome`, the public events); the variants, aliases and
avatars are in `holdemjax.series.variants`.

Determinism: the deck and seating of tournament ``t`` come from ``fold_in(key(seed), t)``
(`tournament.start`), each slot's seed from `protocol.slot_seed`, aliases and avatars from
``seed``; budgets are fuel. Only the ``timing`` block of the result depends on the machine. The
wall-time limit stops the series at a hand boundary (`tournament.stop`); the cut tournament is
flagged ``stopped_early`` and counts, as at the hand cap.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from holdemjax.series import protocol as P
from holdemjax.series.game import Game, Seat, engine
from holdemjax.series.results import Series, SlotRecord
from holdemjax.series.variants import ALIASES, AVATARS, VARIANTS, Variant, identities
from holdemjax.validate import require_int

__all__ = ["VARIANTS", "ALIASES", "AVATARS", "Variant", "Series", "run_series", "SeriesFailed",
           "BLOCK"]


class SeriesFailed(Exception):
    """The series cannot run: a policy failed to load or start (PROTOCOL §4). ``slot`` is the
    policy charged with it."""

    def __init__(self, slot: int, message: str):
        super().__init__(message)
        self.slot = slot


#: Longer series run in blocks of this many tournaments: each block starts fresh instances of
#: the policies (a policy's memory carries over within its block), so blocks can run in parallel
#: processes (`workers`) with results identical to one process.
BLOCK = 100


def run_series(policies: Sequence, *, variant: str = "series-100", seed: int = 0,
               max_wall: float | None = 600.0, tournaments: int | None = None,
               progress: Callable[[dict], None] | None = None, shot_ns: int | None = None,
               bank_ns: int | None = None, workers: int = 1) -> Series:
    """Run one series.

    ``policies``: one per slot (`wasm.WasmPolicy` or the same interface: ``name``, ``sha256``,
    ``start(bytes)``, ``call(bytes, budget_ns)``, ``new_tournament()``). ``tournaments``
    overrides the variant's count; ``shot_ns`` / ``bank_ns`` its clock. A series of more than
    `BLOCK` tournaments runs in blocks, each with fresh instances loaded again from the policies'
    files (``policy.path``); ``workers > 1`` runs the blocks in that many processes, with the
    same results. ``progress`` gets a dict after every hand (after every block with workers).
    Raises `SeriesFailed` when a policy fails to start. KeyboardInterrupt (and the wall-time
    limit) stops cleanly at the next hand boundary; later blocks are dropped.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    spec = VARIANTS[variant]
    if len(policies) != spec.seats:
        raise ValueError(f"{variant} needs {spec.seats} policies, got {len(policies)}")
    seed = require_int("seed", seed, 0, what="a non-negative integer")
    require_int("workers", workers, 1, what="a positive integer")
    count = spec.tournaments if tournaments is None else int(tournaments)
    if count < 1:
        raise ValueError(f"tournaments must be >= 1, got {count}")
    spec.clock(shot_ns, bank_ns)  # checks the values before anything runs
    blocks = [range(b, min(b + BLOCK, count)) for b in range(0, count, BLOCK)]
    names = [getattr(p, "path", None) or getattr(p, "name", f"slot{i}")
             for i, p in enumerate(policies)]
    paths = [getattr(p, "path", None) for p in policies]
    if len(blocks) > 1 and None in paths:
        raise ValueError(f"a series of {count} tournaments runs in blocks of {BLOCK} that load "
                         "the policies again: load every policy from a file")
    job = dict(variant=variant, seed=int(seed), count=count, shot_ns=shot_ns, bank_ns=bank_ns)
    wall0 = time.perf_counter()
    deadline = None if max_wall is None else wall0 + max_wall
    parts = []
    if workers == 1 or len(blocks) == 1:
        for k, block in enumerate(blocks):
            pols = policies if k == 0 else _load_all(paths)
            part = _run_block(pols, block, deadline=deadline, progress=progress, **job)
            parts.append(part)
            if part["stopped_early"]:
                break
    else:
        parts = _run_blocks_in_processes(paths, blocks, workers, max_wall, progress, job)
    return _merge(variant, int(seed), names, policies, parts, time.perf_counter() - wall0)


def _load_all(paths):
    from holdemjax.series.wasm import load_policy

    return [load_policy(p) for p in paths]


def _block_worker(paths, block, max_wall, job):
    """One block in a worker process (module level, so a spawned process can import it)."""
    deadline = None if max_wall is None else time.perf_counter() + max_wall
    return _run_block(_load_all(paths), block, deadline=deadline, progress=None, **job)


def _run_blocks_in_processes(paths, blocks, workers, max_wall, progress, job):
    import concurrent.futures as cf
    import multiprocessing

    # spawn, not fork: a forked JAX process can deadlock.
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(_block_worker, paths, b, max_wall, job) for b in blocks]
        parts = []
        try:
            for k, f in enumerate(futures):
                part = f.result()
                parts.append(part)
                if progress is not None:
                    progress({"tournament": blocks[k][-1], "hands": sum(
                        len(r["hands"]) for p in parts for r in p["replays"]),
                        "tournament_done": True, "tournaments_done": len(part["replays"])})
                if part["stopped_early"]:
                    break
        except KeyboardInterrupt:
            for f in futures:
                f.cancel()
            raise
        finally:
            for f in futures:
                f.cancel()
    return parts


def _run_block(policies, block: range, *, variant, seed, count, shot_ns, bank_ns, deadline,
               progress) -> dict:
    """Tournaments ``block`` of a series with these policy instances (started here)."""
    spec = VARIANTS[variant]
    eng = engine(spec.env_id)
    aliases, avatars = identities(seed, spec.seats)
    seats = [Seat(p, spec.clock(shot_ns, bank_ns), SlotRecord(
        aliases[i], avatars[i], getattr(p, "path", None) or getattr(p, "name", f"slot{i}"),
        getattr(p, "sha256", ""))) for i, p in enumerate(policies)]
    timer = {"engine": 0.0, "policy": 0.0}
    for i, s in enumerate(seats):
        msg = P.start_message(P.format_info(eng.name, eng.format), slot=i, alias=s.record.alias,
                              seed=P.slot_seed(seed, i), variant=variant, tournaments=count,
                              clock=s.clock)
        try:
            s.policy.start(P.encode(msg))
        except Exception as exc:  # noqa: BLE001 - a start failure fails the series, never the host
            raise SeriesFailed(i, f"slot {i} ({s.record.name}): {exc}") from exc
    game = Game(eng, seats, timer, seed=seed)
    replays, stopped_early = [], False
    for t in block:
        if deadline is not None and t > block.start and time.perf_counter() > deadline:
            stopped_early = True
            break
        interrupted = False
        try:
            replay, cut = game.play(t, deadline, progress)
        except KeyboardInterrupt:
            interrupted = True
            replay, cut = game.finish_interrupted()
        replays.append(replay)
        if cut or interrupted:
            stopped_early = True
            break
    return {"records": [s.record for s in seats], "replays": replays,
            "stopped_early": stopped_early, "timer": timer}


def _merge(variant, seed, names, policies, parts, wall) -> Series:
    """One `Series` from its blocks, in order."""
    first = parts[0]["records"]
    records = [SlotRecord(r.alias, r.avatar, names[i], r.sha256) for i, r in enumerate(first)]
    for part in parts:
        for rec, r in zip(records, part["records"]):
            rec.scores += r.scores
            rec.places += r.places
            for name in ("chips_won", "timeouts", "away_hands", "fuel_ns"):
                setattr(rec, name, getattr(rec, name) + getattr(r, name))
            for mine, theirs in ((rec.outcomes, r.outcomes), (rec.chat_dropped, r.chat_dropped)):
                for k, v in theirs.items():
                    mine[k] = mine.get(k, 0) + v
            rec.faults += r.faults
            if rec.faulted_at is None and r.faulted_at is not None:
                rec.faulted_at, rec.fault = r.faulted_at, r.fault
    engine = sum(p["timer"]["engine"] for p in parts)
    policy = sum(p["timer"]["policy"] for p in parts)
    timing = {"wall_s": round(wall, 3), "engine_s": round(engine, 3),
              "policy_s": round(policy, 3), "host_s": round(max(wall - engine - policy, 0), 3),
              "blocks": len(parts)}
    replays = [r for p in parts for r in p["replays"]]
    return Series(variant, seed, records, replays, len(replays),
                  any(p["stopped_early"] for p in parts), timing)
