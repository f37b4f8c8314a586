"""PPO's configuration (`Config`: everything that defines a run, saved in every checkpoint),
the env and the network a config trains. Part of `holdemjax.training.ppo`, which re-exports it.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib

import jax.numpy as jnp

import holdemjax
from holdemjax.poker.actions import CHECK_CALL, FOLD
from holdemjax.poker.tournament import open_payouts, open_places_icm, player_scores
from holdemjax.training.networks import ActorCritic
from holdemjax.validate import is_int, is_real, require_int

__all__ = ["ENV_IDS", "CHECKPOINT_FORMAT", "LEARNER", "POOL", "BASELINE", "PANEL", "TABLE_KINDS",
           "SHAPINGS", "OBJECTIVES", "LR_SCHEDULES", "PRIORS", "PANEL_BOTS", "CHECKPOINTS",
           "TRAINED_BOTS", "Config", "make_env", "make_network", "potential"]

ENV_IDS = ("sng-6", "sng-6-turbo", "certify")
CHECKPOINT_FORMAT = "holdemjax-ppo-v1"

# Who controls a player id at a table, and what a table's non-learner ids play.
LEARNER, POOL, BASELINE, PANEL = 0, 1, 2, 3
#: index = table kind; self tables are all LEARNER; at a panel table the other ids play one bot
#: of ``Config.panel_bots``, drawn per tournament
TABLE_KINDS = ("self", "pool", "baseline", "panel")
#: The bots a panel table may seat (`holdemjax.training.panel.OPPONENTS` less checkpoints).
PANEL_BOTS = ("baseline", "random", "passive", "allin", "beginner", "intermediate", "advanced")
#: The folder of the shipped checkpoints.
CHECKPOINTS = pathlib.Path(__file__).parent / "checkpoints"
#: Shipped trained policies a panel table may seat too, by name (their file in `CHECKPOINTS`):
#: opponents only, sampling, as the evaluation panel plays them (``pushfold``: the shipped policy).
TRAINED_BOTS = {"example": "sng6_example.msgpack", "pushfold": "sng6_pushfold.msgpack"}
SHAPINGS = ("none", "icm", "chips")
#: What a decision's return runs to: ``tournament`` (the tournament's end: the score, shaped or
#: not); ``hand``: the end of its hand, each hand an episode whose reward is the change of the
#: shaping potential over it (``icm``: the hand's change of expected score); ``hand-td``: the
#: end of its hand plus the critic's value of the player's next decision (GAE's trace cut at
#: every hand's end for the policy's advantages; the critic's targets run uncut to the
#: tournament's end, so it learns the tournament's value beyond the potential). With
#: ``luck_out`` a hand's return loses the luck of its board cards, not the next hand's deal.
OBJECTIVES = ("tournament", "hand", "hand-td")
#: Learning-rate schedules: ``constant``, or ``linear`` from ``learning_rate`` down to 0 over the
#: run's ``iterations * epochs * minibatches`` adam steps.
LR_SCHEDULES = ("constant", "linear")
#: Initial policies (the actor's initial logit bias): ``uniform`` (zero bias: near uniform over
#: the legal actions), or ``passive``: fold with probability ~0.9 when facing a bet and check
#: with ~0.9 when checking is free (the rest spread over the other legal actions), the passive
#: bot's play as a starting point that exploration can leave.
PRIORS = ("uniform", "passive")
PASSIVE_PRIOR = {"FOLD": 6.5, "CHECK_CALL": 4.2}  # logit bias; every other action 0


# ------------------------------------------------------------------------------- the config
@dataclasses.dataclass(frozen=True)
class Config:
    """Everything that defines a training run (saved in every checkpoint).

    The defaults are CPU-sized (a few minutes on two cores); docs/training.md has GPU settings.
    """

    env_id: str = "sng-6"
    num_tables: int = 256  # tables played in parallel
    rollout_steps: int = 32  # decisions per table per iteration
    iterations: int = 150
    epochs: int = 3
    minibatches: int = 4
    learning_rate: float = 3e-4
    lr_schedule: str = "constant"  # "constant" or "linear" (annealed to 0 over the run)
    gamma: float = 1.0  # per own decision; a tournament is a finite episode
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (128, 128)
    prior: str = "uniform"  # the initial policy: "uniform" or "passive" (PRIORS)
    learners: int = 1  # player ids the current policy controls at pool and baseline tables
    opp_self: float = 0.1  # share of tables in self-play
    opp_pool: float = 0.2  # ... against past snapshots
    opp_baseline: float = 0.7  # ... against the baseline bot
    opp_panel: float = 0.0  # ... against one bot of panel_bots (drawn per tournament)
    panel_bots: tuple[str, ...] = PANEL_BOTS
    pool_size: int = 4
    pool_every: int = 10  # iterations between snapshots
    shaping: str = "none"  # potential-based reward shaping: "none", "icm" or "chips"
    objective: str = "tournament"  # "tournament" or "hand": where returns stop (OBJECTIVES)
    #: a table whose learner ids are all out starts a new tournament at once (their scores are
    #: final; the rest of the game would train nothing)
    stop_when_out: bool = False
    luck_out: bool = False  # GAE's rewards less each step's luck (holdemjax.luck.step_luck)
    seed: int = 0

    def __post_init__(self):
        if self.env_id not in ENV_IDS:
            raise ValueError(f"env_id {self.env_id!r} is not supported; known: "
                             f"{', '.join(ENV_IDS)}")
        ints = ("num_tables", "rollout_steps", "iterations", "epochs", "minibatches",
                "learners", "pool_size", "pool_every")
        for name in ints:
            require_int(name, getattr(self, name), 1, what="an int >= 1")
        require_int("seed", self.seed, what="an int")
        floats = ("learning_rate", "gamma", "gae_lambda", "clip_eps", "value_coef",
                  "entropy_coef", "max_grad_norm", "opp_self", "opp_pool", "opp_baseline",
                  "opp_panel")
        for name in floats:
            value = getattr(self, name)
            if not is_real(value) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if self.learning_rate <= 0 or self.clip_eps <= 0:
            raise ValueError("learning_rate and clip_eps must be > 0")
        if self.gamma > 1 or self.gae_lambda > 1:
            raise ValueError(f"gamma and gae_lambda must be <= 1, got {self.gamma}, "
                             f"{self.gae_lambda}")
        if self.lr_schedule not in LR_SCHEDULES:
            raise ValueError(f"lr_schedule {self.lr_schedule!r} is not known; known: "
                             f"{', '.join(LR_SCHEDULES)}")
        if self.prior not in PRIORS:
            raise ValueError(f"prior {self.prior!r} is not known; known: {', '.join(PRIORS)}")
        if self.shaping not in SHAPINGS:
            raise ValueError(f"shaping {self.shaping!r} is not known; known: {', '.join(SHAPINGS)}")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective {self.objective!r} is not known; known: "
                             f"{', '.join(OBJECTIVES)}")
        if self.objective != "tournament" and self.shaping == "none":
            raise ValueError(f"objective {self.objective!r} rewards a hand's change of the "
                             "shaping potential: it needs shaping 'icm' or 'chips', got 'none'")
        for name in ("luck_out", "stop_when_out"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.opp_self + self.opp_pool + self.opp_baseline + self.opp_panel <= 0:
            raise ValueError("opp_self + opp_pool + opp_baseline + opp_panel must be > 0")
        bots = self.panel_bots
        known = (*PANEL_BOTS, *TRAINED_BOTS)
        if isinstance(bots, str) or not bots or any(b not in known for b in bots):
            raise ValueError(f"panel_bots must be a non-empty list of {', '.join(known)}; "
                             f"got {bots!r}")
        object.__setattr__(self, "panel_bots", tuple(bots))
        hidden = tuple(self.hidden)
        if not hidden or any(not is_int(h) or h < 1 for h in hidden):
            raise ValueError(f"hidden must be a non-empty list of layer widths >= 1, got "
                             f"{self.hidden!r}")
        object.__setattr__(self, "hidden", tuple(int(h) for h in hidden))
        seats = 6  # every supported env has six seats
        if self.learners > seats:
            raise ValueError(f"learners must be at most {seats}, got {self.learners}")
        batch = self.num_tables * self.rollout_steps
        if batch % self.minibatches:
            raise ValueError(f"num_tables * rollout_steps = {batch} is not divisible by "
                             f"minibatches = {self.minibatches}")

    def to_dict(self) -> dict:
        """The config as JSON-able values."""
        d = dataclasses.asdict(self)
        d["hidden"] = list(self.hidden)
        d["panel_bots"] = list(self.panel_bots)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Config:
        """Inverse of `to_dict`; unknown keys raise `ValueError` naming them."""
        known = {f.name for f in dataclasses.fields(cls)}
        extra = set(d) - known
        if extra:
            raise ValueError(f"unknown config keys: {sorted(extra)}")
        d = dict(d)
        for name in ("hidden", "panel_bots"):
            if name in d:
                d[name] = tuple(d[name])
        return cls(**d)


def make_env(config: Config):
    """The env a config trains on (zero-sum rewards)."""
    return holdemjax.make(config.env_id, zero_sum=True)


def make_network(config: Config, env=None) -> ActorCritic:
    env = make_env(config) if env is None else env
    prior = ()
    if config.prior == "passive":
        prior = [0.0] * env.num_actions
        prior[FOLD], prior[CHECK_CALL] = PASSIVE_PRIOR["FOLD"], PASSIVE_PRIOR["CHECK_CALL"]
    return ActorCritic(num_actions=env.num_actions, hidden=config.hidden,
                       num_seats=env.num_players, prior_logits=tuple(prior))


def potential(env, state, shaping: str):
    """``# [N]`` shaping potential of one state by player id: the expected score - 1/N from the
    stacks at the start of the current hand (``icm``: ICM over the open places; ``chips``: the
    share of the chips in play, scaled to the payouts still open), a placed player's score once
    out; zero for ``none``. Trainer-side only: the policy never sees it."""
    if shaping == "none":
        return jnp.zeros(state.rewards.shape, jnp.float32)
    t = env.tournament(state)
    alive = t.alive
    if shaping == "icm":
        equity = open_places_icm(t.table.start_stacks, alive, t.format.payouts)
    else:  # chips: the share of the chips in play, scaled to the payouts still open
        chips = jnp.where(alive, t.table.start_stacks, 0).astype(jnp.float32)
        open_total = open_payouts(alive, t.format.payouts).sum()
        equity = chips / jnp.maximum(chips.sum(), 1.0) * open_total
    # by player id, less 1/N: the env's zero-sum score of these scores
    score = jnp.where(alive, equity, t.score)
    return player_scores(t.replace(score=score), zero_sum=True)
