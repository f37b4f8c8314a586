"""Drills (docs/explore.md): spots dealt from real tournaments of a policy against a panel
opponent, the person's action graded by the policy.

`Drill` plays ``2 * samples`` sit & go games of the policy against five copies of the panel
opponent (`holdemjax.training.panel.opponent`), the policy in player id ``g % 6`` of game ``g``
(seat rotation, as `training.evaluate`), and keeps up to ``capacity`` of the policy's decision
states per game, every street, by reservoir sampling (each decision kept with the same
probability; seeded). Spots are drawn from them with a seeded generator.

A grade (`Drill.grade`) is, at the spot's state:

- the policy's probability of the person's action: its masked distribution read exactly where
  the policy returns one (`ExplorePolicy.exact`), else the share of ``num_keys`` draws;
- the value of the person's action and of the policy's most likely one under the luck module's
  rollout value: the action taken on ``samples`` completions of the board (the cards nobody
  holds; the holes as dealt), the rest of the hand played out by the line-up (the policy in its
  seat, the panel opponent in the others) as `luck.rollout_value` plays it (until the next
  hand's first decision or the game's end), valued at the hand's end in chips (the person's
  stack then) and in tournament score (`luck.settled_value`, the value `rollout_value` gives:
  ICM of the stacks over the open places, the places of busts). Both actions share the
  completions and the rollouts' keys (common random numbers), so the same action differs by
  exactly zero.

The tournaments and the rollouts run in one jitted program (`_program`), so a drill compiles
`env.step` once (the rollouts are its own loop, not `rollout_value`'s, for that reason).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.luck.rollout import settled_value
from holdemjax.poker import table as tb
from holdemjax.poker.actions import CHECK_CALL, FOLD
from holdemjax.poker.cards import NUM_CARDS
from holdemjax.training import panel
from holdemjax.training.explore import ExploreError, ExplorePolicy, action_names
from holdemjax.validate import require_int

__all__ = ["Drill", "Spot", "Grade", "STREETS", "MAX_STEPS"]

STREETS = ("pre-flop", "flop", "turn", "river")
MAX_STEPS = 20_000  # decisions of a batch of tournaments, at most (then the pool is what it is)


@dataclasses.dataclass(frozen=True)
class Spot:
    """A decision of the policy in one of the drill's tournaments (host values; ``state`` the
    engine's state on the device)."""

    id: str
    game: int
    state: object
    mask: np.ndarray  # [A] bool legal menu actions
    amounts: np.ndarray  # [A] int32 raise-to of each raise (0 for fold / call)


@dataclasses.dataclass(frozen=True)
class Grade:
    """The person's ``action`` at a spot against the policy's ``best`` (most likely) action:
    ``probability`` the policy's of ``action``; values in chips and tournament score of both
    (`Drill.grade`); ``lost_*`` = best's value less the action's."""

    action: str
    best: str
    probability: float
    probs: dict
    chips: tuple[float, float]  # (action, best)
    score: tuple[float, float]
    agreed: bool

    @property
    def lost_chips(self) -> float:
        return self.chips[1] - self.chips[0]

    @property
    def lost_score(self) -> float:
        return self.score[1] - self.score[0]


def _line_up(env, policy: ExplorePolicy, params, opponent, hero):
    """``act(state, key) -> (action, probs # [A])`` of the table: the policy at player id
    ``hero`` (a draw from its probabilities when it returns them; ``probs`` are those, zeros
    for a sampled policy), the opponent elsewhere; each decision's key addressed by its hand
    and number (a rollout passes one key for the whole hand)."""

    def act(state, key):
        t = env.tournament(state)
        key = jax.random.key_data(jax.random.fold_in(jax.random.fold_in(
            jax.random.wrap_key_data(key), t.hand), t.table.num_decisions))
        if policy.exact:
            probs = policy.fn(params, state, key).astype(jnp.float32)
            logits = jnp.where(probs > 0, jnp.log(jnp.maximum(probs, 1e-30)), -jnp.inf)
            mine = jax.random.categorical(jax.random.wrap_key_data(key), logits)
        else:
            mine = policy.fn(params, state, key)
            probs = jnp.zeros(env.num_actions, jnp.float32)
        return jnp.where(state.current_player == hero, jnp.asarray(mine, jnp.int32),
                         jnp.asarray(opponent(state, key), jnp.int32)), probs

    return act


def _amounts(env, state):
    t = env.tournament(state).table
    return env.menu.mask_and_amounts(t, tb.legal(t))[1]


def _estimate(env, policy: ExplorePolicy, params, state, key):
    """``# [A]``: the policy's probabilities at ``state`` (exact, or the share of
    ``num_keys`` draws)."""
    if policy.exact:
        return policy.fn(params, state, jax.random.key_data(key)).astype(jnp.float32)
    keys = jax.vmap(lambda i: jax.random.key_data(jax.random.fold_in(key, i)))(
        jnp.arange(policy.num_keys))
    picks = jax.vmap(lambda k: policy.fn(params, state, k))(keys)
    return jax.nn.one_hot(picks, env.num_actions).mean(0)


def _best(probs, mask):
    """``# [B]``: the most likely legal action of each row (the lowest id among ties)."""
    return jnp.argmax(jnp.where(mask, probs, -1.0), axis=1).astype(jnp.int32)


@functools.lru_cache(maxsize=8)
def _program(env, policy: ExplorePolicy, opponent, batch: int, capacity: int):
    """The drill's one jitted program (playing and grading share it, so a drill compiles
    `env.step` once): ``(params, states # [B], fresh # [B], boards # [B, 5], hero # [B],
    first # [B], stop_hand # [B], keys # [B]) -> dict``.

    Row ``b`` starts from ``env.init(keys[b])`` where ``fresh`` (a tournament: played to its
    end, ``stop_hand < 0``, the policy's decisions reservoir-sampled into ``capacity`` slots)
    or from ``states[b]`` with the board ``boards[b]`` (a rollout: its first action ``first``,
    -2 for the policy's most likely one, then played by the line-up until hand ``stop_hand``
    ends). Out: the policy's probabilities at each row's first state, each row's ``chips`` of
    player ``hero`` at the end and its ``score`` (`settled_value`), the reservoir."""
    rows = jnp.arange(batch)

    @jax.jit
    def run(params, states, fresh, boards, hero, first, stop_hand, keys):
        inits = jax.vmap(lambda k: env.init(jax.random.wrap_key_data(k)))(keys)

        def redeal(s, b):
            t = env.tournament(s)
            return env.with_tournament(s, t.replace(table=tb.with_cards(t.table, t.table.hole, b)))

        states = jax.tree.map(lambda a, b: jnp.where(
            fresh.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), inits,
            jax.vmap(redeal)(states, boards))
        mask = states.legal_action_mask
        start = jnp.zeros(mask.shape, jnp.float32)  # exact: read at the first step, below
        if not policy.exact:
            once = jax.random.fold_in(jax.random.wrap_key_data(keys[0]), 7)  # alike for a state
            start = jax.vmap(lambda s: _estimate(env, policy, params, s, once))(states)
        one = jax.tree.map(lambda x: x[0], states)
        buffer = jax.tree.map(lambda x: jnp.zeros((batch, capacity, *x.shape), x.dtype), one)
        amounts = jnp.zeros((batch, capacity, env.num_actions), jnp.int32)

        def going(s):
            hand = env.tournament(s).hand
            return ~(s.terminated | s.truncated) & ((stop_hand < 0) | (hand == stop_hand))

        def body(carry):
            states, start, buffer, amounts, seen, i = carry
            act, probs = jax.vmap(lambda s, k, h: _line_up(env, policy, params, opponent, h)(
                s, k))(states, keys, hero)
            start = jnp.where((i == 0) & policy.exact, jnp.where(mask, probs, 0.0), start)
            forced = jnp.where(first == -2, _best(start, mask), first)
            act = jnp.where((i == 0) & (first != -1), forced, act).astype(jnp.int32)
            live = going(states)
            mine = live & (stop_hand < 0) & (states.current_player == hero)
            n_seen = seen + mine
            draw = jax.vmap(lambda k, n: jax.random.randint(jax.random.fold_in(
                jax.random.wrap_key_data(k), i), (), 0, jnp.maximum(n, 1)))(keys, n_seen)
            slot = jnp.where(n_seen <= capacity, n_seen - 1, draw)
            write = mine & (slot < capacity)
            slot = jnp.clip(slot, 0, capacity - 1)
            buffer = jax.tree.map(lambda b, s: b.at[rows, slot].set(jnp.where(
                write.reshape((-1,) + (1,) * (s.ndim - 1)), s, b[rows, slot])), buffer, states)
            amt = jax.vmap(functools.partial(_amounts, env))(states)
            amounts = amounts.at[rows, slot].set(jnp.where(write[:, None], amt,
                                                           amounts[rows, slot]))
            stepped = jax.vmap(env.step)(states, act)
            states = jax.tree.map(lambda a, b: jnp.where(
                live.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), stepped, states)
            return states, start, buffer, amounts, n_seen, i + 1

        def cond(carry):
            return going(carry[0]).any() & (carry[-1] < MAX_STEPS)

        end, start, buffer, amounts, seen, _ = jax.lax.while_loop(cond, body, (
            states, start, buffer, amounts, jnp.zeros(batch, jnp.int32), jnp.int32(0)))
        et = env.tournament(end)
        seat = et.seat_of[rows, hero]
        moved = et.hand != stop_hand
        chips = jnp.where(moved[:, None], et.table.start_stacks, et.table.stacks)[rows, seat]
        score = jax.vmap(functools.partial(settled_value, env))(end)[rows, hero]
        return dict(probs=start, best=_best(start, mask), chips=chips.astype(jnp.float32),
                    score=score, buffer=buffer, amounts=amounts,
                    kept=jnp.minimum(seen, capacity), seen=seen)

    return run


def _boards(table, rng, count: int) -> np.ndarray:
    """``# [count, 5]``: the board's visible cards kept, the rest drawn (numpy ``rng``) from
    the cards nobody holds: the 52 less every seat position's two and the cards shown (as
    `cards.unseen`), one completion per row."""
    shown = int(table.revealed)
    board = np.asarray(table.board, np.int32)
    allowed = np.ones(NUM_CARDS, bool)
    allowed[np.asarray(table.hole).ravel()] = False
    allowed[board[:shown]] = False
    pool = np.flatnonzero(allowed)
    out = np.tile(board, (count, 1))
    for row in out:
        row[shown:] = rng.choice(pool, 5 - shown, replace=False)
    return out


class Drill:
    """Spots of ``policy`` against five copies of the panel opponent ``panel_name``: a batch
    of ``2 * samples`` tournaments (``capacity`` decisions kept per game), graded with
    ``samples`` paired rollouts per action (the same batch: one program); seeded by ``seed``."""

    def __init__(self, policy: ExplorePolicy, panel_name: str = "baseline", *,
                 capacity: int = 32, samples: int = 16, seed: int = 0):
        for name, value in (("capacity", capacity), ("samples", samples), ("seed", seed)):
            try:
                require_int(name, value, 1 if name != "seed" else 0, what="a whole number")
            except ValueError as err:
                raise ExploreError(str(err)) from err
        self.policy, self.env, self.panel = policy, policy.env, str(panel_name)
        try:
            self.opponent = panel.opponent(self.panel, self.env)
        except (ValueError, OSError) as err:
            raise ExploreError(f"unknown panel opponent {self.panel!r}: {err}") from err
        self.names = action_names(self.env.menu)
        self.samples, self.seed, self.batch = samples, seed, 2 * samples
        self.key = jax.random.key(seed)
        self._run = _program(self.env, policy, self.opponent, self.batch, capacity)
        b = self.batch
        blank = jax.tree.map(lambda x: jnp.zeros((b, *x.shape), x.dtype), self.env.state_shapes)
        keys = jax.vmap(lambda g: jax.random.key_data(jax.random.fold_in(self.key, g)))(
            jnp.arange(b))
        out = self._call(blank, np.ones(b, bool), np.zeros((b, 5), np.int32),
                         np.arange(b) % self.env.num_players, np.full(b, -1), np.full(b, -1),
                         keys)
        self._buffer, self._amounts = out["buffer"], out["amounts"]
        self.decisions = int(out["seen"].sum())
        self.pool = [(g, c) for g in range(b) for c in range(int(out["kept"][g]))]
        if not self.pool:
            raise ExploreError(f"the policy made no decision in {b} tournaments "
                               f"against {self.panel}")
        self._rng = np.random.default_rng(seed)
        # rollout j of the person's action and of the policy's share a key (paired)
        self._rollout_keys = np.asarray(keys)[np.arange(b) % samples]
        self.spots: dict[str, Spot] = {}
        self.answers: list[tuple[Spot, Grade]] = []

    def _call(self, states, fresh, boards, hero, first, stop_hand, keys) -> dict:
        i32 = functools.partial(jnp.asarray, dtype=jnp.int32)
        return jax.device_get(self._run(self.policy.params, states, jnp.asarray(fresh),
                                        i32(boards), i32(hero), i32(first), i32(stop_hand),
                                        keys))

    def state_at(self, g: int, c: int):
        return jax.tree.map(lambda x: jnp.asarray(x[g, c]), self._buffer)

    def deal(self) -> Spot:
        """The next spot (seeded draw from the pool, with replacement)."""
        g, c = self.pool[int(self._rng.integers(len(self.pool)))]
        spot_id = f"{self.seed}-{len(self.spots) + 1}"
        state = self.state_at(g, c)
        spot = Spot(spot_id, g, state, np.asarray(self._buffer.legal_action_mask[g, c]),
                    np.asarray(self._amounts[g, c]))
        self.spots[spot_id] = spot
        return spot

    def spot(self, spot_id: str) -> Spot:
        if spot_id not in self.spots:
            raise KeyError(f"no spot {spot_id!r} was dealt in this drill")
        return self.spots[spot_id]

    def word(self, mask, action: int) -> str:
        """The menu name of ``action``; a free call is ``check``."""
        if action == CHECK_CALL and not mask[FOLD]:
            return "check"
        return self.names[action]

    def legal_words(self, spot: Spot) -> list[str]:
        return [self.word(spot.mask, int(a)) for a in np.flatnonzero(spot.mask)]

    def action_id(self, spot: Spot, word: str) -> int:
        """The menu id of ``word`` at ``spot``; `ExploreError` (with the legal words) if it is
        not a legal action there."""
        legal = self.legal_words(spot)
        name = str(word).strip().lower()
        if name not in legal:
            raise ExploreError(f"{word!r} is not a legal action at spot {spot.id}; legal: "
                               f"{', '.join(legal)}")
        return int(np.flatnonzero(spot.mask)[legal.index(name)])

    def grade_state(self, state, action: int) -> dict:
        """``probs # [A]`` (the policy's at ``state``), ``best`` (its most likely legal
        action), ``chips # [2]`` and ``score # [2]`` of menu ``action`` and of ``best`` for the
        player to act: the means over ``samples`` paired rollouts (the grade's numbers)."""
        k, b = self.samples, self.batch
        t = self.env.tournament(state)
        rng = np.random.default_rng((self.seed, int(t.hand), int(t.table.num_decisions)))
        boards = _boards(t.table, rng, k)
        keys = self._rollout_keys
        states = jax.tree.map(lambda x: jnp.broadcast_to(x, (b, *x.shape)), state)
        out = self._call(states, np.zeros(b, bool), np.concatenate([boards, boards]),
                         np.full(b, int(state.current_player)), [action] * k + [-2] * k,
                         np.full(b, int(t.hand)), keys)
        return dict(probs=out["probs"][0], best=int(out["best"][0]),
                    chips=out["chips"].reshape(2, k).mean(1),
                    score=out["score"].reshape(2, k).mean(1))

    def grade(self, spot_id: str, word: str, record: bool = True) -> Grade:
        """The person's ``word`` at spot ``spot_id`` graded (recorded for the summary)."""
        spot = self.spot(spot_id)
        action = self.action_id(spot, word)
        out = self.grade_state(spot.state, action)
        best = int(out["best"])
        probs = {self.word(spot.mask, int(a)): round(float(out["probs"][a]), 4)
                 for a in np.flatnonzero(spot.mask)}
        grade = Grade(self.word(spot.mask, action), self.word(spot.mask, best),
                      float(out["probs"][action]), probs,
                      (float(out["chips"][0]), float(out["chips"][1])),
                      (float(out["score"][0]), float(out["score"][1])), action == best)
        if record:
            self.answers.append((spot, grade))
        return grade
