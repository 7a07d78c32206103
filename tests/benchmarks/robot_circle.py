"""Benchmark: the flagship robot's circle run (seed 000 §5.3), issues 5 and 19.

Flexible hexagonal platform (Bézier-plate elements, shared formulation), 1.6 s at 5 ms
(320 steps), generalized-α ρ∞ = 0.1, inverse dynamics from the static equilibrium.
Prints one JSON line per run: wall time of the time integration, steps per second, and
the ratio to real time.

``--platform reduced`` runs the reduced platform (``docs/reduced_bodies.md``) and, in
the same process, the full plate (``--no-full`` skips it): the time integrations are
timed alone; building the reduced model (the full robot's static hold, the reduction,
loaded from the cache when it is there) is reported apart as ``offline_s``, with
``cached`` saying which it was (``--cold``: a fresh cache directory, so the reduction is
computed).  ``-r`` repeats interleave the two models and give medians.

    python tests/benchmarks/robot_circle.py [mesh ...]
    python tests/benchmarks/robot_circle.py hexagon_96 --platform reduced -r 3
    python tests/benchmarks/robot_circle.py hexagon_384 --platform reduced --no-full
    python tests/benchmarks/robot_circle.py hexagon_96 --platform reduced --modes 12 \
        --enrich 0 --cubic-tol 0 -r 3        # the basis before 2026-11-24 (late)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from benchtools import clock, interleaved, machine, one_thread, summary

one_thread()

import numpy as np  # noqa: E402

from fem.robots import rrru3  # noqa: E402
from fem.robots.rrru3_model import build_robot, histories, run_path, static_state  # noqa: E402


def build(mesh: str, platform: str = "flexible", reduction: str = "nonlinear",
          n_modes: int = 2, n_derivatives: int = 4, n_enrich: int = 16,
          cubic_tol: float = 3e-4):
    """``(robot model, static state, seconds to build it and find the static state)``."""
    geom = rrru3.RRRU3Geometry()
    path = rrru3.paper_circle_path(geom)
    t0 = clock()
    kw = {} if platform != "reduced" else {"reduction": reduction, "n_modes": n_modes,
                                           "n_derivatives": n_derivatives,
                                           "n_enrich": n_enrich, "cubic_tol": cubic_tol}
    rm = build_robot(geom, platform, mesh, path=path, shear_factor="auto",
                     damping_beta=1e-5, **kw)
    st = static_state(rm)
    return rm, st, clock() - t0


def integrate(rm, st, t_end: float):
    """``(wall [s], result)`` of the circle's first ``t_end`` seconds."""
    t0 = clock()
    res = run_path(rm, t_end, 5e-3, 0.1, q0=st.q)
    return clock() - t0, res


def figures(rm, res, t_end: float, wall: float) -> dict:
    steps = len(res.t) - 1
    h = histories(rm, res)
    return {"coordinates": rm.counts["n_coordinates"],
            "constraints": rm.counts["n_constraints"], "steps": steps,
            "wall_s": round(wall, 3), "steps_per_s": round(steps / wall, 1),
            "real_time_factor": round(t_end / wall, 3),
            "newton_iterations_per_step": round(float(res.stats["iterations"][1:].mean()), 2),
            "factorizations": res.info["factorizations"],
            "torque_range_Nm": round(float(np.ptp(h["torque"])), 4),
            "sag_mm": [round(1e3 * float(f(h["sag"])), 4) for f in (np.min, np.max)]}


def run(mesh: str = "hexagon_6", t_end: float = 1.6, platform: str = "flexible",
        reduction: str = "nonlinear", full: bool = True, repeats: int = 1,
        n_modes: int = 2, n_enrich: int = 16, cubic_tol: float = 3e-4) -> dict:
    """The circle's first ``t_end`` seconds (the whole circle: 1.6 s)."""
    models = {}
    out = {"mesh": mesh, "t_end_s": t_end, "platform": platform}
    if platform == "reduced":
        rm, st, offline = build(mesh, "reduced", reduction, n_modes, 4, n_enrich, cubic_tol)
        info = rm.reduced.body.reduction.info
        models["reduced"] = (rm, st)
        out.update({"reduction": reduction, "modes": int(info["n_modes"]),
                    "n_enrich": n_enrich, "cubic_tol": cubic_tol,
                    "cubic_rank": info.get("cubic_rank"),
                    "offline_s": round(offline, 3), "cached": bool(info.get("cached"))})
        if full:
            models["full"] = build(mesh)[:2]
    else:
        models[platform] = build(mesh, platform)[:2]
    for rm, st in models.values():
        run_path(rm, 0.02, 5e-3, 0.1, q0=st.q)     # warm-up: numba kernels from the disk cache
    last = {}

    def one(name):
        wall, last[name] = integrate(*models[name], t_end)
        return wall

    walls = interleaved(list(models), repeats, one)
    for name, (rm, _) in models.items():
        med = summary(walls[name])["wall_median_s"]
        fig = {**figures(rm, last[name], t_end, med), **summary(walls[name], 3)}
        if len(models) == 1 and platform != "reduced":
            out.update(fig)          # one model: flat, as scaling_families.py reads it
        else:
            out[name] = fig
    if "full" in out:
        out["speedup_vs_full"] = round(out["full"]["wall_s"] / out["reduced"]["wall_s"], 2)
        hr = histories(models["reduced"][0], last["reduced"])["torque"]
        hf = histories(models["full"][0], last["full"])["torque"]
        out["torque_vs_full_rel"] = round(float(np.abs(hr - hf).max() / np.ptp(hf)), 5)
    out["machine"] = machine()
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("meshes", nargs="*", default=["hexagon_6"])
    ap.add_argument("--platform", default="flexible", choices=("flexible", "reduced"))
    ap.add_argument("--reduction", default="nonlinear", choices=("nonlinear", "linear"))
    ap.add_argument("--modes", type=int, default=2, help="n_modes of the reduced platform")
    ap.add_argument("--enrich", type=int, default=16, help="n_enrich of the reduced platform")
    ap.add_argument("--cubic-tol", type=float, default=3e-4,
                    help="cubic_tol of the reduced platform (0: the whole K3)")
    ap.add_argument("--t-end", type=float, default=1.6)
    ap.add_argument("--no-full", action="store_true")
    ap.add_argument("--cold", action="store_true", help="a fresh reduction cache")
    ap.add_argument("-r", "--repeats", type=int, default=1)
    args = ap.parse_args()
    cold = tempfile.TemporaryDirectory() if args.cold else None
    if cold is not None:
        os.environ["FEM_CACHE_DIR"] = cold.name
    for name in args.meshes:
        print(json.dumps(run(name, args.t_end, args.platform, args.reduction,
                             not args.no_full, args.repeats, args.modes, args.enrich,
                             args.cubic_tol)), flush=True)
    sys.exit(0)
