"""The leaderboard: per stage and bot, mean score ± SE, games, places, faults, a rating, and the
HUD.

`build` is a pure function of the league's spec, its certification and the series summaries
(`play.summary`), taken in series order, so the same league gives the same bytes however it was
run, interrupted or spread out. The standard error is the series host's
(`holdemjax.series.results.standard_error`, over every game the bot played in the stage). The
rating is OpenSkill's Plackett-Luce model: every game of the league in series order (qualifying,
then the final, which continues from the qualifying ratings), the seats ranked by their game
score (ties share a rank); ``ordinal`` is mu - 3 sigma. Rows are ranked by mean score, then
ordinal, then name. A row's ``hud`` is the bot's HUD over every series of the stage (the series
summaries' HUD counts summed, then `holdemjax.series.hud.figures`; null when no summary has
one). A league run with luck gives each row ``luck``: the bot's mean score with the luck of the
cards taken out (each game's score less its luck, from the series' luck: `play.summary`) ± its
standard error, and the mean luck; absent when a series of the bot has none. `encode` writes
the canonical bytes of ``leaderboard.json``.
"""

from __future__ import annotations

import json

import numpy as np

from holdemjax.series import hud
from holdemjax.series.results import standard_error

__all__ = ["SCHEMA", "build", "encode", "rank", "STAGES"]

SCHEMA = "holdemjax.league.leaderboard/1"
STAGES = ("qualifying", "final")


def _model():
    from openskill.models import PlackettLuce

    return PlackettLuce()


def rank(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: (-r["mean"], -r["rating"]["ordinal"], r["bot"]))


def build(spec: dict, certification: list[dict], summaries: list[dict],
          planned: dict[str, int], final_lineup: list[str] | None = None) -> dict:
    """The leaderboard document. ``summaries``: every series played, in any order (sorted by
    index here); ``planned``: series planned per stage."""
    summaries = sorted(summaries, key=lambda s: s["index"])
    model = _model()
    ratings: dict[str, object] = {}
    seats = spec["seats"]
    stages = []
    for stage in STAGES:
        mine = [s for s in summaries if s["stage"] == stage]
        if stage == "final" and not mine and final_lineup is None:
            continue
        per_bot: dict[str, dict] = {}
        for s in mine:
            for slot in s["slots"]:
                row = per_bot.setdefault(slot["bot"], {"scores": [], "places": [], "series": 0,
                                                       "faults": [], "timeouts": 0,
                                                       "chips_won": 0, "hud": None,
                                                       "luck": []})
                row["scores"] += slot["scores"]
                row["places"] += slot["places"]
                row["series"] += 1
                row["faults"] += [{"series": s["index"], **f} for f in slot["faults"]]
                row["timeouts"] += slot["timeouts"]
                row["chips_won"] += slot["chips_won"]
                # the luck per game; None for good once a series of the bot has none
                row["luck"] = (row["luck"] + slot["luck"] if row["luck"] is not None
                               and "luck" in slot else None)
                if slot.get("hud") is not None:  # summaries written before the HUD have none
                    row["hud"] = hud.add(row["hud"] or {}, slot["hud"])
            _rate(model, ratings, s)
        rows = []
        for bot, r in per_bot.items():
            hist = {str(k): 0 for k in range(1, seats + 1)}
            for p in r["places"]:
                if p > 0:
                    hist[str(p)] = hist.get(str(p), 0) + 1
            rating = ratings[bot]
            rows.append({
                "bot": bot, "series": r["series"], "games": len(r["scores"]),
                "mean": round(float(np.mean(r["scores"])), 6),
                "stderr": round(standard_error(r["scores"]), 6),
                "places": hist, "faults": r["faults"], "timeouts": r["timeouts"],
                "chips_won": r["chips_won"],
                "hud": None if r["hud"] is None else hud.figures(r["hud"]),
                "rating": {"mu": round(rating.mu, 4), "sigma": round(rating.sigma, 4),
                           "ordinal": round(rating.ordinal(), 4)},
            })
            if r["luck"]:
                corrected = np.asarray(r["scores"], np.float64) - np.asarray(r["luck"])
                rows[-1]["luck"] = {"mean": round(float(corrected.mean()), 6),
                                    "stderr": round(standard_error(corrected), 6),
                                    "luck": round(float(np.mean(r["luck"])), 6)}
        rows = rank(rows)
        for i, row in enumerate(rows, 1):
            row["rank"] = i
        stages.append({
            "stage": stage, "series_planned": planned.get(stage, 0), "series_played": len(mine),
            "complete": len(mine) == planned.get(stage, 0),
            "lineup": final_lineup if stage == "final" else None, "rows": rows,
            "series": [{"index": s["index"], "seed": s["seed"],
                        "bots": [slot["bot"] for slot in s["slots"]],
                        "tournaments_played": s["tournaments_played"],
                        "stopped_early": s["stopped_early"],
                        "viewer": f"series/{s['index']:04d}/viewer.html"} for s in mine],
        })
    return {"schema": SCHEMA, "league": spec, "certification": certification,
            "stages": stages}


def _rate(model, ratings: dict, s: dict) -> None:
    """Feed one series' games to the ratings, game by game."""
    bots = [slot["bot"] for slot in s["slots"]]
    for bot in bots:
        if bot not in ratings:
            ratings[bot] = model.rating(name=bot)
    games = len(s["slots"][0]["scores"])
    for g in range(games):
        scores = [slot["scores"][g] for slot in s["slots"]]
        order = sorted(set(scores), reverse=True)
        ranks = [order.index(x) + 1 for x in scores]
        teams = model.rate([[ratings[b]] for b in bots], ranks=ranks)
        for b, team in zip(bots, teams):
            ratings[b] = team[0]


def encode(doc: dict) -> bytes:
    """Canonical JSON: sorted keys, two-space indent, a final newline."""
    return (json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n").encode()
