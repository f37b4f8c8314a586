"""The tables axis sharded over devices (`holdemjax.training.sharding`): one PPO iteration
(`Trainer.step`: the env rollout under `auto_reset`, then the updates) on four faked CPU devices
in a fresh interpreter (``XLA_FLAGS`` must be set before JAX starts) against the same iteration
on this process's one device. The config, parameters and one-device program are
tests/training/test_ppo.py's tiny run, so the one-device side is compiled once for both files
(in the process, or through the persistent compilation cache)."""

from __future__ import annotations

import os
import pathlib
import pickle
import subprocess
import sys

import jax
import numpy as np
import pytest

from holdemjax.training import ppo
from holdemjax.training.sharding import TableSharding, check_divisible, resolve_devices
from tests.training.test_ppo import TINY

ROOT = pathlib.Path(__file__).resolve().parents[2]
RTOL, ATOL = 1e-5, 1e-6

# The child: 4 CPU devices. It reads the one-device test's initial TrainState (host arrays,
# pickled), places it over the 4 devices and runs one `Trainer.step` there; writes <out>.npz.
CHILD = r"""
import pickle, sys
import jax, numpy as np
from holdemjax.training import ppo
from holdemjax.training.sharding import TableSharding

assert jax.device_count() == 4, jax.devices()
config, host, out_path = *pickle.load(open(sys.argv[1], "rb")), sys.argv[2]
trainer = ppo.Trainer(config, devices=4)
sh, B = trainer.sharding, config.num_tables
env_state, setup = sh.put((host.env_state, host.setup), batched=True, num_rows=B)
params, opt_state, pool, pool_count, key, iteration = sh.put(
    (host.params, host.opt_state, host.pool, host.pool_count, host.key, host.iteration),
    batched=False)
ts = ppo.TrainState(params, opt_state, env_state, setup, pool, pool_count,
                    jax.random.wrap_key_data(key), iteration)
out = {"in_shards": len(ts.env_state.observation.addressable_shards),
       "local_rows": np.asarray(sh.local_rows(B).indices(B)),
       "put_shards": np.stack([np.asarray(s.data) for s in
                               sh.put(np.arange(B), batched=True, num_rows=B).addressable_shards])}
ts, metrics = trainer.step(ts)
out["out_devices"] = len(ts.env_state.observation.sharding.device_set)
out["out_shards"] = len(ts.env_state.observation.addressable_shards)
for i, x in enumerate(jax.tree.leaves((ts.env_state, ts.setup))):
    out[f"env_{i}"] = np.asarray(x)
for i, x in enumerate(jax.tree.leaves((ts.params, ts.opt_state, ts.pool))):
    out[f"params_{i}"] = np.asarray(x)
out["key"], out["pool_count"] = np.asarray(jax.random.key_data(ts.key)), np.asarray(ts.pool_count)
for k, v in metrics.items():
    out[f"m_{k}"] = np.asarray(v)
for bad in (dict(num_tables=6), dict(num_tables=4, rollout_steps=3, minibatches=2)):
    try:
        ppo.Trainer(ppo.Config(**bad), devices=4)
    except ValueError as err:
        print("refused:", err)
np.savez(out_path, **out)
print("sharded ok")
"""


def _host(tree):
    """Host copies of a pytree's leaves (typed PRNG keys as their key data)."""
    def one(x):
        if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            x = jax.random.key_data(x)
        return np.asarray(x)
    return jax.tree.map(one, tree)


@pytest.fixture(scope="module")
def four(tmp_path_factory):
    """One iteration of tests/training/test_ppo.py's tiny run (the same config, parameters and
    compiled program) on this process's one device, and the same iteration from the same state
    on four faked devices in a child."""
    tmp = tmp_path_factory.mktemp("sharding")
    trainer = ppo.Trainer.of(TINY)
    ts = trainer.init(params=trainer.init_params(jax.random.key(11)))
    start = _host(ts)
    with open(tmp / "state.pkl", "wb") as f:
        pickle.dump((TINY, start), f)
    env = dict(os.environ, JAX_PLATFORMS="cpu",
               XLA_FLAGS="--xla_force_host_platform_device_count=4")
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp / "state.pkl"),
                              str(tmp / "out.npz")], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    step = trainer.compiled or trainer.step  # test_ppo's compiled step when it ran here
    one, metrics = step(ts)
    stdout, stderr = child.communicate()
    assert child.returncode == 0, stderr[-3000:]
    assert stdout.strip().endswith("sharded ok")
    got = np.load(tmp / "out.npz")
    return dict(start=start, one=_host(one), metrics=_host(metrics), stdout=stdout,
                many={k: got[k] for k in got.files})


# the four-device run: ~50 s wall, ~70 CPU-s here (issue 20: the sharding tests run in CI)
def test_the_tables_are_split_in_four_blocks_and_stay_split(four):
    many = four["many"]
    assert many["in_shards"] == many["out_shards"] == many["out_devices"] == 4
    assert many["local_rows"].tolist() == [0, TINY.num_tables, 1]  # one process: every row
    np.testing.assert_array_equal(many["put_shards"], np.arange(TINY.num_tables).reshape(4, -1))


# the four-device run: ~50 s wall, ~70 CPU-s here (issue 20: the sharding tests run in CI)
def test_the_env_rollout_over_four_devices_equals_the_one_device_rollout(four):
    """sng-6 under auto_reset, test_ppo's TINY tables x rollout steps (tournaments end and
    start over in it): every leaf of the tables' states and setups after the rollout is the
    same, bit for bit, and so are the counts of the rollout (decisions, tournaments, masked
    actions)."""
    one = jax.tree.leaves((four["one"].env_state, four["one"].setup))
    many = four["many"]
    assert len(one) == len([k for k in many if k.startswith("env_")]) > 50
    for i, leaf in enumerate(one):
        np.testing.assert_array_equal(leaf, many[f"env_{i}"], err_msg=f"leaf {i}")
    # The rollout moved the tables and restarted some tournaments (auto_reset under sharding).
    assert not np.array_equal(four["start"].env_state.observation, one[1])
    ended = sum(int(four["metrics"][f"tournaments_{k}"]) for k in ppo.TABLE_KINDS[:3])
    assert ended > 0
    for name, value in four["metrics"].items():
        if np.issubdtype(value.dtype, np.integer):
            assert value == many[f"m_{name}"], name


# the four-device run: ~50 s wall, ~70 CPU-s here (issue 20: the sharding tests run in CI)
def test_one_sharded_training_iteration_matches_one_device(four):
    """`Trainer.step` on 4 devices against 1: keys exactly; parameters, adam's moments, the
    pool and the float metrics to float32 tolerance (each minibatch's sums are all-reduced
    over the devices, in another order than one device adds them)."""
    one, many = four["one"], four["many"]
    np.testing.assert_array_equal(one.key, many["key"])
    assert one.pool_count == many["pool_count"] == 2
    leaves = jax.tree.leaves((one.params, one.opt_state, one.pool))
    assert len(leaves) == len([k for k in many if k.startswith("params_")]) > 10
    start = jax.tree.leaves(four["start"].params)
    assert any(not np.array_equal(a, b) for a, b in zip(start, leaves))  # the update moved them
    for i, leaf in enumerate(leaves):
        np.testing.assert_allclose(leaf, many[f"params_{i}"], rtol=RTOL, atol=ATOL,
                                   err_msg=f"leaf {i}")
    for name, value in four["metrics"].items():
        if not np.issubdtype(value.dtype, np.integer):
            np.testing.assert_allclose(value, many[f"m_{name}"], rtol=1e-4, atol=1e-6,
                                       err_msg=name)


# the four-device run: ~50 s wall, ~70 CPU-s here (issue 20: the sharding tests run in CI)
def test_four_devices_refuse_a_batch_that_does_not_split_in_four(four):
    refused = [line for line in four["stdout"].splitlines() if line.startswith("refused:")]
    assert refused == [
        "refused: num_tables = 6 is not divisible by the 4 devices it is sharded over "
        "(choose a multiple of 4, or fewer devices)",
        "refused: num_tables * rollout_steps / minibatches = 6 is not divisible by the 4 "
        "devices it is sharded over (choose a multiple of 4, or fewer devices)"]


# ------------------------------------------------------------------------ host-side checks
def test_device_counts_the_batch_does_not_fit_are_refused_by_value():
    with pytest.raises(ValueError, match=r"devices must be between 1 and the 1 device"):
        resolve_devices(2)
    with pytest.raises(ValueError, match=r"devices must be between 1 .* got 0"):
        resolve_devices(0)
    with pytest.raises(ValueError, match="devices must be None, an int"):
        resolve_devices("all")
    cpu = jax.devices()[0]
    with pytest.raises(ValueError, match="lists a device twice"):
        resolve_devices([cpu, cpu])
    with pytest.raises(ValueError, match=r"num_tables = 6 is not divisible by the 4 devices"):
        check_divisible(4, num_tables=6)
    check_divisible(4, num_tables=8)  # a multiple passes


def test_one_device_holds_every_row():
    sh = TableSharding(None, 8)
    assert sh.size == jax.device_count() == 1
    assert sh.local_rows(8) == slice(0, 8)
    x = sh.put({"a": np.arange(8)}, batched=True, num_rows=8)["a"]
    np.testing.assert_array_equal(np.asarray(x), np.arange(8))


def test_cli_refuses_a_device_count_by_value(capsys):
    assert ppo.main(["--devices", "3", "--quiet"]) == 2
    assert "devices must be between 1 and the 1 device" in capsys.readouterr().err
