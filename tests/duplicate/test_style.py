"""Style figures of one hand-made line of three hands (hero = seat 0)."""

from __future__ import annotations

from holdemjax.duplicate import style
from tests.duplicate.lines import line, record


def _line():
    # hand 0: S3 opens, the hero 3-bets, S3 calls; the hero bets the flop, checks down, showdown
    h0 = record(0, 500, [[0, 3, 3, 60, 60, None], [0, 0, 3, 180, 180, None],
                         [0, 3, 2, 180, 120, None], [1, 3, 1, 0, 0, None],
                         [1, 0, 3, 200, 200, None], [1, 3, 2, 200, 200, None],
                         [2, 3, 1, 0, 0, None], [2, 0, 1, 0, 0, None], [3, 3, 1, 0, 0, None],
                         [3, 0, 1, 0, 0, None]], showdown=True, revealed=5)
    # hand 1: the hero in the big blind checks a limped pot, calls a flop bet, folds the turn
    h1 = record(1, -60, [[0, 3, 2, 20, 20, None], [0, 0, 1, 20, 0, None],
                         [1, 0, 1, 0, 0, None], [1, 3, 3, 40, 40, None],
                         [1, 0, 2, 40, 40, None], [2, 0, 1, 0, 0, None],
                         [2, 3, 3, 100, 100, None], [2, 0, 0, 0, 0, None]],
                folded_on=2, revealed=4)
    # hand 2: the hero folds to an open; the others play on to a showdown without it
    h2 = record(2, 0, [[0, 3, 3, 60, 60, None], [0, 0, 0, 0, 0, None],
                       [0, 4, 2, 60, 60, None]], folded_on=0, showdown=True, revealed=5)
    return line("P", [h0, h1, h2])


def test_style_figures():
    s = style.line_style(_line(), hero=0)
    assert s["hands"] == 3
    assert s["vpip"] == 100 / 3  # only hand 0: the big blind's free check is not voluntary
    assert s["pfr"] == 100 / 3
    assert (s["three_bet"], s["three_bet_chances"]) == (50.0, 2)  # hands 0 and 2 faced one raise
    assert s["saw_flop"] == 2 and s["wtsd"] == 50.0  # hand 2's showdown was not the hero's
    assert (s["postflop_bets"], s["postflop_calls"], s["af"]) == (1, 1, 1.0)


def test_table_puts_references_last():
    from tests.duplicate.lines import from_nets

    ref = from_nets("ref:advanced", [0, 0], kind="reference")
    lines = {"ref:advanced": ref, "P": _line()}
    table = style.style_table(type("S", (), {"hero": 0})(), lines)
    assert [r["name"] for r in table["rows"]] == ["P", "ref:advanced"]
    assert table["columns"] == ["vpip", "pfr", "three_bet", "cbet", "fold_to_cbet", "wtsd", "wsd",
                                "af"]
    assert table["rows"][1]["af"] is None  # no post-flop call: no aggression factor


def test_style_rows_carry_the_whole_hud():
    """The HUD's other figures for the hero of the same line (definitions in
    holdemjax/series/hud.py): in hand 0 the hero made the last pre-flop raise (its 3-bet) and
    bet the flop when S3 checked to it: one c-bet in one chance; nobody c-bet against it (hand
    1 had no pre-flop raise, in hand 2 it folded pre-flop): no fold-to-c-bet chance; its one
    showdown (hand 0) won 500 chips: W$SD 100%."""
    s = style.line_style(_line(), hero=0)
    assert (s["cbet_chances"], s["cbets"], s["cbet"]) == (1, 1, 100.0)
    assert (s["fold_to_cbet_chances"], s["fold_to_cbet"]) == (0, None)
    assert (s["showdowns"], s["won_at_showdown"], s["wsd"]) == (1, 1, 100.0)


def _as_series_hand(rec: dict) -> dict:
    """A stored duplicate hand written the way a series replay records a hand."""
    events = [{"type": "board"}] if rec["revealed"] >= 3 else []
    events += [{"type": "showdown"}] if rec["showdown"] else []
    return {"stacks": [1000] * 6, "stacks_after": [1000 + x for x in rec["net"]],
            "hole": [["As", "Kd"]] * 6, "events": events,
            "actions": [{"street": a[0], "seat": a[1], "code": a[2]} for a in rec["actions"]]}


def test_style_agrees_with_the_series_hud():
    """The style row is the shared HUD: the same hands read as a series replay (the hero's seat
    held by slot 0) give the same counts and figures."""
    from holdemjax.series import hud

    line = _line()
    row = style.line_style(line, hero=0)
    tour = {"player_at_seat": list(range(6)),
            "hands": [_as_series_hand(r) for r in line.hands.values()]}
    assert hud.series_hud([tour], 6)[0] == {k: row[k] for k in (*hud.COUNTS, *hud.FIGURES)}
