"""Series results: scores, standard errors, places, faults, each slot's HUD (`hud`) and, when
the series ran with luck (`runner.run_series(..., luck=True)`), its score with the luck of the
cards taken out (`luck_block`), as a versioned JSON document.

Schema ``holdemjax.series.results/1`` (docs/series.md documents every key). Everything except
the ``timing`` block is a pure function of the series seed, the variant and the policy files, so
two runs of the same series give byte-identical files once ``timing`` is removed.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from holdemjax.series import hud, protocol
from holdemjax.series.meter import METER_VERSION

__all__ = ["SCHEMA", "SlotRecord", "Series", "summarize", "standard_error", "luck_block",
           "rounded", "fault_text"]

SCHEMA = "holdemjax.series.results/1"


@dataclasses.dataclass
class SlotRecord:
    """One slot's record over a series (what `summarize` reports for it)."""

    alias: str
    avatar: str
    name: str
    sha256: str
    scores: list = dataclasses.field(default_factory=list)  # per tournament
    places: list = dataclasses.field(default_factory=list)  # per tournament, 1-based
    chips_won: int = 0
    timeouts: int = 0
    away_hands: int = 0
    faulted_at: int | None = None  # the first fault's tournament
    fault: str | None = None  # ... and its cause (as PROTOCOL §4 names it)
    #: every fault: (tournament, cause as PROTOCOL §4 names it, detail: "" when none)
    faults: list = dataclasses.field(default_factory=list)
    outcomes: dict = dataclasses.field(default_factory=dict)  # recorded reply outcomes
    chat_dropped: dict = dataclasses.field(default_factory=dict)  # reason -> lines not shown
    fuel_ns: int = 0
    #: per tournament, the luck by kind of chance event (`holdemjax.luck.EVENTS`); None: the
    #: series was run without luck
    luck: list | None = None

    def drop_chat(self, why: str) -> None:
        """Count one table-talk line not shown, by its reason (`protocol.CHAT_DROPS`)."""
        if why not in protocol.CHAT_DROPS:
            raise ValueError(f"unknown chat drop {why!r}; expected one of {protocol.CHAT_DROPS}")
        self.chat_dropped[why] = self.chat_dropped.get(why, 0) + 1


@dataclasses.dataclass
class Series:
    """The result of `runner.run_series`."""

    variant: str
    seed: int
    slots: list  # [SlotRecord]
    tournaments: list  # per tournament: replay dict
    tournaments_played: int
    stopped_early: bool
    timing: dict
    #: what shaped play besides the seed and the variant: ``tournaments`` (planned),
    #: ``shot_ns``, ``bank_ns`` (the clock), ``block`` (None: one instance per slot for the
    #: whole series; else the research mode's block size), ``luck`` (True when the series ran
    #: with it; absent otherwise)
    options: dict = dataclasses.field(default_factory=dict)
    blocks: list | None = None  # research mode: per block, its range, SHA-256s and faults
    logs: list | None = None  # per slot: (tournament, text) holdem.log lines of every block


def fault_text(fault: dict) -> str:
    """A recorded fault's cause, its detail (when any) beside it: ``trap (UNREACHABLE)``."""
    return fault["cause"] + (f" ({fault['detail']})" if fault.get("detail") else "")


def standard_error(scores) -> float:
    """Standard error of the mean: sample standard deviation / sqrt(n) (0 for n < 2)."""
    x = np.asarray(scores, np.float64)
    if x.size < 2:
        return 0.0
    return float(x.std(ddof=1) / math.sqrt(x.size))


def luck_block(scores, luck) -> dict:
    """A slot's ``luck`` block: ``scores`` ``# [T]`` its score per tournament, ``luck``
    ``# [T, len(EVENTS)]`` its luck per tournament by kind of chance event
    (`holdemjax.luck.EVENTS`, the rows of `luckbook`). ``score`` / ``stderr``: the mean of the
    corrected scores (score - luck) and its standard error; ``luck``: the mean luck per
    tournament (raw score - corrected score); ``by_event``: that mean by kind of event."""
    from holdemjax.luck import EVENTS

    luck = np.asarray(luck, np.float64).reshape(-1, len(EVENTS))
    corrected = np.asarray(scores, np.float64) - luck.sum(axis=1)
    mean = luck.mean(axis=0) if luck.size else np.zeros(len(EVENTS))
    return {"score": rounded(corrected.mean() if corrected.size else 0.0),
            "stderr": rounded(standard_error(corrected)), "luck": rounded(mean.sum()),
            "by_event": {e: rounded(x) for e, x in zip(EVENTS, mean)}}


def rounded(x) -> float:
    """``x`` to 6 decimals, as the documents write scores (a negative zero written as 0.0)."""
    return round(float(x), 6) + 0.0


def _versions(variant: str) -> dict:
    """What fixes the play: the package, the protocol, the rules engine (the version of the
    environment whose tournaments the variant plays: ``"sng-6 v0"``), wasmtime and the meter."""
    import holdemjax
    from holdemjax.series.variants import VARIANTS

    env_id = VARIANTS[variant].env_id
    out = {"holdemjax": getattr(holdemjax, "__version__", "0"),
           "protocol": protocol.PROTOCOL_VERSION,
           "engine": f"{env_id} {holdemjax.make(env_id).version}"}
    try:
        import wasmtime

        out["wasmtime"] = getattr(wasmtime, "__version__", None) or _dist_version("wasmtime")
    except ImportError:
        out["wasmtime"] = None
    out["meter"] = METER_VERSION  # with wasmtime's, it fixes the fuel accounting (PROTOCOL §3)
    return out


def _dist_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def summarize(series, planned: int | None = None) -> dict:
    """The results document of a `Series` (``planned``: default its ``options``)."""
    if planned is None:
        planned = series.options.get("tournaments")
    slots = []
    seats = len(series.slots)
    huds = hud.series_hud(series.tournaments, seats)
    for i, r in enumerate(series.slots):
        hist = {str(k): 0 for k in range(1, seats + 1)}
        for p in r.places:
            if p > 0:
                hist[str(p)] = hist.get(str(p), 0) + 1
        faults = [{"faulted_at": t, "cause": cause, "detail": detail}
                  for t, cause, detail in r.faults]
        slots.append({
            "slot": i,
            "alias": r.alias,
            "avatar": r.avatar,
            "policy": r.name,
            "sha256": r.sha256,
            "score": round(float(np.mean(r.scores)) if r.scores else 0.0, 6),
            "stderr": round(standard_error(r.scores), 6),
            "places": hist,
            "chips_won": int(r.chips_won),
            "timeouts": int(r.timeouts),
            "away_hands": int(r.away_hands),
            "faults": faults,
            "faulted_at": r.faulted_at,
            "replies": dict(sorted(r.outcomes.items())),
            "chat_dropped": int(sum(r.chat_dropped.values())),
            "chat_dropped_by": dict(sorted(r.chat_dropped.items())),
            "compute_ns": int(r.fuel_ns),
            "hud": huds[i],
        })
        if r.luck is not None:  # run with luck (absent otherwise: the documents as before)
            slots[-1]["luck"] = luck_block(r.scores, r.luck)
    return {
        "schema": SCHEMA,
        "variant": series.variant,
        "seed": series.seed,
        "versions": _versions(series.variant),
        "tournaments_planned": planned,
        "options": dict(series.options),
        "mode": "blocks" if series.blocks is not None else "one instance per slot",
        "blocks": series.blocks,
        "tournaments_played": series.tournaments_played,
        "stopped_early": series.stopped_early,
        "slots": slots,
        "timing": series.timing,
    }

