"""`holdemjax play` in a real browser (headless Chromium, as the duplicate service's test): the
person checks or calls a decision, raises, then goes all-in at every decision until the sit &
go ends; the page shows the table, the hand log and the end with its link to the viewer, and
the replay file reproduces byte for byte.

With HOLDEMJAX_SCREENSHOTS=DIR set, the test saves the page in play into DIR (docs/play.png:
``HOLDEMJAX_SCREENSHOTS=docs pytest tests/play/test_play_browser.py``).
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time

import uvicorn

from holdemjax.play import person
from holdemjax.play.page import create_app
from holdemjax.play.sitgo import SitGo
from holdemjax.series import replay
from tests.browser import browser as open_browser


@contextlib.contextmanager
def _running(game):
    """The page of ``game`` on a free local port, in a thread of the test process."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(game), host="127.0.0.1", port=port,
                                           log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the page did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_a_sit_and_go_in_the_browser(tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    game = SitGo(["baseline", "random", "baseline", "random", "baseline"], seed=7,
                 out=tmp_path)
    with open_browser("play", "1280,900", load_timeout=30) as browser, _running(game) as base:
        wait = WebDriverWait(browser, 30)
        data = lambda k: browser.execute_script(  # noqa: E731 - the page's state (body data-*)
            f"return document.body ? document.body.dataset.{k} || null : null")
        browser.get(base + "/")
        wait.until(lambda b: data("status") == "decision")
        # the viewer's table: six seats, your two cards face up, your name marked
        assert len(browser.find_elements(By.CSS_SELECTOR, "#table-view .seat")) == 6
        assert len(browser.find_elements(By.CSS_SELECTOR, "#hole [data-card]")) == 2
        assert "(you)" in browser.find_element(By.CSS_SELECTOR, ".seat.hero").text
        assert not browser.find_elements(By.ID, "pause")  # a sit & go is not paused
        buttons = {b.get_attribute("data-action") for b in
                   browser.find_elements(By.CSS_SELECTOR, "#actions button")}
        assert {"fold", "raise"} <= buttons and buttons & {"check", "call"}
        if os.environ.get("HOLDEMJAX_SCREENSHOTS"):
            browser.save_screenshot(os.path.join(os.environ["HOLDEMJAX_SCREENSHOTS"],
                                                 "play.png"))
        clicks, t0 = 0, time.monotonic()
        while data("status") == "decision":
            turn = data("turn")
            legal = browser.find_elements(By.CSS_SELECTOR, "#actions button")
            if clicks == 0:  # check or call
                pick = next(b for b in legal if b.get_attribute("data-action") in
                            ("check", "call"))
            else:  # then all-in where raising is open, else call
                allin = [b for b in legal if b.text.startswith("all-in")]
                pick = allin[0] if allin else next(
                    b for b in legal if b.get_attribute("data-action") in ("check", "call"))
            pick.click()
            clicks += 1
            wait.until(lambda b, t=turn: data("turn") != t and data("status") != "waiting"
                       or data("status") == "waiting")
            WebDriverWait(browser, 60).until(lambda b: data("status") in ("decision",
                                                                          "finished"))
        assert data("status") == "finished"
        print(f"{clicks} decisions in {time.monotonic() - t0:.1f} s")
        note = browser.find_element(By.ID, "note").text
        assert "Tournament over: you finished" in note
        log = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]
        assert any("you hold" in line for line in log) and any(" over: you" in line
                                                                for line in log)
        browser.find_element(By.ID, "result-link").click()
        wait.until(lambda b: "viewer" in b.current_url and len(
            b.find_elements(By.CSS_SELECTOR, "table#standings tbody tr")) == 6)
        assert any("person.json" in r.text for r in
                   browser.find_elements(By.CSS_SELECTOR, "table#standings tbody tr"))
    same, report = replay.verify(tmp_path / "replay.json", loader=person.load_seat)
    assert same, report
