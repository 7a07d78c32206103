"""Two-link flexible arm falling under gravity.

Example 2 (Fig. 9) of Fan and Zhang (2016) (``docs/references.md``).
Two equal links (L = 7.11 m, m = 314.88 kg, EA = 2.84e7 N, EI = 3.8e6 N·m²) joined by pin
joints about z, the first pinned at the origin, move in the vertical x–y plane under
g = 9.81 m/s² along −y.  Initial pose (the paper shows it in Fig. 9 without numbers; our
documented choice): both links horizontal along +x, at rest.  Each link is a
floating-frame link (:mod:`fem.model.chains`, ``basis`` any of :mod:`fem.bases`).
``stiffness_factor`` scales EA, EI (and GJ): stiff arms approach the rigid double
pendulum of two uniform rods (:func:`rigid_reference`, an independent ODE).

Figures: ``time_s``, tip trajectories ``tip1_xy_m``/``tip2_xy_m``, the tip deflections of
each link in its own root frame ``deflection1_m``/``deflection2_m``, the energies
(``kinetic_J``, ``strain_J``, ``gravity_J``, ``total_J``), ``energy_drift_rel`` (the
largest change of the total divided by the peak kinetic energy), the rigid pendulum's
second tip ``rigid_tip2_xy_m`` and ``distance_to_rigid_m``.

Convergence of the defaults (``tests/benchmarks/convergence_audit.py``,
``docs/validation.md``): ``dt_s = 0.0003`` with 6 functions per field (formerly 0.005
with 4, still ``-p dt_s=0.005 -p n_coordinates=4``, the setting of the energy row of
``docs/papers/fan2016.md``).  The tip trajectories converge at any of these (0.025 % of
their range), the link deflections slowly: over the 10 s, the former defaults were off
by 27 % of the deflections' peak (14 % of their range) from a run at ``dt_s = 0.00025``
with 6 functions, and halving their step moved them by 13.6 %; with 6 functions
(12 move them 0.35 %) halving the step moves them by 4.5 % at ``dt_s = 0.001`` and
1.6 % at 0.0005 (order 1.4).  At the defaults, halving ``dt_s`` moves every headline
figure by at most 0.91 % (``deflection2_m``) and 12 functions by 0.36 %.  The run costs
12.6× the former defaults' (measured 2026-11-29 in one process, the 2-core machine
nearly idle: 152 s against 12.1 s; on the loaded machine 174 s at ``dt_s = 0.00035``
against 22–32 s).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import fem
from fem.elements.floating_frame import KINEMATICS, FloatingFrameLink
from fem.model.chains import PlanarChain
from fem.references.pendulums import rod_double_pendulum_tip

PARAMS = {
    "length_m": 7.11,
    "mass_kg": 314.88,
    "EA_N": 2.84e7,
    "EI_Nm2": 3.8e6,
    "stiffness_factor": 1.0,
    "basis": "bezier",
    "n_coordinates": 6,
    "kinematics": "paper",
    "theta1_0_deg": 0.0,
    "theta2_0_deg": 0.0,
    "gravity_mps2": 9.81,
    "t_end_s": 10.0,
    "dt_s": 0.0003,
    "rho_inf": 1.0,
}

LIMITS = {"EI_Nm2": ">0", "stiffness_factor": ">0", "kinematics": KINEMATICS,
          **fem.cases.CHAIN_FALL.limits()}

DOCS = {
    "EI_Nm2": "bending stiffness of each link (GJ = EI/1.3)",
    "stiffness_factor": "scales EA, EI and GJ (large: nearly the rigid double pendulum) [-]",
    "kinematics": "centre line of the links: paper (the paper's second-order model) or "
                  "fourth_order (foreshortening and curvature to the next order)",
    "theta1_0_deg": "initial angle of link 1 from +x (at rest)",
    "theta2_0_deg": "initial angle of link 2 relative to link 1",
    "gravity_mps2": "gravitational acceleration (along −y)",
    **fem.cases.CHAIN_FALL.docs(),
}
"""What each parameter means, with its unit where the name does not carry it (``fem info``)."""
REFERENCES = ("fan2016",)
"""The papers this case reproduces (keys of :mod:`fem.references.citations`)."""


def build(**params) -> PlanarChain:
    p = {**PARAMS, **params}
    L, k = p["length_m"], p["stiffness_factor"]
    links = [FloatingFrameLink(L, p["basis"], p["n_coordinates"], p["mass_kg"] / L,
                               k * p["EA_N"], k * p["EI_Nm2"], k * p["EI_Nm2"],
                               GJ=k * p["EI_Nm2"] / 1.3,
                               polar_inertia_per_length=p["mass_kg"] / L * 0.01,
                               kinematics=p["kinematics"])
             for _ in range(2)]
    th = np.radians([p["theta1_0_deg"], p["theta2_0_deg"]])
    return PlanarChain(links, th, gravity=(0.0, -p["gravity_mps2"], 0.0),
                       name="two_link_arm_fall")


def rigid_reference(t, L: float, g: float, phi0=(0.0, 0.0)) -> np.ndarray:
    """Second tip (x, y) of the rigid double pendulum of two uniform rods of length L
    (absolute angles φ from +x, gravity −y), from rest: Lagrange's equations, see
    :func:`fem.references.pendulums.rod_double_pendulum_tip`."""
    return rod_double_pendulum_tip(t, L, g, phi0)


def run(out=None, **params) -> dict:
    p = {**PARAMS, **params}
    model = build(**params)
    fall = fem.cases.chain_fall(model, p, out)
    res, defl, en, kin = fall.result, fall.deflections, fall.energies, fall.kinetic
    tip1 = np.array([ln[0][-1, :2] for ln in fall.centrelines])
    tip2 = np.array([ln[1][-1, :2] for ln in fall.centrelines])
    total = np.array([sum(e.values()) for e in en])
    phi0 = np.cumsum(np.radians([p["theta1_0_deg"], p["theta2_0_deg"]]))
    rigid = rigid_reference(res.t, p["length_m"], p["gravity_mps2"], phi0)
    figures = {
        "time_s": np.asarray(res.t).tolist(), "tip1_xy_m": tip1.tolist(),
        "tip2_xy_m": tip2.tolist(), "deflection1_m": defl[:, 0].tolist(),
        "deflection2_m": defl[:, 1].tolist(), "kinetic_J": kin.tolist(),
        "strain_J": [e["strain"] for e in en], "gravity_J": [e["gravity"] for e in en],
        "total_J": total.tolist(),
        "energy_drift_rel": float(np.abs(total - total[0]).max() / kin.max()),
        "rigid_tip2_xy_m": rigid.tolist(),
        "distance_to_rigid_m": float(np.linalg.norm(tip2 - rigid, axis=1).max()),
        "max_deflection_m": float(np.abs(defl).max()),
    }
    return fem.cases.finish_run(out, model, res, figures, fall.wall, _plot)


def _plot(out: Path, f: dict, name: str) -> None:
    """Time histories: the links' tip deflections, the energies, the second tip beside
    the rigid double pendulum's."""
    from fem.io.plots import plot_histories

    t = f["time_s"]
    plot_histories(t, {"link 1": f["deflection1_m"], "link 2": f["deflection2_m"]},
                   out / "tip_deflections.png", "tip deflection in the link frame [m]",
                   f"{name}: tip deflections")
    plot_histories(t, {k: f[f"{k}_J"] for k in ("kinetic", "strain", "gravity", "total")},
                   out / "energies.png", "energy [J]", f"{name}: energies")
    tip, rigid = np.asarray(f["tip2_xy_m"]), np.asarray(f["rigid_tip2_xy_m"])
    plot_histories(t, {"x": tip[:, 0], "y": tip[:, 1]}, out / "tip2.png",
                   "second tip [m]", f"{name}: second tip, flexible and rigid",
                   reference={"x": rigid[:, 0], "y": rigid[:, 1]})
