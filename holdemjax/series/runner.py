"""One series: six (or nine) policies, many tournaments, one rules engine, compute as the clock.

This module runs a series: it checks the arguments, starts the policies and plays the
tournaments with one instance per slot for the whole series, however long (SPEC §3: memory,
bank, benching and away state carry over), into a `results.Series`. The research mode
(``block``/``workers``) instead cuts the series into independent blocks of tournaments, each with
fresh instances loaded again from the files, run here or in worker processes with the same
results; the results say so (``options.block``, ``blocks``). The tournaments themselves are
played by `holdemjax.series.game.Game` (per decision: the tournament engine, the ``act``
message, the policy on its fuel budget, `turn.apply_outcome`, the public events); the variants,
aliases and avatars are in `holdemjax.series.variants`.

Determinism: the deck and seating of tournament ``t`` come from ``fold_in(key(seed), t)``
(`tournament.start`), each slot's seed from `protocol.slot_seed`, aliases and avatars from
``seed``; budgets are fuel. Only the ``timing`` block of the result depends on the machine. The
wall-time limit (for the whole series, in both modes) stops the series at a hand boundary
(`tournament.stop`); the cut tournament is flagged ``stopped_early`` and counts, as at the hand
cap. ``cut`` replays such a stop exactly (`replay.verify`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from holdemjax.series import protocol
from holdemjax.series.game import Game, Slot, engine
from holdemjax.series.results import Series, SlotRecord
from holdemjax.series.variants import ALIASES, AVATARS, VARIANTS, Variant, identities
from holdemjax.validate import require_int

__all__ = ["VARIANTS", "ALIASES", "AVATARS", "Variant", "Series", "run_series", "SeriesFailed",
           "BLOCK"]


class SeriesFailed(Exception):
    """The series cannot run: a policy failed to load or start (PROTOCOL §4), in any block.
    ``slot`` is the policy charged with it, ``name`` its file, ``detail`` where and why
    (``"tournament 0: policy bot.wasm: trapped ..."``); ``str``: ``slot 0 (name), detail``."""

    def __init__(self, slot: int, name: str, detail: str):
        super().__init__(f"slot {slot} ({name}), {detail}")
        self.slot, self.name, self.detail = slot, name, detail


#: The research mode's default block: independent blocks of this many tournaments, each with
#: fresh instances of the policies, so that `workers` processes can run them in parallel.
BLOCK = 100


def run_series(policies: Sequence, *, variant: str = "series-100", seed: int = 0,
               max_wall: float | None = 600.0, tournaments: int | None = None,
               progress: Callable[[dict], None] | None = None, shot_ns: int | None = None,
               bank_ns: int | None = None, workers: int = 1, block: int | None = None,
               cut: tuple[int, int] | None = None,
               guard_trips: Sequence[dict] = (), luck: bool = False) -> Series:
    """Run one series.

    ``policies``: one per slot (`wasm.WasmPolicy` or the same interface: ``name``, ``sha256``,
    ``start(bytes)``, ``call(bytes, budget_ns)``, ``new_tournament()``). ``tournaments``
    overrides the variant's count; ``shot_ns`` / ``bank_ns`` its clock. By default each slot's
    one instance plays the whole series. ``block`` (or ``workers > 1``, with blocks of `BLOCK`)
    is the research mode: independent blocks of ``block`` tournaments, each with fresh
    instances loaded again from the policies' files (``policy.path``), in ``workers``
    processes, with the same results as in one. ``max_wall`` bounds the whole series;
    ``cut = (t, hands)`` stops it as the wall-time limit did, after ``hands`` hands of
    tournament ``t`` (0: before ``t``). ``guard_trips`` replays machine-time guard trips as a
    replay records them (`replay.rerun_options`: ``tournament``, ``slot``, ``call``,
    ``used_ns``). ``luck``: also each slot's luck per tournament (AIVAT's chance corrections,
    `luckbook`: computed after each tournament from the decisions as played, drawn from the
    seed; the results' ``luck`` blocks, the replay's ``luck`` per tournament). ``progress``
    gets a dict after every hand (after every block with workers).
    Raises `SeriesFailed` when a policy fails to load or start, `protocol.SeriesVoid` when a
    call was stopped by an interruption the host cannot attribute.
    KeyboardInterrupt (and the wall-time limit) stops cleanly at the next hand boundary.
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
    if block is None and workers > 1:
        block = BLOCK
    if block is not None:
        block = require_int("block", block, 1, what="a positive integer")
    if cut is not None:
        cut = (require_int("cut tournament", cut[0], 0, count, what="a tournament index"),
               require_int("cut hands", cut[1], 0, what="a non-negative integer"))
    trips = _trips(guard_trips, count, spec.seats)
    clock = spec.clock(shot_ns, bank_ns)  # checks the values before anything runs
    size = count if block is None else block
    blocks = [range(b, min(b + size, count)) for b in range(0, count, size)]
    names = [getattr(p, "path", None) or getattr(p, "name", f"slot{i}")
             for i, p in enumerate(policies)]
    paths = [getattr(p, "path", None) for p in policies]
    if len(blocks) > 1 and None in paths:
        raise ValueError(f"the research mode's blocks of {size} tournaments load the policies "
                         "again: load every policy from a file")
    options = {"tournaments": count, "shot_ns": clock.shot_ns, "bank_ns": clock.full_bank_ns,
               "block": block}
    if luck:  # recorded only when on: the documents of a series without luck are as before
        options["luck"] = True
    job = dict(variant=variant, seed=int(seed), count=count, shot_ns=shot_ns, bank_ns=bank_ns,
               cut=cut, trips=trips, luck=bool(luck))
    wall0 = time.perf_counter()
    until = None if max_wall is None else time.time() + max_wall  # shared with the workers
    parts = []
    if workers == 1 or len(blocks) == 1:
        for k, b in enumerate(blocks):
            pols = policies if k == 0 else _load_all(paths, k)
            try:
                part = _run_block(pols, b, until=until, progress=progress, **job)
            finally:
                if k > 0:
                    _close_all(pols)
            parts.append(part)
            if part["stopped_early"]:
                break
    else:
        parts = _run_blocks_in_processes(paths, blocks, workers, until, progress, job)
    return _merge(variant, int(seed), names, parts, time.perf_counter() - wall0, options,
                  bool(luck))


def _trips(guard_trips: Sequence[dict], count: int, seats: int) -> dict:
    """Recorded guard trips as `game.Game.guard_trips`: (tournament, slot, call) -> used_ns."""
    trips = {}
    for trip in guard_trips:
        key = (require_int("guard trip tournament", trip["tournament"], 0, count - 1,
                           what="a tournament index"),
               require_int("guard trip slot", trip["slot"], 0, seats - 1, what="a slot"),
               require_int("guard trip call", trip["call"], 0, what="a call index"))
        trips[key] = require_int("guard trip used_ns", trip["used_ns"], 0,
                                 what="a fuel amount")
    return trips


def _load_all(paths, k: int):
    from holdemjax.series.wasm import PolicyLoadError, load_policy

    pols = []
    for slot, p in enumerate(paths):
        try:
            pols.append(load_policy(p))
        except PolicyLoadError as exc:
            _close_all(pols)
            raise SeriesFailed(slot, p, f"block {k}: {exc}") from None
    return pols


def _close_all(pols) -> None:
    for p in pols:
        if hasattr(p, "close"):
            p.close()


def _block_worker(paths, k, block, until, job):
    """One block in a worker process (module level, so a spawned process can import it)."""
    pols = _load_all(paths, k)
    try:
        return _run_block(pols, block, until=until, progress=None, **job)
    finally:
        _close_all(pols)


def _run_blocks_in_processes(paths, blocks, workers, until, progress, job):
    import concurrent.futures as cf
    import multiprocessing

    # spawn, not fork: a forked JAX process can deadlock.
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(_block_worker, paths, k, b, until, job)
                   for k, b in enumerate(blocks)]
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


def _run_block(policies, block: range, *, variant, seed, count, shot_ns, bank_ns, until, cut,
               trips, progress, luck=False) -> dict:
    """Tournaments ``block`` of a series with these policy instances (started here). ``until``
    is the series' wall-time limit as ``time.time()`` (the same in every process)."""
    spec = VARIANTS[variant]
    t0 = time.perf_counter()
    eng = engine(spec.env_id)  # compiled (or loaded from the compile cache) at first use
    built_s = time.perf_counter() - t0
    aliases, avatars = identities(seed, spec.seats)
    deadline = None if until is None else time.perf_counter() + (until - time.time())
    seats = [Slot(p, spec.clock(shot_ns, bank_ns), SlotRecord(
        aliases[i], avatars[i], getattr(p, "path", None) or getattr(p, "name", f"slot{i}"),
        getattr(p, "sha256", ""), luck=[] if luck else None))
        for i, p in enumerate(policies)]
    timer = {"engine": built_s, "policy": 0.0}
    replays, stopped_early = [], False
    logs = [[] for _ in seats]
    if deadline is not None and block.start > 0 and time.perf_counter() > deadline:
        stopped_early = True  # the limit passed before this block could start
    elif cut is not None and cut == (block.start, 0) and block.start > 0:
        stopped_early = True
    else:
        for i, s in enumerate(seats):
            msg = protocol.start_message(protocol.format_info(eng.name, eng.format), slot=i,
                                         alias=s.record.alias, seed=protocol.slot_seed(seed, i),
                                         variant=variant, tournaments=count, clock=s.clock)
            try:
                s.policy.start(protocol.encode(msg))
            except protocol.SeriesVoid:
                raise  # not the policy's: nobody is charged
            except Exception as exc:  # noqa: BLE001 - a start failure fails the series
                raise SeriesFailed(i, s.record.name, f"tournament {block.start}: {exc}") from exc
            if block.start > 0 and hasattr(s.policy, "new_tournament"):
                s.policy.new_tournament(block.start - 1)  # its logs name the series' tournaments
        game = Game(eng, seats, timer, seed=seed, luck=luck)
        game.cut = cut
        game.guard_trips = trips
        try:
            for t in block:
                if t > block.start and ((deadline is not None
                                         and time.perf_counter() > deadline) or cut == (t, 0)):
                    stopped_early = True
                    break
                interrupted = False
                try:
                    replay, was_cut = game.play(t, deadline, progress)
                except KeyboardInterrupt:
                    interrupted = True
                    replay, was_cut = game.finish_interrupted()
                replays.append(replay)
                if was_cut or interrupted:
                    stopped_early = True
                    break
            game.finish_luck()  # the luck of the tournaments played (after the wall-time limit)
        finally:
            game.close()
        for i, s in enumerate(seats):  # the holdem.log lines of this block's instances
            logs[i] = list(getattr(s.policy, "logs", None) or ())
    return {"records": [s.record for s in seats], "replays": replays, "first": block.start,
            "stopped_early": stopped_early, "timer": timer, "logs": logs,
            "sha256": [s.record.sha256 for s in seats]}


def _merge(variant, seed, names, parts, wall, options, luck: bool = False) -> Series:
    """One `Series` from its blocks, in order. A file whose SHA-256 changed between blocks
    fails the series (the blocks would not be one policy's)."""
    first = parts[0]["records"]
    records = [SlotRecord(r.alias, r.avatar, names[i], r.sha256, luck=[] if luck else None)
               for i, r in enumerate(first)]
    blocks = []
    for k, part in enumerate(parts):
        for slot, (rec, r) in enumerate(zip(records, part["records"])):
            if r.sha256 != rec.sha256:
                raise SeriesFailed(slot, names[slot], f"the file changed between blocks (SHA-256 "
                                   f"{rec.sha256[:12]} in block 0, {r.sha256[:12]} in block {k})")
            rec.scores += r.scores
            rec.places += r.places
            for name in ("chips_won", "timeouts", "away_hands", "fuel_ns"):
                setattr(rec, name, getattr(rec, name) + getattr(r, name))
            for mine, theirs in ((rec.outcomes, r.outcomes), (rec.chat_dropped, r.chat_dropped)):
                for key, v in theirs.items():
                    mine[key] = mine.get(key, 0) + v
            rec.faults += r.faults
            if luck:
                rec.luck += r.luck
            if rec.faulted_at is None and r.faulted_at is not None:
                rec.faulted_at, rec.fault = r.faulted_at, r.fault
        blocks.append({"block": k, "first": part["first"],
                       "tournaments": len(part["replays"]),
                       "stopped_early": part["stopped_early"], "sha256": part["sha256"],
                       "faults": [{"slot": slot, "faulted_at": t, "cause": cause,
                                   "detail": detail}
                                  for slot, r in enumerate(part["records"])
                                  for t, cause, detail in r.faults]})
    engine_s = sum(p["timer"]["engine"] for p in parts)
    policy_s = sum(p["timer"]["policy"] for p in parts)
    luck_s = sum(p["timer"].get("luck", 0.0) for p in parts)
    timing = {"wall_s": round(wall, 3), "engine_s": round(engine_s, 3),
              "policy_s": round(policy_s, 3),
              "host_s": round(max(wall - engine_s - policy_s - luck_s, 0), 3),
              "blocks": len(parts)}
    if luck:
        timing["luck_s"] = round(luck_s, 3)
    replays = [r for p in parts for r in p["replays"]]
    logs = [[line for p in parts for line in p["logs"][i]] for i in range(len(records))]
    return Series(variant, seed, records, replays, len(replays),
                  any(p["stopped_early"] for p in parts), timing, options=options,
                  blocks=blocks if options["block"] is not None else None, logs=logs)
