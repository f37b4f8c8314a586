"""Participant names: one normal form, and a folded form that decides when two names are one.

Every name that joins a match (a person, an HTTP client, a registered bot, an uploaded policy,
an operator's entrant; the CLI and the service alike) must be in its normal form (`normal`):

* Unicode NFKC (``"ａｌｉｃｅ"`` is ``"alice"``), with no leading or trailing white space;
* 1 to `MAX_LENGTH` characters;
* not ``"."`` or ``".."`` (a play page's address could never name them);
* no path separator or URL delimiter (`FORBIDDEN`: ``/ \\ ? # %``) and no control, format,
  private-use or unassigned character (Unicode category ``C*``);
* at least one visible letter or digit (category ``L*`` or ``N*``, not one of the blank
  `FILLERS`), and not beginning with a combining mark (``M*``): a name is seen.

Two names are the same participant when their `fold` is equal: the normal form, case-folded
(`str.casefold`, then NFKC again), the `FILLERS` dropped, the dotted and dotless i read as
``i``, runs of white space made one space and the Cyrillic and Greek letters that look like
Latin ones (`CONFUSABLES`) read as those Latin letters. So ``"Alice"``, ``"ALICE"``,
``"alİce"``, ``"аlice"`` (Cyrillic а) and ``"alice"`` with a Hangul filler after it cannot join
beside ``"alice"``. The table is small on purpose: it folds the look-alikes of the Latin
alphabet in the two scripts most often mixed with it, not every confusable of Unicode's list.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["BadName", "MAX_LENGTH", "FORBIDDEN", "CONFUSABLES", "FILLERS", "REFERENCE_PREFIX",
           "normal", "fold", "require_participant"]

MAX_LENGTH = 64
FORBIDDEN = "/\\?#%"

#: Lower-case Cyrillic and Greek letters read as the Latin letter they look like (applied after
#: `str.casefold`, so upper-case look-alikes are covered through their lower case).
CONFUSABLES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "һ": "h",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "u", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j", "ζ": "z",
    # Latin: the dotless i and the dot above that `str.casefold` leaves of a dotted İ
    "ı": "i", "\u0307": "",
}
#: Characters that draw nothing although Unicode calls them letters or symbols (the Hangul
#: fillers, their half-width form, the braille blank, the Khmer inherent vowels): no name is
#: made of them, and `fold` drops them.
FILLERS = "\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5"
_FOLD = str.maketrans({**CONFUSABLES, **dict.fromkeys(FILLERS, "")})


class BadName(ValueError):
    """A name that is not in its normal form or breaks a rule of `normal` (the service: 422)."""


def normal(name) -> str:
    """The normal form of ``name`` (see the module); `BadName` naming it when it has none."""
    if not isinstance(name, str):
        raise BadName(f"a participant name is a string, got {name!r}")
    text = unicodedata.normalize("NFKC", name).strip()
    if not 1 <= len(text) <= MAX_LENGTH:
        raise BadName(f"a participant name has 1..{MAX_LENGTH} characters (after trimming "
                      f"white space), got {name!r}")
    if text in (".", ".."):
        raise BadName(f"a participant name cannot be {text!r}")
    bad = sorted({c for c in text if c in FORBIDDEN or unicodedata.category(c).startswith("C")})
    if bad:
        raise BadName(f"a participant name has no {' '.join(FORBIDDEN)} and no control or "
                      f"format characters, got {name!r} (with {', '.join(map(repr, bad))})")
    if unicodedata.category(text[0]).startswith("M"):
        raise BadName(f"a participant name cannot begin with a combining mark, got "
                      f"{_spelled(name)}")
    if not any(unicodedata.category(c)[0] in "LN" and c not in FILLERS for c in text):
        raise BadName(f"a participant name needs a visible letter or digit, got "
                      f"{_spelled(name)}")
    return text


def _spelled(name: str) -> str:
    """``name`` and its code points: a blank name is named all the same."""
    return f"{name!r} ({' '.join(f'U+{ord(c):04X}' for c in name)})"


def fold(name: str) -> str:
    """What makes two names one participant (see the module); ``name`` in its normal form."""
    folded = unicodedata.normalize("NFKC", normal(name).casefold())
    return re.sub(r"\s+", " ", folded.translate(_FOLD)).strip()


REFERENCE_PREFIX = "ref:"  # the reference lines' "ref:<tier>": no participant may use it


def require_participant(name: str, *, reference: bool = False) -> str:
    """`BadName` unless ``name`` is written in its normal form (`normal`) and bears the prefix
    `REFERENCE_PREFIX` exactly when it names a reference line; returns its `fold`."""
    canon = normal(name)
    if canon != name:
        raise BadName(f"participant name {name!r} is not in its normal form: write "
                      f"{canon!r} (NFKC, no white space around it)")
    folded = fold(name)
    if folded.startswith(REFERENCE_PREFIX) != reference:
        raise BadName(f"participant name {name!r}: the prefix {REFERENCE_PREFIX!r} is reserved "
                      "for reference lines")
    return folded
