"""Reference policies in pure JAX: the random bot and the scripted baseline.

Every bot is ``act(env, state, key) -> int32 action`` (a legal menu action of the player to
act), where ``key`` is the bot's per-game key: its draws are addressed by the coordinates of the
decision (``coordinate_key``), never by a stream. ``act`` reads only the decision's public view,
``decide(menu, view, mask, key)`` on ``env.decision(state)`` (a
`holdemjax.poker.tournament.Decision`), so the same bot plays lone hands (seat rotation) too.
``play`` runs a batch of games to the end with a bot per player id (jit and vmap inside).
Each bot's ``policy(env, state)`` is the exact distribution of its ``act`` over the menu
(`POLICIES`; `known_policy` finds it for an ``act`` bound to an env): the luck estimator's
action corrections (`holdemjax.luck.action_luck`) need it.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from holdemjax import luck as holdemjax_luck
from holdemjax.bots import baseline, random_bot
from holdemjax.bots.random_bot import coordinate_key, coordinates, decision_rank, draw_below

__all__ = [
    "baseline",
    "random_bot",
    "coordinate_key",
    "coordinates",
    "decision_rank",
    "draw_below",
    "BOTS",
    "POLICIES",
    "known_policy",
    "play",
]

#: Bots by name, in the order ``play`` numbers them (0 = random, 1 = baseline).
BOTS = {"random": random_bot.act, "baseline": baseline.act}

#: Each bot's ``policy(env, state) -> # [A] float32``: the distribution of its ``act``.
POLICIES = {"random": random_bot.policy, "baseline": baseline.policy}
_POLICY_OF_ACT = {random_bot.act: random_bot.policy, baseline.act: baseline.policy}


def known_policy(fn):
    """``policy(state) -> # [A] float32`` of a reference bot's ``act`` bound to an env
    (``functools.partial(baseline.act, env)``, what `training.evaluate` is given), else None:
    the probabilities with which ``fn`` picks its menu action."""
    if isinstance(fn, functools.partial) and fn.func in _POLICY_OF_ACT and len(fn.args) == 1 \
            and not fn.keywords:
        return functools.partial(_POLICY_OF_ACT[fn.func], fn.args[0])
    return None


@functools.partial(jax.jit, static_argnames=("env", "num_games", "luck", "rollouts"))
def play(env, key, num_games: int, bot_of_player, max_steps=1_000_000, luck: bool = False,
         rollouts: int = 0):
    """Play ``num_games`` games of ``env`` to the end (jitted; vmap over games, one while loop).

    ``env`` and ``num_games`` are static: one compilation per (env, batch size).

    Args:
      key: game ``g`` uses env key ``fold_in(fold_in(key, 0), g)`` and bot key
        ``fold_in(fold_in(key, 1), g)``.
      bot_of_player: ``# [num_players] int32``, the bot index (``BOTS`` order) of each player id
        (may be traced: one compiled function serves every line-up).
      max_steps: bound on the steps of the loop (traced); a small bound gives mid-game states.
      luck: (static) also each game's luck by player id (`holdemjax.luck.step_luck` beside
        every step, drawn with ``fold_in(fold_in(key, 2), g)``, with every decision's action
        correction from the acting bot's `POLICIES`): ``scores - luck`` are the scores with
        the luck of the cards and of the bots' draws taken out, the same expectation
        (docs/luck.md).
      rollouts: (static, with ``luck``) the chance corrections under the value that sees play
        instead (`holdemjax.luck.rollout`: every deal and every board card, the rest of the
        hand played out by the line-up's own bots, ``rollouts`` completions a side; no action
        terms): slower, and with enough completions it takes out more (docs/luck.md).
    Every bot's action is computed at every decision (under ``vmap`` a switch would run them all
    anyway), so the run also audits them all.
    Returns a dict: ``states`` (the batch when the loop stopped), ``scores # [G, num_players]
    float32`` (sum of rewards, by player id), ``steps # [G] int32`` (decisions per game),
    ``illegal # [num_bots] int32`` (masked picks of each bot over all decisions, whoever played
    them) and ``decisions # [] int32``; with ``luck``, ``luck # [G, num_players] float32`` and
    ``luck_by_event # [G, 5, num_players]`` (a row per kind of event, `holdemjax.luck.EVENTS`).
    """
    bots = tuple(BOTS.values())
    bot_of_player = jnp.asarray(bot_of_player, jnp.int32)
    games = jnp.arange(num_games)
    env_keys = jax.vmap(lambda g: jax.random.fold_in(jax.random.fold_in(key, 0), g))(games)
    bot_keys = jax.vmap(lambda g: jax.random.fold_in(jax.random.fold_in(key, 1), g))(games)

    def one_action(state, bot_key):
        picks = jnp.stack([bot(env, state, bot_key) for bot in bots])  # [num_bots]
        chosen = picks[bot_of_player[state.current_player]]
        live = ~(state.terminated | state.truncated)
        illegal = (~state.legal_action_mask[picks] & live).astype(jnp.int32)
        return chosen, illegal, live.astype(jnp.int32)

    def one_policy(state):  # the acting bot's probabilities over the menu
        return jnp.stack([p(env, state) for p in POLICIES.values()])[
            bot_of_player[state.current_player]]

    luck_keys = jax.vmap(lambda g: jax.random.fold_in(jax.random.fold_in(key, 2), g))(games)
    if rollouts and not luck:
        raise ValueError(f"rollouts={rollouts!r} needs luck=True")

    def line_up(state, bot_key):  # the rollouts' policy: each player's own bot
        return one_action(state, bot_key)[0]

    def body(carry):
        states, scores, steps, illegal, decisions, lk, i = carry
        actions, bad, live = jax.vmap(one_action)(states, bot_keys)
        nxt = jax.vmap(env.step)(states, actions)
        if luck and rollouts:
            lk = lk + holdemjax_luck.games_rollout_step_luck(env, line_up, states, actions, nxt,
                                                             luck_keys, i, rollouts)
        elif luck:
            probs = jax.vmap(one_policy)(states)
            lk = lk + holdemjax_luck.games_step_luck(env, states, actions, luck_keys, probs)
        return (nxt, scores + nxt.rewards, steps + live, illegal + bad.sum(0),
                decisions + live.sum(), lk, i + 1)

    def cond(carry):
        states, i = carry[0], carry[-1]
        return (~(states.terminated | states.truncated)).any() & (i < max_steps)

    states = jax.vmap(env.init)(env_keys)
    n = env.num_players
    lk = jnp.zeros((), jnp.float32)  # nothing carried without luck
    if luck and rollouts:
        lk = holdemjax_luck.games_rollout_first_luck(env, line_up, states, luck_keys, rollouts)
    elif luck:
        lk = holdemjax_luck.games_first_luck(env, states, luck_keys)
    carry = (states, jnp.zeros((num_games, n), jnp.float32), jnp.zeros(num_games, jnp.int32),
             jnp.zeros(len(bots), jnp.int32), jnp.int32(0), lk, jnp.int32(0))
    states, scores, steps, illegal, decisions, lk, _ = jax.lax.while_loop(cond, body, carry)
    out = dict(states=states, scores=scores, steps=steps, illegal=illegal, decisions=decisions)
    if luck:
        out.update(luck=lk.sum(axis=1), luck_by_event=lk)
    return out
