"""Property-based tests (hypothesis) of the duplicate CLI's arguments (`holdemjax duplicate
create`, holdemjax/duplicate/cli.py): every combination of settings either creates a match
(exit 0, its id and the seed's commitment printed) or is refused with exit status 2 and a
message naming the bad setting, never a traceback. The valid ranges are the ones the CLI's help
states (seats 2..9, hero a seat, seed 0..2**128-1, the tiers) and SPEC §4.

Reproducible in CI: the profile derandomizes and keeps no example database.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from holdemjax.duplicate import cli

settings.register_profile("holdemjax-ci", derandomize=True, database=None, deadline=None,
                          max_examples=40, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("holdemjax-deep", database=None, deadline=None, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "holdemjax-ci"))

TIERS = ("beginner", "intermediate", "advanced")  # SPEC §4 reference tiers (docs/duplicate.md)


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:  # argparse refuses what is not an int
            code = exc.code
    return code, out.getvalue() + err.getvalue()


settings_ = st.fixed_dictionaries({
    "seats": st.integers(0, 11),
    "hands": st.integers(-2, 200),
    "small_blind": st.integers(-1, 50),
    "big_blind": st.integers(-1, 100),
    "ante": st.integers(-2, 40),
    "stack": st.integers(-5, 10**6),
    "hero": st.integers(-1, 10),
    "seed": st.one_of(st.none(), st.integers(-3, 2**33), st.integers(2**127, 2**128 + 3)),
    "bots": st.one_of(st.none(), st.lists(st.sampled_from(TIERS + ("expert", "")), min_size=1,
                                          max_size=9).map(",".join).filter(bool)),
    "deadline": st.one_of(st.none(), st.integers(0, 90).map(lambda m: f"+{m}m"),
                          st.text(alphabet="abcxyz", min_size=1, max_size=5)),
})


def _problem(s) -> str | None:
    """The setting the CLI must refuse, from its help text and SPEC §4; None if all are valid."""
    if not 2 <= s["seats"] <= 9:
        return "seats"
    if not 1 <= s["hands"] <= 100_000:
        return "hands"
    if s["small_blind"] < 1:
        return "small_blind"
    if s["big_blind"] < s["small_blind"]:
        return "big_blind"
    if s["ante"] < 0:
        return "ante"
    if s["stack"] < 1:
        return "stack"
    if not 0 <= s["hero"] < s["seats"]:
        return "hero"
    if s["bots"] is not None:
        bots = s["bots"].split(",")
        if len(bots) == 1 and s["seats"] > 2:
            bots = bots * (s["seats"] - 1)  # one tier names every other seat
        if len(bots) != s["seats"] - 1:
            return "bots"
        if any(b not in TIERS for b in bots):
            return "tier"
    deadline = s["deadline"]
    if deadline is not None and not re.fullmatch(r"\+\d+m", deadline):
        return "time"  # not ISO 8601 nor +N(m|h|d)
    if s["seed"] is not None and not 0 <= s["seed"] < 2**128:
        return "seed"
    if deadline == "+0m":
        return "deadline"  # not in the future
    return None


@given(s=settings_)
def test_create_accepts_exactly_the_documented_settings(s):
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "m.sqlite")
        argv = ["create", "--store", store, "--json", "--references", "close"]
        for name, value in s.items():
            if value is not None:
                argv += [f"--{name.replace('_', '-')}", str(value)]
        code, text = _run(argv)
        problem = _problem(s)
        if problem is None:
            assert code == 0, text
            doc = json.loads(text)
            assert re.fullmatch(r"[0-9a-f]{64}", doc["commitment"]), doc
            code, text = _run(["status", "--store", store, doc["match"]])
            assert code == 0 and f"{s['seats']} seats, {s['hands']} hands" in text, text
        else:
            assert code == 2, (problem, text)
            assert problem in text, (problem, text)
            assert "Traceback" not in text


@given(value=st.text(alphabet="0123456789-+. x", min_size=0, max_size=4),
       name=st.sampled_from(["seats", "hands", "stack", "seed", "hero"]))
def test_non_integers_are_refused_by_the_parser(value, name):
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["create", "--store", os.path.join(tmp, "m.sqlite"), "--references", "close",
                f"--{name}", value]
        code, text = _run(argv)
    try:
        int(value)
    except ValueError:
        assert code == 2 and "invalid int value" in text, text
    else:
        assert code in (0, 2) and "Traceback" not in text
