"""The explorer's drills on its page (docs/explore.md): ``GET /drill`` the page, ``GET
/api/drill/spot`` a new spot, ``POST /api/drill/answer`` (``{"spot": id, "action": word}``) its
grade, ``GET /api/drill/summary`` the drill so far as JSON (``?download=1``: as a file).

Bad input is a 4xx with one sentence in ``detail``: an unknown spot 404, an action that is not
legal there (or a body that is not the JSON asked for) 422; without a drill (the command ran
without ``--drill``) every drill route is a 404 saying how to start one.
"""

from __future__ import annotations

import json
import re

import numpy as np
from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse

from holdemjax.poker import table as tb
from holdemjax.poker.cards import card_text
from holdemjax.series.html import environment
from holdemjax.training.drills import STREETS, Drill, Grade, Spot
from holdemjax.training.explore import ExploreError

__all__ = ["spot_document", "grade_document", "summary", "add_routes"]


def _seat_names(table) -> dict[int, str]:
    """Position words of the seats dealt in, counted from the button."""
    n = table.stacks.shape[0]
    dealt = [s for s in range(n) if bool(table.in_hand[s])]
    button = int(table.button)
    order = sorted(dealt, key=lambda s: (s - button - 1) % n)  # SB first, the button last
    names = {int(table.sb): "SB", int(table.bb): "BB", button: "BTN"}
    rest = [s for s in order if s not in names]
    early = ["UTG", "HJ", "CO"][-len(rest):] if rest else []
    return {**{s: w for s, w in zip(rest, early)}, **{s: names[s] for s in names if s in dealt}}


def spot_document(drill: Drill, spot: Spot) -> dict:
    """What the page shows of a spot: the person's cards, the board, every seat's stack and
    bet, the pot and what calling costs, the legal actions as the menu's words."""
    env = drill.env
    t = env.tournament(spot.state)
    table = t.table
    bb = int(table.big_blind)
    seat = int(table.to_act)
    where = _seat_names(table)
    seats = [{"seat": s, "position": where.get(s, ""), "stack_bb": int(table.stacks[s]) / bb,
              "bet_bb": int(table.bets[s]) / bb, "folded": bool(table.folded[s]),
              "in_hand": bool(table.in_hand[s]), "you": s == seat}
             for s in range(table.stacks.shape[0]) if bool(t.alive[s])]
    to_call = int(table.current_bet) - int(table.bets[seat])
    legal = [{"action": drill.word(spot.mask, int(a)),
              "raise_to_bb": int(spot.amounts[a]) / bb} for a in np.flatnonzero(spot.mask)]
    return {"spot": spot.id, "street": STREETS[int(table.street)], "hand": int(t.hand) + 1,
            "hole": [card_text(int(c)) for c in table.hole[seat]],
            "board": [card_text(int(c)) for c in table.board[:int(table.revealed)]],
            "position": where.get(seat, ""), "seats": seats, "big_blind": bb,
            "pot_bb": int(tb.pot_total(table)) / bb, "to_call_bb": max(to_call, 0) / bb,
            "legal": legal, "policy": drill.policy.name, "panel": drill.panel}


def grade_document(drill: Drill, spot: Spot, grade: Grade) -> dict:
    """A grade as JSON: the probabilities, the two actions' values, what was lost."""
    bb = int(drill.env.tournament(spot.state).table.big_blind)
    return {"spot": spot.id, "action": grade.action, "best": grade.best,
            "probability": round(grade.probability, 4), "probs": grade.probs,
            "agreed": grade.agreed, "exact": drill.policy.exact,
            "chips": {"action": grade.chips[0], "best": grade.chips[1],
                      "lost": grade.lost_chips, "lost_bb": grade.lost_chips / bb},
            "score": {"action": grade.score[0], "best": grade.score[1],
                      "lost": grade.lost_score},
            "rollouts": drill.samples}


def summary(drill: Drill) -> dict:
    """The drill so far: spots answered, agreement (the share where the person's action was
    the policy's most likely), the average value lost, each answer."""
    answers = [grade_document(drill, s, g) for s, g in drill.answers]
    n = len(answers)

    def mean(key):
        return sum(a[key]["lost"] for a in answers) / n if n else None

    return {"policy": drill.policy.name, "panel": drill.panel, "seed": drill.seed,
            "spots": n, "agreement": sum(a["agreed"] for a in answers) / n if n else None,
            "average_lost_chips": mean("chips"), "average_lost_score": mean("score"),
            "rollouts_per_action": drill.samples, "decisions_in_pool": len(drill.pool),
            "answers": answers}


def _refused(status: int, sentence: str) -> JSONResponse:
    return JSONResponse({"detail": sentence}, status_code=status)


def add_routes(app, drill: Drill | None) -> None:
    """The drill's page and API on the explorer's app."""
    off = ("no drill runs on this page: start it with holdemjax explore POLICY --drill "
           "--panel NAME")

    @app.get("/drill", response_class=HTMLResponse)
    def page():
        if drill is None:
            return HTMLResponse(f"<p>{off}</p>", status_code=404)
        html = environment("holdemjax.training").get_template("drill.html").render(
            title=f"drill {drill.policy.name}", policy=drill.policy, panel=drill.panel)
        return HTMLResponse(html)

    @app.get("/api/drill/spot")
    def new_spot():
        if drill is None:
            return _refused(404, off)
        return spot_document(drill, drill.deal())

    @app.post("/api/drill/answer")
    async def answer(request: Request):
        if drill is None:
            return _refused(404, off)
        try:
            body = json.loads(await request.body() or b"null")
        except (ValueError, UnicodeDecodeError):
            return _refused(422, "the answer must be JSON: {\"spot\": ID, \"action\": WORD}")
        if not (isinstance(body, dict) and isinstance(body.get("spot"), str)
                and isinstance(body.get("action"), str)):
            return _refused(422, "the answer must be JSON: {\"spot\": ID, \"action\": WORD}")
        try:
            spot = drill.spot(body["spot"])
        except KeyError as err:
            return _refused(404, err.args[0])
        try:
            grade = drill.grade(spot.id, body["action"])
        except ExploreError as err:
            return _refused(422, str(err))
        return grade_document(drill, spot, grade)

    @app.get("/api/drill/summary")
    def drill_summary(download: int = 0):
        if drill is None:
            return _refused(404, off)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"drill-{drill.policy.name}-{drill.panel}")
        headers = ({"Content-Disposition": f'attachment; filename="{name}.json"'}
                   if download else None)
        return JSONResponse(summary(drill), headers=headers)
