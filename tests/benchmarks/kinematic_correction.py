"""Benchmark: the kinematic-correction options of generalized-α (issue 9 item 4).

For the seed-001 robot (flexible links, forward dynamics under the rigid robot's torques)
and the flagship's rigid-platform robot on the line path (generalized-α against the exact
per-instant inverse dynamics), with ``correction`` = none / projection / rigid: wall time,
Newton iterations per step, the largest position and velocity constraint residuals, the
number of in-iteration rigid corrections, and the torque error of the rigid robot against
the exact solution.  Prints JSON; with ``--plot PATH`` writes the residual histories.
Run: ``python tests/benchmarks/kinematic_correction.py [--plot docs/img/kinematic_correction.png]``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cases"))

import fem  # noqa: E402
from fem.robots import rrru3  # noqa: E402
from fem.robots.rrru3_model import build_robot, histories, run_path  # noqa: E402


def flexible_links(mode: str):
    import parallel_robot_flexible_links as case

    from fem.robots.rrru3_flexible_links import (
        equilibrium_under_torques,
        rigid_torque_function,
        seed001_circle_path,
        seed001_geometry,
    )

    p = dict(case.PARAMS)
    geom = seed001_geometry(0.0)
    path = seed001_circle_path(geom, p["speed_mps"])
    torques = [rigid_torque_function(geom, path, k) for k in range(3)]
    q0, _ = equilibrium_under_torques(geom, [f(0.0) for f in torques], E=p["E_Pa"],
                                      nu=p["nu"], radius=p["link_radius_m"],
                                      n_elements=p["n_elements_per_link"],
                                      formulation=p["beam_formulation"])
    _, _, rm = case._setup(p, "forward", torques)
    t0 = time.perf_counter()
    res = fem.simulate(rm.model, path.duration, p["dt_s"], rho_inf=p["rho_inf"], q0=q0,
                       tol=p["newton_tol"], constraint_tol=1e-11, reuse="step",
                       correction=mode)
    return res, time.perf_counter() - t0


def rigid_line(mode: str):
    geom = rrru3.RRRU3Geometry()
    rm = build_robot(geom, "rigid", path=rrru3.paper_line_path(geom, [0.0, 1.0, 0.0]))
    exact = run_path(rm, 0.8, 5e-3, 0.1)
    t0 = time.perf_counter()
    ga = fem.simulate(rm.model, 0.8, 5e-3, rho_inf=0.1, q0=exact.q[0], tol=1e-8,
                      constraint_tol=1e-11, reuse="step", correction=mode)
    wall = time.perf_counter() - t0
    err = np.abs(histories(rm, ga)["torque"] - histories(rm, exact)["torque"]).max(axis=1)
    return ga, wall, err


def main() -> None:
    rows, curves = [], {}
    for mode in ("none", "projection", "rigid"):
        res, wall = flexible_links(mode)
        ga, wall_r, err = rigid_line(mode)
        st = res.stats
        rows.append({
            "correction": mode,
            "flexible_links_wall_s": round(wall, 2),
            "flexible_links_iterations_per_step": round(float(st["iterations"][1:].mean()), 2),
            "flexible_links_max_constraint_residual": float(st["residual_constraints"].max()),
            "flexible_links_max_velocity_residual": float(st["residual_velocity"].max()),
            "flexible_links_rigid_corrections": int(res.info["kinematic_corrections"]),
            "rigid_line_wall_s": round(wall_r, 3),
            "rigid_line_torque_error_vs_exact_Nm": float(err.max()),
            "rigid_line_max_velocity_residual": float(ga.stats["residual_velocity"].max()),
        })
        curves[mode] = (res.t, res.stats["residual_velocity"], ga.t, err)
        print(json.dumps(rows[-1]), flush=True)
    if "--plot" in sys.argv:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(1, 2, figsize=(11, 3.8))
        for mode, (t, vr, tr, err) in curves.items():
            ax[0].semilogy(t[1:], np.maximum(vr[1:], 1e-17), label=mode)
            ax[1].semilogy(tr, np.maximum(err, 1e-17), label=mode)
        ax[0].set(xlabel="t [s]", ylabel="max |Φ_q q̇ + Φ_t| [m/s]",
                  title="seed-001 robot, forward: velocity residual")
        ax[1].set(xlabel="t [s]", ylabel="|τ_GA − τ_exact| [N·m]",
                  title="rigid 3-RRRU, line: torque error")
        for a in ax:
            a.grid(True, which="both", alpha=0.3)
            a.legend(title="correction", loc="center left", bbox_to_anchor=(1.0, 0.5))
        fig.tight_layout()
        path = Path(sys.argv[sys.argv.index("--plot") + 1])
        fig.savefig(path, dpi=90)
        print(json.dumps({"plot": str(path)}))


if __name__ == "__main__":
    main()
