"""The service in a real browser (headless Chromium, as the series viewer's test): the operator
creates a simultaneous match in the page and sees its share link on the status page; Ann joins
through the link in the browser and Bob over the JSON API; each hand opens for both at once
(the page waits for the other, then deals); the results are sealed until the match closes by
itself, then the leaderboard ranks both.

With HOLDEMJAX_SCREENSHOTS=DIR set, the test saves a PNG of every page into DIR (the pictures
in docs/duplicate.md: ``HOLDEMJAX_SCREENSHOTS=docs pytest tests/duplicate/
test_service_browser.py``).
"""

from __future__ import annotations

import os
import time

import httpx
import pytest

from tests.browser import browser as open_browser
from tests.duplicate.server import OPERATOR, running


@pytest.fixture(scope="module")
def browser():
    with open_browser("duplicate service", "1280,900", load_timeout=30) as driver:
        yield driver


def _shot(browser, name: str) -> None:
    where = os.environ.get("HOLDEMJAX_SCREENSHOTS")
    if where:
        browser.save_screenshot(os.path.join(where, f"duplicate-{name}.png"))


def _api_hand(base: str, mid: str, name: str, key: str) -> dict:
    """Bob calls or checks through his current hand over the API; returns the last state."""
    url, h = f"{base}/api/matches/{mid}/lines/{name}", {"X-Line-Key": key}
    st = httpx.get(url, headers=h).json()
    assert "status" in st, st
    hand = st["view"]["hand"] if st["status"] == "decision" else None
    while st["status"] == "decision" and st["view"]["hand"] == hand:
        st = httpx.post(url + "/act", headers=h, json={"decision": st["decision"],
                                                       "action": "call"}).json()
        assert "status" in st, st
    return st


def _is_link_to(element, url: str) -> None:
    assert element.tag_name == "a" and element.get_attribute("href") == url


def _log(browser) -> list[str]:
    """The hand log's lines. Each is numbered in a box of its own that shows the whole number
    (issue 51 point 5: list markers were clipped past 9), and its bets and raises follow the
    betting of their street."""
    from selenium.webdriver.common.by import By

    box = browser.find_element(By.ID, "log").rect
    lines, facing = [], True
    for i, li in enumerate(browser.find_elements(By.CSS_SELECTOR, "#log li")):
        n = li.find_element(By.CSS_SELECTOR, ".n")
        assert n.text == str(i + 1) and n.rect["x"] >= box["x"]
        assert browser.execute_script(
            "return arguments[0].scrollWidth <= arguments[0].clientWidth", n)
        line = li.find_element(By.CSS_SELECTOR, ".t").text
        words = f" {line} "
        if " you hold " in line:
            facing = True
        elif line.startswith("board: "):
            facing = False
        elif any(w in words for w in (" bets ", " bet ", " raises to ", " raise to ")):
            assert facing == (" raise" in words), line
            facing = True
        lines.append(line)
    return lines


def test_a_simultaneous_match_in_the_browser(browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with running(tmp_path / "s.sqlite") as (base, app):
        wait = WebDriverWait(browser, 30)
        data = lambda k: browser.execute_script(  # noqa: E731 - the page's state (body data-*)
            f"return document.body ? document.body.dataset.{k} || null : null")
        browser.get(base + "/")
        form = browser.find_element(By.ID, "create")
        for field, value in (("operator", OPERATOR), ("seats", "3"), ("hands", "2"),
                             ("participants", "2")):
            box = form.find_element(By.NAME, field)
            box.clear()
            box.send_keys(value)
        form.find_element(By.NAME, "simultaneous").click()
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait.until(lambda b: b.find_elements(By.ID, "share-link"))
        share = browser.find_element(By.ID, "share-link").text
        mid, token = share.split("/join/")[1].split("/")
        assert app.state.service.store.match(mid).spec.simultaneous
        # issue 51 point 5: the share link is a link, and the match list shows the new match
        _is_link_to(browser.find_element(By.ID, "share-link"), share)
        listed = browser.find_elements(By.CSS_SELECTOR, "#matches li")
        assert [li.text for li in listed] == [f"{mid} open"]
        _is_link_to(listed[0].find_element(By.TAG_NAME, "a"), f"{base}/m/{mid}")
        _shot(browser, "home")
        # the status page shows the operator the share link, every time (issue 36 point 7),
        # and no result link while the results are sealed
        browser.get(f"{base}/m/{mid}")
        wait.until(lambda b: "/join/" in b.find_element(By.ID, "share-link").text)
        assert browser.find_element(By.ID, "share-link").text == share
        _is_link_to(browser.find_element(By.ID, "share-link"), share)
        assert not browser.find_elements(By.CSS_SELECTOR, "a.result-link")
        _shot(browser, "status")
        browser.get(share)
        browser.find_element(By.NAME, "name").send_keys("Ann <b>")
        _shot(browser, "join")
        browser.find_element(By.ID, "join-button").click()
        # nothing is dealt before the field is complete
        wait.until(lambda b: data("status") == "waiting")
        assert "Waiting for others to join" in browser.find_element(By.ID, "waiting").text
        bob = httpx.post(f"{base}/api/matches/{mid}/join",
                         json={"token": token, "name": "Bob"}).json()["key"]
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#actions button[data-action]"))
        assert data("hand") == "0"
        # the table as the series viewer draws it: three seats, Ann's two cards face up
        assert len(browser.find_elements(By.CSS_SELECTOR, "#table-view .seat")) == 3
        assert len(browser.find_elements(By.CSS_SELECTOR, "#hole [data-card]")) == 2
        assert "(you)" in browser.find_element(By.CSS_SELECTOR, ".seat.hero").text
        # issue 51 point 5: every seat's name shows whole ("S2 interm..." was cut)
        names = browser.find_elements(By.CSS_SELECTOR, "#table-view .seat .name")
        assert [n.text for n in names if n.text.startswith("S")]  # the bots, by seat and tier
        assert all(browser.execute_script(
            "return arguments[0].scrollWidth <= arguments[0].clientWidth", n) for n in names)
        # an opening bet is a bet, a raise into a bet a raise (before the flop the blinds are
        # the bet): the one rule of the felt (felt.js), in the words of the log
        assert browser.execute_script(
            "const w = HoldemFelt.actionWords; return [w(3, 80, 80, false, false), "
            "w(3, 240, 240, true, false), w(3, 80, 80, false, true), w(2, 80, 40, true, true)]"
        ) == ["bets 80", "raises to 240", "bet 80", "call 40"]
        _shot(browser, "play")
        # a double click plays one decision (finding 1): the page names the decision and
        # disables its buttons while the request is in flight
        turn = lambda: int(data("turn") or 0)  # noqa: E731
        assert data("decision") == "0"
        before = turn()
        button = next(b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button")
                      if b.get_attribute("data-action") in ("check", "call"))
        ActionChains(browser).double_click(button).perform()
        wait.until(lambda b: turn() > before)
        time.sleep(1.0)  # a second answer, if a second request went, has come back by now
        assert turn() == before + 1
        # Ann plays out hand 1 in the page; hand 2 waits for Bob
        for _ in range(12):
            if data("status") != "decision":
                break
            before = turn()
            next(b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button")
                 if b.get_attribute("data-action") in ("check", "fold")).click()
            wait.until(lambda b, before=before: turn() != before)
        assert data("status") == "waiting"
        assert "Waiting for others to finish this hand (1 still playing it)" in \
            browser.find_element(By.ID, "waiting").text
        log = _log(browser)
        assert log[0].startswith("hand 1: you hold ") and log[-1].startswith("hand 1 over: you")
        # the final frame: the stacks after the hand's last action and its pot (issue 51
        # point 5: it kept the stacks of your last decision, before the last call)
        final = browser.execute_script(  # in one read: the page redraws it while it polls
            "return [...document.querySelectorAll('#table-view .stack')].map(e => e.textContent)")
        assert any(li.get_attribute("class") == "mine"
                   for li in browser.find_elements(By.CSS_SELECTOR, "#log li"))  # yours too
        _shot(browser, "waiting")
        # sealed while open: a page (not JSON), and no command to run
        browser.get(f"{base}/m/{mid}/leaderboard")
        assert browser.find_elements(By.ID, "sealed")
        assert "sealed until it closes" in browser.find_element(By.TAG_NAME, "main").text
        assert "holdemjax duplicate" not in browser.find_element(By.TAG_NAME, "main").text
        _shot(browser, "sealed")
        browser.get(f"{base}/m/{mid}/play/Ann%20%3Cb%3E")  # Ann comes back to her line
        wait.until(lambda b: data("status") == "waiting")
        # Bob finishes hand 1: hand 2 opens for both (Bob's answer may run on through hand 2,
        # when the bots fold to him: his line is then finished)
        last = _api_hand(base, mid, "Bob", bob)
        wait.until(lambda b: data("status") != "waiting")
        for _ in range(12):
            if data("status") != "decision":
                break
            assert data("hand") == "1"
            before = turn()
            next(b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button")
                 if b.get_attribute("data-action") in ("check", "call")).click()
            wait.until(lambda b, before=before: turn() != before)
        if last["status"] != "finished":
            _api_hand(base, mid, "Bob", bob)
        wait.until(lambda b: data("status") == "finished")  # Ann's page: no more waiting
        assert _log(browser)[-1].startswith("hand 2 over: you")
        # both lines are finished: the steward closes the match; its results follow the
        # reference lines
        deadline = time.monotonic() + 120
        while httpx.get(f"{base}/api/matches/{mid}/leaderboard").status_code != 200:
            assert time.monotonic() < deadline, "the match did not close"
            time.sleep(0.3)
        browser.get(f"{base}/m/{mid}")
        browser.find_element(By.ID, "link-leaderboard").click()
        wait.until(lambda b: b.find_elements(By.ID, "leaderboard"))
        board = browser.find_element(By.ID, "leaderboard").text
        assert "Ann <b>" in board and "Bob" in board
        store = app.state.service.store
        stack, net = store.match(mid).spec.stack, store.lines(mid)["Ann <b>"].hands[0]["net"]
        assert final == [f"{stack + x} chips" for x in net]
        _shot(browser, "leaderboard")
