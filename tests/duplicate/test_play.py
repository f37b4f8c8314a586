"""The terminal UI: commands, the screen, and a scripted person through `play.play`."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from holdemjax.duplicate import match, play
from holdemjax.duplicate.store import Store
from holdemjax.poker import table

FACING = {"fold": True, "check": False, "call": 40, "raise": [100, 1980]}
FREE = {"fold": True, "check": True, "call": 0, "raise": None}


@pytest.mark.parametrize("text, legal, expect", [
    ("f", FACING, (table.FOLD, 0)),
    ("c", FACING, (table.CHECK_CALL, 0)),
    ("  C  ", FREE, (table.CHECK_CALL, 0)),
    ("k", FREE, (table.CHECK_CALL, 0)),
    ("r 100", FACING, (table.RAISE, 100)),
    ("raise 1980", FACING, (table.RAISE, 1980)),
    ("a", FACING, (table.RAISE, 1980)),
    ("a", FREE, (table.CHECK_CALL, 0)),  # raising closed: all-in is the call
])
def test_commands(text, legal, expect):
    assert play.parse_command(text, legal) == expect


@pytest.mark.parametrize("text, legal, message", [
    ("k", FACING, "you cannot check: 40 to call"),
    ("r", FACING, "raise needs an amount: r AMOUNT with AMOUNT in 100..1980"),
    ("r 99", FACING, "raise to 99 is outside 100..1980"),
    ("r 2000", FACING, "outside 100..1980"),
    ("r 50", FREE, "raising is closed"),
    ("bet ten", FACING, "raise needs an amount"),
    ("xyz", FACING, "unknown command 'xyz'"),
    ("", FACING, "type a command"),
    ("?", FACING, "f fold"),
])
def test_bad_commands_are_explained(text, legal, message):
    with pytest.raises(ValueError, match=message):
        play.parse_command(text, legal)


def test_quit():
    with pytest.raises(match.Quit):
        play.parse_command("q", FACING)


def test_scripted_person_sees_the_table_and_resumes(tmp_path):
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None)
    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(seats=6, hands=2), seed=21)
        script = iter(["c", "q"])
        assert play.play(s, m.id, "ann", key="ann-secret", ask=lambda prompt: next(script),
                         console=console) \
            == "paused"
    screen = out.getvalue()
    hand = match.Hand(match.MatchSpec(seats=6, hands=2), 21, 0)
    hole = hand.hole_text()[0]
    suits = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
    assert all(f"{c[0]}{suits[c[1]]}" in screen for c in hole)  # the hero's cards
    assert "pot: 30" in screen and "your move" in screen and "Hand 1 of 2" in screen
    assert "resumes at hand" in screen


def test_eof_quits_and_the_next_session_finishes(tmp_path):
    def ask_from(lines):
        it = iter(lines)

        def ask(prompt):
            try:
                return next(it)
            except StopIteration:
                raise EOFError from None
        return ask

    quiet = Console(file=io.StringIO(), width=120)
    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(seats=6, hands=2, participants=1), seed=21)
        assert play.play(s, m.id, "ann", key="ann-secret", ask=ask_from(["nonsense", "c"]),
                         console=quiet) == "paused"
        hand, stored = s.progress(m.id, "ann", "ann-secret")
        assert hand == 0 and sum(a[1] == 0 for a in stored) == 1
        with pytest.raises(match.MatchError, match="no line of that name opens with that key"):
            play.play(s, m.id, "ann", key="not-the-key", ask=ask_from(["f"]), console=quiet)
        assert play.play(s, m.id, "ann", key="ann-secret", ask=ask_from(["f"] * 20),
                         console=quiet) == "finished"
        line = s.lines(m.id)["ann"].hands
        assert line[0]["actions"][:len(stored)] == stored
        assert s.match(m.id).state == "closed"  # the only participant finished
