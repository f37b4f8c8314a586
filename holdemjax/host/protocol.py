"""The protocol's rules half (PROTOCOL.md next to `holdemjax.series.protocol` is the contract):
what the table says to the seat to act and reads from its reply, apart from the wasm sandbox.
The wire codes and reply words and their one map to the engine's kinds (`KIND_OF`), the
``legal`` block and the ``act`` message built from the decision's view, a reply read into one
deterministic outcome (`parse_reply`, with the one host legality check), and the numbers they
quote.

Host side: numpy and plain Python on host copies of the engine's states (the ``legal`` block
of a bare table is computed by one jitted call).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import unicodedata

import jax
import numpy as np

from holdemjax.host.legal import admits
from holdemjax.poker import table
from holdemjax.poker.cards import card_text
from holdemjax.validate import is_int

__all__ = ["MS", "SHOT_NS", "BANK_NS", "DECISION_MAX_NS", "REPLY_MAX_BYTES", "CHAT_CHARS",
           "CHAT_LINES_PER_HAND", "EMOTES", "Code", "FOLD", "CHECK", "CALL", "RAISE", "ACTIONS",
           "KIND_OF", "kind_of", "code_of", "legal_info", "act_message", "Reply", "parse_reply",
           "clean_line", "CHAT_DROPS"]

MS = 1_000_000  # virtual nanoseconds (fuel units) per virtual millisecond
SHOT_NS = 20 * MS  # a decision's shot clock
BANK_NS = 1_000 * MS  # the time bank, refilled at the start of every tournament
DECISION_MAX_NS = 200 * MS  # a decision never gets more than this, bank or not
REPLY_MAX_BYTES = 4_096
CHAT_CHARS = 140
CHAT_LINES_PER_HAND = 2
EMOTES = ("applause", "facepalm", "gg", "laugh", "sigh", "thumbs_up", "tip_hat", "wave")


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
KIND_OF = {FOLD: table.FOLD, CHECK: table.CHECK_CALL, CALL: table.CHECK_CALL, RAISE: table.RAISE}


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


_legal = jax.jit(table.legal)


def legal_info(table_or_legal) -> dict:
    """The `legal` block for the seat to act: from a `table.Legal` (host or device arrays), or
    computed (jitted) from an unbatched `table.Table`."""
    lg = table_or_legal
    if not isinstance(lg, table.Legal):
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


# ------------------------------------------------------------------------------------- replies
@dataclasses.dataclass(frozen=True)
class Reply:
    """A policy's reply read into the table's terms.

    ``kind``/``amount``: the engine action (`table.FOLD`/`CHECK_CALL`/`RAISE`, raise-to), or
    ``None`` when the table must take the default action. ``outcome``: "ok" or the recorded
    reason of the default (PROTOCOL §4). ``say`` is kept only when the action is admitted.
    ``dropped``: one reason (`CHAT_DROPS`) per table-talk line the reply carried that cannot be
    shown: a line empty after cleaning, an unknown emote, a say line with an action that was
    not admitted, every line of a bad reply. The host counts them; a wrong-typed or unreadable
    reply has none it can count.
    """

    outcome: str
    kind: int | None = None
    amount: int = 0
    say: str | None = None
    chat: tuple[str, ...] = ()
    emote: str | None = None
    sit_in: bool = False
    detail: str = ""
    dropped: tuple[str, ...] = ()


#: Why a table-talk line was not shown (counted per slot in the results, ``chat_dropped_by``).
CHAT_DROPS = ("empty", "unknown_emote", "say_not_admitted", "bad_reply", "lines_per_hand",
              "emote_in_hand")

_FIELDS = {"action": str, "amount": int, "say": str, "chat": list, "emote": str, "sit_in": bool}


def clean_line(text: str) -> str:
    """A table-talk line: control characters removed, cut to `CHAT_CHARS` code points."""
    kept = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf", "Cs"))
    return kept.strip()[:CHAT_CHARS]


def parse_reply(data: bytes | None, legal: dict | None) -> Reply:
    """Read reply bytes at a decision (``legal`` = its `legal_info`) or after a notification /
    away decision (``legal=None``: only chat, emote and sit_in are read). Never raises."""
    if data is None or len(data) == 0:
        return Reply("no_reply")
    if len(data) > REPLY_MAX_BYTES:
        return Reply("reply_too_long", detail=f"{len(data)} bytes > {REPLY_MAX_BYTES}")
    try:
        obj = json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return Reply("bad_reply", detail=f"not JSON: {type(exc).__name__}")
    if not isinstance(obj, dict):
        return Reply("bad_reply", detail=f"not an object: {type(obj).__name__}")
    for name, typ in _FIELDS.items():
        if name not in obj or (name == "sit_in" and obj[name] is False):
            continue
        value = obj[name]
        ok = is_int(value) if typ is int else isinstance(value, typ)
        if name == "sit_in":
            ok = value is True
        if name == "chat":
            ok = ok and all(isinstance(x, str) for x in value)
        if not ok:
            return Reply("bad_reply", detail=f"field {name!r} has the wrong type",
                         dropped=_talk(obj))
    cleaned = [clean_line(x) for x in obj.get("chat", ())]
    lines = tuple(line for line in cleaned if line)
    emote = obj.get("emote")
    drops = ("empty",) * (len(cleaned) - len(lines))
    if emote is not None and emote not in EMOTES:
        drops += ("unknown_emote",)
    side = dict(chat=lines, emote=emote if emote in EMOTES else None,
                sit_in=obj.get("sit_in") is True)
    if legal is None:  # a notification or an away decision: no action, so no say line
        said = isinstance(obj.get("say"), str) and clean_line(obj["say"]) != ""
        return Reply("ok", **side, dropped=drops + ("say_not_admitted",) * said)
    action = obj.get("action")
    if action not in ACTIONS:
        return Reply("bad_reply", detail=f"action {action!r} is not one of {ACTIONS}",
                     dropped=_talk(obj))
    say = clean_line(obj["say"]) if "say" in obj else None
    if say == "":
        drops += ("empty",)
    say = say or None

    def refused(outcome: str, detail: str) -> Reply:  # the action is not admitted: nor its say
        return Reply(outcome, detail=detail, **side,
                     dropped=drops + ("say_not_admitted",) * (say is not None))

    kind = kind_of(action)
    if action == "check" and not legal["check"]:
        return refused("illegal_action", "check facing a bet")
    if action == "call" and (legal["check"] or legal["call"] <= 0):
        return refused("illegal_action", "call with nothing to call")
    amount = obj.get("amount") if action == "raise" else 0
    if admits(legal, kind, amount):
        return Reply("ok", kind, int(amount), say, **side, dropped=drops)
    if legal["raise"] is None:
        return refused("illegal_action", "raise when raising is closed")
    lo, hi = legal["raise"]
    return refused("bad_amount", f"raise to {amount!r} outside {lo}..{hi}")


def _talk(obj: dict) -> tuple[str, ...]:
    """``bad_reply`` for each table-talk line of a well-formed reply refused as a whole."""
    chat = obj.get("chat", ())
    n = len(chat) if isinstance(chat, list) else 0
    n += sum(isinstance(obj.get(k), str) for k in ("say", "emote"))
    return ("bad_reply",) * n
