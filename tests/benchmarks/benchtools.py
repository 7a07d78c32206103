"""Shared machinery of the benchmarks: one thread, interleaved repeats, medians, fits.

Used by ``peer_compare.py`` (fresh subprocesses per run), ``basis_speed.py``,
``peer_chains.py`` and ``scaling_families.py`` (in-process runs) and ``scaling_plot.py``;
the cantilever benchmarks (``cable_cantilever.py``, ``beam_cantilever.py``) time their
drop with :func:`cantilever_drop`.

* :func:`one_thread` / :func:`one_thread_env`: OMP/MKL/OpenBLAS limited to one thread, in
  this process (call before numpy is imported) or in a child's environment; the child
  also imports this checkout's ``fem`` ahead of an installed one.
* :func:`interleaved`: every configuration once per repeat, the order rotated by one
  each repeat (two configurations: the order flips), so that a slow spell of a shared
  machine falls on all of them; :func:`summary` their median and min.
* :func:`fit_loglog`: ``y ≈ c xᵖ`` by least squares on log–log.
* :func:`clock`: the timing clock, compiling excluded (:func:`fem.core.jit.clock`).

The benchmarks measure the compiled path (``FEM_JIT=compiled`` unless set): kernels
missing from the cache are compiled in the run, and that time is left out of every
wall time here.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


os.environ.setdefault("FEM_JIT", "compiled")


def clock() -> float:
    """Seconds for timing fem's runs: ``time.perf_counter`` less the time spent compiling
    kernels (:func:`fem.core.jit.clock`)."""
    from fem.core.jit import clock as jit_clock

    return jit_clock()


def one_thread() -> None:
    """One BLAS/OpenMP thread in this process (before numpy is imported), and this
    checkout's ``fem`` and ``cases/`` ahead of an installed ``fem``."""
    for var in THREAD_VARS:
        os.environ[var] = "1"
    for p in (ROOT / "cases", ROOT):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))


def one_thread_env() -> dict:
    """The environment of a child process: one thread, this checkout's ``fem`` first."""
    env = dict(os.environ)
    for var in THREAD_VARS:
        env[var] = "1"
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"]
                                     if env.get("PYTHONPATH") else "")
    return env


def last_json(text: str) -> dict | None:
    """The last line of ``text`` that is a JSON object, or None."""
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return None


def interleaved(configs: Sequence[Hashable], repeats: int,
                run: Callable[[Hashable], object]) -> dict:
    """``{config: [run(config) for each repeat]}``, the configurations interleaved, their
    order rotated by one every repeat.  ``run`` may return None (a side that cannot run):
    then nothing is recorded for that call."""
    out: dict = {c: [] for c in configs}
    n = len(configs)
    for r in range(repeats):
        k = r % n if n else 0
        for c in list(configs[k:]) + list(configs[:k]):
            value = run(c)
            if value is not None:
                out[c].append(value)
    return out


def summary(walls: Sequence[float], digits: int = 4) -> dict:
    """Median, min and all of a list of wall times [s]."""
    return {"wall_median_s": round(statistics.median(walls), digits),
            "wall_min_s": round(min(walls), digits),
            "walls_s": [round(w, digits) for w in walls]}


def fit_loglog(x, y) -> tuple[float, float]:
    """``(p, c)`` of ``y ≈ c xᵖ``, least squares on log–log."""
    import numpy as np

    p, logc = np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)
    return float(p), float(np.exp(logc))


def machine() -> str:
    """Processor, cores, Python, fem's version (if imported), the load average."""
    fem = sys.modules.get("fem")
    version = f", fem {fem.__version__}" if fem is not None else ""
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"python {platform.python_version()}{version}, load {os.getloadavg()[0]:.2f}")


def cantilever_drop(model, tip: int, steps: int, h: float, *, ms_per_step: bool = False,
                    **head) -> dict:
    """Time a clamped bar's drop under gravity from rest: ``steps`` generalized-α steps of
    ``h`` (ρ∞ = 0.8, Newton tolerance 1e-6 relative) on the assembled ``model``, ``tip``
    the index of the tip's z coordinate.  One JSON-ready line: ``head`` first, then the
    size, the wall time (and its milliseconds per step if ``ms_per_step``), the tip's last
    z, the Newton iterations per step, the factorizations and the machine."""
    import fem

    t0 = clock()
    res = fem.simulate(model, steps * h, h, rho_inf=0.8, tol=1e-6)
    wall = clock() - t0
    per_step = {"ms_per_step": round(1e3 * wall / steps, 3)} if ms_per_step else {}
    return {**head, "coordinates": model.n_dof, "steps": steps, "wall_s": round(wall, 4),
            **per_step, "tip_z_m": float(res.q[-1, tip]),
            "newton_iterations_per_step": round(float(res.stats["iterations"][1:].mean()), 3),
            "factorizations": res.info["factorizations"],
            "roundoff_accepts": res.info["roundoff_accepts"],
            "machine": f"{platform.processor() or platform.machine()}, python "
                       f"{sys.version.split()[0]}"}
