"""AlphaZero on Connect Four with mctx, over holdemjax's own env.

The search is `mctx.gumbel_muzero_policy` (Gumbel AlphaZero) with the env itself as the model:
`recurrent_fn` steps a copy of the game (``jax.vmap(env.step)``) and asks the network for the
new position's prior and value. Rewards are the mover's, the discount is −1 between the two
players (0 once the game is over), as in mctx's and pgx's two-player examples.

One iteration, one compiled program (`Trainer.iteration`):

1. **self-play** (`Trainer.self_play`): ``batch`` games side by side, a `lax.scan` of the 42
   moves a game can last; every move a search of ``simulations`` simulations picks the move
   (Gumbel noise explores) and gives the policy target (``action_weights``, the improved
   policy);
2. **targets**: a position's value target is the final result for the player to move there
   (+1, 0, −1; the game's only rewards are its last);
3. **learning**: ``minibatches`` Adam steps over the iteration's positions (each position once,
   in a shuffled order), loss = cross-entropy to the search's policy + squared value error, the
   positions after a game's end weighted 0.

The network (`Net`, Flax linen) reads the observation ``(6, 7, 2)`` (the mover's discs, the
opponent's): one 4 × 4 convolution (a window as wide as a line of four), two dense layers, a
policy head of 7 logits (illegal columns masked) and a tanh value head.

The fixed opponent, `mcts_opponent`, is plain MCTS (UCT) built with mctx too: `mctx.search`
with UCB1 selection (each legal column tried once, then exploration constant sqrt(2) on values
in [0, 1]), a leaf's value from one uniformly random rollout to the game's end, and the
most-visited column played. `evaluate` plays the
trained agent (its search without Gumbel noise) against it with both colours.

``python -m holdemjax.training.alphazero --help``; `benchmarks/bench_alphazero.py` writes the
measured result.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import mctx
import numpy as np
import optax

import holdemjax

__all__ = ["Config", "Net", "Trainer", "TrainState", "Batch", "mcts_opponent", "az_policy",
           "evaluate", "score_summary", "MAX_MOVES", "NUM_ACTIONS"]

ENV_ID = "connect_four"
NUM_ACTIONS = 7
MAX_MOVES = 42  # 6 × 7 cells: no game lasts longer
_MASKED = -1e9  # logit of an illegal column
UCT_C = math.sqrt(2.0)  # the plain-MCTS opponent's exploration constant (values in [0, 1])


@dataclasses.dataclass(frozen=True)
class Config:
    """AlphaZero's settings (the defaults are the benchmark's)."""

    seed: int = 0
    batch: int = 128  # self-play games per iteration
    simulations: int = 32  # search simulations per move (self-play and evaluation)
    considered: int = 7  # Gumbel's max_num_considered_actions at the root
    minibatches: int = 16  # Adam steps per iteration (the positions split among them)
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    channels: int = 32  # the convolution's
    width: int = 128  # the dense layers'


class Net(nn.Module):
    """Observation ``# [B, 6, 7, 2] bool`` -> (logits ``# [B, 7]``, value ``# [B]`` in [−1, 1])."""

    channels: int = 32
    width: int = 128

    @nn.compact
    def __call__(self, obs):
        x = obs.astype(jnp.float32)
        x = nn.relu(nn.Conv(self.channels, (4, 4), padding="SAME")(x))
        x = x.reshape(x.shape[0], -1)
        x = nn.relu(nn.Dense(self.width)(x))
        x = nn.relu(nn.Dense(self.width)(x))
        logits = nn.Dense(NUM_ACTIONS)(x)
        value = jnp.tanh(nn.Dense(1)(x))[:, 0]
        return logits, value


class TrainState(NamedTuple):
    params: Any
    opt_state: Any
    step: jax.Array  # [] int32: iterations done


class Batch(NamedTuple):
    """One iteration's self-play positions, ``# [MAX_MOVES, batch, ...]``."""

    obs: jax.Array  # [T, B, 6, 7, 2] bool
    policy: jax.Array  # [T, B, 7] float32: the search's improved policy
    value: jax.Array  # [T, B] float32: the final result for the player to move
    weight: jax.Array  # [T, B] float32: 1 for a position of a live game, else 0


def _env():
    return holdemjax.make(ENV_ID)


def _players(states) -> jax.Array:
    return jnp.arange(states.current_player.shape[0])


def _mover_reward(prev_player, states) -> jax.Array:
    """``# [B]``: the reward of the player who just moved."""
    return states.rewards[_players(states), prev_player]


def _model_fn(net: Net, env):
    """The network's prior and value over a batch of states, as the search wants them."""

    def evaluate(params, states):
        logits, value = net.apply(params, states.observation)
        logits = jnp.where(states.legal_action_mask, logits, _MASKED)
        return logits, jnp.where(states.terminated, 0.0, value)

    return evaluate


def _recurrent_fn(evaluate, env):
    """mctx's model: the env's own step, then the network on the new position."""

    def recurrent_fn(params, key, action, states):
        del key
        mover = states.current_player
        nxt = jax.vmap(env.step)(states, action)
        logits, value = evaluate(params, nxt)
        out = mctx.RecurrentFnOutput(
            reward=_mover_reward(mover, nxt),
            discount=jnp.where(nxt.terminated, 0.0, -1.0),
            prior_logits=logits, value=value)
        return out, nxt

    return recurrent_fn


def az_policy(net: Net, cfg: Config, *, gumbel_scale: float = 1.0):
    """``policy(params, key, states) -> mctx.PolicyOutput``: the AlphaZero search (mctx's
    Gumbel MuZero, ``cfg.simulations`` simulations, the env as the model)."""
    env = _env()
    evaluate = _model_fn(net, env)
    recurrent_fn = _recurrent_fn(evaluate, env)

    def policy(params, key, states):
        logits, value = evaluate(params, states)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=states)
        return mctx.gumbel_muzero_policy(
            params, key, root, recurrent_fn, num_simulations=cfg.simulations,
            invalid_actions=~states.legal_action_mask,
            max_num_considered_actions=cfg.considered, gumbel_scale=gumbel_scale)

    return policy


class Trainer:
    """AlphaZero's compiled iteration: `init` then `iteration` (one jitted program each)."""

    def __init__(self, cfg: Config = Config()):
        self.cfg = cfg
        self.env = _env()
        self.net = Net(cfg.channels, cfg.width)
        self.optimizer = optax.adamw(cfg.learning_rate, weight_decay=cfg.weight_decay)
        self.policy = az_policy(self.net, cfg)
        self.init = jax.jit(self._init)
        self.iteration = jax.jit(self._iteration)

    def _init(self, key) -> TrainState:
        obs = jnp.zeros((1, *self.env.observation_shape), jnp.bool_)
        params = self.net.init(key, obs)
        return TrainState(params, self.optimizer.init(params), jnp.int32(0))

    def self_play(self, params, key) -> Batch:
        """``batch`` games of self-play to their end, their positions and targets."""
        b = self.cfg.batch
        init_key, key = jax.random.split(key)
        states = jax.vmap(self.env.init)(jax.random.split(init_key, b))

        def move(states, key):
            out = self.policy(params, key, states)
            nxt = jax.vmap(self.env.step)(states, out.action)
            live = ~states.terminated
            record = (states.observation, out.action_weights, states.current_player, live,
                      nxt.rewards)
            return nxt, record

        _, (obs, policy, mover, live, rewards) = jax.lax.scan(
            move, states, jax.random.split(key, MAX_MOVES))
        result = rewards.sum(axis=0)  # [B, 2]: each player's result
        value = jnp.take_along_axis(result[None], mover[..., None], axis=-1)[..., 0]
        return Batch(obs, policy, value, live.astype(jnp.float32))

    def loss(self, params, batch: Batch):
        """(loss, (policy loss, value loss)), each the mean over the positions of live games."""
        logits, value = self.net.apply(params, batch.obs)
        log_p = jax.nn.log_softmax(logits)
        policy_loss = -(batch.policy * log_p).sum(-1)
        value_loss = (value - batch.value) ** 2
        n = jnp.maximum(batch.weight.sum(), 1.0)
        p = (policy_loss * batch.weight).sum() / n
        v = (value_loss * batch.weight).sum() / n
        return p + v, (p, v)

    def _iteration(self, ts: TrainState, key) -> tuple[TrainState, dict, Batch]:
        """Self-play, then the Adam steps: the new state, the metrics, the positions used."""
        play_key, order_key = jax.random.split(key)
        batch = self.self_play(ts.params, play_key)
        flat = jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), batch)
        m = self.cfg.minibatches
        n = flat.weight.shape[0] // m * m
        order = jax.random.permutation(order_key, flat.weight.shape[0])[:n]
        mini = jax.tree.map(lambda x: x[order].reshape(m, n // m, *x.shape[1:]), flat)

        def update(carry, mb):
            params, opt_state = carry
            (loss, (p, v)), grads = jax.value_and_grad(self.loss, has_aux=True)(params, mb)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), (loss, p, v)

        (params, opt_state), (loss, p, v) = jax.lax.scan(
            update, (ts.params, ts.opt_state), mini)
        games = batch.weight[0].sum()
        metrics = {"loss": loss.mean(), "policy_loss": p.mean(), "value_loss": v.mean(),
                   "positions": batch.weight.sum(), "games": games,
                   "first_player_score": (batch.value[0] * batch.weight[0]).sum() / games}
        return TrainState(params, opt_state, ts.step + 1), metrics, batch


# ----------------------------------------------------------------------- the fixed opponent
def _rollout_value(env, states, key) -> jax.Array:
    """``# [B]``: the result, for each state's player to move, of one game played to its end
    with uniformly random legal moves (0 for a finished game)."""
    player = states.current_player

    def cond(carry):
        return ~carry[0].terminated.all()

    def body(carry):
        s, key, total = carry
        key, sub = jax.random.split(key)
        logits = jnp.where(s.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(sub, logits)
        s = jax.vmap(env.step)(s, action)
        return s, key, total + s.rewards[_players(s), player]

    _, _, total = jax.lax.while_loop(cond, body, (states, key, jnp.zeros(player.shape)))
    return total


def _uct_select(rng_key, tree, node_index, depth=None):
    """UCB1 at one node: every legal child once first (in random order), then the largest
    ``(q + 1) / 2 + UCT_C * sqrt(ln N / n)`` (q in [−1, 1] from the node's mover's side)."""
    del depth
    visits = tree.children_visits[node_index]  # [A]
    legal = tree.children_prior_logits[node_index] > _MASKED / 2
    q = (tree.qvalues(node_index) + 1.0) / 2.0
    parent = jnp.maximum(tree.node_visits[node_index], 1).astype(jnp.float32)
    ucb = q + UCT_C * jnp.sqrt(jnp.log(parent) / jnp.maximum(visits, 1))
    untried = 1e6 + jax.random.uniform(rng_key, visits.shape)  # above any ucb
    score = jnp.where(visits == 0, untried, ucb)
    return jnp.argmax(jnp.where(legal, score, -jnp.inf)).astype(jnp.int32)


def mcts_opponent(simulations: int = 64):
    """``policy(key, states) -> actions``: plain MCTS (UCT) built on `mctx.search`: a uniform
    prior over the legal columns (it only marks them), UCB1 selection (`_uct_select`: each legal
    child tried once, then ``UCT_C = sqrt(2)`` on values mapped to [0, 1]), one node expanded per
    simulation and valued by one uniformly random rollout to the game's end, the most-visited
    column played."""
    env = _env()

    def uniform(states):
        return jnp.where(states.legal_action_mask, 0.0, _MASKED)

    def recurrent_fn(params, key, action, states):
        mover = states.current_player
        nxt = jax.vmap(env.step)(states, action)
        out = mctx.RecurrentFnOutput(
            reward=_mover_reward(mover, nxt),
            discount=jnp.where(nxt.terminated, 0.0, -1.0),
            prior_logits=uniform(nxt), value=_rollout_value(env, nxt, key))
        return out, nxt

    def policy(key, states):
        root_key, search_key = jax.random.split(key)
        root = mctx.RootFnOutput(prior_logits=uniform(states),
                                 value=_rollout_value(env, states, root_key), embedding=states)
        tree = mctx.search(
            (), search_key, root=root, recurrent_fn=recurrent_fn,
            root_action_selection_fn=_uct_select, interior_action_selection_fn=_uct_select,
            num_simulations=simulations, invalid_actions=~states.legal_action_mask)
        visits = jnp.where(states.legal_action_mask, tree.children_visits[:, 0], -1)
        return jnp.argmax(visits, axis=-1).astype(jnp.int32)

    return policy


# ------------------------------------------------------------------------------- evaluation
@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _play(agent, opponent, games: int, params, key):
    """``games`` games, agent against opponent; game i gives the agent the first move when i
    is even. Returns the agent's results ``# [games]`` (+1, 0, −1)."""
    env = _env()
    init_key, key = jax.random.split(key)
    states = jax.vmap(env.init)(jax.random.split(init_key, games))
    first = states.current_player
    me = jnp.where(jnp.arange(games) % 2 == 0, first, 1 - first)

    def move(carry, key):
        states, total = carry
        a_key, o_key = jax.random.split(key)
        mine = agent(params, a_key, states).action
        theirs = opponent(o_key, states)
        action = jnp.where(states.current_player == me, mine, theirs)
        states = jax.vmap(env.step)(states, action)
        return (states, total + states.rewards[jnp.arange(games), me]), None

    (_, total), _ = jax.lax.scan(move, (states, jnp.zeros(games)),
                                 jax.random.split(key, MAX_MOVES))
    return total


def evaluate(params, cfg: Config, *, games: int, opponent_simulations: int = 64,
             seed: int = 1) -> dict:
    """The agent (`az_policy` without Gumbel noise) against `mcts_opponent`: ``games`` games,
    half with each colour; counts and `score_summary`."""
    agent = az_policy(Net(cfg.channels, cfg.width), cfg, gumbel_scale=0.0)
    results = np.asarray(_play(agent, mcts_opponent(opponent_simulations), games, params,
                               jax.random.key(seed)))
    first = results[0::2]
    second = results[1::2]
    by_colour = {name: {"wins": int((r > 0).sum()), "draws": int((r == 0).sum()),
                        "losses": int((r < 0).sum())}
                 for name, r in (("agent_first", first), ("agent_second", second))}
    wins, draws, losses = (int((results > 0).sum()), int((results == 0).sum()),
                           int((results < 0).sum()))
    return {"games": games, "wins": wins, "draws": draws, "losses": losses,
            "by_colour": by_colour, **score_summary(wins, draws, losses)}


def score_summary(wins: int, draws: int, losses: int, z: float = 1.959964) -> dict:
    """The score (a draw is half a win), its 95% Wilson interval, and the one-sided exact
    binomial (sign test) p-value of wins against losses under "no better than even"."""
    n = wins + draws + losses
    score = (wins + 0.5 * draws) / n
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    decided = wins + losses
    p = sum(math.comb(decided, k) for k in range(wins, decided + 1)) / 2.0 ** decided
    return {"score": score, "wilson95": [centre - half, centre + half],
            "p_value_sign_test": p}


# ------------------------------------------------------------------------------------- CLI
def train(cfg: Config, iterations: int, *, max_seconds: float | None = None, log=print):
    """Train for ``iterations`` (or until ``max_seconds``); returns (params, history)."""
    import time

    trainer = Trainer(cfg)
    key = jax.random.key(cfg.seed)
    init_key, key = jax.random.split(key)
    ts = trainer.init(init_key)
    history, start = [], time.perf_counter()
    for i in range(iterations):
        ts, metrics, _ = trainer.iteration(ts, jax.random.fold_in(key, i))
        row = {k: float(v) for k, v in metrics.items()}
        row.update(iteration=i + 1, seconds=round(time.perf_counter() - start, 1))
        history.append(row)
        if log:
            log(f"it {i + 1:4d}  loss {row['loss']:.3f} (policy {row['policy_loss']:.3f}, "
                f"value {row['value_loss']:.3f})  {row['seconds']:.0f} s")
        if max_seconds is not None and time.perf_counter() - start > max_seconds:
            break
    return ts.params, history


def main(argv=None) -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=100)
    p.add_argument("--eval-games", type=int, default=200)
    for f in dataclasses.fields(Config):
        p.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    args = p.parse_args(argv)
    cfg = Config(**{f.name: getattr(args, f.name) for f in dataclasses.fields(Config)})
    params, _ = train(cfg, args.iterations)
    print(evaluate(params, cfg, games=args.eval_games))


if __name__ == "__main__":
    main()
