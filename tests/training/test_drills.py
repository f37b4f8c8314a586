"""The explorer's drills (docs/explore.md): spots are the policy's decisions in real
tournaments against the panel opponent, on every street; the grade's probability is the
policy's own at the spot's state (asked independently); folding the nuts to a river bet loses
chips and score; bad input gets a 4xx with a sentence; a spot answered in a real browser.

One drill (one compiled program: playing and grading share it) serves the whole file: the
baseline against five random bots, 8 tournaments, 4 rollouts per action. With
HOLDEMJAX_SCREENSHOTS=DIR the browser test saves docs/explore-drill.png's picture into DIR.
"""

from __future__ import annotations

import functools
import os

import jax
import numpy as np
import pytest

from holdemjax.bots import POLICIES
from holdemjax.poker import table as tb
from holdemjax.poker.actions import CHECK_CALL, FOLD
from holdemjax.poker.cards import card_id
from holdemjax.training import explore_policy
from holdemjax.training.drills import Drill
from holdemjax.training.explore import ExploreError, Explorer
from tests.training.test_explore import _serving

POLICY = explore_policy.load("baseline")
ENV = POLICY.env


@pytest.fixture(scope="module")
def drill():
    return Drill(POLICY, "random", capacity=16, samples=4, seed=0)


@functools.cache
def _probs():
    return jax.jit(functools.partial(POLICIES["baseline"], ENV))


def _client(drill):
    from fastapi.testclient import TestClient

    from holdemjax.training.explore_page import create_app

    return TestClient(create_app(Explorer(POLICY), drill=drill))


def test_spots_are_the_policys_decisions_on_every_street(drill):
    streets = set()
    for g, c in drill.pool:
        state = drill.state_at(g, c)
        assert int(state.current_player) == g % 6 and not bool(state.terminated)
        streets.add(int(ENV.tournament(state).table.street))
    assert streets == {tb.PREFLOP, tb.FLOP, tb.TURN, tb.RIVER}
    first = [drill.deal() for _ in range(3)]
    assert [s.id for s in first] == ["0-1", "0-2", "0-3"] and drill.decisions >= len(drill.pool)
    again = Drill(POLICY, "random", capacity=16, samples=4, seed=0)  # the same program
    assert again.pool == drill.pool and again.decisions == drill.decisions
    for s in first:  # the same seed deals the same spots
        a = again.deal()
        assert (a.game, a.mask.tolist(), a.amounts.tolist()) == (s.game, s.mask.tolist(),
                                                                 s.amounts.tolist())
        np.testing.assert_array_equal(ENV.tournament(a.state).table.hole,
                                      ENV.tournament(s.state).table.hole)


def test_the_grade_is_the_policys_probability_at_the_state(drill):
    for _ in range(3):
        spot = drill.deal()
        want = np.asarray(_probs()(spot.state))
        for word in drill.legal_words(spot)[:2]:
            grade = drill.grade(spot.id, word, record=False)
            action = drill.action_id(spot, word)
            assert grade.probability == pytest.approx(float(want[action]), abs=1e-6)
            assert grade.best == drill.word(spot.mask, int(np.argmax(np.where(spot.mask, want,
                                                                              -1))))
        same = drill.grade(spot.id, grade.best, record=False)
        assert same.agreed and same.lost_chips == 0 and same.lost_score == 0


def _nuts_on_the_river(drill):
    """A river decision of the pool facing a bet (fold is legal), its cards replaced: the
    person holds As Ks on Qs Js Ts 2c 3d (a royal flush: nobody can tie or beat it)."""
    for g, c in drill.pool:
        state = drill.state_at(g, c)
        t = ENV.tournament(state)
        if int(t.table.street) == tb.RIVER and bool(state.legal_action_mask[FOLD]):
            break
    else:
        raise AssertionError("no river decision facing a bet in the drill's pool")
    seat = int(t.table.to_act)
    mine = [card_id(x) for x in ("As", "Ks")]
    board = [card_id(x) for x in ("Qs", "Js", "Ts", "2c", "3d")]
    rest = iter(x for x in range(52) if x not in mine + board)
    hole = np.array([mine if s == seat else [next(rest), next(rest)]
                     for s in range(t.table.hole.shape[0])], np.int32)
    table = tb.with_cards(t.table, hole, np.array(board, np.int32))
    state = ENV.with_tournament(state, t.replace(table=table))
    return state.replace(observation=ENV.observe(state, state.current_player)), table, seat


def test_folding_the_nuts_to_a_river_bet_loses_chips_and_score(drill):
    # The rule (holdemjax/poker/table.py): a fold forfeits the chips the folder put in; at a
    # showdown the best hand takes the pot. With the nuts, a call or a raise ends the hand with
    # at least the stack behind plus the pot; a fold with the stack behind, exactly.
    state, table, seat = _nuts_on_the_river(drill)
    out = drill.grade_state(state, FOLD)
    stack = int(table.stacks[seat])
    assert out["chips"][0] == stack
    assert int(out["best"]) != FOLD
    assert out["chips"][1] >= stack + int(tb.pot_total(table)) > out["chips"][0]
    assert out["score"][1] > out["score"][0]
    called = drill.grade_state(state, CHECK_CALL)
    assert called["chips"][0] > stack and called["probs"][FOLD] == 0


def test_bad_input_gets_a_4xx_with_a_sentence(drill):
    client = _client(drill)
    spot = client.get("/api/drill/spot").json()
    assert spot["hole"] and spot["legal"] and spot["street"] in ("pre-flop", "flop", "turn",
                                                                 "river")
    bad = client.post("/api/drill/answer", json={"spot": spot["spot"], "action": "raise_9_pot"})
    assert bad.status_code == 422
    assert bad.json()["detail"].startswith(f"'raise_9_pot' is not a legal action at spot "
                                           f"{spot['spot']}; legal: ")
    unknown = client.post("/api/drill/answer", json={"spot": "nope", "action": "call"})
    assert unknown.status_code == 404
    assert unknown.json()["detail"] == "no spot 'nope' was dealt in this drill"
    assert client.post("/api/drill/answer", content=b"{").status_code == 422
    before = len(drill.answers)
    word = spot["legal"][0]["action"]
    ok = client.post("/api/drill/answer", json={"spot": spot["spot"], "action": word}).json()
    assert ok["action"] == word and 0 <= ok["probability"] <= 1
    got = client.get("/api/drill/summary", params={"download": 1})
    assert got.headers["content-disposition"].startswith("attachment")
    summary = got.json()
    assert summary["spots"] == before + 1 == len(summary["answers"])
    assert summary["agreement"] == np.mean([a["agreed"] for a in summary["answers"]])
    off = _client(None).get("/api/drill/spot")
    assert off.status_code == 404 and "--drill" in off.json()["detail"]


def test_an_unknown_panel_opponent_is_refused(capsys):
    from holdemjax.cli import main

    with pytest.raises(ExploreError, match="unknown panel opponent 'nosuch'"):
        Drill(POLICY, "nosuch")
    assert main(["explore", "baseline", "--drill", "--panel", "nosuch"]) == 2
    assert "holdemjax explore: unknown panel opponent 'nosuch'" in capsys.readouterr().err


def test_a_drill_in_a_browser(drill):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.browser import browser

    with _serving(Explorer(POLICY), drill) as base, browser("drill", "1300,900") as driver:
        driver.get(base + "/drill")
        wait = WebDriverWait(driver, 30)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#legal button"))
        spot_id = driver.find_element(By.ID, "spot-id").text
        button = driver.find_elements(By.CSS_SELECTOR, "#legal button")[-1]
        word = button.get_attribute("data-action")
        button.click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#grade-table tr"))
        row = driver.find_element(By.CSS_SELECTOR,
                                  "#grade-table tr[data-kind=\"policy's probability\"]")
        spot, grade = drill.answers[-1]
        assert spot.id == spot_id and grade.action == word
        assert f"{100 * grade.probability:.1f}% of {word}" in row.text
        wait.until(lambda d: "agreement" in d.find_element(By.ID, "summary").text)
        where = os.environ.get("HOLDEMJAX_SCREENSHOTS")
        if where:
            driver.save_screenshot(os.path.join(where, "explore-drill.png"))
