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

import numpy as np

from holdemjax.validate import require_int

__all__ = ["MIN_SEATS", "MAX_SEATS", "DEAL_DOMAIN", "BOT_DOMAIN", "RANDOM", "SEED_LIMIT",
           "JAX_BOTS", "MatchSpec", "MatchError", "Quit", "tier_names", "bot_names",
           "commitment", "new_salt", "deck", "bot_key", "positions", "utcnow", "parse_time",
           "root_key", "new_seed", "match_seed", "versions", "LEGACY_SEED_LIMIT"]

MIN_SEATS, MAX_SEATS = 2, 9
DEAL_DOMAIN, BOT_DOMAIN = 0, 1  # fold_in(key(seed), domain): decks and bot keys never share keys
RANDOM = "random"  # the registered bot that is not a tier: uniform over the offered kinds
SEED_LIMIT = 2**128  # seeds are 128-bit (`root_key`); a seed below 2**32 deals as it always did
LEGACY_SEED_LIMIT = 2**32  # seeds of matches created before 128-bit seeds


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
    seat order, or one tier for all (a tier alone or a list of one; empty: every other seat
    plays ``"intermediate"``). ``participants``: how many
    may join (the match closes once they all finished); ``None``: open until `close` or the
    deadline. ``deadline``: ISO 8601 UTC, or ``None``. ``simultaneous``: every participant plays
    hand k at the same time, once the field is complete (``participants`` joined, or the field
    closed); hand k+1 opens for all when every line finished hand k, a line that takes longer
    than ``clock`` seconds over a hand having the rest of it played by the table's rule
    (`holdemjax.host.legal.default_action`: check when free, else fold)."""

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
    simultaneous: bool = False
    clock: int = 120

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
        if not isinstance(self.simultaneous, bool):
            raise ValueError(f"simultaneous must be true or false, got {self.simultaneous!r}")
        require_int("clock", self.clock, 5, 86_400)
        bots = (self.bots,) if isinstance(self.bots, str) else tuple(self.bots)
        bots = bots * (self.seats - 1) if len(bots) == 1 else bots  # one tier for all
        bots = bots or ("intermediate",) * (self.seats - 1)
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
        bots = d.get("bots", ())
        return cls(**{**d, "bots": bots if isinstance(bots, str) else tuple(bots)})


def commitment(seed: int, salt: str) -> str:
    """SHA-256 (hex) of the ASCII text ``"<salt>:<seed>"`` (seed in decimal): what is published
    at creation. Check by hand: ``printf '%s' "$SALT:$SEED" | sha256sum``."""
    return hashlib.sha256(f"{salt}:{int(seed)}".encode("ascii")).hexdigest()


def new_salt() -> str:
    """128 random bits as 32 hex digits (so the commitment cannot be searched seed by seed)."""
    return secrets.token_hex(16)


# ----------------------------------------------------------------------- keys, decks, seats
@functools.cache
def _programs():
    """The deck and bot-key programs, jitted at first use: importing the spec (as the store
    does) loads no JAX."""
    import jax

    from holdemjax.poker import cards

    def deck_of(root, hand):
        key = jax.random.wrap_key_data(root, impl="threefry2x32")
        return cards.hand_deck(jax.random.fold_in(key, DEAL_DOMAIN), hand)

    def bot_key_of(root, seat):
        key = jax.random.wrap_key_data(root, impl="threefry2x32")
        return jax.random.key_data(jax.random.fold_in(jax.random.fold_in(key, BOT_DOMAIN), seat))

    return jax.jit(deck_of), jax.jit(bot_key_of)


def new_seed() -> int:
    """A fresh 128-bit seed (`secrets`)."""
    return secrets.randbits(128)


def match_seed(seed: int | None) -> int:
    """The seed a new match deals from: ``seed`` checked (an int below `SEED_LIMIT`), or a
    fresh one (`new_seed`) for None."""
    return new_seed() if seed is None else require_int("seed", seed, 0, SEED_LIMIT - 1)


@functools.lru_cache(maxsize=256)
def root_key(seed: int) -> tuple[int, int]:
    """The two key words every deck and bot key of the match derives from.

    A seed below 2**32 (every match made before seeds were 128-bit) keeps its old root,
    ``key_data(jax.random.key(seed)) = (0, seed)``, so its decks and bot lines are unchanged.
    A larger seed, split into 32-bit words ``w0`` (lowest) .. ``w3``, roots at
    ``fold_in(fold_in(fold_in((0, w0), w1), w2), w3)`` (threefry, `draws.fold_in`): all 128
    bits reach the key.
    """
    from holdemjax.duplicate import draws

    seed = require_int("seed", seed, 0, SEED_LIMIT - 1)
    words = [(seed >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
    key = (0, words[0])
    if seed >= LEGACY_SEED_LIMIT:
        for w in words[1:]:
            key = draws.fold_in(key, w)
    return key


def deck(seed: int, hand: int) -> np.ndarray:
    """``# [52] int32``: the permutation hand ``hand`` of the match with ``seed`` deals from."""
    deck_of, _ = _programs()
    return np.asarray(deck_of(np.asarray(root_key(seed), np.uint32), np.int32(hand)))


@functools.lru_cache(maxsize=1024)
def bot_key(seed: int, seat: int) -> tuple[int, int]:
    """The two uint32 key words of the bot in ``seat`` (and of a wasm policy in the hero seat)."""
    root = np.asarray(root_key(seed), np.uint32)
    _, bot_key_of = _programs()
    w0, w1 = np.asarray(bot_key_of(root, np.int32(seat)), np.uint32).tolist()
    return int(w0), int(w1)


def positions(seats: int, hand: int) -> tuple[int, int, int]:
    """(button, small blind, big blind) of hand ``hand``: the button is seat ``hand mod
    seats``; heads-up the button posts the small blind (as `table.first_positions`)."""
    button = hand % seats
    if seats == 2:
        return button, button, 1 - button
    return button, (button + 1) % seats, (button + 2) % seats


# ---------------------------------------------------------------------------------- versions
#: What a line's play depends on besides the seed, by the package files it is read from: the
#: rules engine, the bots (tiers and draws, the JAX bots and the tiers' constants, this deal),
#: the host's hand driver and its legality check, and the preflop table the tiers read. A
#: match records their checksums at creation and deals no line under others (`versions`).
VERSION_SOURCES = {
    "engine": ("holdemjax.poker", None),
    "bots": ("holdemjax.duplicate", ("spec.py", "tiers.py", "draws.py", "match.py",
                                     "policy.py")),
    "jax_bots": ("holdemjax.bots", None),
    "host_driver": ("holdemjax.series", ("turn.py", "protocol.py")),
    "host": ("holdemjax.host", None),
}


def _digest(package: str, names) -> str:
    import importlib.resources

    root = importlib.resources.files(package)
    files = sorted(names or (f.name for f in root.iterdir() if f.name.endswith(".py")))
    h = hashlib.sha256()
    for name in files:
        h.update(name.encode() + b"\0" + root.joinpath(name).read_bytes() + b"\0")
    return h.hexdigest()


@functools.cache
def versions() -> dict:
    """``{"engine", "bots", "jax_bots", "host_driver", "host", "preflop_table"}``: SHA-256 of the
    sources each part is read from (`VERSION_SOURCES`) and of the preflop data file."""
    from holdemjax.bots import baseline

    out = {part: _digest(pkg, names) for part, (pkg, names) in VERSION_SOURCES.items()}
    out["preflop_table"] = hashlib.sha256(baseline.PREFLOP_PATH.read_bytes()).hexdigest()
    return out
