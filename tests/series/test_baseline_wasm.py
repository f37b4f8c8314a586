"""The cross-check: the bundled baseline.wasm plays exactly as the JAX baseline, and random.wasm
draws exactly as sdk/README.md documents, at thousands of real tournament decisions.

Tournaments are played in JAX (`holdemjax.make`, vmapped and jitted) by a mix of random and
baseline bots, the share of baselines varying by game, so that many kinds of states occur:
deep and short stacks, antes, heads-up, all-ins, dead buttons, every street. At each decision:

* JAX: ``baseline.act(env, state, game_key)`` with ``game_key = fold_in(slot key,
  tournament)``, mapped to the engine action through ``env.menu`` (FOLD -> "fold",
  CHECK_CALL -> "check" when free else "call", a raise entry -> "raise" to its amount);
* wasm: baseline.wasm's reply to ``protocol.act_message`` of that state, through the series
  host (`holdemjax.series.wasm.load_policy`), after the `start` message carrying the slot key.

They must agree every time; the first mismatch is reported with the whole message. random.wasm
is checked the same way against its draws computed with the reference bots' JAX helpers
(`coordinate_key`, ``jax.random.bits``). CI checks about 2,000 decisions of `sng-6-turbo`; the
slow test checks 20,000 over `sng-6`, `sng-6-turbo` and `certify`.
"""

from __future__ import annotations

import collections
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("wasmtime")

import holdemjax
from holdemjax.bots import baseline, random_bot
from holdemjax.bots.random_bot import coordinate_key, coordinates
from holdemjax.poker import table as poker_table
from holdemjax.poker.actions import CHECK_CALL, FOLD
from holdemjax.series import protocol
from holdemjax.series.wasm import load_policy

POLICIES = pathlib.Path(__file__).resolve().parents[2] / "holdemjax" / "series" / "policies"
SERIES_SEED, SLOT = 2024, 3
BUDGET = protocol.DECISION_MAX_NS


def _step_fn(env):
    """One jitted, vmapped step of a batch: the line-up's actions applied, plus at each state
    the JAX baseline's menu action (and its raise-to) and random.wasm's two raw draws."""

    def one(state, bot_key, is_base, game_key):
        base = baseline.act(env, state, game_key)
        chosen = jnp.where(is_base[state.current_player], base,
                           random_bot.act(env, state, bot_key))
        table = env.tournament(state).table
        _, amounts = env.menu.mask_and_amounts(table, poker_table.legal(table))
        key = coordinate_key(game_key, *coordinates(env.decision(state)))
        bits = jnp.stack([jax.random.bits(key, (), jnp.uint32),
                          jax.random.bits(jax.random.fold_in(key, 1), (), jnp.uint32)])
        return chosen, base, amounts[base], bits

    @jax.jit
    def step(states, bot_keys, is_base, game_keys):
        chosen, base, amount, bits = jax.vmap(one)(states, bot_keys, is_base, game_keys)
        return jax.vmap(env.step)(states, chosen), base, amount, bits

    return step


def _entry(before, after) -> list[int]:
    """``[street, seat, code, to]`` of the decision between two tournaments of one hand, read
    from the tournament's per-street counters (an oracle apart from `hand.HandLog`)."""
    t = before.table
    seat, street = int(t.to_act), int(t.street)
    added = int(after.street_chips[street, seat]) - int(before.street_chips[street, seat])
    raised = int(after.street_raises[street, seat]) > int(before.street_raises[street, seat])
    folded = bool(after.table.folded[seat]) and not bool(t.folded[seat])
    code = protocol.FOLD if folded else protocol.RAISE if raised else \
        protocol.CALL if added > 0 else protocol.CHECK
    return [street, seat, code, int(t.bets[seat]) + added]


def decisions(env, games: int, seed: int, limit: int, every: int = 1):
    """Yield ``(tournament, state, history, base, amount, bits)`` for every ``every``-th
    decision (up to ``limit`` of them) of ``games`` tournaments played to their end (unbatched
    host states, numpy leaves). Sampling every other decision spreads a small budget of checks
    over whole tournaments, late levels included."""
    rng = np.random.default_rng(seed)
    share = np.linspace(0.2, 0.9, games)[:, None]  # baselines per game: few to most
    is_base = jnp.asarray(rng.random((games, env.num_players)) < share)
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(seed), games))
    bot_keys = jax.random.split(jax.random.key(seed + 1), games)
    slot_key = jax.random.wrap_key_data(jnp.asarray(protocol.slot_seed(SERIES_SEED, SLOT),
                                                    jnp.uint32))
    game_keys = jax.vmap(lambda t: jax.random.fold_in(slot_key, t))(jnp.arange(games))
    step = _step_fn(env)
    previous, history = [None] * games, [[] for _ in range(games)]
    count = seen = 0
    while not bool(states.terminated.all()):
        nxt, base, amount, bits = step(states, bot_keys, is_base, game_keys)
        host = jax.device_get(states)
        base, amount, bits = np.asarray(base), np.asarray(amount), np.asarray(bits)
        for g in range(games):
            state = jax.tree.map(lambda x, g=g: x[g], host)
            if state.terminated:
                continue
            before = previous[g]
            t_now = env.tournament(state)
            if before is not None and int(before.hand) == int(t_now.hand):
                history[g].append(_entry(before, t_now))  # the step stayed in the hand
            else:
                history[g] = []
            previous[g] = t_now
            seen += 1
            if seen % every:
                continue
            yield g, state, list(history[g]), int(base[g]), int(amount[g]), bits[g]
            count += 1
            if count >= limit:
                return
        states = nxt


def expected_baseline(message: dict, action: int, amount: int) -> dict:
    if action == FOLD:
        return {"action": "fold"}
    if action == CHECK_CALL:
        return {"action": "check" if message["legal"]["check"] else "call"}
    return {"action": "raise", "amount": amount}


def expected_random(message: dict, bits) -> dict:
    """random.wasm's documented choice: the (bits[0] mod count)-th offered kind; a raise goes to
    min + bits[1] mod (max - min + 1)."""
    legal = message["legal"]
    kinds = ["check"] if legal["check"] else ["fold", "call"]
    if legal["raise"] is not None:
        kinds.append("raise")
    kind = kinds[int(bits[0]) % len(kinds)]
    if kind != "raise":
        return {"action": kind}
    lo, hi = legal["raise"]
    return {"action": "raise", "amount": lo + int(bits[1]) % (hi - lo + 1)}


def _started(name: str, env, tournaments: int):
    policy = load_policy(POLICIES / f"{name}.wasm", cache=False)
    start = protocol.start_message(protocol.format_info(env.id, env.format), slot=SLOT,
                                   alias="Check", seed=protocol.slot_seed(SERIES_SEED, SLOT),
                                   variant="cross-check", tournaments=tournaments)
    assert policy.start(protocol.encode(start)).outcome == "no_reply"
    return policy


def cross_check(env_id: str, games: int, seed: int, limit: int,
                every: int = 1) -> collections.Counter:
    """Ask both wasm policies at up to ``limit`` decisions; fail at the first disagreement.
    Returns counts of what the checked states covered (for the coverage assertions)."""
    env = holdemjax.make(env_id)
    base_wasm, random_wasm = _started("baseline", env, games), _started("random", env, games)
    seen = collections.Counter()
    with base_wasm, random_wasm:
        for t, state, history, action, amount, bits in decisions(env, games, seed, limit, every):
            message = protocol.act_message(env.decision(state), tournament=t, history=history)
            raw = protocol.encode(message)
            for policy, want in ((base_wasm, expected_baseline(message, action, amount)),
                                 (random_wasm, expected_random(message, bits))):
                result = policy.call(raw, BUDGET)
                got = json.loads(result.reply) if result.outcome == "ok" else result.outcome
                if got != want:
                    pytest.fail(f"{policy.name} disagrees at decision {seen['states']} of "
                                f"{env_id} (tournament {t}): expected {want}, got {got} "
                                f"({result.detail})\nmessage: {raw.decode()}")
                seen[f"{policy.name} max fuel"] = max(seen[f"{policy.name} max fuel"],
                                                      result.used_ns)
            _cover(seen, message, expected_baseline(message, action, amount))
    return seen


def _cover(seen: collections.Counter, m: dict, reply: dict) -> None:
    seen["states"] += 1
    seen[f"street {m['street']}"] += 1
    seen[f"baseline {reply['action']}"] += 1
    seat, bb = m["seat"], max(m["blinds"][1], 1)
    opp = max((m["stacks"][s] + m["bets"][s] for s in range(len(m["stacks"]))
               if s != seat and m["in_hand"][s] and not m["folded"][s]), default=0)
    eff = min(m["stacks"][seat] + m["bets"][seat], opp) // bb
    seen["short (eff <= 12 BB)"] += eff <= 12
    seen["deep (eff > 12 BB)"] += eff > 12
    seen["ante"] += m["blinds"][2] > 0
    seen["heads-up"] += sum(m["in_hand"]) == 2
    seen["an all-in seat"] += any(m["allin"])
    seen["dead button"] += not m["alive"][m["button"]]
    seen["raising closed"] += m["legal"]["raise"] is None
    raises = sum(1 for h in m["history"] if h[0] == m["street"] and h[2] == protocol.RAISE)
    seen[f"raises {min(raises, 2)}"] += 1


MINIMUM_COVERAGE = {"street 1": 100, "street 2": 50, "street 3": 20, "baseline fold": 100,
                    "baseline call": 100, "baseline check": 50, "baseline raise": 100,
                    "short (eff <= 12 BB)": 100, "deep (eff > 12 BB)": 300, "ante": 50,
                    "heads-up": 50, "an all-in seat": 50, "dead button": 20,
                    "raising closed": 10, "raises 1": 100, "raises 2": 30}


def _assert_coverage(seen: collections.Counter, scale: float = 1.0) -> None:
    thin = {k: seen[k] for k, n in MINIMUM_COVERAGE.items() if seen[k] < n * scale}
    assert not thin, f"the sample missed kinds of states: {thin} (all: {dict(seen)})"


def test_baseline_wasm_plays_as_the_jax_baseline():
    seen = cross_check("sng-6-turbo", games=24, seed=1, limit=2_000, every=2)
    assert seen["states"] >= 1_500
    _assert_coverage(seen)
    # both answer in well under a millisecond of the 20 ms shot clock
    assert seen["baseline.wasm max fuel"] < 1_000_000
    assert seen["random.wasm max fuel"] < 1_000_000


@pytest.mark.slow
def test_baseline_wasm_plays_as_the_jax_baseline_20000_decisions():
    total = collections.Counter()
    # enough games to reach each limit (random bots end tournaments early); the coverage check
    # below makes sure late levels (antes, heads-up, dead buttons) are still well sampled
    for env_id, games, limit in (("sng-6", 96, 8_000), ("sng-6-turbo", 72, 8_000),
                                 ("certify", 224, 4_000)):
        seen = cross_check(env_id, games=games, seed=2, limit=limit)
        assert seen["states"] == limit, (env_id, seen["states"])
        total.update(seen)
    _assert_coverage(total, scale=5.0)
