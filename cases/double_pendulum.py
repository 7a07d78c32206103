"""Spatial double pendulum of natural-coordinate rigid bodies (rigid multibody benchmark).

Two steel links (box-shaped bodies, each described by a point and three unit vectors: 12
coordinates and 6 rigidity constraints) hang from a fixed pivot.  With
``joint="revolute"`` both joints turn about +Y, so the motion stays in the XZ plane and
can be compared with an independent minimal-coordinate ODE of the same pendulum
(:func:`reference_angles`); with ``joint="spherical"`` the joints are ball joints and an
initial out-of-plane velocity makes the motion fully spatial.  The pendulum is released
from rest with link 1 at 60° and link 2 at 30° below the horizontal (+X side).
"""

from __future__ import annotations

import numpy as np

import fem
from fem.references.pendulums import double_pendulum_angles

PARAMS = {
    "joint": "revolute",       # "revolute" or "spherical"
    "length1_m": 1.0,
    "length2_m": 0.8,
    "mass1_kg": 1.0,
    "mass2_kg": 0.6,
    "section_m": 0.05,         # square cross-section of the box links
    "theta1_0_deg": -60.0,     # initial angle of link 1 from +X (positive towards +Z)
    "theta2_0_deg": -30.0,
    "out_of_plane_velocity_mps": 0.5,   # spherical only: initial Y velocity of the tip
    "t_end_s": 2.0,
    "dt_s": 1e-3,
    "rho_inf": 1.0,
    "gravity_mps2": 9.81,
}

LIMITS = {"joint": ("revolute", "spherical"), "length1_m": ">0", "length2_m": ">0",
          "mass1_kg": ">0", "mass2_kg": ">0", "section_m": ">0",
          **fem.cases.STANDARD.limits("t_end_s", "dt_s", "rho_inf")}

DOCS = {
    "joint": "both joints revolute about +Y (planar motion, compared with an ODE) or "
             "spherical (ball joints, spatial motion)",
    "length1_m": "length of link 1 (from the pivot)",
    "length2_m": "length of link 2",
    "mass1_kg": "mass of link 1",
    "mass2_kg": "mass of link 2",
    "section_m": "side of the square cross-section of the box links",
    "theta1_0_deg": "initial angle of link 1 from +X (positive towards +Z)",
    "theta2_0_deg": "initial angle of link 2 from +X (positive towards +Z)",
    "out_of_plane_velocity_mps": "spherical joints only: initial Y velocity of the tip",
    "gravity_mps2": "gravitational acceleration (along −Z)",
    **fem.cases.STANDARD.docs("t_end_s", "dt_s", "rho_inf"),
}
"""What each parameter means, with its unit where the name does not carry it (``fem info``)."""


def _link_inertia(m: float, L: float, b: float) -> np.ndarray:
    """Inertia of a uniform box L × b × b about its centre, body axes (u along L)."""
    return np.diag([m * (2 * b * b) / 12, m * (L * L + b * b) / 12, m * (L * L + b * b) / 12])


def _rot_y(theta: float) -> np.ndarray:
    """Body axes of a link at angle θ in the XZ plane: u = (cos θ, 0, sin θ), v = +Y."""
    c, s = np.cos(theta), np.sin(theta)
    u = np.array([c, 0.0, s])
    v = np.array([0.0, 1.0, 0.0])
    return np.column_stack([u, v, np.cross(u, v)])


def build(**params) -> fem.Model:
    p = {**PARAMS, **params}
    if p["joint"] not in ("revolute", "spherical"):
        raise fem.ModelError(f"joint must be 'revolute' or 'spherical', got {p['joint']!r}")
    model = fem.Model("double_pendulum", gravity=(0, 0, -p["gravity_mps2"]))
    L1, L2, b = p["length1_m"], p["length2_m"], p["section_m"]
    th1, th2 = np.radians(p["theta1_0_deg"]), np.radians(p["theta2_0_deg"])
    R1, R2 = _rot_y(th1), _rot_y(th2)
    o1 = np.zeros(3)
    o2 = o1 + L1 * R1[:, 0]
    b1 = model.add_rigid_body("link1", p["mass1_kg"], o1, R1, com=(L1 / 2, 0, 0),
                              inertia=_link_inertia(p["mass1_kg"], L1, b),
                              sketch=[(0, 0, 0), (L1, 0, 0)])
    b2 = model.add_rigid_body("link2", p["mass2_kg"], o2, R2, com=(L2 / 2, 0, 0),
                              inertia=_link_inertia(p["mass2_kg"], L2, b),
                              sketch=[(0, 0, 0), (L2, 0, 0)])
    model.view = "xz" if p["joint"] == "revolute" else "iso"
    pivot = model.ground(o1, "pivot")
    # the ceiling the pendulum hangs from (drawn only: a filled plate above the pivot)
    w, h = 0.15 * (L1 + L2), 0.03 * (L1 + L2)
    model.add_sketch([model.ground(o1 + c) for c in ((-w, 0, 0), (w, 0, 0), (w, 0, h),
                                                     (-w, 0, h), (-w, 0, 0))], "ceiling")
    if p["joint"] == "revolute":
        X, Z = model.ground((1, 0, 0), "X"), model.ground((0, 0, 1), "Z")
        model.revolute(pivot, b1.point((0, 0, 0)), b1.axis(1), [X, Z], name="joint 1")
        model.revolute(b1.point((L1, 0, 0)), b2.point((0, 0, 0)), b2.axis(1),
                       [b1.axis(0), b1.axis(2)], name="joint 2")
    else:
        model.spherical(pivot, b1.point((0, 0, 0)), name="joint 1")
        model.spherical(b1.point((L1, 0, 0)), b2.point((0, 0, 0)), name="joint 2")
    return model


def initial_velocity(model: fem.Model, **params) -> np.ndarray:
    """Zero for the planar case; for ball joints a small rigid rotation of the whole
    pendulum about the vertical axis through the pivot (out-of-plane motion)."""
    p = {**PARAMS, **params}
    v = np.zeros(model.n_dof)
    if p["joint"] == "spherical":
        w = np.array([0.0, 0.0, p["out_of_plane_velocity_mps"] / (p["length1_m"]
                                                                 + p["length2_m"])])
        q0 = model.q0
        for body in model.bodies.values():
            r = model.node_dofs(body.node, "r")
            v[r] = np.cross(w, q0[r])
            for ax in "uvw":
                d = model.node_dofs(body.node, ax)
                v[d] = np.cross(w, q0[d])
    return v


def angles(model: fem.Model, q: np.ndarray) -> np.ndarray:
    """Link angles θ₁, θ₂ in the XZ plane from the body axes u (rad), shape (..., 2)."""
    q = np.atleast_2d(q)
    out = []
    for name in ("link1", "link2"):
        u = q[:, model.node_dofs(model.bodies[name].node, "u")]
        out.append(np.unwrap(np.arctan2(u[:, 2], u[:, 0])))
    return np.stack(out, axis=-1)


def reference_angles(t: np.ndarray, **params) -> np.ndarray:
    """Independent minimal-coordinate solution (Lagrange's equations in θ₁, θ₂) of the
    planar pendulum of ``params``: :func:`fem.references.pendulums.double_pendulum_angles`
    with COM distances c₁ = L₁/2, c₂ = L₂/2, the box inertias about Y through the COM,
    θ positive from +X towards +Z (a rotation about −Y), DOP853 at rtol = atol = 1e-12."""
    p = {**PARAMS, **params}
    m1, m2, L1, L2, b = (p["mass1_kg"], p["mass2_kg"], p["length1_m"], p["length2_m"],
                         p["section_m"])
    return double_pendulum_angles(
        t, m1, m2, L1, L2, _link_inertia(m1, L1, b)[1, 1], _link_inertia(m2, L2, b)[1, 1],
        p["gravity_mps2"], theta0=(np.radians(p["theta1_0_deg"]),
                                   np.radians(p["theta2_0_deg"])))


def run(out=None, **params) -> dict:
    p = {**PARAMS, **params}
    model = build(**p)
    v0 = initial_velocity(model, **p)
    # the total energy as its change from the start, E − E0 in µJ: a conserved quantity's
    # plot then reads in plain numbers (the total itself varies in its 7th digit)
    E0 = model.energy(model.q0, v0)["total_J"]
    change = lambda t, q, v, a, lam: 1e6 * (model.energy(q, v)["total_J"] - E0)
    sensors = {"energy_change_uJ": change,
               "kinetic_J": lambda t, q, v, a, l: model.energy(q, v)["kinetic_J"]}
    res = fem.cases.simulate_case(model, p, out, sensors, v0=v0, tol=1e-10,
                                  constraint_tol=1e-12)
    E = E0 + 1e-6 * np.asarray(res.sensors["energy_change_uJ"], float)
    scale = max(float(res.sensors["kinetic_J"].max()), 1e-300)
    th = angles(model, res.q)
    figures = {
        "steps": len(res.t) - 1,
        "time_s": res.t.tolist(),
        "theta1_rad": th[:, 0].tolist(),
        "theta2_rad": th[:, 1].tolist(),
        "energy_J": E.tolist(),
        "energy_error_max_relative": float(np.abs(E - E[0]).max() / scale),
        "energy_drift_relative": float(abs(E[-1] - E[0]) / scale),
        "max_residual_constraints": float(res.stats["residual_constraints"].max()),
        "max_residual_dynamics": float(res.stats["residual_dynamics"].max()),
        "n_coordinates": model.n_dof,
        "n_constraints": model.assemble().m,
    }
    ref = None
    if p["joint"] == "revolute":
        ref = reference_angles(res.t, **p)
        figures["max_angle_error_vs_ode_rad"] = float(np.abs(th - ref).max())
    if out is not None:
        fem.write_outputs(out, model, res, figures)
        plot_angles(out, res.t, th, ref)
    return figures


def plot_angles(out, t: np.ndarray, theta: np.ndarray, reference: np.ndarray | None) -> None:
    """``angles.png``: θ₁ and θ₂ [deg] over time, with the ODE's dashed beside them (planar
    pendulum)."""
    from pathlib import Path

    from fem.io.plots import plot_histories

    names = ("θ₁ (link 1)", "θ₂ (link 2)")
    series = {n: np.degrees(theta[:, k]) for k, n in enumerate(names)}
    ref = None if reference is None else {n: np.degrees(reference[:, k])
                                          for k, n in enumerate(names)}
    plot_histories(t, series, Path(out) / "angles.png", "angle from +X [deg]",
                   "double pendulum: link angles", reference=ref,
                   reference_label="minimal-coordinate ODE")
