"""Checks of the 3-RRRU robots (Liu et al. 2023 and 2018): the rigid robot against its
independent closed-form model, the flagship's static state in its formulations, and the
accuracy figures of the flagship's inverse dynamics.

Each ``@check`` function measures the check of its name in ``checks.toml``, which declares
its subject, reference, limits and why."""

from __future__ import annotations

import numpy as np

from .registry import Measurement, check
from .runs import run

FLAGSHIP = "parallel_robot_flexible_platform"


@check
def rrru3_rigid_vs_independent(quick: bool) -> Measurement:
    from ..cases import load_case, resolve_params

    f = run(FLAGSHIP, analysis="circle", platform="rigid")
    # the step the run took (the case's "auto" step follows its drive)
    dt = resolve_params(load_case(FLAGSHIP), {"analysis": "circle", "platform": "rigid"})["dt_s"]
    return Measurement({"torque_difference_rel": f["rigid_vs_independent_reference_max_rel"]},
                       f"{f['steps']} steps of {1e3 * dt:g} ms; torques {f['torque_min_Nm']:.3f} … "
                       f"{f['torque_max_Nm']:.3f} N·m.")


@check
def flagship_static_state(quick: bool) -> Measurement:
    # the three formulations on the paper's six elements (the default static mesh is 96)
    shared = run(FLAGSHIP, analysis="static", mesh="hexagon_6")
    paper = run(FLAGSHIP, analysis="static", continuity="constraints", mesh="hexagon_6")
    reduced = run(FLAGSHIP, analysis="static", platform="reduced", mesh="hexagon_6")
    s = shared["static_sag_mm"]
    rows = [{"formulation": name, "coordinates / rows": f"{f['n_coordinates']} / "
             f"{f['n_constraints']}", "sag d [mm]": f"{f['static_sag_mm']:.9f}",
             "symmetry error [m]": f"{f['static_symmetry_error_m']:.1e}"}
            for name, f in (("shared vertices + middle G¹ row (default)", shared),
                            ("the paper's continuity equations", paper),
                            ("reduced body (Craig–Bampton, the default basis)", reduced))]
    return Measurement({"paper_constraints_vs_shared_rel": abs(paper["static_sag_mm"] / s - 1),
                        "reduced_vs_full_rel": abs(reduced["static_sag_mm"] / s - 1),
                        "symmetry_error_m": max(f["static_symmetry_error_m"]
                                                for f in (shared, paper, reduced))},
                       "Default element settings (shear remedy 'auto') and U joints (the "
                       "edges read as chords).", rows)


@check
def flagship_circle_accuracy(quick: bool) -> Measurement:
    # the paper's problem, P prescribed: its path error is the solver's accuracy (the
    # default collocated drive lets P leave the path by the deflection)
    f = run(FLAGSHIP, analysis="circle", drive="path")     # ρ∞ = 0.1, h = 5 ms
    return Measurement({k: f[k] for k in ("max_path_error_mm", "max_constraint_residual",
                                          "max_dynamics_residual")},
                       f"{f['steps']} steps, torques {f['torque_min_Nm']:.2f} … "
                       f"{f['torque_max_Nm']:.2f} N·m.")


@check
def liu2023_rigid_mean_torques(quick: bool) -> Measurement:
    paper = {6.0: (-13.23, 5.05), 10.0: (-18.44, 7.74)}
    rows, d_mean, d_dev = [], 0.0, 0.0
    for payload, (mean_p, dev_p) in paper.items():
        f = run(FLAGSHIP, analysis="circle", platform="rigid", circle_closed=False,
                payload_kg=payload, dt_s=0.005)
        tau = np.asarray(f["torque_Nm"])
        mean, dev = float(tau.mean()), float(np.abs(tau - tau.mean()).mean())
        d_mean, d_dev = max(d_mean, abs(mean - mean_p)), max(d_dev, abs(dev - dev_p))
        rows.append({"payload [kg]": payload, "mean torque [N·m]": f"{mean:.3f}",
                     "paper, mean": f"{mean_p:.2f}", "mean deviation [N·m]": f"{dev:.3f}",
                     "paper, deviation": f"{dev_p:.2f}"})
    return Measurement({"mean_torque_difference_Nm": d_mean,
                        "mean_deviation_difference_Nm": d_dev},
                       "Mean over the three limbs and the 321 instants of 5 ms.", rows)
