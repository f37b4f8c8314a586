"""The HTML report of the end-to-end match: self-contained, escaped, and in headless Chromium the
leaderboard order, the pair picker and the divergence view (shared history, both lines)."""

from __future__ import annotations

import html.parser
import json
import os
import pathlib

import pytest

from holdemjax.duplicate import report
from holdemjax.duplicate.store import Store
from tests.browser import browser
from tests.duplicate.conftest import PERSON


@pytest.fixture(scope="module")
def doc(e2e):
    with Store(e2e["store"]) as s:
        return report.document(s, e2e["match"])


class _Scripts(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self._in = [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "script":
            self._in = dict(attrs)
            self.scripts.append([self._in, ""])

    def handle_data(self, data):
        if self._in is not None:
            self.scripts[-1][1] += data

    def handle_endtag(self, tag):
        if tag == "script":
            self._in = None


def test_embeds_the_document_and_loads_nothing(doc):
    page = report.render(doc)
    parsed = _Scripts()
    parsed.feed(page)
    blocks = [text for attrs, text in parsed.scripts if attrs.get("type") == "application/json"]
    assert len(blocks) == 1 and json.loads(blocks[0]) == doc
    assert parsed.tags.count("script") == 2  # the data and the pair picker: the name added none
    low = page.lower()
    for needle in ("http://", "https://", "src=", "href=", "url(", "@import", "<link", "<img",
                   "<iframe", "fetch(", ".innerhtml", "document.write"):
        assert needle not in low, needle


class _Text(_Scripts):
    """Also the text outside scripts, as a browser shows it (character references resolved)."""

    def __init__(self):
        super().__init__()
        self.text = []

    def handle_data(self, data):
        super().handle_data(data)
        if self._in is None:
            self.text.append(data)


def _read(page: str) -> _Text:
    parsed = _Text()
    parsed.feed(page)
    parsed.close()
    return parsed


def test_hostile_names_are_text_and_the_data_round_trips(doc):
    """The report is a Jinja2 template with autoescape: a participant's name that tries to end
    the script or an attribute and add markup is shown as text, and the embedded JSON
    (`embed_json`, marked safe rather than autoescaped) still parses to the same document."""
    evil = '</script><img src=x onerror=alert(1)>"><b>{{ 7 * 7 }}'
    # the same match with the person's name replaced everywhere (leaderboard, style, reviews)
    hostile = json.loads(json.dumps(doc).replace(json.dumps(PERSON)[1:-1],
                                                 json.dumps(evil)[1:-1]))
    assert hostile != doc
    page = report.render(hostile)
    assert evil not in page and "<img" not in page and "<b>{{" not in page
    clean, dirty = _read(report.render(doc)), _read(page)
    assert dirty.tags == clean.tags  # no element added, none lost
    blocks = [text for attrs, text in dirty.scripts if attrs.get("type") == "application/json"]
    assert len(blocks) == 1 and json.loads(blocks[0]) == hostile
    shown = "".join(dirty.text)
    names = [p["name"] for p in hostile["leaderboard"]["participants"]]
    assert evil in names and shown.count(evil) == "".join(clean.text).count(PERSON) > 0
    assert f"{evil}: " in shown  # e.g. its thinking time, as text


def test_the_thinking_time_caption_says_what_it_counts_once(doc):
    """Issue 51: the caption read "Thinking time (thinking time per decision counts only ...
    (time before a pause is not counted))"."""
    shown = " ".join(" ".join(_read(report.render(doc)).text).split())
    caption = "Thinking time per decision (only the session in which each action was taken " \
              "counts; time before a pause does not):"
    assert caption in shown and "Thinking time (thinking time" not in shown


@pytest.fixture(scope="module")
def page(doc, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(report.render(doc), encoding="utf-8")
    with browser("report", "1250,1400") as driver:
        driver.get(path.as_uri())
        yield driver


def _all(driver, css):
    return driver.find_elements("css selector", css)


def test_leaderboard_and_style_in_the_browser(page, doc):
    names = [e.text for e in _all(page, "#leaderboard tbody td.name")]
    assert names == [p["name"] for p in doc["leaderboard"]["participants"]]
    assert PERSON in names  # shown as text
    rel = [p["relative"]["chips"] for p in doc["leaderboard"]["participants"]]
    assert rel == sorted(rel, reverse=True)
    assert f"Divergent hands: {doc['leaderboard']['divergent_hands']} of" in \
        page.find_element("id", "divergent").text
    assert [e.text for e in _all(page, "#style tbody td.name")] == \
        [r["name"] for r in doc["style"]["rows"]]
    assert page.execute_script("return window.__pwned === undefined && "
                               "document.querySelectorAll('img').length === 0")


def test_each_z_column_says_what_it_tests(page, doc):
    """Issue 51 point 5: the z beside "raw bb/100" is the z of the unpaired gap to the field,
    and three columns were headed "z" alone."""
    heads = _all(page, "#leaderboard thead th")
    texts = [h.text for h in heads]
    raw = texts.index("raw bb/100 ± SE")
    assert texts[raw + 1] == "z gap to field, unpaired"
    assert "Not the z of raw bb/100 against 0" in heads[raw + 1].get_attribute("title")
    assert "z" not in texts and {"z relative", "z matchpoints"} <= set(texts)
    assert all(h.get_attribute("title") for h in heads if h.text.startswith("z "))
    rows = doc["leaderboard"]["participants"]
    assert len(_all(page, "#leaderboard tbody td.raw-z")) == len(rows)


def test_pair_picker_and_divergence_view(page, doc):
    from selenium.webdriver.support.ui import Select

    reviews = doc["reviews"]
    pick = max(i for i, r in enumerate(reviews) if r["divergences"])
    assert pick > 0  # a pair other than the one shown first: the picker must switch
    Select(page.find_element("id", "pair")).select_by_index(pick)
    shown = [s for s in _all(page, "section.review") if s.is_displayed()]
    assert len(shown) == 1 and shown[0].get_attribute("data-pair") == str(pick)
    r = reviews[pick]
    assert f"{r['divergent_hands']} divergent hands" in \
        shown[0].find_element("css selector", ".review-summary").text
    first = shown[0].find_element("css selector", "details.divergence")
    d = r["divergences"][0]
    assert first.get_attribute("data-hand") == str(d["hand"])
    assert not first.find_element("css selector", "ol.shared").is_displayed()  # closed
    first.find_element("css selector", "summary").click()
    # the hand opens on the two lines side by side, the shared history folded above them
    assert first.find_element("css selector", ".line-a").is_displayed()
    assert not first.find_element("css selector", "ol.shared").is_displayed()
    first.find_element("css selector", "details.shared-history > summary").click()
    assert first.find_element("css selector", "ol.shared").is_displayed()
    shared = first.find_elements("css selector", "ol.shared li")
    assert len(shared) == len(d["shared"])
    assert all(e.text.endswith(x["text"]) for e, x in zip(shared, d["shared"]))
    a_line = first.find_elements("css selector", ".line-a li")
    b_line = first.find_elements("css selector", ".line-b li")
    assert len(a_line) == len(d["a_line"]) and len(b_line) == len(d["b_line"])
    assert a_line[0].text.endswith(d["a_line"][0]["text"])
    root = pathlib.Path(__file__).resolve().parents[2]
    out = pathlib.Path(os.environ.get("HOLDEMJAX_ARTIFACTS") or root / "test-artifacts")
    out.mkdir(parents=True, exist_ok=True)
    assert page.save_screenshot(str(out / "duplicate-report.png"))


def test_the_report_with_the_luck_taken_out(e2e, doc):
    """The report with ``luck`` (`boardluck`: AIVAT's chance corrections in chips): each row's
    corrected chips are its raw chips less its hands' luck, with their SE; a hand's luck is the
    same for two lines that played it alike and sums to zero over the seats (chips only move
    between seats); the rest of the document is as without it, and the page shows the column."""
    import numpy as np

    from holdemjax.duplicate import boardluck, scores

    with Store(e2e["store"]) as s:
        m = s.require_closed(e2e["match"])
        lines = s.lines(e2e["match"])
    # what document(..., luck=True) puts in (the rest of the document is the same)
    board = scores.leaderboard(m.spec, lines, boardluck.hero_luck(m.spec, m.seed, lines))
    lucky = {**doc, "leaderboard": board}
    rows = {r["name"]: r for r in board["participants"]}
    a, b = lines["base-a"].hands, lines["base-b"].hands  # one bot twice: the same lines
    hands = sorted(a)
    assert [a[h]["actions"] for h in hands] == [b[h]["actions"] for h in hands]
    seats = boardluck.hand_lucks(m.spec, m.seed, [(h, a[h]["actions"]) for h in hands]
                                 + [(h, b[h]["actions"]) for h in hands])
    np.testing.assert_allclose(seats.sum(axis=1), 0.0, atol=0.25)  # float32 means of chips
    hero = seats[:, m.spec.hero]
    assert np.abs(hero).max() > 1 and list(hero[:len(hands)]) == list(hero[len(hands):])
    for name in ("base-a", "base-b"):
        x = [lines[name].hands[h]["hero_net"] for h in hands] - hero[:len(hands)]
        assert rows[name]["corrected"]["chips"] == pytest.approx(x.sum(), abs=1e-3)
        assert rows[name]["corrected"]["se"] == pytest.approx(x.std(ddof=1) / len(x) ** 0.5)
    page = report.render(lucky)
    assert "luck out bb/100 ± SE" in page and "luck out" not in report.render(doc)
    with Store(e2e["store"]) as s:
        assert report.document(s, e2e["match"], luck=True) == lucky
    _the_service_serves_it_too(e2e, json.loads(json.dumps(lucky)))
    for row in rows.values():
        del row["corrected"]
    assert lucky == doc


def _the_service_serves_it_too(e2e, lucky: dict) -> None:
    """The duplicate service answers the same with ``?luck=true`` (API and pages; the luck of a
    closed match computed once, `report.match_luck`), and without it as before."""
    from fastapi.testclient import TestClient

    from holdemjax.duplicate.service import create_app

    mid = e2e["match"]
    with TestClient(create_app(str(e2e["store"]), operator="op", tick_s=None)) as client:
        api = f"/api/matches/{mid}"
        assert client.get(f"{api}/leaderboard?luck=true").json() == lucky["leaderboard"]
        assert client.get(f"{api}/report?luck=1").json() == lucky
        plain = client.get(f"{api}/leaderboard").json()["participants"]
        assert plain and all("corrected" not in row for row in plain)
        page = client.get(f"/m/{mid}/report?luck=true")
        assert page.status_code == 200 and "luck out bb/100 ± SE" in page.text
        assert "luck out bb/100" not in client.get(f"/m/{mid}/report").text
        assert f'href="/m/{mid}/report?luck=true"' in client.get(f"/m/{mid}").text
        bad = client.get(f"{api}/leaderboard?luck=maybe")
        assert bad.status_code == 422 and "luck" in bad.text
        page = client.get(f"/m/{mid}/leaderboard?luck=maybe")
        assert page.status_code == 422 and "luck" in page.text
