"""A duplicate match: its definition, its deals and bot keys, and one line played hand by hand.

A match fixes the table (seats, blinds, the starting stack of every hand), the number of hands,
the hero seat and a reference bot (a tier of `holdemjax.duplicate.tiers`) in every other seat.
Every participant plays the hero seat of the same hand sequence:

* hand ``h`` deals from ``cards.hand_deck(fold_in(key(seed), DEAL_DOMAIN), h)`` (the engine's
  dealing by fixed index: seat ``s`` holds ``deck[2s], deck[2s+1]``, the board is ``deck[18:23]``);
* the button is at seat ``h mod seats``, every seat is dealt in, every stack starts at ``stack``;
* the bot in seat ``s`` has the key words ``key_data(fold_in(fold_in(key(seed), BOT_DOMAIN),
  s))`` for the whole match (`bot_key`); its draws are addressed inside the tier by (hand, seat,
  street, decision rank), so a line that adds a decision elsewhere never shifts them;
* a wasm policy in the hero seat gets the hero seat's key words as its ``seed``.

`Hand` drives one hand through the one rules engine (`holdemjax.poker.table`, exact amounts;
jitted once per process) and keeps the protocol's view of it: the history, the events and the
``act`` message of `holdemjax.series.protocol`. `play_line` plays or resumes one participant's
line, saving every action to the store as it is taken.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import secrets
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker import cards
from holdemjax.poker import table as tb
from holdemjax.series import protocol as P

__all__ = ["MIN_SEATS", "MAX_SEATS", "DEAL_DOMAIN", "BOT_DOMAIN", "RANDOM", "MatchSpec",
           "MatchError", "Quit", "tier_names", "bot_names", "commitment", "new_salt", "deck",
           "bot_key", "positions", "Hand", "bot_decide", "BotHero", "play_line", "utcnow",
           "JAX_BOTS", "jax_bot_decide", "parse_time"]

MIN_SEATS, MAX_SEATS = 2, 9
DEAL_DOMAIN, BOT_DOMAIN = 0, 1  # fold_in(key(seed), domain): decks and bot keys never share keys
RANDOM = "random"  # the registered bot that is not a tier: uniform over the offered kinds
SEED_LIMIT = 2**32  # seeds are uint32 (jax.random.key of a traced seed)


class MatchError(Exception):
    """A request the match cannot serve (closed, full, unknown name, sealed, ...)."""


class Quit(Exception):
    """Raised by a person's input to stop playing; the line resumes where it stopped."""


def tier_names() -> tuple[str, ...]:
    """The reference tiers, weakest first (``tiers.TIERS``)."""
    from holdemjax.duplicate import tiers

    return tuple(tiers.TIERS)


def bot_names() -> tuple[str, ...]:
    """Names a registered bot participant may have: the tiers, ``"random"`` and the JAX bots
    of `holdemjax.bots` (`JAX_BOTS`, hero seat only)."""
    return tier_names() + (RANDOM,) + tuple(JAX_BOTS)


#: JAX policies of `holdemjax.bots` that may play a hero line (through
#: `rotation.from_menu_bot`: the jitted bot reads the hand's table and its own draws).
JAX_BOTS = {"jax-baseline": "BASELINE", "jax-random": "RANDOM"}


@functools.cache
def _jax_bot(name: str):
    from holdemjax.duplicate import rotation

    return rotation.jitted_policy(getattr(rotation, JAX_BOTS[name]))


def jax_bot_decide(name: str, table, view: dict, key) -> tuple[int, int]:
    """The engine action of JAX bot ``name`` at the hero's decision: its per-seat decision
    counts and bets/raises per street come from the hand's ``history``."""
    n = len(view["stacks"])
    decisions = np.zeros(n, np.int32)
    raises = np.zeros((4, n), np.int32)
    for street, seat, code, _ in view["history"]:
        decisions[seat] += 1
        raises[street, seat] += code == P.RAISE
    from holdemjax.duplicate import draws

    # The game key is fold_in(seat key, tournament 0), as the bundled baseline.wasm derives it
    # from its seed: the JAX baseline and baseline.wasm then play identical lines.
    game_key = np.asarray(draws.fold_in(tuple(key), 0), np.uint32)
    kind, amount = _jax_bot(name)(table, np.int32(view["hand"]), decisions, raises, game_key)
    return int(kind), int(amount)


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC (the store's clock)."""
    return dt.datetime.now(dt.timezone.utc)


def parse_time(text: str) -> dt.datetime:
    """An ISO 8601 time (``2026-12-01T18:00``, ``...Z``, ``...+01:00``); naive means UTC."""
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        raise ValueError(f"bad time {text!r}: expected ISO 8601 like 2026-12-01T18:00Z") from None
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


def _int(name: str, value, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return int(value)


@dataclasses.dataclass(frozen=True)
class MatchSpec:
    """What every participant plays. ``bots``: the tier of each seat other than the hero, in
    seat order (empty: every other seat plays ``"intermediate"``). ``participants``: how many
    may join (the match closes once they all finished); ``None``: open until `close` or the
    deadline. ``deadline``: ISO 8601 UTC, or ``None``."""

    seats: int = 6
    hands: int = 100
    small_blind: int = 10
    big_blind: int = 20
    ante: int = 0
    stack: int = 2000
    hero: int = 0
    bots: tuple[str, ...] = ()
    participants: int | None = None
    deadline: str | None = None

    def __post_init__(self):
        _int("seats", self.seats, MIN_SEATS, MAX_SEATS)
        _int("hands", self.hands, 1, 100_000)
        _int("small_blind", self.small_blind, 1)
        _int("big_blind", self.big_blind, self.small_blind)
        _int("ante", self.ante, 0)
        _int("stack", self.stack, 1, 2**31 // MAX_SEATS - 1)  # chips in play fit int32
        _int("hero", self.hero, 0, self.seats - 1)
        if self.participants is not None:
            _int("participants", self.participants, 1)
        bots = tuple(self.bots) or ("intermediate",) * (self.seats - 1)
        if len(bots) != self.seats - 1:
            raise ValueError(f"bots must name a tier for each of the {self.seats - 1} seats "
                             f"other than the hero, got {len(bots)}: {list(bots)}")
        known = tier_names()
        for tier in bots:
            if tier not in known:
                raise ValueError(f"unknown tier {tier!r} in bots; known: {', '.join(known)}")
        object.__setattr__(self, "bots", bots)
        if self.deadline is not None:
            object.__setattr__(self, "deadline", parse_time(self.deadline).isoformat())

    def tier_at(self, seat: int) -> str | None:
        """The tier in ``seat``; ``None`` for the hero seat."""
        if seat == self.hero:
            return None
        return self.bots[seat if seat < self.hero else seat - 1]

    def as_dict(self) -> dict:
        """A JSON-ready copy (`from_dict` reads it back)."""
        d = dataclasses.asdict(self)
        d["bots"] = list(self.bots)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "MatchSpec":
        """The spec of `as_dict` (unknown keys are refused, naming them)."""
        extra = set(d) - {f.name for f in dataclasses.fields(cls)}
        if extra:
            raise ValueError(f"unknown match settings: {sorted(extra)}")
        return cls(**{**d, "bots": tuple(d.get("bots", ()))})


def commitment(seed: int, salt: str) -> str:
    """SHA-256 (hex) of the ASCII text ``"<salt>:<seed>"`` (seed in decimal): what is published
    at creation. Check by hand: ``printf '%s' "$SALT:$SEED" | sha256sum``."""
    return hashlib.sha256(f"{salt}:{int(seed)}".encode("ascii")).hexdigest()


def new_salt() -> str:
    """128 random bits as 32 hex digits (so the commitment cannot be searched seed by seed)."""
    return secrets.token_hex(16)


# ----------------------------------------------------------------------- keys, decks, seats
def _start_fn(stacks, button, sb, bb, small, big, ante, deck_):
    t = tb.start_hand(stacks, jnp.ones(stacks.shape, bool), button, sb, bb, True, small, big,
                      ante, deck_)
    return t, tb.legal(t)


def _act_fn(t, kind, amount):
    t = tb.act(t, kind, amount)
    return t, tb.legal(t)


def _deck_fn(seed, hand):
    return cards.hand_deck(jax.random.fold_in(jax.random.key(seed), DEAL_DOMAIN), hand)


def _bot_key_fn(seed, seat):
    key = jax.random.fold_in(jax.random.fold_in(jax.random.key(seed), BOT_DOMAIN), seat)
    return jax.random.key_data(key)


@functools.cache
def _engine():
    """The jitted engine steps, built once per process (compiled once per seat count)."""
    return (jax.jit(_start_fn), jax.jit(_act_fn), jax.jit(_deck_fn), jax.jit(_bot_key_fn))


def deck(seed: int, hand: int) -> np.ndarray:
    """``# [52] int32``: the permutation hand ``hand`` of the match with ``seed`` deals from."""
    return np.asarray(_engine()[2](np.uint32(seed), np.int32(hand)))


@functools.lru_cache(maxsize=1024)
def bot_key(seed: int, seat: int) -> tuple[int, int]:
    """The two uint32 key words of the bot in ``seat`` (and of a wasm policy in the hero seat)."""
    w0, w1 = np.asarray(_engine()[3](np.uint32(seed), np.int32(seat)), np.uint32).tolist()
    return int(w0), int(w1)


def positions(seats: int, hand: int) -> tuple[int, int, int]:
    """(button, small blind, big blind) of hand ``hand``: the button is seat ``hand mod
    seats``; heads-up the button posts the small blind (as `table.first_positions`)."""
    button = hand % seats
    if seats == 2:
        return button, button, 1 - button
    return button, (button + 1) % seats, (button + 2) % seats


@dataclasses.dataclass
class _View:
    """What `protocol.act_message` reads of a state (host numpy arrays)."""

    _table: tb.Table
    _hand: int
    _decisions: np.ndarray
    _alive: np.ndarray


def _host(tree):
    return jax.tree.map(np.asarray, tree)


# ------------------------------------------------------------------------------- one hand
class Hand:
    """One hand of a line, driven through the engine; ``actions`` are ``[street, seat, code, to,
    added, auto]`` (codes of PROTOCOL §5, ``auto`` why the table acted, or None)."""

    def __init__(self, spec: MatchSpec, seed: int, index: int):
        self.spec, self.index, self.seed = spec, index, seed
        n = spec.seats
        self.deck = deck(seed, index)
        button, sb, bb = positions(n, index)
        start = _engine()[0]
        self._dev = start(np.full(n, spec.stack, np.int32), np.int32(button), np.int32(sb),
                          np.int32(bb), np.int32(spec.small_blind), np.int32(spec.big_blind),
                          np.int32(spec.ante), self.deck)
        self.table, self.legal = _host(self._dev)
        self.actions: list[list] = []
        self.decisions = np.zeros(n, np.int32)
        self._shown = 0
        hole = self.hole_text()
        self.events: list[dict] = [{
            "type": "hand_start", "hand": index, "button": button, "sb": sb, "bb": bb,
            "blinds": [spec.small_blind, spec.big_blind, spec.ante],
            "stacks": [spec.stack] * n, "in_hand": [True] * n, "hole": hole[spec.hero]}]
        self._after_change()

    # ---------------------------------------------------------------------------- reading
    @property
    def over(self) -> bool:
        return bool(self.table.hand_over)

    @property
    def to_act(self) -> int:
        return int(self.table.to_act)

    def hole_text(self) -> list[list[str]]:
        return [[cards.card_text(int(c)) for c in pair] for pair in np.asarray(self.table.hole)]

    def board_text(self) -> list[str]:
        return [cards.card_text(int(c)) for c in np.asarray(self.table.board)]

    def legal_info(self) -> dict:
        return P.legal_info(self.legal)

    def view(self, events=(), **clock) -> dict:
        """The ``act`` message of the seat to act (PROTOCOL §5): ``tournament`` 0, ``hand`` the
        match's hand index; ``clock`` takes ``budget_ns``, ``bank_ns``, ``away``."""
        state = _View(self.table, self.index, self.decisions, np.ones(self.spec.seats, bool))
        return P.act_message(None, state, tournament=0, events=events, legal=self.legal,
                             history=[a[:4] for a in self.actions], **clock)

    # ---------------------------------------------------------------------------- playing
    def apply(self, kind: int, amount: int = 0, auto: str | None = None) -> list:
        """Play one decision of the seat to act (engine rules: a closed raise is a check/call,
        a raise-to is clipped to the legal range); returns the recorded action."""
        if self.over:
            raise ValueError(f"hand {self.index} is over: nobody is to act")
        t, lg = self.table, self.legal
        seat, street, bet = int(t.to_act), int(t.street), int(t.bets[int(t.to_act)])
        kind = int(kind)
        if kind == tb.FOLD:
            code, to = P.FOLD, bet
        elif kind == tb.RAISE and bool(lg.can_raise):
            code = P.RAISE
            to = min(max(int(amount), int(lg.min_raise_to)), int(lg.max_raise_to))
        else:
            call = int(lg.call_amount)
            code, to = (P.CALL if call > 0 else P.CHECK), bet + call
        self._dev = _engine()[1](self._dev[0], np.int32(kind), np.int32(amount))
        self.table, self.legal = _host(self._dev)
        action = [street, seat, code, to, to - bet, auto]
        self.actions.append(action)
        self.decisions[seat] += 1
        self.events.append({"type": "action", "street": street, "seat": seat, "code": code,
                            "to": to, "added": to - bet, "auto": auto})
        self._after_change()
        return action

    def replay(self, action) -> None:
        """Apply a stored action again (resuming a line); refuses one that does not fit."""
        street, seat, code, to = (int(x) for x in action[:4])
        if self.over or (street, seat) != (int(self.table.street), self.to_act):
            raise MatchError(f"stored line does not replay: hand {self.index} action "
                             f"{len(self.actions)} is {list(action[:4])}, but the engine waits "
                             f"for street {int(self.table.street)} seat {self.to_act}")
        kind = {P.FOLD: tb.FOLD, P.CHECK: tb.CHECK_CALL, P.CALL: tb.CHECK_CALL}.get(code, tb.RAISE)
        got = self.apply(kind, to, action[5] if len(action) > 5 else None)
        if got[:4] != [street, seat, code, to]:
            raise MatchError(f"stored line does not replay: hand {self.index} action "
                             f"{list(action[:4])} plays as {got[:4]}")

    def _after_change(self) -> None:
        t = self.table
        visible = int(t.revealed)
        board = self.board_text()
        while self._shown < visible:
            upto = 3 if self._shown == 0 else self._shown + 1
            self.events.append({"type": "board", "street": {3: 1, 4: 2, 5: 3}[upto],
                                "cards": board[self._shown:upto]})
            self._shown = upto
        if self.over:
            live = np.asarray(t.in_hand) & ~np.asarray(t.folded)
            hole = self.hole_text()
            if bool(t.showdown):
                self.events.append({"type": "showdown", "cards": [
                    [s, *hole[s]] for s in range(self.spec.seats) if live[s]]})
            self.events.append({"type": "result",
                                "winnings": np.asarray(t.winnings).astype(int).tolist(),
                                "stacks": np.asarray(t.stacks).astype(int).tolist()})

    def record(self) -> dict:
        """The finished hand as stored: cards, actions, chips won per seat (``net``), and what
        the scores and the review read about the hero."""
        if not self.over:
            raise ValueError(f"hand {self.index} is not over")
        t, hero = self.table, self.spec.hero
        net = (np.asarray(t.stacks) - np.asarray(t.start_stacks)).astype(int).tolist()
        folded_on = next((a[0] for a in self.actions if a[1] == hero and a[2] == P.FOLD), None)
        return {"hand": self.index, "button": positions(self.spec.seats, self.index)[0],
                "hole": self.hole_text(), "board": self.board_text(),
                "actions": [list(a) for a in self.actions], "net": net, "hero_net": net[hero],
                "showdown": bool(t.showdown), "revealed": int(t.revealed),
                "hero_folded_on": folded_on, "hero_allin": bool(t.allin[hero])}


# ------------------------------------------------------------------------------------ bots
def _random_decide(view: dict, key: tuple[int, int]) -> tuple[int, int]:
    """Uniform over the offered kinds (fold only when facing a bet; check/call; raise when open),
    a raise-to uniform in the legal range. Both draws are addressed by the decision's
    coordinates like every bot draw (`draws.coordinate_key` of hand, seat, street, decision
    rank; the amount from that key folded with 1), never by a stream."""
    from holdemjax.duplicate import draws

    legal = view["legal"]
    at = draws.coordinate_key(key, view["hand"], view["seat"], view["street"], view["decision"])
    kinds = ([] if legal["check"] else [tb.FOLD]) + [tb.CHECK_CALL]
    if legal["raise"] is not None:
        kinds.append(tb.RAISE)
    kind = kinds[draws.draw_below(at, len(kinds))]
    if kind != tb.RAISE:
        return kind, 0
    lo, hi = legal["raise"]
    return kind, lo + draws.draw_below(draws.fold_in(at, 1), hi - lo + 1)


def bot_decide(name: str, view: dict, key: tuple[int, int]) -> tuple[int, int]:
    """The engine action (kind, raise-to) of registered bot ``name`` for ``view`` (an ``act``
    message). Raises ValueError for an unknown name or for an action that is not legal (a bug
    in the bot: never silently replaced)."""
    if name == RANDOM:
        kind, amount = _random_decide(view, key)
    elif name in tier_names():
        from holdemjax.duplicate import tiers

        kind, amount = tiers.decide(name, view, key)
    else:
        raise ValueError(f"unknown bot {name!r}; registered: {', '.join(bot_names())}")
    kind, amount, legal = int(kind), int(amount), view["legal"]
    ok = kind in (tb.FOLD, tb.CHECK_CALL) or (
        kind == tb.RAISE and legal["raise"] is not None
        and legal["raise"][0] <= amount <= legal["raise"][1])
    if not ok:
        raise ValueError(f"bot {name!r} chose ({kind}, {amount}) at hand {view['hand']} seat "
                         f"{view['seat']}, not legal: {legal}")
    return kind, amount


class BotHero:
    """A registered bot (`bot_names`) in the hero seat, with the hero seat's key."""

    kind = "bot"

    def __init__(self, name: str):
        if name not in bot_names():
            raise ValueError(f"unknown bot {name!r}; registered: {', '.join(bot_names())}")
        self.name = name
        self.source, self.sha256 = name, ""

    def begin(self, spec: MatchSpec, seed: int, match_id: str) -> None:
        self._key = bot_key(seed, spec.hero)

    def new_hand(self, hand: Hand) -> None:
        pass

    def decide(self, hand: Hand):
        if self.name in JAX_BOTS:
            kind, amount = jax_bot_decide(self.name, hand.table, hand.view(), self._key)
        else:
            kind, amount = bot_decide(self.name, hand.view(), self._key)
        return kind, amount, None

    def hand_over(self, hand: Hand, record: dict) -> None:
        pass

    def end(self) -> None:
        pass


# ------------------------------------------------------------------------------ one line
def play_line(store, match_id: str, name: str, hero, *, now: Callable[[], dt.datetime] = utcnow,
              kind: str | None = None, reference: bool = False) -> str:
    """Play participant ``name``'s line from where it stopped to its end.

    ``hero`` decides for the hero seat (`BotHero`, `WasmHero`, `play.PersonHero`: ``begin``,
    ``new_hand``, ``decide -> (kind, amount, auto)``, ``hand_over``, ``end``). A new name joins
    the match (after ``hero.begin`` succeeded, so a policy that fails to load never joins);
    a known one resumes: the stored actions of the unfinished hand are replayed and play goes
    on from the next decision. Every action is saved in its own transaction.

    Returns ``"finished"``, ``"paused"`` (the hero raised `Quit`) or ``"closed"`` (the match
    closed before the line ended: deadline). Raises `MatchError` when the match is closed or
    cannot be joined. ``reference=True`` plays a reference line (closed matches too).
    """
    if not reference:
        store.refresh(match_id, now())
    m = store.match(match_id)
    spec, seed = m.spec, m.seed
    part = store.participant(match_id, name)
    if m.state != "open" and not reference:
        kept = f"; the line of {name!r} is kept as played ({part.status})" if part else ""
        raise MatchError(f"match {match_id} is closed ({m.close_reason}){kept}")
    if part is None:
        store.check_can_join(match_id, name, reference=reference)
    elif part.status != "playing":
        raise MatchError(f"{name!r} already played match {match_id} (line {part.status})")
    elif part.kind != (kind or hero.kind):
        raise MatchError(f"{name!r} in match {match_id} is a {part.kind} participant, not a "
                         f"{kind or hero.kind}")
    elif (part.sha256 != hero.sha256 if part.kind == "wasm" else part.source != hero.source):
        # a line resumes only with the policy that started it (a wasm file: by its hash)
        raise MatchError(f"{name!r} in match {match_id} was started by {part.source} "
                         f"{part.sha256[:12]}; this is {hero.source} {hero.sha256[:12]}")
    hero.begin(spec, seed, match_id)
    try:
        if part is None:
            store.join(match_id, name, kind or hero.kind, hero.source, hero.sha256, now(),
                       reference=reference)
        start, stored = store.progress(match_id, name)
        for h in range(start, spec.hands):
            hand = Hand(spec, seed, h)
            for action in (stored if h == start else ()):
                hand.replay(action)
            hero.new_hand(hand)
            while not hand.over:
                seat = hand.to_act
                if seat == spec.hero:
                    if not reference and store.refresh(match_id, now()) != "open":
                        return "closed"
                    k, amount, auto = hero.decide(hand)
                else:
                    k, amount = bot_decide(spec.tier_at(seat), hand.view(), bot_key(seed, seat))
                    auto = None
                action = hand.apply(k, amount, auto)
                if not store.add_action(match_id, name, h, len(hand.actions) - 1, action):
                    return "closed"  # closed by another process: the line stays as it was
            record = hand.record()
            if not store.finish_hand(match_id, name, record, last=h == spec.hands - 1,
                                     now=now()):
                return "closed"
            hero.hand_over(hand, record)
    except Quit:
        return "paused"
    finally:
        hero.end()
    if not reference:
        store.refresh(match_id, now())
    return "finished"
