"""Benchmark: the flagship robot's circle run (seed 000 §5.3), issue 5.

Flexible hexagonal platform (6 Bézier-plate elements, shared formulation), 1.6 s at 5 ms
(320 steps), generalized-α ρ∞ = 0.1, inverse dynamics from the static equilibrium.
Prints one JSON line: wall time of the time integration, steps per second, and the ratio
to real time.  Run: ``python tests/benchmarks/robot_circle.py [mesh ...]``.
"""

from __future__ import annotations

import json
import platform
import sys
import time

import fem
from fem.robots import rrru3
from fem.robots.rrru3_model import build_robot, run_path, static_state


def run(mesh: str = "hexagon_6", t_end: float = 1.6) -> dict:
    """The circle's first ``t_end`` seconds (the whole circle: 1.6 s)."""
    geom = rrru3.RRRU3Geometry()
    path = rrru3.seed_circle_path(geom)
    rm = build_robot(geom, "flexible", mesh, path=path, shear_factor="auto", damping_beta=1e-5)
    st = static_state(rm)
    run_path(rm, 0.02, 5e-3, 0.1, q0=st.q)     # warm-up: numba kernels from the disk cache
    t0 = time.perf_counter()
    res = run_path(rm, t_end, 5e-3, 0.1, q0=st.q)
    wall = time.perf_counter() - t0
    steps = len(res.t) - 1
    return {"mesh": mesh, "coordinates": rm.counts["n_coordinates"],
            "constraints": rm.counts["n_constraints"], "steps": steps,
            "wall_s": round(wall, 3), "steps_per_s": round(steps / wall, 1),
            "real_time_factor": round(t_end / wall, 3),
            "newton_iterations_per_step": round(float(res.stats["iterations"][1:].mean()), 2),
            "factorizations": res.info["factorizations"],
            "machine": f"{platform.machine()}, {fem.__version__}, python "
                       f"{sys.version.split()[0]}"}


if __name__ == "__main__":
    for name in sys.argv[1:] or ["hexagon_6"]:
        print(json.dumps(run(name)), flush=True)
