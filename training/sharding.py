"""The tables axis over devices: a one-axis `jax.sharding.Mesh` (``"tables"``) and the
`NamedSharding`s of the trainer's pytrees. One code path for any device count: one device is the
mesh of size 1 (every array whole on it), N devices split the batch (tables) axis in N equal
blocks and replicate the rest (parameters, optimizer state, the opponent pool, keys).

Multi-host (`jax.distributed`): the mesh spans the global devices (``jax.devices()``, ordered by
process); every process builds only the rows of the tables its own devices hold
(`TableSharding.local_rows`) and `TableSharding.put` assembles the global arrays from that
process-local data with `jax.make_array_from_process_local_data`. docs/training.md has a launch
example.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from holdemjax.validate import is_int

__all__ = ["AXIS", "TableSharding", "resolve_devices", "check_divisible"]

AXIS = "tables"


def resolve_devices(devices=None, num_tables: int | None = None) -> list:
    """The devices to train on: ``None`` = every device (``jax.devices()``: all local devices
    in one process, every process's under `jax.distributed`), an int ``n`` = the first ``n``,
    or a sequence of devices. ``num_tables`` must divide by their number (`ValueError` naming
    both otherwise)."""
    available = jax.devices()
    if devices is None:
        chosen = list(available)
    elif is_int(devices):
        if not 1 <= devices <= len(available):
            raise ValueError(f"devices must be between 1 and the {len(available)} device(s) "
                             f"JAX sees ({available[0].platform}), got {devices!r}")
        chosen = list(available[:devices])
    elif isinstance(devices, Sequence) and devices and all(
            isinstance(d, jax.Device) for d in devices):
        chosen = list(devices)
    else:
        raise ValueError(f"devices must be None, an int >= 1 or a list of jax devices, got "
                         f"{devices!r}")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"devices lists a device twice: {chosen}")
    if num_tables is not None:
        check_divisible(len(chosen), num_tables=num_tables)
    return chosen


def check_divisible(num_devices: int, **sizes: int) -> None:
    """`ValueError` naming the first of ``sizes`` (name = value) that ``num_devices`` does not
    divide: a batch axis is split in equal blocks."""
    for name, size in sizes.items():
        if size % num_devices:
            raise ValueError(f"{name} = {size} is not divisible by the {num_devices} devices "
                             f"it is sharded over (choose a multiple of {num_devices}, or "
                             f"fewer devices)")


class TableSharding:
    """Where the trainer's arrays live: ``batch`` (axis ``axis`` split over the mesh) and
    ``replicated`` (whole on every device)."""

    def __init__(self, devices=None, num_tables: int | None = None):
        self.devices = resolve_devices(devices, num_tables)
        self.mesh = Mesh(np.asarray(self.devices), (AXIS,))
        self.size = len(self.devices)
        self.replicated = NamedSharding(self.mesh, P())

    def batch(self, axis: int = 0) -> NamedSharding:
        """The sharding of an array whose axis ``axis`` is the tables (or another batch) axis."""
        return NamedSharding(self.mesh, P(*([None] * axis), AXIS))

    def local_rows(self, num_rows: int) -> slice:
        """The rows of a ``[num_rows, ...]`` batch that this process's devices hold (all of them
        in one process): what this process builds for `put`."""
        index = self.batch().addressable_devices_indices_map((num_rows,))
        starts = [ix[0].indices(num_rows)[0] for ix in index.values()]
        stops = [ix[0].indices(num_rows)[1] for ix in index.values()]
        return slice(min(starts), max(stops))

    def put(self, tree, *, batched: bool, num_rows: int | None = None):
        """Global arrays from this process's data: with ``batched``, every leaf holds the rows
        `local_rows(num_rows)` of a ``[num_rows, ...]`` array (sharded on axis 0); otherwise
        every leaf is the whole value, the same in every process (replicated). Typed PRNG keys
        travel as their key data."""
        sharding = self.batch() if batched else self.replicated

        def one(x):
            typed = jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)
            data = np.asarray(jax.random.key_data(x) if typed else x)
            shape = ((num_rows,) + data.shape[1:]) if batched else data.shape
            out = jax.make_array_from_process_local_data(sharding, data, shape)
            return jax.random.wrap_key_data(out, impl=jax.random.key_impl(x)) if typed else out

        return jax.tree.map(one, tree)

    def constrain(self, tree, axis: int = 0):
        """Inside `jit`: every leaf of ``tree`` split over the mesh along ``axis``."""
        return jax.lax.with_sharding_constraint(tree, self.batch(axis))

    def replicate(self, tree):
        """Inside `jit`: every leaf of ``tree`` whole on every device."""
        return jax.lax.with_sharding_constraint(tree, self.replicated)
