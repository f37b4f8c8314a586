"""Property-based tests (hypothesis) of the player protocol's reply parser against its contract
(holdemjax/series/PROTOCOL.md §3 "Policy to host" and §4 "Bad replies", "Table talk"): any bytes
give one deterministic outcome and never an exception; the outcome is the one the §4 table names;
an admitted action is one the table offered.

The parser is imported by its public names (`protocol.parse_reply`, `encode`, `ACTIONS`,
`EMOTES`). Reproducible in CI: the profile derandomizes and keeps no example database.
"""

from __future__ import annotations

import json
import os
import unicodedata

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from holdemjax.poker import table
from holdemjax.series import protocol

settings.register_profile("holdemjax-ci", derandomize=True, database=None, deadline=None,
                          max_examples=200, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("holdemjax-deep", database=None, deadline=None, max_examples=20000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "holdemjax-ci"))

REPLY_LIMIT = 4096  # PROTOCOL §4: a reply longer than 4,096 bytes
CHAT_CHARS = 140  # PROTOCOL §4: a line is cut to 140 characters
OUTCOMES = {"ok", "no_reply", "reply_too_long", "bad_reply", "illegal_action", "bad_amount"}


@st.composite
def legals(draw):
    """A decision's `legal` block as the act message carries it (PROTOCOL §5)."""
    check = draw(st.booleans())
    call = 0 if check else draw(st.integers(1, 10**6))
    raise_ = None
    if draw(st.booleans()):
        lo = draw(st.integers(1, 10**6))
        raise_ = [lo, draw(st.integers(lo, 2 * 10**6))]
    return {"fold": True, "check": check, "call": call, "raise": raise_}


not_int = st.one_of(st.text(max_size=4), st.booleans(), st.none(),
                    st.lists(st.integers(), max_size=2),
                    st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != int(x)))
texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=200)


@st.composite
def replies(draw, legal=None):
    """A reply object: every field present or not, of its type or of a wrong one; amounts
    often at or next to the bounds of ``legal``'s raise range."""
    obj = {}
    if draw(st.booleans()):
        obj["action"] = draw(st.one_of(st.sampled_from(protocol.ACTIONS), st.text(max_size=6),
                                       st.integers()))
    if draw(st.booleans()):
        lo, hi = (legal or {}).get("raise") or (1, 1)
        obj["amount"] = draw(st.one_of(st.sampled_from([lo - 1, lo, hi, hi + 1]),
                                       st.integers(-10, 3 * 10**6), not_int))
    if draw(st.booleans()):
        obj["say"] = draw(st.one_of(texts, st.integers()))
    if draw(st.booleans()):
        obj["chat"] = draw(st.one_of(st.lists(texts, max_size=3),
                                     st.lists(st.one_of(texts, st.integers()), min_size=1,
                                              max_size=2), texts))
    if draw(st.booleans()):
        obj["emote"] = draw(st.one_of(st.sampled_from(protocol.EMOTES), st.text(max_size=8)))
    if draw(st.booleans()):
        obj["sit_in"] = draw(st.one_of(st.just(True), st.text(max_size=2), st.integers(0, 1)))
    return obj


def contract(obj: dict, legal: dict | None):
    """PROTOCOL §4's table, written out: (outcome, kind, amount) of a reply object."""
    types = {"action": str, "amount": int, "say": str, "chat": list, "emote": str}
    for name, typ in types.items():
        if name in obj:
            v = obj[name]
            if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
                return "bad_reply", None, 0
    if "chat" in obj and not all(isinstance(x, str) for x in obj["chat"]):
        return "bad_reply", None, 0
    if "sit_in" in obj and obj["sit_in"] is not True:
        return "bad_reply", None, 0
    if legal is None:
        return "ok", None, 0
    action = obj.get("action")
    if action not in ("fold", "check", "call", "raise"):
        return "bad_reply", None, 0
    if action == "fold":
        return "ok", table.FOLD, 0
    if action == "check":
        return ("ok", table.CHECK_CALL, 0) if legal["check"] else ("illegal_action", None, 0)
    if action == "call":
        ok = not legal["check"] and legal["call"] > 0
        return ("ok", table.CHECK_CALL, 0) if ok else ("illegal_action", None, 0)
    if legal["raise"] is None:
        return "illegal_action", None, 0
    lo, hi = legal["raise"]
    amount = obj.get("amount")
    if amount is None or not lo <= amount <= hi:
        return "bad_amount", None, 0
    return "ok", table.RAISE, amount


def _clean(line: str) -> bool:
    return len(line) <= CHAT_CHARS and line != "" and not any(
        unicodedata.category(ch) == "Cc" for ch in line)


@given(legal=st.one_of(st.none(), legals()), data_=st.data())
def test_reply_outcomes_follow_the_protocol_table(legal, data_):
    obj = data_.draw(replies(legal))
    data = json.dumps(obj).encode("utf-8")
    r = protocol.parse_reply(data, legal)
    if len(data) > REPLY_LIMIT:
        assert r.outcome == "reply_too_long"
        return
    outcome, kind, amount = contract(obj, legal)
    assert (r.outcome, r.kind) == (outcome, kind), (obj, legal, r)
    if outcome == "ok" and kind == table.RAISE:
        assert r.amount == amount
    # table talk: cleaned lines of at most 140 characters, known emotes only
    assert all(_clean(line) for line in r.chat) and len(r.chat) <= len(obj.get("chat", []))
    assert r.emote is None or r.emote in protocol.EMOTES
    if r.say is not None:
        assert r.outcome == "ok" and legal is not None and _clean(r.say)
    assert protocol.parse_reply(data, legal) == r  # deterministic


@given(data=st.one_of(st.binary(max_size=5000), st.none()), legal=st.one_of(st.none(), legals()))
def test_any_bytes_give_one_outcome_and_never_raise(data, legal):
    r = protocol.parse_reply(data, legal)
    assert r.outcome in OUTCOMES
    if not data:
        assert r.outcome == "no_reply"
    elif len(data) > REPLY_LIMIT:
        assert r.outcome == "reply_too_long"
    if r.outcome != "ok" or legal is None:
        assert r.kind is None
    assert protocol.parse_reply(data, legal) == r


@given(obj=replies(), legal=legals(), junk=st.text(alphabet=" \t\r\n", max_size=3))
def test_key_order_and_whitespace_do_not_matter(obj, legal, junk):
    """PROTOCOL §3: any key order, whitespace allowed."""
    a = json.dumps(obj).encode()
    b = (junk + json.dumps(dict(reversed(list(obj.items()))), indent=1) + junk).encode()
    if len(b) <= REPLY_LIMIT and len(a) <= REPLY_LIMIT:
        ra, rb = protocol.parse_reply(a, legal), protocol.parse_reply(b, legal)
        assert (ra.outcome, ra.kind, ra.amount, ra.chat, ra.emote) == (
            rb.outcome, rb.kind, rb.amount, rb.chat, rb.emote)
