"""Reruns are bit-identical, in one process or two, on a quiet or a loaded machine.

Generalized-α's factorization policy used to decide from wall-clock timings when to
renew a factorization, so two identical runs differed at the level of the Newton
tolerance (issue 21).  The default policy now estimates its cost ratio from operation
counts (:mod:`fem.solvers.factor_cost`).  Here the same dynamic runs — the cable
cantilever (modified Newton across steps) and the flagship robot's circle (a fresh
factorization every step, kept within it) — run once in this process and once in a
fresh process while another process burns a CPU, and every result array must be equal
to the last bit.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

RUNS = textwrap.dedent("""
    import numpy as np
    import fem
    from fem.robots import rrru3
    from fem.robots.rrru3_model import build_robot, run_path, static_state


    def runs():
        out = {}
        cable = fem.cases.load_case("cantilever_cable").build(n_elements=16)
        res = fem.simulate(cable, 0.06, 1e-3, rho_inf=0.8, tol=1e-6)
        out.update({f"cable_{k}": getattr(res, k) for k in ("q", "v", "a", "lam")})
        out["cable_iterations"] = res.stats["iterations"]
        geom = rrru3.RRRU3Geometry()
        rm = build_robot(geom, "flexible", "hexagon_6", path=rrru3.seed_circle_path(geom),
                         shear_factor="auto", damping_beta=1e-5)
        res = run_path(rm, 0.1, 5e-3, 0.1, q0=static_state(rm).q)
        out.update({f"robot_{k}": getattr(res, k) for k in ("q", "v", "a", "lam")})
        out["robot_iterations"] = res.stats["iterations"]
        return out
""")

BURN = "import time\nt = time.time()\nwhile time.time() - t < 120:\n    pass\n"


def _runs() -> dict[str, np.ndarray]:
    scope: dict = {}
    exec(compile(RUNS, "determinism_runs", "exec"), scope)
    return scope["runs"]()


def test_reruns_are_bit_identical_beside_a_cpu_burner(tmp_path):
    here = _runs()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    burner = subprocess.Popen([sys.executable, "-c", BURN])
    try:
        script = RUNS + textwrap.dedent(f"""
            np.savez({str(tmp_path / "there.npz")!r}, **runs())
        """)
        subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=ROOT,
                       timeout=600)
    finally:
        burner.kill()
        burner.wait()
    there = np.load(tmp_path / "there.npz")
    assert sorted(there.files) == sorted(here)
    for name, value in here.items():
        np.testing.assert_array_equal(there[name], value, err_msg=name)
