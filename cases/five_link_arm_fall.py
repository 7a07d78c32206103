"""Five-link flexible spatial arm (Canadarm2-like) falling under gravity.

Example 3 of Fan and Zhang (2016) (``docs/references.md``).  The paper's data table for
this example is missing; our documented choice reuses the Canadarm2-like boom data of its
example 2 (``two_link_arm_fall``) for every link: L = 7.11 m, m = 314.88 kg (ρA = 44.3
kg/m), EA = 2.84e7 N, EI_y = EI_z = 3.8e6 N·m². The booms are thin-walled tubes, for which
``J = 2I`` and ``G = E/2.6`` give ``GJ = EI/1.3 = 2.92e6 N·m²``; their radius r = 0.175 m
(Canadarm2's booms are about 0.35 m across) gives the section's polar inertia ``ρI_p = ρA
r² = 1.36 kg·m``.

Joints (:func:`fem.model.chains.dh_chain`, D-H rows ``(d, a, α)``): joint 1 turns about the
vertical z axis (gravity −z) at the origin; ``α_1 = 90°`` makes joints 2–4 pitch joints
about a horizontal axis, ``d_2 = 0.2 m`` is the offset between links 1 and 2 along that
axis; ``α_4 = 90°`` turns joint 5 into a yaw joint of the last link.  Initial pose (our
choice, at rest): θ = (0°, 0°, 30°, −60°, 45°) — link 1 and 2 horizontal along +x, link 3
raised by 30°, link 4 lowered, link 5 turned out of the vertical plane.  The weight of
links 2–5 hangs 0.2 m beside link 1's axis and twists it; the out-of-plane link 5 makes
the fall three-dimensional (both bending planes and torsion of all links).

Figures: ``time_s``, the last tip ``tip_xyz_m``, per link the tip deflections in its own
frame ``deflection_y_m``/``deflection_z_m`` (nt, 5) and the tip twist ``twist_rad``
(nt, 5), energies ``kinetic_J``, ``potential_J`` (gravity), ``elastic_J``, ``total_J``,
``energy_drift_rel`` (largest change of the total / peak kinetic energy) and maxima.

Convergence of the defaults (``tests/benchmarks/convergence_audit.py``,
``docs/validation.md``): the last tip's trajectory is converged to 0.27 % of its range
(``dt_s`` halved) and 0.04 % (6 functions per field), the deflection and twist histories
are not: halving ``dt_s`` moves ``deflection_y_m``/``deflection_z_m``/``twist_rad`` by
18.8/15.3/3.6 % of their range, ``n_coordinates = 6`` by 11.2/9.2/2.4 %.  Converging
them costs far more than 10× the run (measured 2026-11-29, one process on the loaded
2-core machine: the default 27 s): with 6 functions, ``dt_s = 0.0025`` takes 166 s (6×)
and halving it still moves ``deflection_y_m`` by 9 % (``dt_s = 0.00125``: 326 s, 12×);
the move falls only as about √h.  It is not numerical damping of unresolved modes:
``rho_inf = 0.9`` moves the same 18.8 %.  The defaults stay and these figures are the
measure of their error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import fem
from fem.model.chains import SpatialChain, dh_chain

PICTURE = {"camera": {"view": "xz", "direction": [0.35, -1.0, 0.3], "up": [0.0, 0.0, 1.0]}}
"""The camera of the movie (``render.json``): links 1–4 move in the vertical XZ plane, so
it looks along +y, turned 20° about z and raised 16° so that link 5 (out of that plane)
and the twist still read; gravity points down the picture."""

PARAMS = {
    "length_m": 7.11,
    "mass_kg": 314.88,
    "EA_N": 2.84e7,
    "EI_Nm2": 3.8e6,
    "GJ_Nm2": 3.8e6 / 1.3,
    "radius_m": 0.175,
    "offset_12_m": 0.2,
    "stiffness_factor": 1.0,
    "basis": "bezier",
    "n_coordinates": 3,
    "theta0_deg": [0.0, 0.0, 30.0, -60.0, 45.0],
    "gravity_mps2": 9.81,
    "t_end_s": 1.5,
    "dt_s": 0.01,
    "rho_inf": 1.0,
}

LIMITS = {"EI_Nm2": ">0", "GJ_Nm2": ">0", "radius_m": ">0", "offset_12_m": ">=0",
          "stiffness_factor": ">0", "gravity_mps2": ">=0",
          **fem.cases.CHAIN_FALL.limits()}

DOCS = {
    "EI_Nm2": "bending stiffness of each link (both planes)",
    "GJ_Nm2": "torsional stiffness of each link (EI/1.3: a thin-walled tube)",
    "radius_m": "radius of the tubular section (its polar inertia ρA r²)",
    "offset_12_m": "D-H offset d₂ between links 1 and 2 along joint 2's axis",
    "stiffness_factor": "scales EA, EI and GJ (large: nearly rigid links) [-]",
    "theta0_deg": "initial joint angles θ1…θ5 (at rest)",
    "gravity_mps2": "gravitational acceleration (along −z)",
    **fem.cases.CHAIN_FALL.docs(),
}
"""What each parameter means, with its unit where the name does not carry it (``fem info``)."""
REFERENCES = ("fan2016",)
"""The papers this case reproduces (keys of :mod:`fem.references.citations`)."""


def build(**params) -> SpatialChain:
    """The five-link arm of the module docstring (``params`` override ``PARAMS``)."""
    p = {**PARAMS, **params}
    th = np.radians(np.asarray(p["theta0_deg"], float))
    if th.size != 5:
        raise fem.ModelError(f"five_link_arm_fall: theta0_deg needs 5 angles, got "
                             f"{th.size}")
    k, L, m = p["stiffness_factor"], p["length_m"], p["mass_kg"]
    dh = [[0.0, 0.0, np.pi / 2], [p["offset_12_m"], 0.0, 0.0], [0.0, 0.0, 0.0],
          [0.0, 0.0, np.pi / 2], [0.0, 0.0, 0.0]]
    return dh_chain(dh, L, m, k * p["EA_N"], k * p["EI_Nm2"], k * p["EI_Nm2"],
                    k * p["GJ_Nm2"], basis=p["basis"], n_coordinates=p["n_coordinates"],
                    angles=th, polar_inertia_per_length=m / L * p["radius_m"] ** 2,
                    gravity=(0.0, 0.0, -p["gravity_mps2"]), name="five_link_arm_fall")


def run(out=None, **params) -> dict:
    """Simulate the fall; figures as in the module docstring (ParaView series in out)."""
    p = {**PARAMS, **params}
    model = build(**params)
    fall = fem.cases.chain_fall(model, p, out)
    res, en, kin = fall.result, fall.energies, fall.kinetic
    defl = fall.deflections                                            # (nt, 5, 2)
    tip = np.array([ln[-1][-1] for ln in fall.centrelines])
    twist = np.array([model.tip_twists(q) for q in res.q])            # (nt, 5)
    pot = np.array([e["gravity"] for e in en])
    ela = np.array([e["strain"] for e in en])
    total = kin + pot + ela
    figures = {
        "time_s": np.asarray(res.t).tolist(), "tip_xyz_m": tip.tolist(),
        "deflection_y_m": defl[:, :, 0].tolist(), "deflection_z_m": defl[:, :, 1].tolist(),
        "twist_rad": twist.tolist(), "kinetic_J": kin.tolist(),
        "potential_J": pot.tolist(), "elastic_J": ela.tolist(), "total_J": total.tolist(),
        "energy_drift_rel": float(np.abs(total - total[0]).max() / max(kin.max(), 1e-300)),
        "max_deflection_m": float(np.abs(defl).max()),
        "max_twist_rad": float(np.abs(twist).max()),
        "tip_drop_m": float(tip[0, 2] - tip[:, 2].min()),
    }
    return fem.cases.finish_run(out, model, res, figures, fall.wall, _plot, picture=PICTURE)


def _plot(out: Path, f: dict, name: str) -> None:
    """Time histories: every link's tip deflections and twist, the energies."""
    from fem.io.plots import plot_histories

    t = f["time_s"]
    for key, label in (("deflection_y_m", "tip deflection y [m]"),
                       ("deflection_z_m", "tip deflection z [m]"),
                       ("twist_rad", "tip twist [rad]")):
        values = np.asarray(f[key])
        plot_histories(t, {f"link {i + 1}": values[:, i] for i in range(values.shape[1])},
                       out / f"{key.rsplit('_', 1)[0]}.png", label,
                       f"{name}: {label.split(' [')[0]} in the link frames")
    plot_histories(t, {k: f[f"{k}_J"] for k in ("kinetic", "potential", "elastic", "total")},
                   out / "energies.png", "energy [J]", f"{name}: energies")
