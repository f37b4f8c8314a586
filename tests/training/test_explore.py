"""The pre-flop explorer: a grid two actions deep for the baseline (UTG folds, HJ opens, the CO
decides) equals the baseline's own probabilities on states stepped independently with
`env.step`; each earlier actor's range is its probability of its action; bad input gets one
sentence (API, page, command); the page in a real browser (Chromium, as the duplicate pages).

One compiled program serves the whole file (one per policy: stage, position and actions are
data). With HOLDEMJAX_SCREENSHOTS=DIR the browser test saves the page into DIR (the pictures of
docs/explore.md: ``HOLDEMJAX_SCREENSHOTS=docs pytest tests/training/test_explore.py``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import socket
import threading
import time

import jax
import numpy as np
import pytest

from holdemjax.bots import baseline
from holdemjax.poker.actions import FOLD
from holdemjax.training import explore_policy
from holdemjax.training.explore import ExploreError, Explorer, Stage, combo_table
from holdemjax.training.preflop_grid import cell_class

POLICY = explore_policy.load("baseline")
ENV = POLICY.env
OPEN = ENV.menu.names().index("RAISE_0.75_POT")  # the baseline's 3 BB open, on the menu
LINE = ["fold", "raise_0.75_pot"]  # UTG folds, HJ opens, the CO decides


@pytest.fixture(scope="module")
def explorer():
    return Explorer(POLICY)


@pytest.fixture(scope="module")
def deep(explorer):
    return explorer.grid(Stage(), LINE)


@functools.cache
def _policy():
    return jax.jit(functools.partial(baseline.policy, ENV))


@pytest.fixture(scope="module")
def stepped():
    """Fresh tournaments (50 BB, level 1, six players: the stage of `Stage()`) stepped with
    `env.step`: the HJ's decision after UTG folds, the CO's after HJ opens."""
    out = []
    for k in range(3):
        s0 = ENV.init(jax.random.key(100 + k))
        s1 = ENV.step(s0, FOLD)
        out.append((s0, s1, ENV.step(s1, OPEN)))
    return out


def _combo(state) -> int:
    """The row in `combo_table` of the hand the player to act holds."""
    t = ENV.tournament(state).table
    hole = sorted(np.asarray(t.hole[int(t.to_act)]).tolist())
    cards, _ = combo_table()
    return int(np.flatnonzero((np.sort(cards, 1) == hole).all(1))[0])


def test_the_line_is_the_engines(deep, stepped):
    assert [(s.position, s.action) for s in deep.line.steps] == [("UTG", "fold"),
                                                                 ("HJ", "raise_0.75_pot")]
    assert deep.line.position == "CO" and deep.line.big_blind == 20
    _, s1, s2 = stepped[0]
    t1, t2 = ENV.tournament(s1).table, ENV.tournament(s2).table
    assert deep.line.steps[1].raise_to == int(t2.bets[int(t1.to_act)]) == 57
    assert deep.line.pot == int(t2.bets.sum() + t2.dead)
    assert set(deep.line.legal) >= {"fold", "call", "all_in"} and deep.exact


def test_the_grid_two_actions_deep_is_the_policy_on_stepped_states(deep, stepped):
    for _, _, s2 in stepped:
        want = np.asarray(_policy()(s2))
        row = _combo(s2)
        np.testing.assert_array_equal(deep.combos[row].astype(np.float32), want)
        _, classes = combo_table()
        np.testing.assert_allclose(deep.shares[classes[row]], want, atol=1e-6)
    assert np.allclose(deep.shares.sum(1), 1) and np.allclose(deep.reach, 1)
    aa, seven_two = deep.shares[cell_class(0, 0)], deep.shares[cell_class(12, 7)]
    assert aa[FOLD] == 0 and seven_two[FOLD] == 1


def test_each_earlier_actor_keeps_its_probability_of_its_action(deep, stepped):
    _, classes = combo_table()
    for s0, s1, _ in stepped:
        utg, hj = _combo(s0), _combo(s1)
        assert deep.ranges[0, classes[utg]] == pytest.approx(float(_policy()(s0)[FOLD]))
        assert deep.ranges[1, classes[hj]] == pytest.approx(float(_policy()(s1)[OPEN]))
    assert deep.ranges[1, cell_class(0, 0)] == 1 and deep.ranges[1, cell_class(12, 7)] == 0


def test_another_stage_and_position_run_the_same_program(explorer, deep):
    g = explorer.grid(Stage(stack_bb=10, level=5, players=4), [], "BTN")
    assert not g.compiled and g.line.position == "BTN" and g.line.big_blind == 120
    assert [s.position for s in g.line.steps] == ["CO"]  # folded to the button
    assert deep.compiled or deep.seconds < 30


@pytest.mark.parametrize("stage, actions, position, words", [
    (Stage(), ["call"] * 5 + ["fold"], None, "action 6 (fold) is not legal for BB"),
    (Stage(), ["fold"] * 5, None, "the hand is over after action 5"),
    (Stage(), ["fold", "flop"], None, "unknown action 'flop'"),
    (Stage(), ["min_raise"] * 9, None, "at most 8 actions"),
    (Stage(), ["raise_0.75_pot"], "UTG", "UTG does not decide"),
    (Stage(players=3), [], "UTG", "position 'UTG' does not play with 3 players"),
    (Stage(players=7), [], None, "players must be an int in 2..6"),
    (Stage(level=30), [], None, "level must be an int in 1..14"),
])
def test_bad_input_is_one_sentence(explorer, stage, actions, position, words):
    with pytest.raises(ExploreError, match=re.escape(words)):
        explorer.grid(stage, actions, position)


@pytest.mark.parametrize("name, words", [("nosuch", "unknown policy 'nosuch'"),
                                         ("bot.wasm", "bot.wasm: a .wasm policy is not "
                                                      "supported by explore yet")])
def test_unknown_and_wasm_policies_are_refused(name, words, capsys):
    from holdemjax.cli import main

    with pytest.raises(ExploreError, match=words):
        explore_policy.load(name)
    assert main(["explore", name]) == 2
    assert capsys.readouterr().err.startswith(f"holdemjax explore: {words}")


def test_the_api_and_the_page_answer_422_with_the_sentence(explorer, deep):
    from fastapi.testclient import TestClient

    from holdemjax.training.explore_page import create_app

    client = TestClient(create_app(explorer))
    ok = client.get("/api/grid", params={"actions": ",".join(LINE)}).json()
    assert ok["position"] == "CO" and ok["exact"]
    assert ok["cells"][0][1]["shares"] == [round(x, 4) for x in deep.shares[cell_class(0, 1)]]
    bad = client.get("/api/grid", params={"actions": "fold,flop"})
    assert bad.status_code == 422 and bad.json()["detail"].startswith("unknown action 'flop'")
    page = client.get("/", params={"players": "six"})
    assert page.status_code == 422 and "players must be a whole number" in page.text
    assert client.get("/static/felt.css").status_code == 200


@contextlib.contextmanager
def _serving(explorer, drill=None):
    import uvicorn

    from holdemjax.training.explore_page import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(explorer, drill=drill)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_the_page_in_a_browser(explorer, deep):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.browser import browser

    with _serving(explorer) as base, browser("explorer", "1300,1180") as driver:
        driver.get(base + "/")
        wait = WebDriverWait(driver, 20)
        wait.until(lambda d: d.find_element(By.ID, "deciding").text.startswith("UTG to act"))
        # choose the HJ first in, then the HJ's open: the CO decides two actions deep
        driver.find_element(By.XPATH, "//span[@id='first-in']/button[text()='HJ']").click()
        wait.until(lambda d: d.find_element(By.ID, "deciding").text.startswith("HJ to act"))
        driver.find_element(By.CSS_SELECTOR, "#legal button[data-action='raise_0.75_pot']") \
            .click()
        wait.until(lambda d: d.find_element(By.ID, "deciding").text.startswith("CO to act"))
        steps = [li.find_element(By.CSS_SELECTOR, ".what").text
                 for li in driver.find_elements(By.CSS_SELECTOR, "#line li")]
        assert steps == ["UTG folds", "HJ raises to 2.85 BB (raise 0.75 pot)"]
        cell = driver.find_element(By.CSS_SELECTOR, "#grid td[data-hand='AJs']")
        ActionChains(driver).move_to_element(cell).perform()
        shown = {row.get_attribute("data-kind"): row.find_element(By.CSS_SELECTOR, ".share").text
                 for row in driver.find_elements(By.CSS_SELECTOR, "#cell-info tr[data-kind]")}
        s = deep.shares[cell_class(0, 3)]
        want = [s[0], s[1], s[2:-1].sum(), s[-1]]
        assert shown == {k: f"{100 * x:.1f}%" for k, x in zip(("fold", "call", "raise",
                                                               "all-in"), want)}
        assert "exact" in driver.find_element(By.ID, "how").text
        where = os.environ.get("HOLDEMJAX_SCREENSHOTS")
        if where:
            driver.save_screenshot(os.path.join(where, "explore-grid.png"))
        driver.get(base + "/?actions=fold,fold,fold,fold,fold")
        assert "the hand is over after action 5" in driver.find_element(By.ID, "error").text
        if where:
            driver.save_screenshot(os.path.join(where, "explore-refused.png"))
