"""Every decision of a small poker game, walked from given starts: what tells information sets
apart (issue 39 point 2: pgx's Kuhn observation gives two information sets one observation)."""

from __future__ import annotations

import collections

import jax
import numpy as np


def decisions(env, starts, private):
    """``{information set: {observation bytes}}`` over every decision reachable from ``starts``
    (states at their first decision) by every legal line of play. The information set of a
    decision is ``private(state)`` (what the player to act was dealt and has seen of the board)
    and the actions so far, in order: all the player to act knows."""
    step, observe = jax.jit(env.step), jax.jit(env.observe)
    seen = collections.defaultdict(set)
    todo = [(s, ()) for s in starts]
    while todo:
        state, line = todo.pop()
        if bool(state.terminated):
            continue
        obs = np.asarray(observe(state))
        seen[(private(state), line)].add(obs.tobytes())
        for action in np.flatnonzero(np.asarray(state.legal_action_mask)):
            todo.append((step(state, int(action)), line + (int(action),)))
    return seen


def shared(seen) -> dict:
    """Observations that two or more information sets share: ``{observation: [sets]}``."""
    owners = collections.defaultdict(list)
    for infoset, observations in seen.items():
        for obs in observations:
            owners[obs].append(infoset)
    return {obs: sets for obs, sets in owners.items() if len(sets) > 1}
