"""The rule for participant names (holdemjax/duplicate/names.py), issue 50's cases: a name
needs a visible letter or digit and cannot begin with a combining mark; names that fold to one
(NFKC, case, the dotted and dotless i, invisible fillers, look-alike letters) are one name,
and the store refuses the second beside the first (the service answers 409)."""

from __future__ import annotations

import pytest

from holdemjax.duplicate import match, names
from holdemjax.duplicate.store import Store


@pytest.mark.parametrize("name,why", [
    ("\u3164", "needs a visible letter or digit"),  # Hangul filler
    ("\uffa0", "needs a visible letter or digit"),  # its half-width form
    ("\u115f\u1160", "needs a visible letter or digit"),  # the choseong and jungseong fillers
    ("\u2800", "needs a visible letter or digit"),  # braille blank
    ("\u2800-\u2800", "needs a visible letter or digit"),
    ("\u0301\u0301", "cannot begin with a combining mark"),
    ("\u0301bob", "cannot begin with a combining mark"),
])
def test_a_name_needs_a_visible_letter_or_digit(name, why):
    with pytest.raises(names.BadName, match=why) as got:
        names.normal(name)
    assert repr(name) in str(got.value) and f"U+{ord(name[0]):04X}" in str(got.value)


@pytest.mark.parametrize("name,twin", [
    ("bad", "bad\u3164"), ("bad", "b\u115fad"), ("bad", "bad\u2800"), ("bad", "ba\u1160d"),
    ("alice", "al\u0130ce"), ("alice", "al\u0131ce"), ("ALICE", "al\u0130ce"),
    ("alice", "AL\u0130CE"),
])
def test_names_that_fold_to_one_are_one(name, twin):
    assert names.fold(twin) == names.fold(name)


def test_different_names_stay_different():
    assert names.normal("7") == "7" and names.normal("李") == "李"
    assert names.fold("bad") != names.fold("bad2") != names.fold("bád")
    assert names.fold("alice") != names.fold("alce")


@pytest.mark.parametrize("first,second", [("bad", "bad\u1160"), ("alice", "al\u0130ce"),
                                          ("al\u0130ce", "alice")])
def test_the_store_refuses_a_look_alike_beside_a_name(first, second, tmp_path):
    """(The store takes names in their normal form: "bad\u3164" is "bad\u1160" there.)"""
    assert names.normal("bad\u3164") == "bad\u1160"
    with Store(tmp_path / "s.sqlite") as s:
        mid = s.create_match(match.MatchSpec(seats=3, hands=2), 17).id
        s.join(mid, first, "api", "http", "", match.utcnow())
        with pytest.raises(match.MatchError, match=f"{second!r} already took part.*as {first!r}"):
            s.join(mid, second, "api", "http", "", match.utcnow())
