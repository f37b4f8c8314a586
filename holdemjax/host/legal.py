"""The one host check of an exact action: does the table play ``(kind, amount)`` as given?

`table.legal` (JAX) says what the seat to act may do; the host reads it as the protocol's
``legal`` block (`protocol.legal_info`: ``check``, ``call``, ``raise`` = ``[min, max]`` or
None). An action is *admitted* when it is FOLD or CHECK_CALL, or RAISE to an int inside the
raise range; anything else the engine would clamp. Every host check (replies, bots, a person's
action, seat rotation's audit) calls `admits` or `exact`, and a seat without an admitted action
gets `default_action`.
"""

from __future__ import annotations

from holdemjax.poker.table import CHECK_CALL, FOLD, RAISE
from holdemjax.validate import is_int

__all__ = ["exact", "admits", "admitted", "default_action"]


def exact(kind, amount, can_raise, min_raise_to, max_raise_to):
    """The rule itself, elementwise: on Python ints and bools, or on (traced) arrays of a
    `table.Legal` (seat rotation's audit inside `jit`)."""
    in_range = (amount >= min_raise_to) & (amount <= max_raise_to)
    return (kind == FOLD) | (kind == CHECK_CALL) | ((kind == RAISE) & can_raise & in_range)


def admits(legal: dict, kind, amount=0) -> bool:
    """``(kind, amount)`` is an engine action the table plays as given for ``legal`` (the
    protocol's ``legal`` block); ``amount`` is read only for a raise. Never raises."""
    if not is_int(kind):
        return False
    if int(kind) != RAISE:
        return bool(exact(int(kind), 0, False, 0, 0))
    r = legal["raise"]
    if r is None or not is_int(amount):
        return False
    return bool(exact(RAISE, int(amount), True, int(r[0]), int(r[1])))


def admitted(legal: dict, kind, amount, who: str) -> tuple[int, int]:
    """``(kind, amount)`` as ints when `admits`, else ValueError naming ``who`` and the action
    (a bot's or a person's action is never silently replaced)."""
    if not admits(legal, kind, amount):
        shown = ", ".join(str(int(x)) if is_int(x) else repr(x) for x in (kind, amount))
        raise ValueError(f"{who} chose ({shown}), not legal: {legal}")
    return int(kind), int(amount)


def default_action(legal: dict) -> tuple[int, int]:
    """The table's action for a seat that gave none it may play: check when free, else fold."""
    return (CHECK_CALL if legal["check"] else FOLD), 0
