"""Benchmark: the flagship robot's circle run (seed 000 §5.3), issues 5 and 19.

Flexible hexagonal platform (Bézier-plate elements, shared formulation), 1.6 s at 5 ms
(320 steps), generalized-α ρ∞ = 0.1, inverse dynamics from the static equilibrium: the
paper's problem (P driven along the path, ``drive="path"``), the acceptance figure of
issue 46, whatever the case's defaults (``parallel_robot_flexible_platform``: the motors'
drive at ρ∞ = 0.8 and 2.5 ms since 2026-11; ``--drive joints --rho-inf 0.8 --dt 0.0025``
runs that, with the robot's ``cubic_tol`` for the drive unless given).  Prints one JSON
line per run, its ``problem`` first: wall time of the time integration, steps per second,
and the ratio to real time.

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
    python tests/benchmarks/robot_circle.py hexagon_96 --platform reduced --no-full \
        --drive joints --rho-inf 0.8 --dt 0.0025 -r 5     # the case's default problem
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

PAPER = {"drive": "path", "dt_s": 5e-3, "rho_inf": 0.1, "newton_tol": 1e-8}
"""The paper's problem (the acceptance figure of issue 46)."""


def build(mesh: str, platform: str = "flexible", reduction: str = "nonlinear",
          n_modes: int = 2, n_derivatives: int = 4, n_enrich: int = 16,
          cubic_tol: float | None = None, drive: str = "path"):
    """``(robot model, static state, seconds to build it and find the static state)``;
    ``cubic_tol`` None: the robot's for the drive (3e-4 on the path)."""
    geom = rrru3.RRRU3Geometry()
    path = rrru3.paper_circle_path(geom)
    t0 = clock()
    kw = {} if platform != "reduced" else {"reduction": reduction, "n_modes": n_modes,
                                           "n_derivatives": n_derivatives,
                                           "n_enrich": n_enrich, "cubic_tol": cubic_tol}
    rm = build_robot(geom, platform, mesh, path=path, shear_factor="auto",
                     damping_beta=1e-5, drive=drive, **kw)
    st = static_state(rm)
    return rm, st, clock() - t0


def integrate(rm, st, t_end: float, problem: dict = PAPER):
    """``(wall [s], result)`` of the circle's first ``t_end`` seconds."""
    t0 = clock()
    res = run_path(rm, t_end, problem["dt_s"], problem["rho_inf"], q0=st.q,
                   tol=problem["newton_tol"])
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
        n_modes: int = 2, n_enrich: int = 16, cubic_tol: float | None = None,
        problem: dict = PAPER) -> dict:
    """The circle's first ``t_end`` seconds (the whole circle: 1.6 s) of ``problem``
    (``drive``, ``dt_s``, ``rho_inf``, ``newton_tol``; default the paper's)."""
    models = {}
    drive = problem["drive"]
    out = {"problem": {**problem, "steps": int(round(t_end / problem["dt_s"])),
                       "paper": problem == PAPER},
           "mesh": mesh, "t_end_s": t_end, "platform": platform}
    if platform == "reduced":
        rm, st, offline = build(mesh, "reduced", reduction, n_modes, 4, n_enrich, cubic_tol,
                                drive)
        info = rm.reduced.body.reduction.info
        models["reduced"] = (rm, st)
        out.update({"reduction": reduction, "modes": int(info["n_modes"]),
                    "n_enrich": n_enrich, "cubic_tol": info.get("cubic_tol", cubic_tol),
                    "cubic_rank": info.get("cubic_rank"),
                    "offline_s": round(offline, 3), "cached": bool(info.get("cached"))})
        if full:
            models["full"] = build(mesh, drive=drive)[:2]
    else:
        models[platform] = build(mesh, platform, drive=drive)[:2]
    for rm, st in models.values():     # warm-up: numba kernels from the disk cache
        run_path(rm, 4 * problem["dt_s"], problem["dt_s"], problem["rho_inf"], q0=st.q,
                 tol=problem["newton_tol"])
    last = {}

    def one(name):
        wall, last[name] = integrate(*models[name], t_end, problem)
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
    ap.add_argument("--cubic-tol", type=float, default=None,
                    help="cubic_tol of the reduced platform (0: the whole K3; default: "
                         "the robot's for the drive, 3e-4 on the path)")
    ap.add_argument("--drive", default=PAPER["drive"], choices=("path", "joints"),
                    help="path (the paper's) or joints (the case's default)")
    ap.add_argument("--dt", type=float, default=PAPER["dt_s"], help="time step [s]")
    ap.add_argument("--rho-inf", type=float, default=PAPER["rho_inf"])
    ap.add_argument("--tol", type=float, default=PAPER["newton_tol"], help="Newton tolerance")
    ap.add_argument("--t-end", type=float, default=1.6)
    ap.add_argument("--no-full", action="store_true")
    ap.add_argument("--cold", action="store_true", help="a fresh reduction cache")
    ap.add_argument("-r", "--repeats", type=int, default=1)
    args = ap.parse_args()
    cold = tempfile.TemporaryDirectory() if args.cold else None
    if cold is not None:
        os.environ["FEM_CACHE_DIR"] = cold.name
    problem = {"drive": args.drive, "dt_s": args.dt, "rho_inf": args.rho_inf,
               "newton_tol": args.tol}
    for name in args.meshes:
        print(json.dumps(run(name, args.t_end, args.platform, args.reduction,
                             not args.no_full, args.repeats, args.modes, args.enrich,
                             args.cubic_tol, problem)), flush=True)
    sys.exit(0)
