"""A duplicate match's definition and what it deals: `MatchSpec`, the seed's commitment, the
decks, the bot keys and the button of each hand (the match's docstring, `holdemjax.duplicate.match`,
states the rules). `holdemjax.duplicate.match` re-exports everything here.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import secrets

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker import cards
from holdemjax.poker import table as tb
from holdemjax.validate import require_int

__all__ = ["MIN_SEATS", "MAX_SEATS", "DEAL_DOMAIN", "BOT_DOMAIN", "RANDOM", "SEED_LIMIT",
           "JAX_BOTS", "MatchSpec", "MatchError", "Quit", "tier_names", "bot_names",
           "commitment", "new_salt", "deck", "bot_key", "positions", "utcnow", "parse_time",
           "engine"]

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


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC (the store's clock)."""
    return dt.datetime.now(dt.UTC)


def parse_time(text: str) -> dt.datetime:
    """An ISO 8601 time (``2026-12-01T18:00``, ``...Z``, ``...+01:00``); naive means UTC."""
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        raise ValueError(f"bad time {text!r}: expected ISO 8601 like 2026-12-01T18:00Z") from None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


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
        require_int("seats", self.seats, MIN_SEATS, MAX_SEATS)
        require_int("hands", self.hands, 1, 100_000)
        require_int("small_blind", self.small_blind, 1)
        require_int("big_blind", self.big_blind, self.small_blind)
        require_int("ante", self.ante, 0)
        require_int("stack", self.stack, 1, 2**31 // MAX_SEATS - 1)  # chips in play fit int32
        require_int("hero", self.hero, 0, self.seats - 1)
        if self.participants is not None:
            require_int("participants", self.participants, 1)
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
    def from_dict(cls, d: dict) -> MatchSpec:
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
def engine():
    """The jitted engine steps, built once per process (compiled once per seat count)."""
    return (jax.jit(_start_fn), jax.jit(_act_fn), jax.jit(_deck_fn), jax.jit(_bot_key_fn))


def deck(seed: int, hand: int) -> np.ndarray:
    """``# [52] int32``: the permutation hand ``hand`` of the match with ``seed`` deals from."""
    return np.asarray(engine()[2](np.uint32(seed), np.int32(hand)))


@functools.lru_cache(maxsize=1024)
def bot_key(seed: int, seat: int) -> tuple[int, int]:
    """The two uint32 key words of the bot in ``seat`` (and of a wasm policy in the hero seat)."""
    w0, w1 = np.asarray(engine()[3](np.uint32(seed), np.int32(seat)), np.uint32).tolist()
    return int(w0), int(w1)


def positions(seats: int, hand: int) -> tuple[int, int, int]:
    """(button, small blind, big blind) of hand ``hand``: the button is seat ``hand mod
    seats``; heads-up the button posts the small blind (as `table.first_positions`)."""
    button = hand % seats
    if seats == 2:
        return button, button, 1 - button
    return button, (button + 1) % seats, (button + 2) % seats
