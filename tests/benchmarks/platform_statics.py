"""Benchmark: static equilibrium of the flagship robot with a refined platform (issue 12).

The flexible platform meshed with ``hexagon_96`` (or the meshes given) under gravity, solved
by ``fem.solve_static`` with its default adaptive load continuation.  Prints one JSON line
per mesh: wall time, increments, Newton iterations, storage of the iteration matrix and
the platform's sag ``|P − mean(W)|``.
Run: ``python tests/benchmarks/platform_statics.py [mesh ...]``.
"""

from __future__ import annotations

import json
import platform
import sys
import time

import numpy as np

import fem
from fem.robots import rrru3
from fem.robots.rrru3_model import build_robot, static_state


def run(mesh: str = "hexagon_96") -> dict:
    geom = rrru3.RRRU3Geometry()
    rm = build_robot(geom, "flexible", mesh, shear_factor="auto")
    asm = rm.model.assemble()
    t0 = time.perf_counter()
    st = static_state(rm)
    wall = time.perf_counter() - t0
    P = rm.P(st.q)
    W = np.mean([w(st.q) for w in rm.W], axis=0)
    return {"mesh": mesh, "unknowns": asm.n + asm.m, "storage": asm._pat_S.kind,
            "wall_s": round(wall, 3), "increments": st.info.get("increments"),
            "iterations": int(st.iterations) if hasattr(st, "iterations") else None,
            "sag_mm": round(float(np.linalg.norm(P - W)) * 1e3, 4),
            "machine": f"{platform.machine()}, {fem.__version__}, python "
                       f"{sys.version.split()[0]}"}


if __name__ == "__main__":
    for name in sys.argv[1:] or ["hexagon_96"]:
        print(json.dumps(run(name)), flush=True)
