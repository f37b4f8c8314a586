"""The 169-hand pre-flop grid of a policy's first-in strategy, by position, as PNG/SVG.

Grid layout (the usual one): rows and columns are ranks A, K, Q, ..., 2 from the top-left; pairs
on the diagonal (AA top-left, 22 bottom-right), suited hands above it (row = the higher rank:
``AKs`` is row 0, column 1), offsuit hands below it (column = the higher rank: ``AKo`` is row 1,
column 0). `cell_class(row, col)` gives the class id of `holdemjax.bots.baseline.hand_class`.

First-in states. For each position (UTG, HJ, CO, BTN, SB: the seats that can open when everyone
before them folded; the big blind never decides first in) and each of the 1,326 two-card combos,
a state is built with the engine: the first hand of a fresh `sng-6` tournament (blinds 10/20,
six players), every stack set to ``stack_bb`` big blinds, the combo dealt to the position's seat
(the rest of the deck shuffled from the key), then FOLD for each seat before it through
`env.step`. The policy then decides. A first-in decision sees only its own cards, the positions,
the stacks and the blinds, so the other cards do not matter; each class is averaged over its
suit combos (6 pairs, 4 suited, 12 offsuit). A policy that returns probabilities is read
directly; one that returns an action is run with ``num_keys`` keys per combo (the baseline's
steals and mixed choices show up as partial frequencies).

Picture: one panel per position; in each cell a dot whose area is the share of the time the
policy plays (raise or call), drawn as a pie: red = raise, blue = call (limp); cells played
less than 1 % of the time stay empty. `plot_grid` writes PNG and/or SVG (matplotlib).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import pathlib
import sys
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

import holdemjax
from holdemjax.bots import baseline
from holdemjax.poker import table as tb
from holdemjax.poker.actions import FOLD, MIN_RAISE
from holdemjax.training.evaluate import stateless
from holdemjax.validate import require_int

__all__ = ["POSITIONS", "RANKS", "PreflopGrid", "cell_class", "cell_label", "class_combos",
           "preflop_grid", "plot_grid", "main"]

POSITIONS = ("UTG", "HJ", "CO", "BTN", "SB")  # seats after the big blind, in order of action
RANKS = "AKQJT98765432"  # row/column order of the grid (rank index 12 - i)
ENV_ID = "sng-6"
MIN_DRAWN = 0.01  # plot_grid leaves cells played less often than this empty, and draws a
#                   raise (or call) share within this of 0 or 1 as a plain disc


def cell_class(row: int, col: int) -> int:
    """Hand class id (`baseline.hand_class` numbering) of grid cell (row, col)."""
    if not (0 <= row < 13 and 0 <= col < 13):
        raise ValueError(f"grid cell ({row}, {col}) is outside 0..12")
    # Rank indices (12 = ace) of the row and the column: pairs 13r + r; suited 13 hi + lo
    # with the higher rank in the row; offsuit 13 lo + hi with the lower rank in the row. All
    # three are 13 * row rank + column rank.
    return 13 * (12 - row) + (12 - col)


def cell_label(row: int, col: int) -> str:
    """The cell's hand, e.g. 'AA', 'AKs' (row 0, col 1), 'AKo' (row 1, col 0)."""
    hi, lo = RANKS[min(row, col)], RANKS[max(row, col)]
    return hi + lo if row == col else hi + lo + ("s" if row < col else "o")


def class_combos(row: int, col: int) -> list[tuple[int, int]]:
    """The card-id pairs (``4 * rank + suit``) of a cell: 6 (pair), 4 (suited), 12 (offsuit)."""
    r1, r2 = 12 - min(row, col), 12 - max(row, col)
    if row == col:
        return [(4 * r1 + a, 4 * r1 + b) for a in range(4) for b in range(a + 1, 4)]
    if row < col:
        return [(4 * r1 + s, 4 * r2 + s) for s in range(4)]
    return [(4 * r1 + a, 4 * r2 + b) for a in range(4) for b in range(4) if a != b]


@functools.cache
def _combo_table():
    """(cards ``# [1326, 2]``, cell row ``# [1326]``, cell col ``# [1326]``)."""
    cards, rows, cols = [], [], []
    for row in range(13):
        for col in range(13):
            for combo in class_combos(row, col):
                cards.append(combo), rows.append(row), cols.append(col)
    return np.array(cards, np.int32), np.array(rows), np.array(cols)


@dataclasses.dataclass(frozen=True)
class PreflopGrid:
    """First-in frequencies by position and cell: ``play`` = raise or call, ``raise_`` =
    raise (any raise size, all-in included); both ``# [len(positions), 13, 13]``."""

    play: np.ndarray
    raise_: np.ndarray
    positions: tuple[str, ...] = POSITIONS
    stack_bb: int = 50
    samples: int = 1  # decisions averaged per combo (keys; 1 for a probability policy)

    @property
    def raise_share(self) -> np.ndarray:
        """Raise / play (NaN where the policy never plays)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.play > 0, self.raise_ / self.play, np.nan)

    def range_size(self) -> np.ndarray:
        """Share of the 1,326 combos played, by position."""
        weights = np.zeros((13, 13))
        for row in range(13):
            for col in range(13):
                weights[row, col] = len(class_combos(row, col))
        return (self.play * weights).sum((1, 2)) / 1326


def _place(deck, card, pos):
    """Swap ``card`` into deck position ``pos`` (the deck stays a permutation)."""
    where = jnp.argmax(deck == card)
    return deck.at[where].set(deck[pos]).at[pos].set(card)


def _first_in_state(env, key, position, cards, stack):
    """The state where ``position`` (index into POSITIONS) decides first in holding ``cards``."""
    state = env.init(key)
    t = env.tournament(state).table
    n = env.num_players
    seat = (t.bb + 1 + position) % n
    deck = jax.random.permutation(jax.random.fold_in(key, 1), 52).astype(jnp.int32)
    deck = _place(_place(deck, cards[0], 2 * seat), cards[1], 2 * seat + 1)
    table = tb.start_hand(jnp.full(n, stack, jnp.int32), t.in_hand, t.button, t.sb, t.bb, True,
                          t.small_blind, t.big_blind, t.ante, deck)
    tour = env.tournament(state).replace(table=table)
    state = env.advance(env.with_tournament(state, tour))

    def fold(_, s):  # fold around to the position's seat (one step in the program, not four)
        folded = env.step(s, jnp.int32(FOLD))
        to_act = env.tournament(s).table.to_act
        return jax.tree.map(lambda a, b: jnp.where(to_act != seat, a, b), folded, s)

    return jax.lax.fori_loop(0, len(POSITIONS) - 1, fold, state)


def _probe(env, fn, params):
    """'action' or 'probs': what ``fn(params, state, key)`` returns on one state."""
    key = jax.ShapeDtypeStruct((2,), jnp.uint32)
    try:
        out = jax.eval_shape(fn, params, env.state_shapes, key)
    except Exception as err:  # user code: report what failed
        raise ValueError(f"policy could not be traced on one {env.id} state: {err}") from err
    if getattr(out, "shape", None) == () and jnp.issubdtype(out.dtype, jnp.integer):
        return "action"
    if getattr(out, "shape", None) == (env.num_actions,) and jnp.issubdtype(out.dtype,
                                                                             jnp.floating):
        return "probs"
    raise ValueError(f"policy must return an integer action id or probabilities of shape "
                     f"({env.num_actions},), got {out}")


@functools.cache
def _env():
    return holdemjax.make(ENV_ID)


@functools.lru_cache(maxsize=16)
def _grid_program(env, fn, mode: str, num_keys: int):
    """Jitted ``(params, keys, stack) -> # [positions x combos, A]`` probabilities: one compile
    per policy (seed, stack and params are data)."""
    cards, _, _ = _combo_table()
    positions = np.repeat(np.arange(len(POSITIONS)), len(cards))
    all_cards = np.tile(cards, (len(POSITIONS), 1))

    @jax.jit
    def run(params, keys, stack):
        states = jax.vmap(_first_in_state, in_axes=(None, 0, 0, 0, None))(
            env, keys, jnp.asarray(positions), jnp.asarray(all_cards), stack)
        if mode == "probs":
            return jax.vmap(fn, in_axes=(None, 0, 0))(
                params, states, jax.vmap(jax.random.key_data)(keys)).astype(jnp.float32)

        def one_key(k):
            bot_keys = jax.vmap(lambda x: jax.random.key_data(jax.random.fold_in(x, k)))(keys)
            actions = jax.vmap(fn, in_axes=(None, 0, 0))(params, states, bot_keys)
            return jax.nn.one_hot(actions, env.num_actions)

        return jax.lax.map(one_key, jnp.arange(num_keys) + 7).mean(0)

    return run


def preflop_grid(policy: Callable, params=None, *, stack_bb: int = 50, num_keys: int = 32,
                 seed: int = 0) -> PreflopGrid:
    """The first-in grid of ``policy`` on `sng-6`.

    ``policy(state, key)`` (or ``policy(params, state, key)`` with ``params``) returns either
    a menu action id (int32 scalar; sampled with ``num_keys`` keys per combo) or probabilities
    over the menu (``# [A]`` float). ``stack_bb``: every stack, in big blinds (50 = the start of a
    tournament).
    """
    for name, value in (("stack_bb", stack_bb), ("num_keys", num_keys)):
        require_int(name, value, 1, what="an int >= 1")
    env = _env()
    if params is None:
        fn, params = stateless(policy), jnp.zeros(())
    else:
        fn = policy
    mode = _probe(env, fn, params)
    cards, rows, cols = _combo_table()
    base = jax.random.key(seed)
    keys = jax.vmap(lambda i: jax.random.fold_in(base, i))(jnp.arange(len(POSITIONS)
                                                                       * len(cards)))
    stack = jnp.int32(stack_bb * 20)  # the first level's big blind
    samples = num_keys if mode == "action" else 1
    run = _grid_program(env, fn, mode, num_keys)
    probs = np.asarray(run(params, keys, stack), np.float64).reshape(len(POSITIONS), len(cards), -1)
    play = 1.0 - probs[..., FOLD]
    raised = probs[..., MIN_RAISE:].sum(-1)
    grid_play = np.zeros((len(POSITIONS), 13, 13))
    grid_raise = np.zeros((len(POSITIONS), 13, 13))
    counts = np.zeros((13, 13))
    np.add.at(counts, (rows, cols), 1)
    for p in range(len(POSITIONS)):
        np.add.at(grid_play[p], (rows, cols), play[p])
        np.add.at(grid_raise[p], (rows, cols), raised[p])
    return PreflopGrid(grid_play / counts, grid_raise / counts, POSITIONS, stack_bb, samples)


def plot_grid(grid: PreflopGrid, paths, title: str = "") -> list[pathlib.Path]:
    """Draw ``grid`` (one panel per position) to each of ``paths`` (.png, .svg, ...)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Wedge

    paths = [pathlib.Path(p) for p in ([paths] if isinstance(paths, (str, pathlib.Path))
                                       else paths)]
    panels = len(grid.positions)
    # SVG text as text, not glyph outlines: 845 cell labels would otherwise dominate the file.
    plt.rcParams["svg.fonttype"] = "none"
    fig, axes = plt.subplots(1, panels, figsize=(3.3 * panels, 3.8))
    axes = np.atleast_1d(axes)
    raise_color, call_color = "#d62728", "#1f77b4"
    for p, ax in enumerate(axes):
        for row in range(13):
            for col in range(13):
                x, y = col, 12 - row
                ax.text(x, y, cell_label(row, col), ha="center", va="center", fontsize=3.6,
                        color="#999999", zorder=1)
                play = grid.play[p, row, col]
                if play < MIN_DRAWN:
                    continue
                radius = 0.48 * np.sqrt(play)  # area proportional to the play frequency
                share = grid.raise_[p, row, col] / play
                if share >= 1 - MIN_DRAWN or share <= MIN_DRAWN:  # one colour: a plain disc
                    color = raise_color if share >= 0.5 else call_color
                    ax.add_patch(Circle((x, y), radius, color=color, lw=0, zorder=2))
                    continue
                ax.add_patch(Wedge((x, y), radius, 90, 90 + 360 * share, color=raise_color,
                                   lw=0, zorder=2))
                ax.add_patch(Wedge((x, y), radius, 90 + 360 * share, 450, color=call_color,
                                   lw=0, zorder=2))
        ax.set_xlim(-0.6, 12.6), ax.set_ylim(-0.6, 12.6)
        ax.set_aspect("equal")
        ax.set_xticks(range(13), list(RANKS), fontsize=6)
        ax.set_yticks(range(13), list(RANKS[::-1]), fontsize=6)
        ax.tick_params(length=0)
        ax.plot([-0.5, 12.5], [12.5, -0.5], color="#dddddd", lw=0.6, zorder=0)
        size = grid.range_size()[p]
        ax.set_title(f"{grid.positions[p]} first in: plays {100 * size:.0f}%", fontsize=9)
        for side in ax.spines.values():
            side.set_color("#cccccc")
    handles = [plt.Line2D([], [], marker="o", ls="", color=raise_color, label="raise"),
               plt.Line2D([], [], marker="o", ls="", color=call_color, label="call (limp)")]
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.suptitle((title + "\n" if title else "")
                 + f"first-in strategy at {grid.stack_bb} BB (dot area = how often it plays; "
                   "suited above the diagonal, offsuit below)", fontsize=9)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Fixed metadata: the same grid writes the same SVG bytes.
        meta = {"Date": None} if path.suffix == ".svg" else {}
        fig.savefig(path, dpi=150, metadata=meta)
    plt.close(fig)
    return paths


# ---------------------------------------------------------------------------------- the CLI
def main(argv=None) -> int:
    """``python -m holdemjax.training.preflop_grid POLICY --out PREFIX``."""
    p = argparse.ArgumentParser(
        prog="python -m holdemjax.training.preflop_grid",
        description="Draw a policy's first-in pre-flop grid by position (PNG and SVG).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("policy", help="a PPO checkpoint file, or 'baseline'")
    p.add_argument("--out", default="preflop", help="output path without extension")
    p.add_argument("--stack-bb", type=int, default=50, help="every stack, in big blinds")
    p.add_argument("--num-keys", type=int, default=32, help="keys per combo (action policies)")
    p.add_argument("--title", default=None, help="figure title")
    args = p.parse_args(argv)
    try:
        if args.policy == "baseline":
            env = _env()
            grid = preflop_grid(functools.partial(baseline.act, env), stack_bb=args.stack_bb,
                                num_keys=args.num_keys)
            title = args.title or "baseline bot (holdemjax.bots.baseline)"
        else:
            from holdemjax.training import ppo

            params, config = ppo.load_checkpoint(args.policy)
            probs = ppo.action_probs(config)
            grid = preflop_grid(lambda prm, s, k: probs(prm, s), params,
                                stack_bb=args.stack_bb)
            title = args.title or f"PPO policy ({pathlib.Path(args.policy).name})"
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    written = plot_grid(grid, [args.out + ".png", args.out + ".svg"], title)
    sizes = ", ".join(f"{pos} {100 * s:.0f}%" for pos, s in zip(grid.positions,
                                                               grid.range_size()))
    print(f"wrote {', '.join(map(str, written))}; ranges played first in: {sizes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
