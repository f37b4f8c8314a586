"""Control flow whose batched form works only on the rows that need it.

Under ``vmap`` a ``lax.while_loop`` with a per-row condition runs its body on *every* row until
the last row is done, and a ``lax.cond`` on a per-row predicate computes both branches for every
row. When few rows need the work (a hand ending among a thousand tables, a finished game to
reset), that wastes most of a step. `sparse_while` and `sparse_cond` mean the same as the `lax`
forms for one row; under ``vmap`` they gather the rows that need the body into a buffer of
`chunk(batch)` rows, run the body there, and scatter the results back, pass after pass until
no row needs it. Each row goes through exactly the computations it would go through alone, so
the results equal the plain forms bit for bit, whatever the batch size or chunk.

Values the functions close over are passed to the batching rule explicitly, so the forms also
work inside a ``lax.cond`` or ``while_loop`` that ``vmap`` batches (which broadcasts closed-over
constants). Nested ``vmap`` works (outer levels batch the rule as ordinary code). Reverse-mode
differentiation is not supported (these are for game logic).

Measured on the CPU only (docs/benchmarks.md, `benchmarks/bench_sng.py`). On an accelerator
every pass of the batched loop reads its condition back to the host; if that costs more than the
work saved, ``set_gather(False)`` makes both forms the plain `lax` ones for functions traced
afterwards (the results are the same either way).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap
from jax.extend.core import ClosedJaxpr, jaxpr_as_fun

__all__ = ["sparse_while", "sparse_cond", "chunk", "set_gather"]

_GATHER = True


def set_gather(enabled: bool) -> None:
    """Gather the rows that need the work under ``vmap`` (True, the default) or run the plain
    `lax` forms (False). Read when a function is traced: re-jit after changing it."""
    global _GATHER
    if not isinstance(enabled, bool):
        raise ValueError(f"set_gather takes a bool, got {enabled!r}")
    _GATHER = enabled


def chunk(batch: int) -> int:
    """Rows gathered per pass of the batched forms: a sixteenth of the batch, at least 8 (the
    size measured on sng-6: docs/env-api.md)."""
    return max(1, min(batch, max(8, batch // 16)))


def _explicit(fn: Callable, example, same_as_input: bool = True
              ) -> tuple[Callable, list, list[bool]]:
    """``fn`` as ``run(consts, x)`` with the values it closes over made an explicit list, and
    per leaf of ``example`` whether ``fn`` returns that leaf itself (its output is the input
    variable, untouched). ``same_as_input``: ``fn`` must return the structure, shapes and
    dtypes it takes (a TypeError names the first difference; the batched rule would otherwise
    cast silently)."""
    closed, shape = jax.make_jaxpr(fn, return_shape=True)(example)
    out_tree = jax.tree.structure(shape)
    if same_as_input:
        in_tree = jax.tree.structure(example)
        if out_tree != in_tree:
            raise TypeError(f"{getattr(fn, '__name__', fn)} must return the structure it takes: "
                            f"got {out_tree}, takes {in_tree}")
        for path, (a, b) in zip(jax.tree_util.tree_flatten_with_path(example)[0],
                                zip(jax.tree.leaves(example), jax.tree.leaves(shape))):
            if (jnp.shape(a), jnp.result_type(a)) != (b.shape, b.dtype):
                raise TypeError(
                    f"{getattr(fn, '__name__', fn)} must keep shapes and dtypes: at "
                    f"{jax.tree_util.keystr(path[0])} it returns {b.dtype}{list(b.shape)} for "
                    f"{jnp.result_type(a)}{list(jnp.shape(a))}")

    def run(consts, x):
        out = jaxpr_as_fun(ClosedJaxpr(closed.jaxpr, consts))(*jax.tree.leaves(x))
        return jax.tree.unflatten(out_tree, out)

    unchanged = [out is inp for out, inp in zip(closed.jaxpr.outvars, closed.jaxpr.invars)]
    return run, list(closed.consts), unchanged


def _rows(tree, batched, size: int):
    """Every leaf batched on axis 0 with ``size`` rows."""
    return jax.tree.map(
        lambda a, b: a if b else jnp.broadcast_to(a, (size,) + jnp.shape(a)), tree, batched)


def _per_row(consts: list, batched: list):
    """Split consts into (closed-over unbatched values, batched values to gather per row) and a
    function that merges them back for one row."""
    fixed = [None if b else c for c, b in zip(consts, batched)]
    rowed = [c for c, b in zip(consts, batched) if b]

    def merge(row_values):
        it = iter(row_values)
        return [next(it) if b else c for c, b in zip(fixed, batched)]

    return rowed, merge


def _passes(want, apply, rowed, x, size: int):
    """Apply ``apply(row_consts, x_row) -> x_row`` to the rows where ``want(row_consts, x_row)``
    holds, `chunk(size)` rows per pass, until none does. ``rowed`` and ``x`` are batched on
    axis 0 (``size`` rows); only ``x`` changes."""
    rows = chunk(size)

    def wanted(x):
        return jax.vmap(want)(rowed, x)

    def one_pass(x):
        if size == 1:  # the one row wants the body whenever the loop runs: no gather needed
            return jax.vmap(apply)(rowed, x)
        (idx,) = jnp.nonzero(wanted(x), size=rows, fill_value=size)  # size: dropped below
        take = jnp.minimum(idx, size - 1)
        out = jax.vmap(apply)(jax.tree.map(lambda a: a[take], rowed),
                              jax.tree.map(lambda a: a[take], x))
        return jax.tree.map(lambda a, b: a.at[idx].set(b, mode="drop"), x, out)

    return jax.lax.while_loop(lambda x: jnp.any(wanted(x)), one_pass, x)


def sparse_while(cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val):
    """``lax.while_loop(cond_fun, body_fun, init_val)``; under ``vmap`` each pass runs the body
    only on rows whose condition holds (see the module doc)."""
    if not _GATHER:
        return jax.lax.while_loop(cond_fun, body_fun, init_val)
    cond_run, cc, _ = _explicit(cond_fun, init_val, same_as_input=False)
    # Leaves the body returns untouched ride with the rows read-only: the batched passes gather
    # them but never scatter them back (each scatter is a kernel of the batched program).
    body_run, bc, keep = _explicit(body_fun, init_val)

    @custom_vmap
    def loop(cc, bc, x):
        return jax.lax.while_loop(partial(cond_run, cc), partial(body_run, bc), x)

    @loop.def_vmap
    def _rule(axis_size, in_batched, cc, bc, x):
        cc_batched, bc_batched, x_batched = in_batched
        c_rowed, c_merge = _per_row(cc, cc_batched)
        b_rowed, b_merge = _per_row(bc, bc_batched)
        leaves, treedef = jax.tree.flatten(_rows(x, x_batched, axis_size))
        moving = [leaf for leaf, k in zip(leaves, keep) if not k]
        fixed = [leaf for leaf, k in zip(leaves, keep) if k]

        def whole(mv, fx):
            it_m, it_f = iter(mv), iter(fx)
            return jax.tree.unflatten(treedef, [next(it_f) if k else next(it_m) for k in keep])

        def want(r, y):
            return cond_run(c_merge(r[0]), whole(y, r[2]))

        def apply(r, y):
            out = jax.tree.leaves(body_run(b_merge(r[1]), whole(y, r[2])))
            return [leaf for leaf, k in zip(out, keep) if not k]

        moved = _passes(want, apply, (c_rowed, b_rowed, fixed), moving, axis_size)
        out = whole(moved, fixed)
        return out, jax.tree.map(lambda _: True, out)

    return loop(cc, bc, init_val)


def sparse_cond(pred, true_fun: Callable[[Any], Any], operand):
    """``true_fun(operand) if pred else operand`` (``true_fun`` keeps the operand's structure,
    shapes and dtypes); under ``vmap`` ``true_fun`` runs only on rows where ``pred`` holds."""
    if not _GATHER:
        return jax.lax.cond(pred, true_fun, lambda y: y, operand)
    true_run, tc, _ = _explicit(true_fun, operand)

    @custom_vmap
    def branch(p, tc, x):
        return jax.lax.cond(p, partial(true_run, tc), lambda y: y, x)

    @branch.def_vmap
    def _rule(axis_size, in_batched, p, tc, x):
        p_batched, tc_batched, x_batched = in_batched
        rowed, merge = _per_row(tc, tc_batched)

        def apply(r, c):  # the flag rides with the row and the pass clears it
            return jnp.bool_(False), true_run(merge(r), c[1])

        carry = (_rows(p, p_batched, axis_size), _rows(x, x_batched, axis_size))
        _, out = _passes(lambda r, c: c[0], apply, rowed, carry, axis_size)
        return out, jax.tree.map(lambda _: True, out)

    return branch(jnp.asarray(pred, bool), tc, operand)
