"""The protocol's rules half (PROTOCOL.md next to `holdemjax.series.protocol` is the contract):
what the table says to the seat to act, apart from the wasm sandbox. The wire codes and reply
words and their one map to the engine's kinds (`KIND_OF`), the ``legal`` block and the ``act``
message built from the decision's view, and the clock numbers that message quotes.

Host side: numpy and plain Python on host copies of the engine's states (the ``legal`` block
of a bare table is computed by one jitted call).
"""

from __future__ import annotations

import enum

import jax
import numpy as np

from holdemjax.poker import table as tb
from holdemjax.poker.cards import card_text
from holdemjax.validate import is_int

__all__ = ["MS", "SHOT_NS", "BANK_NS", "DECISION_MAX_NS", "Code", "FOLD", "CHECK", "CALL",
           "RAISE", "ACTIONS", "KIND_OF", "kind_of", "code_of", "legal_info", "act_message"]

MS = 1_000_000  # virtual nanoseconds (fuel units) per virtual millisecond
SHOT_NS = 20 * MS  # a decision's shot clock
BANK_NS = 1_000 * MS  # the time bank, refilled at the start of every tournament
DECISION_MAX_NS = 200 * MS  # a decision never gets more than this, bank or not


class Code(enum.IntEnum):
    """The wire codes of decisions (``history`` entries and ``action`` events, PROTOCOL §5);
    ``ACTIONS[code]`` is the reply's ``action`` word."""

    FOLD = 0
    CHECK = 1
    CALL = 2
    RAISE = 3


FOLD, CHECK, CALL, RAISE = Code
ACTIONS = tuple(c.name.lower() for c in Code)  # ("fold", "check", "call", "raise")

#: The one map between the wire and the engine: the engine's `table.Kind` each wire code is
#: played as (a check and a call are both CHECK_CALL; `code_of` goes the other way).
KIND_OF = {FOLD: tb.FOLD, CHECK: tb.CHECK_CALL, CALL: tb.CHECK_CALL, RAISE: tb.RAISE}


def kind_of(action) -> int:
    """The engine kind (`KIND_OF`) of a wire code (``0..3``) or a reply's ``action`` word
    (`ACTIONS`); ValueError for anything else, naming it."""
    if isinstance(action, str) and action in ACTIONS:
        return KIND_OF[Code(ACTIONS.index(action))]
    if is_int(action) and action in KIND_OF:
        return KIND_OF[Code(int(action))]
    raise ValueError(f"not a wire code or action word: {action!r}; expected one of "
                     f"{', '.join(ACTIONS)} or 0..{len(Code) - 1}")


def code_of(folded: bool, raised: bool, added: int) -> Code:
    """The wire code of a decision the engine played (`KIND_OF` backwards, read from what
    happened): FOLD when the seat folded, RAISE when it bet or raised, else CALL when it put
    chips in and CHECK when it did not."""
    return FOLD if folded else RAISE if raised else CALL if added > 0 else CHECK


_legal = jax.jit(tb.legal)


def legal_info(table_or_legal) -> dict:
    """The `legal` block for the seat to act: from a `table.Legal` (host or device arrays), or
    computed (jitted) from an unbatched `table.Table`."""
    lg = table_or_legal
    if not isinstance(lg, tb.Legal):
        lg = jax.device_get(_legal(lg))
    return {
        "fold": bool(lg.can_fold),
        "check": bool(lg.can_check),
        "call": int(lg.call_amount),
        "raise": [int(lg.min_raise_to), int(lg.max_raise_to)] if bool(lg.can_raise) else None,
    }


def act_message(view, *, tournament: int, history=(), events=(),
                budget_ns: int = min(SHOT_NS + BANK_NS, DECISION_MAX_NS), bank_ns: int = BANK_NS,
                away: bool = False) -> dict:
    """The `act` message (PROTOCOL §5) for the seat to act in ``view``, the decision's
    `holdemjax.poker.tournament.Decision` (host numpy arrays are fastest).

    ``history`` is this hand's decisions so far (``[street, seat, code, to]`` each),
    ``events`` the seat's pending events.
    """
    t = view.table
    seat = int(t.to_act)
    if seat < 0:
        raise ValueError("act_message: nobody is to act in this state (the game is over)")
    pot = int(np.asarray(t.contrib).sum()) + int(t.dead)
    visible = int(t.revealed)
    return {
        "type": "act",
        "events": list(events),
        "tournament": int(tournament),
        "hand": int(view.hand),
        "street": int(t.street),
        "seat": seat,
        "decision": int(view.decisions[seat]),
        "button": int(t.button),
        "sb": int(t.sb),
        "bb": int(t.bb),
        "blinds": [int(t.small_blind), int(t.big_blind), int(t.ante)],
        "stacks": np.asarray(t.stacks).astype(int).tolist(),
        "bets": np.asarray(t.bets).astype(int).tolist(),
        "contrib": np.asarray(t.contrib).astype(int).tolist(),
        "in_hand": np.asarray(t.in_hand).astype(bool).tolist(),
        "folded": np.asarray(t.folded).astype(bool).tolist(),
        "allin": np.asarray(t.allin).astype(bool).tolist(),
        "alive": np.asarray(view.alive).astype(bool).tolist(),
        "hole": [card_text(int(c)) for c in np.asarray(t.hole[seat])],
        "board": [card_text(int(c)) for c in np.asarray(t.board)[:visible]],
        "pot": pot,
        "history": [list(map(int, h)) for h in history],
        "legal": legal_info(view.legal),
        "clock": {"budget_ns": int(budget_ns), "bank_ns": int(bank_ns)},
        "away": bool(away),
    }
