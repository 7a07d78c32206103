"""Inverse dynamics of the one-DOF 1T2R parallel vibrating screen.

Reproduces the driving-torque curve of Shen et al. (2021) (Figs 4–5; ``docs/references.md``):
the crank R1 follows ``θ = 0.3 sin t`` rad for 5 s (step 0.01 s) and the torque is computed
by two independent methods — the ordered single-open-chain Newton–Euler method (SKC2 =
platform + strut first, then SKC1 = rocker, coupler, crank; the paper's eqs 26–27) and Lagrange's
equations of the second kind (eqs 28–38) — which agree to round-off.  The paper compares
each with ADAMS and reports errors of +1.94/−1.91 N·mm (N-E) and +2.92/−2.86 N·mm
(Lagrange).

Choices (see ``docs/vibrating_screen.md``): Table-1 geometry and masses; every link is a
uniform slender rod between its joint centres (inertia ``m l²/12`` across, zero along the
rod); gravity 9.81 m/s² along −Z; assembly branch "upper" (R3 above the line R2R4, S6
above the base plane; the ``−√`` roots of the paper's eqs 4–5); the out-of-plane reactions
of the over-constrained planar four-bar are made determinate by treating R2 as spherical
and R3 as universal (this does not change the torque).  With ``hold_crank=True`` every
crank angle of the history is evaluated with ``θ̇ = θ̈ = 0``: a quasi-static sweep that
gives the gravity torque.

Torque histories are collected per method in :data:`TORQUE_METHODS`; the third method is
the screen built as a user builds a robot (:func:`robot`: ``fem.Robot`` with five rigid
links, its joints and a servo motor on the crank) and solved as a constrained DAE
(``fem.driven_inverse_dynamics``); ``max_method_difference_Nmm`` is taken over all pairs.
:func:`build` is the earlier DAE of natural-coordinate bars sharing nodes at the joints
(21 coordinates), kept as a second framework model of the same screen.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import fem
from fem.core.errors import ModelError
from fem.rigid import screen_1t2r as screen
from fem.robot import Rigid, Robot, pose

PARAMS: dict[str, Any] = {
    "t_end_s": 5.0,
    "dt_s": 0.01,
    "amplitude_rad": 0.3,          # θ = amplitude · sin(frequency · t)
    "frequency_radps": 1.0,
    "gravity_mps2": 9.81,          # along −Z
    "hold_crank": False,           # quasi-static sweep: θ̇ = θ̈ = 0 at every angle
    "branch_coupler": 1,           # σ_α: +1 = R3 above the line R2R4
    "branch_platform": 1,          # σ_β: +1 = S6 above the base plane (at θ = 0)
    # Table 1 of shen2021.
    "l1_mm": 50.0, "l2_mm": 350.0, "l3_mm": 270.0, "l4_mm": 350.0, "l5_mm": 200.0,
    "H_mm": 80.0, "l7_mm": 550.0, "l8_mm": 460.0,
    "m1_kg": 0.0132087, "m2_kg": 0.0828033, "m3_kg": 0.0646953, "m4_kg": 0.0413585,
    "m5_kg": 0.0219757,
}

LIMITS = {"t_end_s": ">=0", "dt_s": ">0", "frequency_radps": ">=0", "branch_coupler": (1, -1),
          "branch_platform": (1, -1), "l1_mm": ">0", "l2_mm": ">0", "l3_mm": ">0",
          "l4_mm": ">0", "l5_mm": ">0", "l7_mm": ">0", "l8_mm": ">0", "m1_kg": ">=0",
          "m2_kg": ">=0", "m3_kg": ">=0", "m4_kg": ">=0", "m5_kg": ">=0"}

DOCS = {
    "t_end_s": "duration of the crank motion",
    "dt_s": "sampling step",
    "amplitude_rad": "crank amplitude A in θ = A sin(ωt)",
    "frequency_radps": "crank angular frequency ω",
    "gravity_mps2": "gravitational acceleration (along −Z)",
    "hold_crank": "quasi-static sweep: θ̇ = θ̈ = 0 at every angle (the gravity torque)",
    "branch_coupler": "assembly branch σ_α: +1 puts R3 above the line R2R4",
    "branch_platform": "assembly branch σ_β: +1 puts S6 above the base plane (at θ = 0)",
    "l1_mm": "crank R1R2",
    "l2_mm": "coupler R2R3",
    "l3_mm": "rocker R3R4",
    "l4_mm": "platform R5S6",
    "l5_mm": "strut S6S7",
    "H_mm": "height of S7 above the base plane",
    "l7_mm": "base R1R4",
    "l8_mm": "distance of S7 from the YZ plane",
    "m1_kg": "mass of the crank",
    "m2_kg": "mass of the coupler",
    "m3_kg": "mass of the rocker",
    "m4_kg": "mass of the platform",
    "m5_kg": "mass of the strut",
}
"""What each parameter means, with its unit where the name does not carry it (``fem info``)."""
KERNELS = "numpy"
"""Its runs are too short to repay loading the compiled kernels: 24 % more CPU on them
(``tests/benchmarks/kernel_paths.py``, 3 rounds, 2026-11-29)."""
REFERENCES = ("shen2021",)
"""The papers this case reproduces (keys of :mod:`fem.references.citations`)."""

PRIMARY_METHOD = "newton_euler"
#: Name of the crank drive constraint of the bar model (``build().constraint(DRIVE)``) and
#: of the robot's crank motor (its effort in the series: ``effort:crank drive R1 [N·m]``).
DRIVE = "crank drive R1"
_LABELS = {"newton_euler": "Newton–Euler (ordered SOC)", "lagrange": "Lagrange, 2nd kind",
           "dae": "constrained DAE (fem.Robot)"}


def _params(params: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise ModelError(f"vibrating_screen_1t2r: unknown parameter(s) {', '.join(unknown)}; "
                         f"known: {', '.join(PARAMS)}")
    p = {**PARAMS, **params}
    if not (p["dt_s"] > 0 and p["t_end_s"] >= 0):
        raise ModelError("vibrating_screen_1t2r: need dt_s > 0 and t_end_s >= 0")
    return p


def mechanism(**params: Any) -> screen.Screen1T2R:
    """The mechanism description (geometry, masses, assembly branch; SI units)."""
    p = _params(params)
    lengths = {k: p[f"{k}_mm"] for k in screen.TABLE1_MM}
    masses = tuple(float(p[f"m{i}_kg"]) for i in range(1, 6))
    return screen.Screen1T2R.from_mm(**lengths, masses=masses,
                                     branch_coupler=int(p["branch_coupler"]),
                                     branch_platform=int(p["branch_platform"]))


def crank_motion(**params: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Time grid and crank angle, rate, acceleration: ``θ = A sin(ω t)`` (shen2021 §3.4)."""
    p = _params(params)
    n = int(round(p["t_end_s"] / p["dt_s"])) + 1
    t = np.arange(n) * p["dt_s"]
    A, w = p["amplitude_rad"], p["frequency_radps"]
    theta = A * np.sin(w * t)
    if p["hold_crank"]:
        return t, theta, np.zeros(n), np.zeros(n)
    return t, theta, A * w * np.cos(w * t), -A * w**2 * np.sin(w * t)


def mechanism_geometry(**params: Any) -> dict[str, Any]:
    """Joint centres at the initial configuration and the link list (SI), JSON-ready.

    For building natural-coordinate bodies: each link is a uniform bar between its two end
    joints (``rigid_bar``), joints are listed with type, the two bodies they connect
    (``link`` receives the reaction of ``other``; ``None`` = ground) and axis.
    """
    mech = mechanism(**params)
    t, theta, theta_dot, _ = crank_motion(**params)
    joints, alpha, beta = screen.positions(mech, theta[:1])
    e_alpha = (joints["R3"][0] - joints["R2"][0]) / mech.l2
    x_axis = [1.0, 0.0, 0.0]
    joint_info = {
        "R1": ("revolute", "crank", None, x_axis, "driven; θ about +X"),
        "R2": ("revolute", "coupler", "crank", x_axis, ""),
        "R3": ("revolute", "rocker", "coupler", x_axis, ""),
        "R4": ("revolute", "rocker", None, x_axis, ""),
        "R5": ("revolute", "platform", "coupler", e_alpha.tolist(),
               "at the coupler midpoint; axis along R2R3 (moves with the coupler)"),
        "S6": ("spherical", "platform", "strut", None, ""),
        "S7": ("spherical", "strut", None, None, "fixed to ground"),
    }
    return {
        "units": "m, kg, rad",
        "t0_s": float(t[0]),
        "theta0_rad": float(theta[0]),
        "theta_dot0_radps": float(theta_dot[0]),
        "alpha0_rad": float(alpha[0]),
        "beta0_rad": float(beta[0]),
        "gravity_mps2": [0.0, 0.0, -float(_params(params)["gravity_mps2"])],
        "joints_m": {k: v[0].tolist() for k, v in joints.items()},
        "joint_types": {k: {"type": ty, "link": a, "other": b, "axis": ax, "note": note}
                        for k, (ty, a, b, ax, note) in joint_info.items()},
        "links": [{"name": name, "paper_link": i + 1, "ends": list(screen.LINK_ENDS[name]),
                   "mass_kg": mech.link_masses[name], "length_m": mech.lengths[name]}
                  for i, name in enumerate(screen.LINK_NAMES)],
    }


def _torque_newton_euler(motion: screen.ScreenMotion, gravity: np.ndarray,
                         store: dict[str, Any]) -> np.ndarray:
    result = screen.newton_euler(motion, gravity)
    store["newton_euler"] = result
    return result.component("R1", "M_axis")


def _torque_lagrange(motion: screen.ScreenMotion, gravity: np.ndarray,
                     store: dict[str, Any]) -> np.ndarray:
    return screen.lagrange_torque(motion, gravity)


def build(**params: Any) -> fem.Model:
    """The screen as a constrained DAE of natural-coordinate bars (a second framework model).

    Nodes at the joint centres R1…R5, S6, S7 (initial configuration); every link a
    ``rigid_bar`` (uniform rod, ``[[m/3, m/6], [m/6, m/3]] ⊗ I₃``, zero inertia about its
    axis — exactly the issue's slender-rod model); a bar's length is its internal
    constraint.  Joints: R1, R4, S7 fixed points; R1, R2 revolute about X: the crank and the
    coupler stay perpendicular to X (the rocker then does too — adding it would be
    redundant); R5 at the coupler midpoint, the platform bar perpendicular to the coupler
    axis R2R3; S6 a shared node (ball joint).  The crank is driven by an
    :class:`~fem.AngleDrive` about +X, zero direction +Y, and its multiplier gives the
    torque.  21 coordinates, 20 joint rows + 1 drive row.
    """
    p = _params(params)
    g = mechanism_geometry(**p)
    J = g["joints_m"]
    model = fem.Model("vibrating_screen_1t2r", gravity=g["gravity_mps2"])
    ids = model.add_nodes(r=[J[k] for k in ("R1", "R2", "R3", "R4", "R5", "S6", "S7")],
                          names=["R1", "R2", "R3", "R4", "R5", "S6", "S7"])
    node = dict(zip(("R1", "R2", "R3", "R4", "R5", "S6", "S7"), ids, strict=True))
    for link in g["links"]:
        a, b = link["ends"]
        a = "R5" if link["name"] == "platform" else a
        model.add_element("rigid_bar", [node[a], node[b]], name=link["name"],
                          mass=link["mass_kg"])
    for k in ("R1", "R4", "S7"):
        model.fix(node[k], "r", name=f"{k} fixed")
    P = {k: model.point(v) for k, v in node.items()}
    X = model.ground((1.0, 0.0, 0.0), "X")
    model.add_constraint(fem.Dot(P["R2"] - P["R1"], X, 0.0, "R1 revolute axis (crank ⊥ X)"))
    model.add_constraint(fem.Dot(P["R3"] - P["R2"], X, 0.0, "R2 revolute axis (coupler ⊥ X)"))
    model.add_constraint(fem.Coincident(P["R5"], (P["R2"] + P["R3"]) * 0.5, "R5 at coupler "
                                        "midpoint"))
    model.add_constraint(fem.Dot(P["S6"] - P["R5"], P["R3"] - P["R2"], 0.0,
                                 "R5 revolute axis (platform ⊥ R2R3)"))
    model.add_constraint(fem.AngleDrive(P["R1"], P["R2"], (1, 0, 0), (0, 1, 0),
                                        crank_angle(**p), DRIVE))
    return model


def crank_angle(**params: Any) -> Callable[[float], tuple[float, float, float]]:
    """The crank's motion ``t -> (θ, θ̇, θ̈)``: ``θ = A sin(ω t)`` (rates zero with
    ``hold_crank``)."""
    p = _params(params)
    A, w, hold = p["amplitude_rad"], p["frequency_radps"], p["hold_crank"]

    def angle(t: float) -> tuple[float, float, float]:
        if hold:
            return A * np.sin(w * t), 0.0, 0.0
        return A * np.sin(w * t), A * w * np.cos(w * t), -A * w * w * np.sin(w * t)

    return angle


def robot(**params: Any) -> Robot:
    """The screen as a robot: five rigid links, seven joints, a servo motor on the crank.

    Every link is a uniform slender rod between its joint centres (``Rigid`` with its
    centre of mass half-way and ``m l²/12`` across, nothing about the rod: the paper's
    mass model), built at the Table-1 pose of ``θ = 0`` (:func:`fem.rigid.screen_1t2r.
    positions`).  Each link frame's x runs along the rod and its z along the joint's
    axis.  Joints: R1 and R4 revolute to the ground about X, R5 revolute about the
    coupler R2R3, S6 spherical.  The planar four-bar is over-constrained in space; as in
    the Newton–Euler reference R2 is spherical and R3 universal (axes X on the rocker,
    normal to the coupler in the plane on the coupler).  The strut's spin about its own
    axis carries no inertia and nothing else would fix it: S7 is universal (axes normal
    to the strut), whose moment about the strut is zero.  Neither choice changes the
    torque.  The motor ``DRIVE`` on R1 follows :func:`crank_angle` (inverse dynamics).
    """
    p = _params(params)
    mech = mechanism(**p)
    J = {k: v[0] for k, v in screen.positions(mech, [0.0])[0].items()}
    X = (1.0, 0.0, 0.0)
    hinge = J["R3"] - J["R2"]                 # the coupler, axis of R5

    def rod(link: str) -> Rigid:
        m, length = mech.link_masses[link], mech.lengths[link]
        return Rigid(m, com=(length / 2, 0, 0),
                     inertia=m * length**2 / 12 * np.diag([0.0, 1.0, 1.0]))

    def frames(a: str, b: str, z: Any = None, **more: Any) -> dict:
        return {a: pose(J[a], z=z, x=J[b] - J[a]), b: pose(J[b], z=z, x=J[b] - J[a]),
                **more}

    r = Robot("vibrating_screen_1t2r", gravity=(0.0, 0.0, -p["gravity_mps2"]))
    r.add_link("crank", rod("crank"), frames("R1", "R2", X))
    r.add_link("coupler", rod("coupler"),
               frames("R2", "R3", X, R5=pose(J["R5"], z=hinge, x=J["S6"] - J["R5"])))
    r.add_link("rocker", rod("rocker"), frames("R3", "R4", X))
    platform = r.add_link("platform", rod("platform"), frames("R5", "S6", hinge))
    _draw_deck(r, platform, J["R5"], J["S6"], hinge)
    r.add_link("strut", rod("strut"), frames("S6", "S7"))
    r.add_joint("R1", "revolute", "ground", ("crank", "R1"))
    r.add_joint("R2", "spherical", ("crank", "R2"), ("coupler", "R2"))
    r.add_joint("R3", "universal", ("rocker", "R3"), ("coupler", "R3"), axis="z", axis2="y")
    r.add_joint("R4", "revolute", "ground", ("rocker", "R4"))
    r.add_joint("R5", "revolute", ("coupler", "R5"), ("platform", "R5"))
    r.add_joint("S6", "spherical", ("platform", "S6"), ("strut", "S6"))
    r.add_joint("S7", "universal", "ground", ("strut", "S7"), axis="y", axis2="z")
    r.add_motor(DRIVE, "R1", servo=crank_angle(**p))
    return r


def _draw_deck(r: Robot, platform: Any, a: np.ndarray, b: np.ndarray, hinge: np.ndarray,
               width: float = 0.16) -> None:
    """The screen itself, drawn on the platform link (link 4, a rod from R5 to S6 in the
    mass model): a deck ``width`` wide along the hinge R5 and as long as the rod, moving
    with the link (a sketch surface, group ``screen deck (mesh)``; drawing only)."""
    x = (b - a) / np.linalg.norm(b - a)
    y = hinge - (hinge @ x) * x
    y /= np.linalg.norm(y)
    corners = [a - width / 2 * y, b - width / 2 * y, b + width / 2 * y, a + width / 2 * y]
    first = next(iter(platform.frames.values())).pose
    R0, p0 = first.rotation, first.position
    pts = [platform.body.point((c - p0) @ R0, label="screen deck") for c in corners]
    r.model.add_sketch(pts, "screen deck", triangles=[[0, 1, 2], [0, 2, 3]])


def _torque_dae(motion: screen.ScreenMotion, gravity: np.ndarray,
                store: dict[str, Any]) -> np.ndarray:
    screen_robot = robot(**store["params"])
    res = fem.driven_inverse_dynamics(screen_robot.model, store["time_s"])
    store["dae"] = res
    store["dae_model"] = screen_robot.model
    return np.array([screen_robot.efforts(q, lam)[DRIVE] for q, lam in zip(res.q, res.lam,
                                                                            strict=True)])


#: Drive-torque methods, name → f(motion, gravity vector, store) → torque [N·m] per step.
#: ``store`` keeps method-specific results (the Newton–Euler reactions) for reporting.
TORQUE_METHODS: dict[str, Callable[[screen.ScreenMotion, np.ndarray, dict[str, Any]],
                                   np.ndarray]] = {
    "newton_euler": _torque_newton_euler,
    "lagrange": _torque_lagrange,
    "dae": _torque_dae,
}


def _extremes(values: dict[str, np.ndarray], scale: float) -> dict[str, Any]:
    return {k: {"max": float(np.max(np.linalg.norm(v, axis=1)) * scale),
                "range": {ax: [float(v[:, i].min() * scale), float(v[:, i].max() * scale)]
                          for i, ax in enumerate("xyz")}}
            for k, v in values.items()}


def run(out: str | Path | None = None, **params: Any) -> dict[str, Any]:
    """Run the inverse dynamics; return JSON-serializable figures (units in the keys).

    Parameters
    ----------
    out : path, optional
        Directory for the PNG plots (torque histories, method differences, platform).
    **params
        Overrides of :data:`PARAMS`.
    """
    p = _params(params)
    mech = mechanism(**p)
    t, theta, theta_dot, theta_ddot = crank_motion(**p)
    motion = screen.kinematics(mech, theta, theta_dot, theta_ddot)
    gravity = np.array([0.0, 0.0, -p["gravity_mps2"]])

    store: dict[str, Any] = {"params": p, "time_s": t}
    torques = {name: 1e3 * f(motion, gravity, store) for name, f in TORQUE_METHODS.items()}
    diffs = {f"{a}-{b}": float(np.max(np.abs(torques[a] - torques[b])))
             for a, b in itertools.combinations(torques, 2)}
    ne = store["newton_euler"]
    tau = torques[PRIMARY_METHOD]

    summary: dict[str, Any] = {
        "paper": "shen2021",                 # the citation key (fem.references.citations)
        "gravity_mps2": p["gravity_mps2"],
        "hold_crank": bool(p["hold_crank"]),
        "time_s": t.tolist(),
        "theta_rad": theta.tolist(),
        "torque_Nmm": tau.tolist(),
        "torque_max_Nmm": float(tau.max()),
        "torque_min_Nmm": float(tau.min()),
        "max_method_difference_Nmm": max(diffs.values(), default=0.0),
        "method_differences_Nmm": diffs,
        "reaction_force_N": _extremes(ne.forces, 1.0),
        "reaction_moment_Nmm": _extremes(ne.moments, 1e3),
        "max_chain_residual_N": {k: float(v.max()) for k, v in ne.residual.items()},
        "z_mm": (1e3 * motion.z).tolist(),
        "alpha_rad": motion.alpha.tolist(),
        "beta_rad": motion.beta.tolist(),
        "z_range_mm": [float(1e3 * motion.z.min()), float(1e3 * motion.z.max())],
        "alpha_range_rad": [float(motion.alpha.min()), float(motion.alpha.max())],
        "beta_range_rad": [float(motion.beta.min()), float(motion.beta.max())],
        "max_loop_closure_m": float(motion.loop_closure.max()),
        "dae_max_constraint_residual": float(store["dae"].stats["residual_constraints"].max()),
        "dae_max_dynamics_residual_N": float(store["dae"].stats["residual_dynamics_N"].max()),
        "n_coordinates": int(store["dae"].q.shape[1]),
    }
    for name, values in torques.items():
        if name != PRIMARY_METHOD:
            summary[f"torque_{name}_Nmm"] = values.tolist()
    if out is not None:
        summary["plots"] = _plot(Path(out), t, torques, motion)
        # the DAE solution as a ParaView series and an animation of the bars
        fem.write_outputs(out, store["dae_model"], store["dae"], summary)
    return summary


def _plot(out: Path, t: np.ndarray, torques: dict[str, np.ndarray],
          motion: screen.ScreenMotion) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    files = []

    fig, ax = plt.subplots(figsize=(7, 4))
    for (name, tau), style in zip(torques.items(), ("-", "--", ":", "-."), strict=False):
        ax.plot(t, tau, style, label=_LABELS.get(name, name))
    ax.set(xlabel="t [s]", ylabel="drive torque M [N·mm]",
           title="1T2R vibrating screen: drive torque (θ = 0.3 sin t)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    files.append(_save(fig, out / "torque.png"))

    fig, ax = plt.subplots(figsize=(7, 4))
    # line styles as well as colours: two of the differences coincide to round-off
    for (a, b), style in zip(itertools.combinations(torques, 2), ("-", "--", ":", "-."),
                             strict=False):
        ax.plot(t, torques[a] - torques[b], style, lw=2.0 if style == ":" else 1.5,
                label=f"{a} − {b}")
    ax.set(xlabel="t [s]", ylabel="torque difference [N·mm]",
           title="Differences between the methods\n(Shen et al. 2021: N-E vs ADAMS ±1.9, "
                 "Lagrange ±2.9 N·mm)")
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    ax.grid(True, alpha=0.3)
    ax.legend()
    files.append(_save(fig, out / "method_difference.png"))

    fig, axes = plt.subplots(3, 1, figsize=(7, 6), sharex=True)
    for ax, values, label in zip(axes, (1e3 * motion.z, motion.alpha, motion.beta),
                                 ("z [mm]", "α [rad]", "β [rad]"), strict=True):
        ax.plot(t, values)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("t [s]")
    axes[0].set_title("Platform outputs")
    files.append(_save(fig, out / "platform.png"))
    return files


def _save(fig: Any, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return str(path)
