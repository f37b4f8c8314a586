"""The notebooks in notebooks/ run top to bottom (small settings: HOLDEMJAX_NOTEBOOK_SMALL=1),
in a temporary folder so that what they write stays out of the source tree."""

from __future__ import annotations

import os
import pathlib

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


# sng_ppo trains (~80 CPU-s) and export_wasm exports and plays a series (~35 CPU-s, what
# tests/training/test_export_wasm.py checks piece by piece): the slow checks run them
# (benchmarks/run_slow_checks.py; CI's time budget)
@pytest.mark.parametrize("name", ["quickstart", "kuhn_cfr", "alphazero_connect_four",
                                  "chance_search_2048",
                                  pytest.param("export_wasm", marks=pytest.mark.slow),
                                  pytest.param("sng_ppo", marks=pytest.mark.slow)])
def test_notebook_runs(name, tmp_path, monkeypatch):
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    monkeypatch.setenv("HOLDEMJAX_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("JAX_PLATFORMS", os.environ.get("JAX_PLATFORMS", "cpu"))
    # The kernels compile a few large programs and run them on tiny batches: skip LLVM's
    # optimization passes (same results, compiles about twice as fast).
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_backend_optimization_level" not in flags:
        monkeypatch.setenv("XLA_FLAGS", f"{flags} --xla_backend_optimization_level=0".strip())
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError naming the failing cell
    errors = [out for cell in nb.cells if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors
    # Every code cell ran (nothing skipped) and the last one produced output.
    codes = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in codes)
    assert codes[-1].outputs, f"{name}: the last cell printed nothing"
