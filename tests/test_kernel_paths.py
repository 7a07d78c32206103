"""A run never waits for the compiler: with an empty cache ``fem run`` takes the NumPy
path at once, with the kernels compiled and cached it takes the compiled path; both give
the same headline figures (1e-6 of their size), ``summary.json`` says which path ran,
and a rerun on the same path is bit-identical."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fem.cases import load_case

ROOT = Path(__file__).resolve().parents[1]


def _fem(args: list[str], cache: Path, jit: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "FEM_JIT": jit,
           "FEM_JIT_BACKGROUND": "0",
           "PYTHONPATH": os.pathsep.join([str(ROOT)] + [
               p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("FEM_NO_JIT", None)
    proc = subprocess.run([sys.executable, "-m", "fem", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return proc


def _run(case: str, params: list[str], out: Path, cache: Path, jit: str = "auto") -> dict:
    args = ["run", case, "--no-render", "--json", "--out", str(out)]
    for p in params:
        args += ["-p", p]
    proc = _fem(args, cache, jit)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _figures(summary: dict) -> dict[str, float]:
    """The headline figures: the summary's numbers less run metadata and the solver's
    round-off diagnostics (residuals)."""
    skip = {"wall_s", "real_time_factor", "compile_s", "paper"}
    return {k: float(v) for k, v in summary.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in skip
            and "residual" not in k}


CASES = [
    pytest.param("cantilever_cable", ["analysis=static", "n_elements=8"], "tip_z_m",
                 id="cable"),
    pytest.param("parallel_robot_flexible_platform", [], "torque_max_Nm", id="main job",
                 marks=pytest.mark.slow),
]


@pytest.mark.parametrize("case, params, figure", CASES)
def test_empty_and_full_cache_give_the_same_figures_on_their_paths(tmp_path, case, params,
                                                                  figure):
    pytest.importorskip("numba")
    cache = tmp_path / "cache"
    empty = _run(case, params, tmp_path / "empty", cache)
    assert empty["kernels"] == "numpy" and empty["compile_s"] == 0.0
    assert _fem(["compile", "--status"], cache, "auto").returncode == 1
    # fill the cache with this case's kernels, as `fem compile` does for every case
    filling = _run(case, params, tmp_path / "filling", cache, jit="compiled")
    assert filling["kernels"] == "compiled" and filling["compile_s"] > 0
    env = {**os.environ, "XDG_CACHE_HOME": str(cache),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("NUMBA_CACHE_DIR", None)       # the test's cache, as _fem runs in
    subprocess.run([sys.executable, "-c", "from fem.core import jit; jit.mark_ready()"],
                   check=True, cwd=ROOT, env=env)
    assert _fem(["compile", "--status"], cache, "auto").returncode == 0
    # a case too short for the kernels (KERNELS = "numpy") takes the NumPy path on its
    # own and says why; its compiled path is then asked for
    short = getattr(load_case(case), "KERNELS", "auto") == "numpy"
    if short:
        own = _run(case, params, tmp_path / "own", cache)
        assert own["kernels"] == "numpy" and "too short" in own["kernels_why"]
        assert _figures(own) == _figures(empty)
    full = _run(case, params, tmp_path / "full", cache, jit="compiled" if short else "auto")
    assert full["kernels"] == "compiled" and full["compile_s"] == 0.0
    a, b = _figures(empty), _figures(full)
    assert a.keys() == b.keys() and a
    assert _figures(empty) != {} and figure in a
    # within 1e-6 of the figures' range: of the largest figure in the same unit (an
    # error or a deviation is a difference of torques, compared at 1e-6 of the torques —
    # the rigid reference's generalized-α error, 1.4e-3 N·m, moves by 2e-8 N·m between
    # the paths), and 1e-9 in its unit for figures that are round-off by nature (the
    # motors' drive prescribes the rigid angles: the angle and rate deviations from the
    # rigid robot are 1e-13 on either path)
    scale: dict[str, float] = {}
    for key, x in a.items():
        unit = key.rsplit("_", 1)[-1]
        scale[unit] = max(scale.get(unit, 0.0), abs(x), abs(b[key]))
    for key, x in a.items():
        tol = 1e-6 * scale[key.rsplit("_", 1)[-1]] + 1e-9
        assert abs(b[key] - x) <= tol, (key, x, b[key])
    again = _run(case, params, tmp_path / "again", cache,        # the same path again
                 jit="compiled" if short else "auto")
    assert again["kernels"] == "compiled" and _figures(again) == b
    again_numpy = _run(case, params, tmp_path / "again_numpy", cache, jit="numpy")
    assert again_numpy["kernels"] == "numpy" and _figures(again_numpy) == a
