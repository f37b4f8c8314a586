"""The one hand loop (holdemjax/host/loop.py): players asked in turn, each decision yielded,
a seat without a player waiting for the caller's action."""

from __future__ import annotations

import numpy as np

from holdemjax.host.hand import lone_hand
from holdemjax.host.legal import default_action
from holdemjax.host.loop import Played, Waiting, next_step, play_hand
from holdemjax.poker import table
from holdemjax.series import protocol


def _hand():
    return lone_hand(3, np.arange(52), [2000, 2000, 2000], button=0, blinds=(10, 20, 0))


def _caller(hand):
    return table.CHECK_CALL, 0, None


def test_players_in_the_loop_play_the_hand_to_its_end():
    hand = _hand()
    steps = list(play_hand(hand, {0: _caller, 1: _caller, 2: _caller}))
    assert hand.over and all(isinstance(s, Played) for s in steps)
    assert [s.seat for s in steps] == [h[1] for h in hand.history]
    assert [s.played["code"] for s in steps[:3]] == [protocol.CALL, protocol.CALL, protocol.CHECK]


def test_a_seat_without_a_player_waits_for_the_callers_action():
    hand = _hand()
    turns = play_hand(hand, {1: _caller, 2: _caller})
    step = next_step(turns)
    assert step == Waiting(0) and next_step(turns) == Waiting(0)  # asked again: still waiting
    step = next_step(turns, (table.RAISE, 60, None))
    assert isinstance(step, Played) and step.seat == 0 and step.played["to"] == 60
    played = [step.seat]
    while step is not None:
        if isinstance(step, Waiting):  # seat 0 checks or folds from now on
            step = next_step(turns, (*default_action(protocol.legal_info(hand.legal)), None))
        else:
            step = next_step(turns)
        if isinstance(step, Played):
            played.append(step.seat)
    assert hand.over and played == [h[1] for h in hand.history]
