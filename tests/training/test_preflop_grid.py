"""The pre-flop grid: geometry of the 169 cells, first-in states built for the right seat with
the right cards, and the baseline's UTG range read back exactly from its own table."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.bots import baseline
from holdemjax.envs import sng_obs
from holdemjax.poker.actions import CHECK_CALL, FOLD, MIN_RAISE
from holdemjax.testing import CompileCounter
from holdemjax.training import preflop_grid as pg

LAYOUT = sng_obs.layout(6)
ENV = pg._env()


# ---------------------------------------------------------------------------------- geometry
def test_169_cells_cover_every_class_once():
    classes = {pg.cell_class(r, c) for r in range(13) for c in range(13)}
    assert classes == set(range(169))
    assert sum(len(pg.class_combos(r, c)) for r in range(13) for c in range(13)) == 1326


def test_pairs_on_the_diagonal_suited_above_offsuit_below():
    assert pg.cell_label(0, 0) == "AA" and pg.cell_label(12, 12) == "22"
    assert pg.cell_label(0, 1) == "AKs" and pg.cell_label(1, 0) == "AKo"
    assert pg.cell_label(5, 12) == "92s" and pg.cell_label(12, 7) == "72o"
    for r in range(13):
        for c in range(13):
            combos = pg.class_combos(r, c)
            label = pg.cell_label(r, c)
            assert len(combos) == {True: 6}.get(r == c, 4 if r < c else 12), label
            # Each combo belongs to the cell's class (the baseline's numbering).
            got = baseline.hand_class(jnp.asarray(combos))
            assert set(np.asarray(got).tolist()) == {pg.cell_class(r, c)}, label
            suited = [a % 4 == b % 4 for a, b in combos]
            if r < c:
                assert all(suited), label
            elif r > c:
                assert not any(suited), label


def test_out_of_range_cells_are_refused():
    with pytest.raises(ValueError, match="13"):
        pg.cell_class(13, 0)


# ---------------------------------------------------------------------- grids of policies
def _is_pair(state):
    hole = jax.lax.top_k(state.observation[LAYOUT["HOLE"]], 2)[1]
    return hole[0] // 4 == hole[1] // 4, hole[0] % 4 == hole[1] % 4


def switch_policy(which, state, key):
    """0: on the button, raise pairs and limp suited hands, fold the rest, everywhere else
    fold (a policy whose grid is known); 1: the baseline. One function: one compile."""
    pair, suited = _is_pair(state)
    on_button = state.observation[LAYOUT["BUTTON"]][0] == 1
    toy = jnp.where(on_button & pair, MIN_RAISE,
                    jnp.where(on_button & suited, CHECK_CALL, FOLD)).astype(jnp.int32)
    return jax.lax.switch(which, [lambda: toy, lambda: baseline.act(ENV, state, key)])


@pytest.fixture(scope="module")
def grids():
    return {which: pg.preflop_grid(switch_policy, jnp.int32(which), num_keys=2)
            for which in (0, 1)}


def test_the_grid_of_a_known_policy_puts_cards_and_seats_right(grids):
    g = grids[0]
    btn = g.positions.index("BTN")
    diag = np.eye(13, dtype=bool)
    above = np.triu(np.ones((13, 13), bool), 1)
    np.testing.assert_array_equal(g.play[btn], (diag | above).astype(float))
    np.testing.assert_array_equal(g.raise_[btn], diag.astype(float))
    others = [i for i in range(len(g.positions)) if i != btn]
    assert g.play[others].max() == 0
    assert g.range_size()[btn] == pytest.approx((78 + 312) / 1326)


def test_another_grid_of_the_policy_compiles_nothing(grids):
    """Params, seed and stack are data: the fixture's program serves them (a notebook drawing
    grids of many checkpoints compiles once)."""
    with CompileCounter() as counted:
        g = pg.preflop_grid(switch_policy, jnp.int32(0), num_keys=2, seed=3, stack_bb=20)
    assert counted.count == 0
    np.testing.assert_array_equal(g.play, grids[0].play)  # the toy policy ignores both


def test_the_baseline_utg_range_is_its_open_threshold(grids):
    # UTG at 50 BB: 5 live seats behind, no steal there: raise iff top <= OPEN_TOP[5].
    g = grids[1]
    utg = g.positions.index("UTG")
    _, top = baseline.load_preflop()
    expected = np.array([[top[pg.cell_class(r, c)] <= baseline.OPEN_TOP[5] for c in range(13)]
                         for r in range(13)], float)
    np.testing.assert_array_equal(g.play[utg], expected)
    np.testing.assert_array_equal(g.raise_[utg], expected)  # opens are raises, never limps
    assert g.play[utg, 0, 0] == 1 and g.play[utg, 12, 7] == 0  # AA plays, 72o does not
    # Later positions open wider (OPEN_TOP grows as fewer seats are behind).
    sizes = g.range_size()
    assert sizes[g.positions.index("BTN")] > sizes[utg]


def test_plot_writes_png_and_svg(grids, tmp_path):
    paths = pg.plot_grid(grids[0], [tmp_path / "g.png", tmp_path / "g.svg"], "toy")
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = paths[1].read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg


def test_a_policy_returning_the_wrong_thing_is_refused():
    with pytest.raises(ValueError, match="probabilities of shape"):
        pg.preflop_grid(lambda state, key: jnp.zeros(3))
