"""Benchmark: the flagship's Bézier-plate platform alone, held at three points (issue 23).

The robot's platform (``hexagon_6`` … meshes, ``bezier_plate_shared`` with the middle G¹
rows and the straight U edges, shear factor "auto", damping β = 1e-5 s) with the payload
at P, its three edge midpoints W₁…W₃ held, released flat under gravity: generalized-α
ρ∞ = 0.1 at h = 5 ms (the circle's settings), 1 s.  A plate-only model of linear rows runs
through the compiled Newton loop (:mod:`fem.solvers.constant_iteration`); ``general``
switches the plate's kernel declaration off (``compiled_forces`` None, as before issue
23's plate item: the fused residual, iterations in Python).  Prints one JSON line per
mesh: CPU time per step of each (best of ``-r``, in this process, interleaved), the
iterations, factorizations and the largest difference of the two runs' positions.

    python tests/benchmarks/plate_hold.py [mesh ...] [-r 5]
"""

from __future__ import annotations

import argparse
import json
import time

from benchtools import machine, one_thread

one_thread()

import numpy as np  # noqa: E402

import fem  # noqa: E402
from fem.robot import Robot, pose  # noqa: E402
from fem.robots import rrru3  # noqa: E402
from fem.robots.rrru3_model import _platform_plate  # noqa: E402


def build(mesh: str = "hexagon_6", general: bool = False) -> fem.Model:
    """The platform held at W₁…W₃ under gravity, payload at P; ``general``: without the
    plate's compiled-kernel declaration."""
    geom = rrru3.RRRU3Geometry()
    robot = Robot(f"platform {mesh}", gravity=(0.0, 0.0, -geom.gravity))
    model = robot.model
    P0 = np.asarray(geom.start_point, float)
    frames = {"P": pose(P0), **{f"U{k + 1}": pose(P0 + geom.edge_midpoint_offset(k),
                                                  x=geom.tangent(k)) for k in range(3)}}
    link = robot.add_link("platform", _platform_plate(geom, mesh, 6.9e8, 0.3, "shared",
                                                      "auto", "tangent"), frames)
    group = link.group
    model.add_damping(group, 1e-5)
    P = robot.frame("platform", "P").origin
    W = [robot.frame("platform", f"U{k + 1}").origin for k in range(3)]
    model.add_point_mass(P, geom.payload_mass)
    for k, w in enumerate(W):
        model.add_constraint(fem.Coincident(w, model.ground(w(model.q0)), f"hold W{k + 1}"))
    if general:
        group.family.compiled_forces = lambda: None
    model.assemble()
    return model


def integrate(model: fem.Model, t_end: float = 1.0, h: float = 5e-3):
    """``(CPU seconds, result)`` of the drop."""
    t0 = time.process_time()
    res = fem.simulate(model, t_end, h, rho_inf=0.1)
    return time.process_time() - t0, res


def run(mesh: str, repeats: int = 5, t_end: float = 1.0) -> dict:
    models = {"compiled": build(mesh), "general": build(mesh, general=True)}
    ga = fem.solvers.dynamic.GeneralizedAlpha(models["compiled"], 0.1)
    best = {k: np.inf for k in models}
    results = {}
    for m in models.values():                 # warm-up: numba's caches, first calls
        integrate(m, 0.05)
    for r in range(repeats):
        for k in (list(models) if r % 2 == 0 else list(models)[::-1]):
            cpu, results[k] = integrate(models[k], t_end)
            best[k] = min(best[k], cpu)
    a, b = results["compiled"], results["general"]
    steps = len(a.t) - 1
    return {"mesh": mesh, "coordinates": int(a.q.shape[1]), "steps": steps,
            "compiled_loop": bool(ga._compiled_newton),
            "factorizes_inside": bool(ga._constant.factorizes),
            **{f"{k}_ms_per_step": round(1e3 * best[k] / steps, 4) for k in models},
            "speedup": round(best["general"] / best["compiled"], 2),
            **{f"{k}_iterations": int(r.stats["iterations"].sum())
               for k, r in results.items()},
            **{f"{k}_factorizations": int(r.info["factorizations"])
               for k, r in results.items()},
            "q_difference_rel": float(np.abs(a.q - b.q).max() / np.abs(b.q - b.q[0]).max()),
            "machine": machine()}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("meshes", nargs="*", default=["hexagon_6"])
    ap.add_argument("-r", "--repeats", type=int, default=5)
    ap.add_argument("--t-end", type=float, default=1.0)
    args = ap.parse_args()
    for m in args.meshes:
        print(json.dumps(run(m, args.repeats, args.t_end)), flush=True)
