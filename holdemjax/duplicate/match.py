"""A duplicate match: its definition, its deals and bot keys, and one line played hand by hand.

A match fixes the table (seats, blinds, the starting stack of every hand), the number of hands,
the hero seat and a reference bot (a tier of `holdemjax.duplicate.tiers`) in every other seat.
Every participant plays the hero seat of the same hand sequence:

* hand ``h`` deals from ``cards.hand_deck(fold_in(root, DEAL_DOMAIN), h)`` (``root`` =
  `spec.root_key` of the 128-bit seed: ``key(seed)`` for a seed below 2**32) (the engine's
  dealing by fixed index: seat ``s`` holds ``deck[2s], deck[2s+1]``, the board is ``deck[18:23]``);
* the button is at seat ``h mod seats``, every seat is dealt in, every stack starts at ``stack``;
* the bot in seat ``s`` has the key words ``key_data(fold_in(fold_in(root, BOT_DOMAIN), s))``
  for the whole match (`bot_key`); its draws are addressed inside the tier by (hand, seat,
  street, decision rank), so a line that adds a decision elsewhere never shifts them;
* a wasm policy in the hero seat gets the hero seat's key words as its ``seed``.

`Hand` is one hand of a line on the host hand driver (`holdemjax.host.hand.HostHand`: the one
rules engine with exact amounts, jitted once per process; the protocol's history, events and
``act`` message of `holdemjax.series.protocol`), with what the line stores of it. `play_line`
plays or resumes one participant's line through its `seat.Seat` (the store deals it; the seed
stays there), saving every action as it is taken.

The definition and the deals live in `holdemjax.duplicate.spec` (re-exported here).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable

import numpy as np

from holdemjax.duplicate.spec import (
    BOT_DOMAIN,
    DEAL_DOMAIN,
    JAX_BOTS,
    MAX_SEATS,
    MIN_SEATS,
    RANDOM,
    SEED_LIMIT,
    MatchError,
    MatchSpec,
    Quit,
    bot_key,
    bot_names,
    commitment,
    deck,
    new_salt,
    new_seed,
    parse_time,
    positions,
    root_key,
    tier_names,
    utcnow,
    versions,
)
from holdemjax.host.hand import HostHand, lone_start
from holdemjax.host.legal import admitted
from holdemjax.host.loop import Waiting, next_step, play_hand
from holdemjax.poker import table, tournament
from holdemjax.series import protocol

__all__ = ["MIN_SEATS", "MAX_SEATS", "DEAL_DOMAIN", "BOT_DOMAIN", "RANDOM", "MatchSpec",
           "MatchError", "Quit", "tier_names", "bot_names", "commitment", "new_salt", "deck",
           "bot_key", "positions", "Hand", "replay", "bot_decide", "BotHero", "play_line", "utcnow",
           "JAX_BOTS", "jax_bot_decide", "parse_time", "SEED_LIMIT", "new_seed", "root_key",
           "versions"]


@functools.cache
def _jax_bot(name: str):
    from holdemjax.duplicate import rotation

    return rotation.jitted_policy(getattr(rotation, JAX_BOTS[name]))


def jax_bot_decide(name: str, view: tournament.Decision, key) -> tuple[int, int]:
    """The engine action of JAX bot ``name`` at the hero's decision ``view`` (the hand's
    `tournament.Decision`: its per-seat decision counts and bets/raises per street)."""
    from holdemjax.duplicate import draws

    # The game key is fold_in(seat key, tournament 0), as the bundled baseline.wasm derives it
    # from its seed: the JAX baseline and baseline.wasm then play identical lines.
    game_key = np.asarray(draws.fold_in(tuple(key), 0), np.uint32)
    kind, amount = _jax_bot(name)(view.table, np.int32(view.hand), view.decisions,
                                  view.street_raises, game_key)
    return int(kind), int(amount)


# ------------------------------------------------------------------------------- one hand
class Hand(HostHand):
    """One hand of a line, driven through the engine by the host hand driver
    (`holdemjax.host.hand.HostHand` on a lone hand), with what the line stores: ``actions``
    are ``[street, seat, code, to, added, auto]`` (codes of PROTOCOL §5, ``auto`` why the table
    acted, or None); ``events`` what the hero has seen (its own hole cards)."""

    def __init__(self, spec: MatchSpec, seed: int, index: int):
        self.spec = spec
        self.deck = deck(seed, index)
        button, _, _ = positions(spec.seats, index)
        super().__init__(*lone_start(index, self.deck, np.full(spec.seats, spec.stack),
                                     button=button,
                                     blinds=(spec.small_blind, spec.big_blind, spec.ante)))
        self.actions: list[list] = []
        self.events: list[dict] = [{**self.log.start_event(),
                                    "hole": self.log.hole()[spec.hero]}]
        self._after_change()

    # ---------------------------------------------------------------------------- reading
    def hole_text(self) -> list[list[str]]:
        return self.log.hole()

    def board_text(self) -> list[str]:
        return self.log.board_cards()

    def legal_info(self) -> dict:
        return protocol.legal_info(self.legal)

    # ---------------------------------------------------------------------------- playing
    def apply(self, kind: int, amount: int = 0, auto: str | None = None) -> list:
        """Play one decision of the seat to act (`HostHand.apply`); returns the recorded
        action."""
        event = super().apply(kind, amount, auto)
        action = [event["street"], event["seat"], event["code"], event["to"], event["added"],
                  auto]
        self.actions.append(action)
        self.events.append(event)
        self._after_change()
        return action

    def stored_action(self, action) -> tuple[int, int, str | None]:
        """The engine action ``(kind, amount, auto)`` of a stored action, to play again at the
        decision to act now (`replay`); MatchError when it was stored for another one."""
        street, seat, code, to = (int(x) for x in action[:4])
        if self.over or (street, seat) != (int(self.table.street), self.to_act):
            raise MatchError(f"stored line does not replay: hand {self.index} action "
                             f"{len(self.actions)} is {list(action[:4])}, but the engine waits "
                             f"for street {int(self.table.street)} seat {self.to_act}")
        return protocol.kind_of(code), to, action[5] if len(action) > 5 else None

    def check_replayed(self, action, got: list) -> None:
        """MatchError when a stored action played again (``got``) differs from the stored."""
        if got[:4] != [int(x) for x in action[:4]]:
            raise MatchError(f"stored line does not replay: hand {self.index} action "
                             f"{list(action[:4])} plays as {got[:4]}")

    def _after_change(self) -> None:
        self.events += self.board()
        if self.over:
            self.events += self.end()

    def record(self) -> dict:
        """The finished hand as stored: cards, actions, chips won per seat (``net``), and what
        the scores and the review read about the hero."""
        if not self.over:
            raise ValueError(f"hand {self.index} is not over")
        t, hero = self.table, self.spec.hero
        net = (np.asarray(t.stacks) - np.asarray(t.start_stacks)).astype(int).tolist()
        folded_on = next((a[0] for a in self.actions if a[1] == hero and a[2] == protocol.FOLD),
                         None)
        return {"hand": self.index, "button": positions(self.spec.seats, self.index)[0],
                "hole": self.hole_text(), "board": self.board_text(),
                "actions": [list(a) for a in self.actions], "net": net, "hero_net": net[hero],
                "showdown": bool(t.showdown), "revealed": int(t.revealed),
                "hero_folded_on": folded_on, "hero_allin": bool(t.allin[hero])}


def replay(hand: Hand, stored) -> None:
    """Play a line's ``stored`` actions of ``hand`` again through the one loop (resuming a
    line), every seat waiting for its stored action; MatchError for one that does not fit."""
    turns = play_hand(hand, {})
    for action in stored:
        next_step(turns)  # on to the decision to act now (None: the hand is over)
        played = next_step(turns, hand.stored_action(action))
        hand.check_replayed(action, played.played)


# ------------------------------------------------------------------------------------ bots
def _random_decide(view: dict, key: tuple[int, int]) -> tuple[int, int]:
    """Uniform over the offered kinds (fold only when facing a bet; check/call; raise when open),
    a raise-to uniform in the legal range. Both draws are addressed by the decision's
    coordinates like every bot draw (`draws.coordinate_key` of hand, seat, street, decision
    rank; the amount from that key folded with 1), never by a stream."""
    from holdemjax.duplicate import draws

    legal = view["legal"]
    at = draws.coordinate_key(key, view["hand"], view["seat"], view["street"], view["decision"])
    kinds = ([] if legal["check"] else [table.FOLD]) + [table.CHECK_CALL]
    if legal["raise"] is not None:
        kinds.append(table.RAISE)
    kind = kinds[draws.draw_below(at, len(kinds))]
    if kind != table.RAISE:
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
    return admitted(view["legal"], int(kind), int(amount),
                    f"bot {name!r} at hand {view['hand']} seat {view['seat']}")


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
            kind, amount = jax_bot_decide(self.name, hand.decision(), self._key)
        else:
            kind, amount = bot_decide(self.name, hand.view(), self._key)
        return kind, amount, None

    def hand_over(self, hand: Hand, record: dict) -> None:
        pass

    def end(self) -> None:
        pass


# ------------------------------------------------------------------------------ one line
def play_line(store, match_id: str, name: str, hero, *, key: str | None = None,
              now: Callable[[], dt.datetime] = utcnow, kind: str | None = None,
              reference: bool = False, progress: Callable[[int, int], None] | None = None) -> str:
    """Play participant ``name``'s line from where it stopped to its end.

    ``hero`` decides for the hero seat (`BotHero`, `WasmHero`, `play.PersonHero`: ``begin``,
    ``new_hand``, ``decide -> (kind, amount, auto)``, ``hand_over``, ``end``). A new name joins
    the match with ``key`` (None: a fresh one nobody keeps, for a line played in one go),
    after ``hero.begin`` succeeded, so a policy that fails to load never joins; a known one
    resumes with its ``key`` (`store.Store.seat`): the stored actions of the unfinished hand
    are replayed and play goes on from the next decision. Every action is saved in its own
    transaction with the hero's thinking time in this session (ms from ``decide`` called to
    ``decide`` returned). ``progress(hands_done, hands)`` is called after every hand.

    Returns ``"finished"``, ``"paused"`` (the hero raised `Quit`) or ``"closed"`` (the match
    closed before the line ended: deadline). Raises `MatchError` when the match is closed or
    cannot be joined. ``reference=True`` plays a reference line (closed matches too).
    """
    import time

    if not reference:
        store.refresh(match_id, now())
    m = store.match(match_id)
    known = any(p.name == name for p in store.participants(match_id, references=True))
    if m.state != "open" and not reference:
        part = store.participant(match_id, name)
        kept = f"; the line of {name!r} is kept as played ({part.status})" if part else ""
        raise MatchError(f"match {match_id} is closed ({m.close_reason}){kept}")
    if m.spec.simultaneous and getattr(hero, "kind", None) == "person":
        raise MatchError(f"match {match_id} is simultaneous: its hands are dealt to every "
                         "participant at once by the web service (holdemjax duplicate serve)")
    if not known:
        store.check_can_join(match_id, name, reference=reference)
        seat = None
    else:
        seat = store.seat(match_id, name, key, reference=reference)
        part = seat.participant
        if part.status != "playing":
            raise MatchError(f"{name!r} already played match {match_id} (line {part.status})")
        if part.kind != (kind or hero.kind):
            raise MatchError(f"{name!r} in match {match_id} is a {part.kind} participant, not "
                             f"a {kind or hero.kind}")
        if part.sha256 != hero.sha256 if part.kind == "wasm" else part.source != hero.source:
            # a line resumes only with the policy that started it (a wasm file: by its hash)
            raise MatchError(f"{name!r} in match {match_id} was started by {part.source} "
                             f"{part.sha256[:12]}; this is {hero.source} {hero.sha256[:12]}")
    if seat is None:  # the versions are checked before anything joins
        store.joining_seat(match_id).begin_hero(hero)
        key = store.join(match_id, name, kind or hero.kind, hero.source, hero.sha256, now(),
                         key=key, reference=reference)
        seat = store.seat(match_id, name, key, reference=reference)
    else:
        seat.begin_hero(hero)
    spec = m.spec
    try:
        while (hand := seat.hand()) is not None:
            h = hand.index
            hero.new_hand(hand)
            turns = play_hand(hand, seat.players())  # the hero waits: it is timed here
            think = None
            while (step := next_step(turns)) is not None:
                if isinstance(step, Waiting):
                    if not reference and store.refresh(match_id, now()) != "open":
                        return "closed"
                    t0 = time.monotonic()
                    action = hero.decide(hand)
                    think = round(1000 * (time.monotonic() - t0))
                    step = next_step(turns, action)
                if not seat.add_action(h, len(hand.actions) - 1, step.played, think):
                    return "closed"  # closed by another process: the line stays as it was
                think = None
            record = hand.record()
            if not seat.finish_hand(record, last=h == spec.hands - 1, now=now()):
                return "closed"
            hero.hand_over(hand, record)
            if progress is not None:
                progress(h + 1, spec.hands)
    except Quit:
        return "paused"
    finally:
        hero.end()
    if not reference:
        store.refresh(match_id, now())
    return "finished"
