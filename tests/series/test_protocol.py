"""The protocol's messages and reply rules (holdemjax/series/PROTOCOL.md §2, §4, §5)."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest

import holdemjax
from holdemjax.host.hand import HandLog
from holdemjax.poker import table
from holdemjax.poker.cards import parse_cards
from holdemjax.series import protocol


@pytest.fixture(scope="module")
def env():
    return holdemjax.make("sng-6")


def test_encode_is_canonical():
    data = protocol.encode({"b": 1, "a": [True, None, "é"]})
    assert data == b'{"a":[true,null,"\\u00e9"],"b":1}'
    with pytest.raises(ValueError):
        protocol.encode({"x": float("nan")})


def test_act_message_matches_the_engine(env):
    """Every number of the act message is read from the engine's state (§5 `act`), and the
    host hand driver records each decision as the protocol codes it."""
    act, advance = jax.jit(env.act_exact), jax.jit(env.advance)
    state = env.init(jax.random.key(2))
    log = HandLog(env.tournament(state).table, 0)
    for i in range(12):
        msg = protocol.act_message(env.decision(state), tournament=7, history=log.history)
        t = env.tournament(state).table
        seat = int(t.to_act)
        assert msg["seat"] == seat and msg["tournament"] == 7
        assert msg["hand"] == int(env.tournament(state).hand)
        assert msg["pot"] == int(table.pot_total(t))
        assert msg["stacks"] == np.asarray(t.stacks).tolist()
        assert parse_cards("".join(msg["hole"])) == np.asarray(t.hole[seat]).tolist()
        assert len(msg["board"]) == int(t.revealed)
        lg = table.legal(t)
        assert msg["legal"]["call"] == int(lg.call_amount)
        assert msg["legal"]["check"] == bool(lg.can_check)
        assert msg["legal"]["raise"] == ([int(lg.min_raise_to), int(lg.max_raise_to)]
                                         if bool(lg.can_raise) else None)
        assert msg["decision"] == sum(1 for h in log.history if h[1] == seat)
        assert json.loads(protocol.encode(msg)) == msg
        # play: raise to the minimum when open, else call
        kind = table.RAISE if msg["legal"]["raise"] and i % 3 == 0 else table.CHECK_CALL
        amount = msg["legal"]["raise"][0] if kind == table.RAISE else 0
        mid = act(state, kind, amount)
        event = log.action(t, lg, env.tournament(mid).table, kind)
        entry = log.history[-1]
        assert entry == [event[k] for k in ("street", "seat", "code", "to")]
        assert entry[:2] == [int(t.street), seat]
        assert entry[2] == (protocol.RAISE if kind == table.RAISE else
                            protocol.CHECK if msg["legal"]["check"] else protocol.CALL)
        if kind == table.RAISE:
            assert entry[3] == amount
        state = advance(mid)
        if int(env.tournament(state).hand) != msg["hand"]:
            log = HandLog(env.tournament(state).table, int(env.tournament(state).hand))


def test_start_message(env):
    msg = protocol.start_message(protocol.format_info(env.id, env.format), slot=3, alias="Ada",
                                 seed=protocol.slot_seed(11, 3), variant="series-10",
                                 tournaments=10)
    assert msg["format"]["levels"][0] == [10, 20, 0] and msg["format"]["levels"][4] == [60, 120,
                                                                                       120]
    assert sum(msg["format"]["payouts_ppm"]) == 1_000_000
    assert msg["seed"] == list(protocol.slot_seed(11, 3)) != list(protocol.slot_seed(11, 4))
    key = jax.random.fold_in(jax.random.key(11), 1003)
    assert msg["seed"] == np.asarray(jax.random.key_data(key)).tolist()


LEGAL = {"fold": True, "check": False, "call": 20, "raise": [40, 1000]}
FREE = {"fold": True, "check": True, "call": 0, "raise": [20, 1000]}


@pytest.mark.parametrize("data, legal, outcome, kind, amount", [
    (b'{"action":"fold"}', LEGAL, "ok", table.FOLD, 0),
    (b'{"action":"call"}', LEGAL, "ok", table.CHECK_CALL, 0),
    (b'{"action":"check"}', FREE, "ok", table.CHECK_CALL, 0),
    (b'{"action":"raise","amount":40}', LEGAL, "ok", table.RAISE, 40),
    (b'{"action":"raise","amount":1000}', LEGAL, "ok", table.RAISE, 1000),
    (b'{"action":"check"}', LEGAL, "illegal_action", None, 0),
    (b'{"action":"call"}', FREE, "illegal_action", None, 0),
    (b'{"action":"raise","amount":39}', LEGAL, "bad_amount", None, 0),
    (b'{"action":"raise","amount":1001}', LEGAL, "bad_amount", None, 0),
    (b'{"action":"raise"}', LEGAL, "bad_amount", None, 0),
    (b'{"action":"raise","amount":true}', LEGAL, "bad_reply", None, 0),
    (b'{"action":"raise","amount":40.0}', LEGAL, "bad_reply", None, 0),
    (b'{"action":"raise","amount":100}', {**LEGAL, "raise": None}, "illegal_action", None, 0),
    (b'{"action":"allin"}', LEGAL, "bad_reply", None, 0),
    (b'{}', LEGAL, "bad_reply", None, 0),
    (b'"fold"', LEGAL, "bad_reply", None, 0),
    (b'\xff\xfe', LEGAL, "bad_reply", None, 0),
    (b'{"action":"fold"', LEGAL, "bad_reply", None, 0),
    (b'[' * 100_000, LEGAL, "reply_too_long", None, 0),
    (b'[' * 4000, LEGAL, "bad_reply", None, 0),  # deep nesting: no crash
    (None, LEGAL, "no_reply", None, 0),
    (b"", LEGAL, "no_reply", None, 0),
])
def test_parse_reply_outcomes(data, legal, outcome, kind, amount):
    """PROTOCOL §4 'Bad replies': one outcome each; parse_reply never raises."""
    r = protocol.parse_reply(data, legal)
    assert (r.outcome, r.kind, r.amount) == (outcome, kind, amount)


def test_parse_reply_talk_fields():
    r = protocol.parse_reply(json.dumps({"action": "fold", "say": " gg\u0000 " + "x" * 200,
                                         "chat": ["a\u202eb", "", "  "], "emote": "wave",
                                         "sit_in": True}).encode(), LEGAL)
    assert r.outcome == "ok" and r.say == ("gg " + "x" * 200)[: protocol.CHAT_CHARS]
    assert r.chat == ("ab",) and r.emote == "wave" and r.sit_in
    r = protocol.parse_reply(b'{"emote":"dance","chat":["hi"]}', None)  # a notification reply
    assert r.outcome == "ok" and r.emote is None and r.chat == ("hi",) and r.kind is None
    assert protocol.parse_reply(b'{"chat":"hi"}', None).outcome == "bad_reply"
    assert protocol.parse_reply(b'{"sit_in":"yes"}', None).outcome == "bad_reply"
