"""A small league played for real (holdemjax/league/run.py, pool.py, play.py): certification
first (the failing bots listed with their reason and left out), balanced line-ups, the final of
the top six, each series replayable alone, and an interrupted league (between two series, and by
a real SIGINT in the middle of one) that resumes to the same leaderboard bytes. The command's
errors are one line on stderr with exit status 2."""

from __future__ import annotations

import json
import os
import shutil
import signal

import pytest

from holdemjax.league import play, run
from holdemjax.league.pool import load_pool
from holdemjax.series import replay, runner
from tests.league.conftest import SPEC, seed_certification

FILES = (run.LEADERBOARD_JSON, run.LEADERBOARD_HTML)


def test_certification_first_and_the_failing_bots_left_out(reference):
    out, doc = reference
    cert = {c["bot"]: c for c in doc["certification"]}
    assert [b for b, c in cert.items() if c["passed"]] == ["b1", "b2", "b3", "b4", "b5", "r1",
                                                            "r2"]
    assert cert["trap_nth"]["problem"].startswith("FAILED: fault in game 0: trap")
    assert "holdem_abi_version() returned 2" in cert["wrong_abi"]["problem"]
    playing = {r["bot"] for r in doc["stages"][0]["rows"]}
    assert playing == {"b1", "b2", "b3", "b4", "b5", "r1", "r2"}
    html = (out / run.LEADERBOARD_HTML).read_text()
    assert "left out: FAILED: fault in game 0: trap" in html


def test_balanced_qualifying_then_a_final_of_the_top_six(reference):
    out, doc = reference
    qual, final = doc["stages"]
    paths = {b["name"]: b["path"] for b in doc["league"]["bots"]}  # as the pool gave them
    assert (qual["series_planned"], qual["series_played"], qual["complete"]) == (3, 3, True)
    counts = [r["series"] for r in qual["rows"]]
    assert max(counts) - min(counts) <= 1 and min(r["games"] for r in qual["rows"]) >= 4
    assert sum(r["games"] for r in qual["rows"]) == 3 * 6 * 2
    assert final["lineup"] == [r["bot"] for r in qual["rows"][:6]]
    assert [s["bots"] for s in final["series"]] == [final["lineup"]]
    assert final["series"][0]["index"] == 3 and final["complete"]
    html = (out / run.LEADERBOARD_HTML).read_text()
    for stage in doc["stages"]:
        counted: dict[str, dict] = {}  # the bots' HUD counts, summed from the results files
        for s in stage["series"]:
            folder = out / "series" / f"{s['index']:04d}"
            results = json.loads((folder / "results.json").read_text())
            assert results["seed"] == s["seed"] and results["tournaments_played"] == 2
            assert [x["policy"] for x in results["slots"]] == [paths[b] for b in s["bots"]]
            assert (out / s["viewer"]).is_file()
            for bot, slot in zip(s["bots"], results["slots"]):
                mine = counted.setdefault(bot, {})
                for key in ("hands", "vpip_hands", "saw_flop", "showdowns"):
                    mine[key] = mine.get(key, 0) + slot["hud"][key]
        # the leaderboard's HUD is each bot's over the stage's series, on the page too
        for r in stage["rows"]:
            assert r["hud"]["hands"] > 0
            assert {k: r["hud"][k] for k in counted[r["bot"]]} == counted[r["bot"]]
            assert r["hud"]["vpip"] == 100 * counted[r["bot"]]["vpip_hands"] / r["hud"]["hands"]
        assert f'<table id="hud-{stage["stage"]}"' in html
    assert json.loads((out / run.LEADERBOARD_JSON).read_bytes()) == doc


def test_a_series_replays_alone(reference):
    out, doc = reference
    same, report = replay.verify(out / "series" / "0001" / replay.REPLAY_NAME)
    assert same, report


def test_interrupted_league_resumes_to_the_same_bytes(reference, pool_dir, tmp_path, monkeypatch):
    ref_out, _ = reference
    out, bots = tmp_path / "cut", load_pool([pool_dir])

    def stop_at(stage, k):
        def progress(s, done, total):
            if s == stage and done == k:
                raise KeyboardInterrupt  # Ctrl-C between two jobs
        return progress

    with pytest.raises(KeyboardInterrupt):  # after one module's certification
        run.run_league(SPEC, bots, out, play.Inline(), progress=stop_at("certification", 1))
    assert len(json.loads((out / "certification.json").read_text())["modules"]) == 1
    with pytest.raises(KeyboardInterrupt):  # after two qualifying series
        run.run_league(SPEC, bots, out, play.Inline(), progress=stop_at("qualifying", 2))
    assert sorted(p.name for p in (out / "series").iterdir()) == ["0000", "0001"]
    # a real SIGINT in the middle of series 2 (from its first hand): it stops at the next hand
    # boundary and nothing of it is kept
    original, sent = runner.run_series, []

    def interrupted_series(*args, **kwargs):
        def hand(info):
            if not sent:
                sent.append(1)
                os.kill(os.getpid(), signal.SIGINT)
        return original(*args, **{**kwargs, "progress": hand})

    monkeypatch.setattr(runner, "run_series", interrupted_series)
    with pytest.raises(KeyboardInterrupt):
        run.run_league(SPEC, bots, out, play.Inline())
    assert sent and sorted(p.name for p in (out / "series").iterdir()) == ["0000", "0001"]
    monkeypatch.setattr(runner, "run_series", original)
    run.run_league(SPEC, bots, out, play.Inline())
    for name in FILES:
        assert (out / name).read_bytes() == (ref_out / name).read_bytes(), name
    for k in range(4):
        a, b = (d / "series" / f"{k:04d}" / replay.REPLAY_NAME for d in (out, ref_out))
        assert a.read_bytes() == b.read_bytes()


def test_the_command_continues_a_finished_league(reference, pool_dir, capsys):
    from holdemjax.cli import main

    out, _ = reference
    before = {n: (out / n).read_bytes() for n in FILES}
    code = main(["league", str(pool_dir), "--seed", "5", "--games", "4", "--tournaments", "2",
                 "--final", "6", "--final-games", "2", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "holdemjax league: trap_nth left out: FAILED" in captured.err
    assert "final: 1 series" in captured.out
    assert {n: (out / n).read_bytes() for n in FILES} == before


@pytest.mark.parametrize("args,message", [
    (["--format", "ring-6"], "unknown format 'ring-6'; known: sng-6, ring-9"),
    (["--seed", "-1"], "seed"),
    (["--games", "0"], "games"),
    (["--final", "5"], "final 5: a sng-6 final seats exactly 6 bots"),
    (["--final-games", "9"], "--final-games needs --final K"),
    (["--workers", "0"], "--workers must be >= 1, got 0"),
    (["--workers", "2", "--ray", "auto"], "give --workers or --ray, not both"),
    (["--max-wall", "0"], "max_wall must be > 0"),
])
def test_bad_values_are_named_on_one_line(args, message, pool_dir, tmp_path, capsys):
    from holdemjax.cli import main

    assert main(["league", str(pool_dir), "--out", str(tmp_path / "x"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_pool_and_folder_errors(reference, pool_dir, tmp_path, capsys):
    from holdemjax.cli import main

    out, _ = reference
    assert main(["league", str(tmp_path / "nope.wasm")]) == 2
    assert "no such module file or folder:" in capsys.readouterr().err
    twice = tmp_path / "twice"
    twice.mkdir()
    shutil.copy(pool_dir / "b1.wasm", twice / "b1.wasm")
    assert main(["league", str(pool_dir), str(twice / "b1.wasm")]) == 2
    assert "two bots named 'b1'" in capsys.readouterr().err
    # the reference folder holds another league (its seed is 5)
    assert main(["league", str(pool_dir), "--out", str(out), "--seed", "6", "--games", "4",
                 "--tournaments", "2", "--final", "6", "--final-games", "2"]) == 2
    err = capsys.readouterr().err
    assert f"{out} holds another league: its seed is 5, this command's 6" in err
    # nor is it continued with --luck: the spec records the luck (only when on)
    assert main(["league", str(pool_dir), "--out", str(out), "--seed", "5", "--games", "4",
                 "--tournaments", "2", "--final", "6", "--final-games", "2", "--luck"]) == 2
    assert "its luck is null, this command's true" in capsys.readouterr().err
    # too few bots pass: the certification is in the folder, the league cannot start
    few = tmp_path / "few"
    few.mkdir()
    for name in ("b1", "b2", "b3", "r1", "trap_nth", "wrong_abi"):
        shutil.copy(pool_dir / f"{name}.wasm", few / f"{name}.wasm")
    small = tmp_path / "small"
    seed_certification(out, small)  # nothing to re-run
    assert main(["league", str(few), "--out", str(small)]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == ("holdemjax league: 4 of 6 bots passed the "
                                             "certification; a sng-6 table needs 6")
    assert "holdemjax league: trap_nth left out: FAILED" in captured.err
    assert captured.out == ""  # not even the blank line of a progress bar on a log


def test_the_leaderboard_in_the_browser_links_each_viewer(reference):
    """leaderboard.html in headless Chromium: both stages' tables ranked as leaderboard.json,
    the left-out bots with their reason, and a series link that opens its viewer."""
    from tests.browser import browser

    out, doc = reference
    with browser("league", "1300,900") as driver:
        driver.get((out / run.LEADERBOARD_HTML).as_uri())
        for stage in doc["stages"]:
            rows = driver.find_elements(
                "css selector", f"table.board[data-stage={stage['stage']}] tr")[1:]
            assert [r.find_elements("css selector", "td")[1].text for r in rows] == \
                [r["bot"] for r in stage["rows"]]
        assert "left out: FAILED: fault in game 0: trap" in driver.page_source
        driver.find_element("css selector", "details").click()  # the qualifying series
        driver.find_element("link text", "series 0").click()
        assert driver.current_url.endswith("series/0000/viewer.html")
        assert driver.find_elements("css selector", "table#standings tbody tr")


def test_a_ring_9_league_ranks_by_chips(reference, pool_dir, tmp_path):
    """ring-9: nine seats, score = chips at the end / chips in play (each game's scores sum to
    1). The certification is at the league's table: the sng-6 verdicts in the folder are not
    taken for ring-9 ones (``holdemjax certify``'s own test is run)."""
    ref_out, _ = reference
    pool = tmp_path / "pool"
    pool.mkdir()
    for i in range(9):  # one module, certified once
        shutil.copy(pool_dir / "b1.wasm", pool / f"b{i}.wasm")
    out = tmp_path / "ring"
    seed_certification(ref_out, out)
    spec = run.LeagueSpec(format="ring-9", seed=1, games=2, tournaments=2)
    seen = []
    doc = run.run_league(spec, load_pool([pool]), out, play.Inline(),
                         progress=lambda *a: seen.append(a))
    assert seen[:2] == [("certification", 0, 1), ("certification", 1, 1)]
    assert json.loads((out / "certification.json").read_text())["variant"] == "ring-9-series"
    (stage,) = doc["stages"]
    assert stage["series_played"] == 1 and len(stage["rows"]) == 9
    assert sum(r["mean"] * r["games"] for r in stage["rows"]) == pytest.approx(2, abs=1e-4)
    assert all(r["games"] == 2 and sum(r["places"].values()) == 2 for r in stage["rows"])
    results = json.loads((out / "series" / "0000" / "results.json").read_text())
    assert results["variant"] == "ring-9-series" and results["options"]["tournaments"] == 2
    assert "chips at the end" in (out / run.LEADERBOARD_HTML).read_text()
