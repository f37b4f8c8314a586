"""The HTML series viewer: the embedded documents, escaping of hostile chat, and the page itself
in headless Chromium (standings order, stepping, hand and tournament pickers, chip accounting).

The sample documents in data/ are real output of the series runner (3 tournaments of sng-6 with
test policies); the replay keeps hands 1-12 and the last 3 of each tournament to stay small.
"""

from __future__ import annotations

import copy
import html
import html.parser
import json
import os
import pathlib
import re

import pytest

from holdemjax.series import hud, viewer
from tests.browser import browser as open_browser

DATA = pathlib.Path(__file__).parent / "data"
HOSTILE = "</script><script>alert(1)</script>"


@pytest.fixture(scope="module")
def docs():
    results = json.loads((DATA / "sample_results.json").read_text())
    replay = json.loads((DATA / "sample_replay.json").read_text())
    return results, replay


class _Tags(html.parser.HTMLParser):
    """Start tags (with attributes) and the text of every <script>, as a browser parses them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self._in_script = [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "script":
            self._in_script = dict(attrs)
            self.scripts.append([self._in_script, ""])

    def handle_data(self, data):
        if self._in_script is not None:
            self.scripts[-1][1] += data

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = None


def _parse(page: str) -> _Tags:
    p = _Tags()
    p.feed(page)
    p.close()
    return p


def _data_block(page: str):
    blocks = [text for attrs, text in _parse(page).scripts
              if attrs.get("type") == "application/json"]
    assert len(blocks) == 1, f"expected one JSON data block, found {len(blocks)}"
    return json.loads(blocks[0])


def _with_chat(replay: dict, text: str) -> dict:
    """The replay with a chat line from seat 0 right after the first action of the first hand."""
    doc = copy.deepcopy(replay)
    events = doc["tournaments"][0]["hands"][0]["events"]
    first = next(i for i, e in enumerate(events) if e["type"] == "action")
    events.insert(first + 1, {"type": "chat", "seat": 0, "text": text, "say": False})
    return doc


# --------------------------------------------------------------------------------- unit tests
def test_embeds_both_documents(docs):
    results, replay = docs
    page = viewer.render(results, replay)
    assert _data_block(page) == {"results": results, "replay": replay}
    assert page.startswith("<!DOCTYPE html>")


def test_loads_nothing_from_outside(docs):
    page = viewer.render(*docs).lower()
    for needle in ("http://", "https://", "src=", "href=", "url(", "@import", "<link", "<img",
                   "<iframe", "fetch(", "xmlhttprequest", ".innerhtml", "document.write"):
        assert needle not in page, f"the viewer page contains {needle!r}"


def test_hostile_chat_cannot_break_out(docs):
    results, replay = docs
    hostile = _with_chat(replay, HOSTILE)
    page = viewer.render(results, hostile)
    assert HOSTILE not in page
    clean, dirty = _parse(viewer.render(results, replay)), _parse(page)
    assert dirty.tags == clean.tags  # no element was added: the line stayed inside the JSON
    assert _data_block(page) == {"results": results, "replay": hostile}


def test_hostile_strings_are_escaped_in_markup_and_round_trip_in_the_data(docs):
    """The page is a Jinja2 template with autoescape: a hostile variant in the title and heading
    is text, the same string in a chat line stays JSON (`embed_json`, not autoescaped: it still
    parses), and no template syntax inside a value is evaluated."""
    results, replay = docs
    evil = '</script><img src=x onerror=alert(1)>"><b>{{ 7 * 7 }}'
    hostile_replay = {**_with_chat(replay, evil), "variant": evil}
    hostile_results = {**results, "variant": evil}
    page = viewer.render(hostile_results, hostile_replay)
    assert evil not in page and "<img" not in page and "<b>" not in page
    clean = _parse(viewer.render(results, replay))
    assert _parse(page).tags == clean.tags  # no element added, none lost
    data = _data_block(page)  # json.loads of the script element's text
    assert data == {"results": hostile_results, "replay": hostile_replay}
    events = data["replay"]["tournaments"][0]["hands"][0]["events"]
    assert evil in [e["text"] for e in events if e["type"] == "chat"]
    title = f"holdemjax series · {evil} · seed {replay['seed']}"
    for tag in ("title", "h1"):
        shown = re.search(f"<{tag}>(.*?)</{tag}>", page, re.S).group(1)
        assert "<" not in shown and html.unescape(shown) == title


def test_embed_json_escapes_every_markup_character():
    doc = {"a": "</script><!-- & -->", "b": "\u2028\u2029é"}
    text = viewer.embed_json(doc)
    for ch in "<>&\u2028\u2029":
        assert ch not in text
    assert json.loads(text) == doc


def test_rejects_documents_it_cannot_show(docs):
    results, replay = docs
    with pytest.raises(ValueError, match="schema 'x'"):
        viewer.render(results, {**replay, "schema": "x"})
    with pytest.raises(ValueError, match="results has schema"):
        viewer.render(replay, replay)
    with pytest.raises(ValueError, match="seed 5 vs 6"):
        viewer.render(results, {**replay, "seed": 6})
    with pytest.raises(TypeError, match="list"):
        viewer.render(results, [replay])
    bad = copy.deepcopy(results)
    bad["slots"][0]["score"] = float("nan")
    with pytest.raises(ValueError, match=r"results\['slots'\]\[0\]\['score'\] is nan"):
        viewer.render(bad, replay)


def _with_hud(results: dict) -> dict:
    """The results with a HUD written by hand per slot: 10 hands, ``slot`` of them voluntary
    (VPIP 10 x slot %), no 3-bet chance, 3 post-flop bets against 2 calls (AF 1.50); slot 0's
    alias is hostile."""
    doc = copy.deepcopy(results)
    for s in doc["slots"]:
        counts = {"hands": 10, "vpip_hands": s["slot"], "postflop_bets": 3, "postflop_calls": 2}
        s["hud"] = hud.figures(counts)
    doc["slots"][0]["alias"] = HOSTILE
    return doc


def _hud_rows(page: str) -> list[list[str]]:
    table = re.search(r'<table id="hud".*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in
             re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)]


def test_hud_table_under_the_standings(docs):
    """Each slot's ``hud`` in a table after the standings, in the standings' order (score, then
    slot), autoescaped; a figure without a chance shows "–"."""
    results, replay = docs
    doc = _with_hud(results)
    page = viewer.render(doc, replay)
    assert page.index('id="standings"') < page.index('id="hud"') < page.index('id="replay"')
    assert HOSTILE not in page
    rows = _hud_rows(page)
    ranked = sorted(doc["slots"], key=lambda s: (-s["score"], s["slot"]))
    assert [r[0] for r in rows] == [s["alias"] for s in ranked]
    for row, s in zip(rows, ranked):
        # player, hands, VPIP, PFR, 3-bet, c-bet, fold to c-bet, WTSD, W$SD, AF
        assert row == [s["alias"], "10", f"{10 * s['slot']}%", "0%", "– (0)", "– (0)", "– (0)",
                       "– (0)", "– (0)", "1.50"]
    # the sample results were written before the HUD: the page says so, without a table
    plain = viewer.render(results, replay)
    assert 'id="hud"' not in plain and "No HUD in these results." in plain


# ------------------------------------------------------------------------------ browser tests
@pytest.fixture(scope="module")
def browser():
    with open_browser("viewer", "1300,1350") as driver:
        yield driver


@pytest.fixture
def page(browser, docs, tmp_path):
    """Opens a rendered viewer from disk: ``page(replay=None)``."""

    def open_page(replay=None):
        results, sample = docs
        path = tmp_path / "viewer.html"
        path.write_text(viewer.render(results, replay or sample), encoding="utf-8")
        browser.get(path.as_uri())
        return browser

    return open_page


def _text(driver, css: str) -> str:
    return driver.find_element("css selector", css).text


def _key_events(hand: dict) -> list:
    """The events the viewer steps through after the blinds (chat and emotes hang on a step)."""
    return [e for e in hand["events"] if e["type"] not in ("hand_start", "chat", "emote")]


def _words(event: dict, aliases: list) -> str:
    """A pre-flop action in words, as the viewer is meant to say it."""
    assert event["type"] == "action" and event["street"] == 0, event
    verb = {0: "folds", 1: "checks", 2: f"calls {event['added']}",
            3: f"raises to {event['to']}"}[event["code"]]
    return f"{aliases[event['seat']]} {verb}"


def test_standings_in_score_order(page, docs):
    results, _ = docs
    driver = page()
    rows = driver.find_elements("css selector", "table#standings tbody tr")
    ranked = sorted(results["slots"], key=lambda s: -s["score"])
    assert len(rows) == 6
    assert [r.find_element("css selector", ".alias").text for r in rows] == \
        [s["alias"] for s in ranked]
    best = rows[0]
    assert best.find_element("css selector", ".score").text == \
        f"{ranked[0]['score']:.3f} ± {ranked[0]['stderr']:.3f}"
    assert best.find_element("css selector", ".policy").text == ranked[0]["policy"]
    assert not driver.find_elements("css selector", "table#standings .luck")  # not run with it


def test_each_avatar_badge_bears_the_name_beside_it(page, docs):
    """Issue 51 point 5: a row showed "Grace" beside a badge reading "LY" (its avatar, lynx,
    cut to two letters), like another alias's initials. The badge reads the name shown and
    its title names the slot's avatar; the felt's seats the same."""
    results, _ = docs
    driver = page()
    by_slot = {str(s["slot"]): s for s in results["slots"]}
    for row in driver.find_elements("css selector", "table#standings tbody tr"):
        s = by_slot[row.get_attribute("data-slot")]
        badge = row.find_element("css selector", ".avatar")
        assert badge.text == s["alias"][:2].upper()
        assert badge.get_attribute("title") == f"{s['alias']} (avatar: {s['avatar']})"
        assert row.find_element("css selector", ".player").get_attribute("title") == \
            f"slot {s['slot']}: {s['alias']}, avatar {s['avatar']}"
    driver.execute_script("holdemViewer.go(0, 0, 0)")
    seats = driver.find_elements("css selector", "#table-view .seat")
    assert seats
    for seat in seats:
        alias = seat.find_element("css selector", ".alias").text
        assert seat.find_element("css selector", ".avatar").text == alias[:2].upper()


def test_chips_won_is_explained(page):
    """Issue 51 point 5: the "chips won" column of a tournament series was unexplained."""
    driver = page()
    head = driver.find_element("css selector", "table#standings th.chips")
    assert head.text == "chips won" and "not the score" in head.get_attribute("title")
    note = driver.find_element("id", "chips-note")
    assert note.is_displayed() and "They do not rank the players" in note.text


def test_standings_show_the_luck_when_the_series_has_it(browser, docs, tmp_path):
    """A series run with luck: each slot's corrected score ± SE in a column of its own."""
    results, sample = copy.deepcopy(docs)
    for s in results["slots"]:
        s["luck"] = {"score": round(s["score"] - 0.01 * s["slot"], 6), "stderr": 0.0042,
                     "luck": 0.01 * s["slot"], "by_event": {}}
    path = tmp_path / "viewer.html"
    path.write_text(viewer.render(results, sample), encoding="utf-8")
    browser.get(path.as_uri())
    heads = [th.text for th in browser.find_elements("css selector", "table#standings th")]
    assert "luck out ± SE" in heads
    rows = browser.find_elements("css selector", "table#standings tbody tr")
    ranked = sorted(results["slots"], key=lambda s: -s["score"])
    assert [r.find_element("css selector", ".luck").text for r in rows] == \
        [f"{s['luck']['score']:.3f} ± 0.004" for s in ranked]
    assert len(rows[0].find_elements("css selector", "td")) == len(heads)


def test_steps_keys_and_pickers(page, docs):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    _, replay = docs
    driver = page()
    tour = replay["tournaments"][0]
    hand = tour["hands"][0]
    steps = 1 + len(_key_events(hand))
    assert _text(driver, "#step-pos") == f"tournament 1 · hand 1 · step 1/{steps}"
    actions = [e for e in hand["events"] if e["type"] == "action"]
    for i in range(5):  # the first five actions, one click each
        driver.find_element("id", "next").click()
        assert _text(driver, "#step-pos") == f"tournament 1 · hand 1 · step {i + 2}/{steps}"
        assert _text(driver, "#step-text") == _words(actions[i], tour["aliases"])
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    assert _text(driver, "#step-pos").endswith(f"step 7/{steps}")
    assert _text(driver, "#step-text") == _words(actions[5], tour["aliases"])
    assert _text(driver, "#actions li.current") == _text(driver, "#step-text")
    chat = [e["text"] for e in hand["events"][: hand["events"].index(actions[5])]
            if e["type"] == "chat"]
    assert [e.text for e in driver.find_elements("css selector", "#chat .text")] == chat
    assert {e.text for e in driver.find_elements("css selector", "#chat .who")} == \
        {tour["aliases"][actions[4]["seat"]]}  # the raiser's say line and chat lines
    ActionChains(driver).send_keys(Keys.ARROW_LEFT).perform()
    assert _text(driver, "#step-pos").endswith(f"step 6/{steps}")

    ActionChains(driver).send_keys(Keys.ARROW_DOWN).perform()
    assert _text(driver, "#step-pos").startswith("tournament 1 · hand 2 · step 1/")
    driver.find_element("id", "next-hand").click()
    assert _text(driver, "#step-pos").startswith("tournament 1 · hand 3 · step 1/")
    ActionChains(driver).send_keys(Keys.PAGE_UP).perform()
    assert _text(driver, "#step-pos").startswith("tournament 1 · hand 2 · step 1/")

    Select(driver.find_element("id", "tournament")).select_by_index(1)
    second = replay["tournaments"][1]
    assert _text(driver, "#step-pos") == \
        f"tournament 2 · hand 1 · step 1/{1 + len(_key_events(second['hands'][0]))}"
    assert Select(driver.find_element("id", "hand")).first_selected_option.text.startswith("Hand 1")
    assert _text(driver, '.seat[data-seat="0"] .alias') == second["aliases"][0]
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()  # the keys still work after a pick
    assert _text(driver, "#step-pos").startswith("tournament 2 · hand 1 · step 2/")


def test_board_shows_only_revealed_cards(page, docs):
    _, replay = docs
    driver = page()
    hands = replay["tournaments"][0]["hands"]
    folded = next(i for i, h in enumerate(hands)
                  if not any(e["type"] == "board" for e in h["events"]))
    driver.execute_script("holdemViewer.go(0, arguments[0], -1)", folded)
    shown = driver.execute_script(
        "return [...document.querySelectorAll('[data-card]')].map(e => e.dataset.card)")
    assert shown and not set(shown) & set(hands[folded]["board"])  # hole cards, no board
    seen = next(i for i, h in enumerate(hands)
                if sum(len(e.get("cards", [])) for e in h["events"] if e["type"] == "board") == 5)
    flop = next(i for i, e in enumerate(_key_events(hands[seen])) if e["type"] == "board")
    for step, count in ((flop, 0), (flop + 1, 3), (-1, 5)):
        driver.execute_script("holdemViewer.go(0, arguments[0], arguments[1])", seen, step)
        cards = [e.get_attribute("data-card")
                 for e in driver.find_elements("css selector", "#board [data-card]")]
        assert cards == hands[seen]["board"][:count], (step, cards)


def test_chip_accounting_matches_the_engine(page, docs):
    """Before each result step, the viewer's pot is what the engine paid out and every stack
    plus its winnings is the engine's stack after the hand (blinds, antes, all-ins)."""
    _, replay = docs
    driver = page()
    seen = driver.execute_script("""
        const out = [];
        arguments[0].forEach((n, t) => { for (let k = 0; k < n; k++) {
          const steps = holdemViewer.buildHand(t, k).steps;
          const r = steps.findIndex(s => s.kind === "result");
          out.push(r < 1 ? null : [steps[r - 1].state.pot, steps[r - 1].state.stacks]);
        }});
        return out;""", [len(t["hands"]) for t in replay["tournaments"]])
    hands = [h for t in replay["tournaments"] for h in t["hands"]]
    assert len(seen) == len(hands)
    antes = 0
    for h, got in zip(hands, seen):
        assert got is not None, f"hand {h['hand']}: no result step"
        pot, stacks = got
        assert pot == sum(h["winnings"]), f"hand {h['hand']}"
        assert [s + w for s, w in zip(stacks, h["winnings"])] == h["stacks_after"], h["hand"]
        antes += h["blinds"][2] > 0
    assert antes > 0  # the sample reaches the ante levels, so the ante rule is exercised


def test_hostile_chat_is_shown_as_text(page, docs):
    _, replay = docs
    line = HOSTILE + '<img src=x onerror="window.__pwned=1">'
    driver = page(_with_chat(replay, line))
    driver.execute_script("holdemViewer.go(0, 0, 1)")
    texts = [e.text for e in driver.find_elements("css selector", "#chat .text")]
    assert texts == [line]
    assert driver.execute_script("return window.__pwned === undefined && "
                                 "document.querySelectorAll('img').length === 0 && "
                                 "document.scripts.length === 2")


def test_screenshot(page, docs):
    _, replay = docs
    driver = page()
    hands = replay["tournaments"][0]["hands"]
    showdown = next(i for i, h in enumerate(hands)
                    if any(e["type"] == "showdown" for e in h["events"]))
    turn = [i for i, e in enumerate(_key_events(hands[showdown])) if e["type"] == "board"][1]
    driver.execute_script("holdemViewer.go(0, arguments[0], arguments[1])", showdown, turn + 2)
    root = pathlib.Path(__file__).resolve().parents[2]
    out = pathlib.Path(os.environ.get("HOLDEMJAX_ARTIFACTS") or root / "test-artifacts")
    out.mkdir(parents=True, exist_ok=True)
    path = out / "viewer.png"
    assert driver.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
