"""The pre-flop explorer's computation: a policy's 169-hand grid at any position, after an
action sequence up to `MAX_DEPTH` actions deep, at a chosen stack and tournament stage, and the
range each earlier actor is left with.

States are built with the engine, as `preflop_grid` builds its first-in states: a hand of a
fresh tournament (the stage's players in seats 0..P-1, every stack ``stack_bb`` big blinds, the
first hand of the blind level), the combo placed in the deck at the seat that will decide, then
the sequence's menu actions through `env.step`. A decision sees only its own cards, so each
class is averaged over its suit combos (6, 4 or 12).

One call (`Explorer.grid`) runs one jitted program, one per policy (stage, position and
actions are data): the *line* on one state (the sequence through `env.step`: who acts at each
step, what is legal there, where it ends) and, at each of its decisions, all 1,326 combos dealt
to the seat that decides (the same deal with two cards swapped in, `table.start_hand`), the
policy asked once over the whole batch.

A policy that returns probabilities over the menu is read exactly; one that returns an action
is sampled with ``num_keys`` keys per combo (`ExplorePolicy.exact` says which).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker import table as tb
from holdemjax.poker.actions import CHECK_CALL, FOLD
from holdemjax.poker.structure import blinds_at
from holdemjax.training.preflop_grid import cell_class, class_combos
from holdemjax.validate import require_int

__all__ = ["MAX_DEPTH", "ALL_POSITIONS", "ExplorePolicy", "Stage", "Step", "Line", "Grid",
           "Explorer", "positions", "combo_table", "action_names", "ExploreError"]

MAX_DEPTH = 8  # actions in a sequence, at most
ALL_POSITIONS = ("UTG", "HJ", "CO", "BTN", "SB", "BB")  # six-max, in pre-flop order
MAX_STACK_BB = 1000


class ExploreError(ValueError):
    """A request the explorer refuses (unknown policy, bad stage, illegal sequence): its text is
    one sentence for the page, the API and the command."""


@dataclasses.dataclass(frozen=True)
class ExplorePolicy:
    """A policy the explorer reads: ``fn(params, state, key)`` returns probabilities over the
    menu (``exact``) or a menu action id (sampled with ``num_keys`` keys per combo)."""

    name: str
    env: object
    fn: Callable
    params: object
    exact: bool
    description: str = ""
    num_keys: int = 32


def positions(players: int) -> tuple[str, ...]:
    """The position names of ``players`` seats in pre-flop order (heads-up: SB is the button)."""
    return ALL_POSITIONS[len(ALL_POSITIONS) - players:]


def _preflop_seats(players: int) -> tuple[int, ...]:
    """The seat of each of `positions`: seats 0..P-1 play, the button on seat P-1
    (`table.first_positions`), the blinds on seats 0 and 1; heads-up the button (seat 1) is
    the small blind."""
    if players == 2:
        return (1, 0)
    return tuple((2 + i) % players for i in range(players))


def action_names(menu) -> tuple[str, ...]:
    """Lower-case menu names: fold, call, min_raise, raise_0.5_pot, ..., all_in."""
    return tuple(n.lower().replace("check_call", "call") for n in menu.names())


@dataclasses.dataclass(frozen=True)
class Stage:
    """Where the hand is played: every live stack in big blinds, the blind level (1-based),
    the players left (2..seats)."""

    stack_bb: int = 50
    level: int = 1
    players: int = 6

    def check(self, env) -> Stage:
        """This stage, or `ExploreError` naming the value out of range for ``env``."""
        fmt = env.format
        levels = min(int(fmt.num_levels),
                     -(-int(fmt.hand_cap) // int(fmt.hands_per_level)))
        for name, value, top in (("stack", self.stack_bb, MAX_STACK_BB),
                                 ("level", self.level, levels),
                                 ("players", self.players, env.num_players)):
            low = 2 if name == "players" else 1
            try:
                require_int(name, value, low, top, what=f"an int in {low}..{top}")
            except ValueError as err:
                raise ExploreError(str(err)) from err
        return self

    def hand_index(self, env) -> int:
        """The first hand of the level."""
        return (self.level - 1) * int(env.format.hands_per_level)


@dataclasses.dataclass(frozen=True)
class Step:
    """One action of a sequence: who took it and what it was (raise-to in chips, 0 if none)."""

    position: str
    action: str
    raise_to: int


@dataclasses.dataclass(frozen=True)
class Line:
    """A sequence played on one state: its steps, the deciding position, what it may do
    (menu names -> raise-to in chips), the blinds and the pot."""

    steps: tuple[Step, ...]
    position: str
    legal: dict
    big_blind: int
    pot: int


@dataclasses.dataclass(frozen=True)
class Grid:
    """The deciding seat's shares and the earlier actors' ranges, by class ``# [169]`` in
    `preflop_grid.cell_class` numbering. ``shares`` ``# [169, A]``: the policy's probability of
    each menu action; ``combos`` ``# [1326, A]`` the same by combo (`combo_table`);
    ``ranges`` ``# [d, 169]``: the weight each class keeps after step i, for the step's
    actor (its probability of every action it took so far in the sequence); ``reach``
    ``# [169]``: the deciding seat's own weight entering its decision (1 unless it acted
    before). ``seconds``: the grid program's run (compile excluded unless ``compiled``)."""

    line: Line
    shares: np.ndarray
    combos: np.ndarray
    ranges: np.ndarray
    reach: np.ndarray
    exact: bool
    samples: int
    seconds: float
    compiled: bool


@functools.cache
def combo_table() -> tuple[np.ndarray, np.ndarray]:
    """(cards ``# [1326, 2] int32``, class ``# [1326] int32``) in grid order."""
    cards, classes = [], []
    for row in range(13):
        for col in range(13):
            for combo in class_combos(row, col):
                cards.append(combo), classes.append(cell_class(row, col))
    return np.array(cards, np.int32), np.array(classes, np.int32)


def _class_mean(values: np.ndarray) -> np.ndarray:
    """``# [1326, ...] -> [169, ...]``: the mean over each class's combos."""
    _, classes = combo_table()
    total = np.zeros((169, *values.shape[1:]))
    np.add.at(total, classes, values)
    return total / np.bincount(classes, minlength=169).reshape(-1, *[1] * (values.ndim - 1))


def _place(deck, card, pos):
    """Swap ``card`` into deck position ``pos`` (the deck stays a permutation)."""
    where = jnp.argmax(deck == card)
    return deck.at[where].set(deck[pos]).at[pos].set(card)


def _deal(env, key, players, hand, stack_bb):
    """The stage's hand dealt from ``key``: a decision state, and the `table.start_hand`
    arguments (everything but the deck) that deal it."""
    state = env.init(key)
    tour = env.tournament(state)
    n = env.num_players
    alive = jnp.arange(n) < players
    small, big, ante = blinds_at(tour.format, hand)
    button, sb, bb, sb_posts = tb.first_positions(alive, players - 1)
    stacks = jnp.where(alive, stack_bb * big, 0).astype(jnp.int32)
    args = (stacks, alive, button, sb, bb, sb_posts, small, big, ante)
    deck = jax.random.permutation(jax.random.fold_in(key, 1), 52).astype(jnp.int32)
    place = jnp.where(alive, 0, n - jnp.arange(n)).astype(jnp.int32)  # the busted: last places
    score = jnp.where(alive, 0.0, tour.format.payouts[jnp.maximum(place - 1, 0)])
    tour = tour.replace(table=tb.start_hand(*args, deck), hand=jnp.int32(hand), alive=alive,
                        place=place, score=score.astype(jnp.float32))
    return env.advance(env.with_tournament(state, tour)), args, deck


def _with_cards(env, state, args, deck, seat, cards):
    """``state`` (a decision of the stage's hand) with ``cards`` dealt to ``seat``: the deck
    with the two cards swapped in, dealt by `table.start_hand` (hole cards, board, strengths),
    and the observation of the player to act made again. The actions so far do not depend on
    the cards, so this is the state the same actions reach from that deal."""
    deck = _place(_place(deck, cards[0], 2 * seat), cards[1], 2 * seat + 1)
    dealt = tb.start_hand(*args, deck)
    tour = env.tournament(state)
    table = tour.table.replace(hole=dealt.hole, board=dealt.board, strength=dealt.strength)
    state = env.with_tournament(state, tour.replace(table=table))
    return state.replace(observation=env.observe(state, state.current_player))


@functools.lru_cache(maxsize=32)
def _program(env, fn, exact: bool, num_keys: int):
    """Jitted ``(params, key, players, hand, stack_bb, actions # [MAX_DEPTH], count, target)
    -> dict``: the line on one state (the actions, then folds until seat ``target`` decides
    when ``target >= 0``; at each of the MAX_DEPTH + 1 decisions its seat, mask, raise-to
    amounts, street, pot and whether the hand was over) and ``probs`` ``# [MAX_DEPTH + 1,
    1326, A]``: at decision ``g``, every combo dealt to its seat, the policy's probabilities.
    One program per policy: stage, actions and position are data."""
    cards, _ = combo_table()

    @jax.jit
    def run(params, key, players, hand, stack_bb, actions, count, target):
        start, args, deck = _deal(env, key, players, hand, stack_bb)

        def record(state):
            tour = env.tournament(state)
            t = tour.table
            _, amounts = env.menu.mask_and_amounts(t, tb.legal(t))
            over = state.terminated | state.truncated | t.hand_over | (tour.hand != hand)
            return dict(seat=t.to_act, mask=state.legal_action_mask, amounts=amounts,
                        street=t.street, pot=tb.pot_total(t), over=over)

        def body(carry, i):
            state, steps = carry
            now = record(state)
            fill = (i >= count) & (target >= 0) & (now["seat"] != target)
            action = jnp.where(i < count, actions[i], FOLD)
            # the steps stop at the first one not taken, and at the end of the hand
            go = ((i < count) | fill) & (steps == i) & ~now["over"]
            stepped = env.step(state, action)
            nxt = jax.tree.map(lambda a, b: jnp.where(go, a, b), stepped, state)
            return (nxt, steps + go), (state, now, jnp.where(go, action, -1))

        (last, steps), (states, rec, taken) = jax.lax.scan(
            body, (start, jnp.int32(0)), jnp.arange(MAX_DEPTH))
        states = jax.tree.map(lambda r, x: jnp.concatenate([r, x[None]]), states, last)
        rec = jax.tree.map(lambda r, x: jnp.concatenate([r, x[None]]), rec, record(last))

        def decision(state, seat):  # every combo at the decision's seat
            return jax.vmap(_with_cards, in_axes=(None, None, None, None, None, 0))(
                env, state, args, deck, jnp.maximum(seat, 0), jnp.asarray(cards))

        rows = jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]),
                            jax.vmap(decision)(states, rec["seat"]))
        n = (MAX_DEPTH + 1) * len(cards)
        keys = jax.vmap(lambda i: jax.random.key_data(jax.random.fold_in(key, i)))(
            jnp.arange(n))
        if exact:
            probs = jax.vmap(fn, in_axes=(None, 0, 0))(params, rows, keys)
        else:
            def one_key(k):
                ks = jax.vmap(lambda x: jax.random.key_data(jax.random.fold_in(
                    jax.random.wrap_key_data(x), k)))(keys)
                picks = jax.vmap(fn, in_axes=(None, 0, 0))(params, rows, ks)
                return jax.nn.one_hot(picks, env.num_actions)

            probs = jax.lax.map(one_key, jnp.arange(num_keys) + 7).mean(0)
        probs = probs.astype(jnp.float32).reshape(MAX_DEPTH + 1, len(cards), -1)
        return dict(rec, taken=taken, steps=steps, probs=probs,
                    big_blind=env.tournament(start).table.big_blind)

    return run


class Explorer:
    """A policy's pre-flop explorer: `line` plays a sequence on one state, `grid` computes the
    deciding seat's shares and the earlier actors' ranges (one grid program per depth)."""

    def __init__(self, policy: ExplorePolicy, seed: int = 0):
        self.policy = policy
        self.env = policy.env
        self.names = action_names(self.env.menu)
        self.key = jax.random.key(seed)
        self._ran: set = set()  # the programs that ran (compiled) already

    def action_ids(self, actions) -> list[int]:
        """Menu ids of ``actions`` (names of `action_names`, ``check``, or ids)."""
        ids = []
        for a in actions:
            name = str(a).strip().lower()
            name = "call" if name == "check" else name
            if name in self.names:
                ids.append(self.names.index(name))
            elif name.isdigit() and int(name) < len(self.names):
                ids.append(int(name))
            else:
                raise ExploreError(f"unknown action {str(a)!r}; actions: check, "
                                   f"{', '.join(self.names)}")
        if len(ids) > MAX_DEPTH:
            raise ExploreError(f"a sequence holds at most {MAX_DEPTH} actions, got {len(ids)}")
        return ids

    def grid(self, stage: Stage, actions=(), position: str | None = None) -> Grid:
        """The grid of the seat deciding after ``actions`` (menu names from the first pre-flop
        decision), then folds until ``position`` decides when it is given: one program call.
        `ExploreError` when a step is illegal, pre-flop betting closes or the hand ends
        first, or ``position`` does not decide there."""
        stage.check(self.env)
        names = positions(stage.players)
        target = -1
        if position is not None:
            if position not in names:
                raise ExploreError(f"position {position!r} does not play with {stage.players} "
                                   f"players; positions: {', '.join(names)}")
            target = _preflop_seats(stage.players)[names.index(position)]
        ids = self.action_ids(actions)
        padded = np.zeros(MAX_DEPTH, np.int32)
        padded[:len(ids)] = ids
        p = self.policy
        run = _program(self.env, p.fn, p.exact, p.num_keys)
        compiled = run not in self._ran
        began = time.perf_counter()
        out = run(p.params, self.key, jnp.int32(stage.players),
                  jnp.int32(stage.hand_index(self.env)), jnp.int32(stage.stack_bb),
                  jnp.asarray(padded), jnp.int32(len(ids)), jnp.int32(target))
        out = jax.device_get(jax.block_until_ready(out))
        seconds = time.perf_counter() - began
        self._ran.add(run)
        line = self._line(out, stage, len(ids), position)
        depth = len(line.steps)
        probs = np.asarray(out["probs"][:depth + 1], np.float64)
        seats = [int(x) for x in out["seat"][:depth + 1]]
        weight = {seat: np.ones(probs.shape[1]) for seat in seats}
        ranges = []
        for i, seat in enumerate(seats[:-1]):
            weight[seat] = weight[seat] * probs[i, :, int(out["taken"][i])]
            ranges.append(_class_mean(weight[seat]))
        return Grid(line, _class_mean(probs[depth]), probs[depth],
                    np.array(ranges).reshape(depth, 169), _class_mean(weight[seats[depth]]),
                    p.exact, 1 if p.exact else p.num_keys, seconds, compiled)

    def _line(self, out, stage: Stage, count: int, position: str | None) -> Line:
        """The program's line as `Line`, or `ExploreError` saying where it went wrong."""
        where = dict(zip(_preflop_seats(stage.players), positions(stage.players)))
        depth = int(out["steps"])
        steps = []
        for i in range(depth + 1):
            who = where.get(int(out["seat"][i]), "nobody")
            if out["over"][i] or out["street"][i] != tb.PREFLOP:
                ended = "the hand is over" if out["over"][i] else "pre-flop betting is closed"
                said = "the blinds" if i == 0 else f"action {i}"
                if position is not None and i >= count:
                    raise ExploreError(f"{position} does not decide after those actions "
                                       f"({ended} after {said})")
                raise ExploreError(f"{ended} after {said}: nobody decides pre-flop there")
            if i == depth:
                break
            a = int(out["taken"][i])
            if not out["mask"][i][a]:
                legal = [self._word(out, i, k) for k in np.flatnonzero(out["mask"][i])]
                raise ExploreError(f"action {i + 1} ({self.names[a]}) is not legal for {who} "
                                   f"there; legal: {', '.join(legal)}")
            steps.append(Step(who, self._word(out, i, a), int(out["amounts"][i][a])))
        deciding = where[int(out["seat"][depth])]
        if position is not None and deciding != position:
            raise ExploreError(f"{position} does not decide after those actions within "
                               f"{MAX_DEPTH} actions ({deciding} does)")
        legal = {self._word(out, depth, k): int(out["amounts"][depth][k])
                 for k in np.flatnonzero(out["mask"][depth])}
        return Line(tuple(steps), deciding, legal, int(out["big_blind"]), int(out["pot"][depth]))

    def _word(self, out, i, action) -> str:
        """The menu name of ``action`` at step ``i``; a free call is ``check``."""
        if action == CHECK_CALL and not out["mask"][i][FOLD]:
            return "check"
        return self.names[action]
