"""Checks of the time integration and of the dynamic cases: generalized-α's order in h,
Kane's spin-up beam against the ANCF model, the vibrating screen's three inverse-dynamics
methods, the servo-constrained rod, the cable against a peer code's stored run.

Each ``@check`` function measures the check of its name in ``checks.toml``, which declares
its subject, reference, limits and why."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .checks_beams import orders
from .plots import new_figure, refinement_plot, to_plot
from .registry import Measurement, check


def _case(name: str):
    from ..cases import load_case

    return load_case(name)


# ------------------------------------------------------------------ generalized-α order
ROD_MASS, ROD_LENGTH, GRAVITY = 2.0, 0.8, 9.81


def _rod_angle(t):
    """The prescribed angle of the servo rod, θ = 0.3 + 0.4 sin 2t, and its rates."""
    return 0.3 + 0.4 * np.sin(2 * t), 0.8 * np.cos(2 * t), -1.6 * np.sin(2 * t)


def servo_rod():
    """A uniform rod (2 kg, 0.8 m) on a motorized horizontal hinge whose tip height is
    prescribed by a servo row, so that the motor torque is the row's multiplier:
    ``τ = (mL²/3) θ̈ + mg (L/2) cos θ``.  Returns ``(model, exact torque function)``."""
    import fem
    from fem.model.actuators import RevoluteActuator

    m, L, g = ROD_MASS, ROD_LENGTH, GRAVITY
    model = fem.Model("servo rod", gravity=(0, 0, -g))
    th0 = _rod_angle(0.0)[0]
    c = model.add_node(r=(0, 0, 0))
    tip = model.add_node(r=(L * np.cos(th0), 0, L * np.sin(th0)))
    model.add_element("rigid_bar", [c, tip], mass=m)
    model.fix(c)
    model.add_constraint(fem.Dot(model.point(tip) - model.point(c), model.ground((0, 1, 0)),
                                 0.0, "hinge axis"))

    def height(t):
        th, thd, thdd = _rod_angle(t)
        return (L * np.array([0, 0, np.sin(th)]), L * np.array([0, 0, np.cos(th) * thd]),
                L * np.array([0, 0, np.cos(th) * thdd - np.sin(th) * thd**2]))

    model.add_constraint(fem.PrescribedPoint(model.point(tip), height, (2,), servo=True,
                                             name="tip height"))
    # θ from +X towards +Z is a rotation about −Y
    model.add_actuator(RevoluteActuator(model.point(c), model.point(tip), (0, -1, 0), "motor"))

    def exact(t):
        th, _, thdd = _rod_angle(t)
        return m * L**2 / 3 * thdd + m * g * L / 2 * np.cos(th)

    return model, exact


def _pendulum_errors(h: float, t_end: float) -> tuple[float, float]:
    """Largest angle and rate errors of the case's double pendulum (generalized-α at h)
    against Lagrange's equations in the two angles (DOP853, 1e-12)."""
    import fem
    from fem.references.pendulums import double_pendulum_angles

    dp = _case("double_pendulum")
    p = dp.PARAMS
    model = dp.build()
    res = fem.simulate(model, t_end, h, rho_inf=p["rho_inf"], tol=1e-10, constraint_tol=1e-12)
    theta = dp.angles(model, res.q)
    rates = []
    for name in ("link1", "link2"):
        d = model.node_dofs(model.bodies[name].node, "u")
        u, ud = res.q[:, d], res.v[:, d]
        rates.append(u[:, 0] * ud[:, 2] - u[:, 2] * ud[:, 0])    # u = (cos θ, 0, sin θ)
    b = p["section_m"]
    J = [dp._link_inertia(p[f"mass{i}_kg"], p[f"length{i}_m"], b)[1, 1] for i in (1, 2)]
    ref = double_pendulum_angles(res.t, p["mass1_kg"], p["mass2_kg"], p["length1_m"],
                                 p["length2_m"], J[0], J[1], p["gravity_mps2"],
                                 theta0=(np.radians(p["theta1_0_deg"]),
                                         np.radians(p["theta2_0_deg"])), rates=True)
    return (float(np.abs(theta - ref[:, :2]).max()),
            float(np.abs(np.column_stack(rates) - ref[:, 2:]).max()))


def _rod_torque_error(h: float, t_end: float, settle: float) -> float:
    import fem

    model, exact = servo_rod()
    res = fem.simulate(model, t_end, h, rho_inf=0.5, tol=1e-12, constraint_tol=1e-13)
    asm = model.assemble()
    tau = np.array([asm.efforts(lam)["motor"] for lam in res.lam])
    late = res.t >= settle
    return float(np.abs(tau[late] - exact(res.t[late])).max())


@check
def generalized_alpha_order(quick: bool) -> Measurement:
    hs = [4e-3, 2e-3, 1e-3] if quick else [4e-3, 2e-3, 1e-3, 5e-4]
    t_end = 1.0 if quick else 2.0
    pend = np.array([_pendulum_errors(h, t_end) for h in hs])
    rod = np.array([_rod_torque_error(h, 1.0, 0.25) for h in hs])
    inv = 1 / np.asarray(hs)
    rates = {"position": orders(inv, pend[:, 0]), "velocity": orders(inv, pend[:, 1]),
             "multiplier": orders(inv, rod)}
    table = [{"h [s]": f"{h:g}", "θ error [rad]": f"{e[0]:.3e}", "θ̇ error [rad/s]":
              f"{e[1]:.3e}", "τ error [N·m]": f"{r:.3e}",
              "orders θ / θ̇ / τ": "" if i == 0 else " / ".join(
                  f"{rates[k][i - 1]:.2f}" for k in ("position", "velocity", "multiplier"))}
             for i, (h, e, r) in enumerate(zip(hs, pend, rod, strict=True))]
    plot = refinement_plot("orders", "Generalized-α: largest errors of positions, velocities "
                           "and a multiplier against exact references as the step is halved.",
                           hs, [(pend[:, 0], "o-", "pendulum angles θ [rad]"),
                                (pend[:, 1], "s-", "pendulum rates θ̇ [rad/s]"),
                                (rod, "^-", "servo rod torque τ [N·m] (multiplier)")], (0, 2),
                           "time step h [s]", "largest error (unit in legend)", size=(6.4, 4.4))
    values = {}
    for k, r in rates.items():
        values[f"order_{k}_min"] = float(r.min())
        values[f"order_{k}_max"] = float(r.max())
    return Measurement(values, f"Double pendulum over {t_end:g} s (ρ∞ = 1, the case's "
                       "default); servo rod over 1 s (ρ∞ = 0.5), torque error after 0.25 s.",
                       table, [plot])


@check
def servo_rod_exact_inverse(quick: bool) -> Measurement:
    import fem

    model, exact = servo_rod()
    t = np.linspace(0, 2, 41)
    res = fem.driven_inverse_dynamics(model, t)
    asm = model.assemble()
    tau = np.array([asm.efforts(lam)["motor"] for lam in res.lam])
    ref = exact(t)
    return Measurement({"torque_error_rel": float(np.abs(tau - ref).max()
                                                  / np.abs(ref).max())},
                       "41 instants over 2 s.")


# ------------------------------------------------------------------ spin-up beam
def _spin_run(**kw) -> dict:
    from .runs import run

    return run("spinup_beam", **kw)


@check
def spinup_vs_ancf(quick: bool) -> Measurement:
    kw = {"omega0_rad_s": 4.0, "t_end_s": 20.0, "dt_s": 0.01}
    ancf = _spin_run(basis="ancf", n_coordinates=8, **kw)
    ancf_fine = _spin_run(basis="ancf", n_coordinates=8, **{**kw, "dt_s": 0.005})
    bez = _spin_run(basis="bezier", n_coordinates=4, **kw)
    bez6 = _spin_run(basis="bezier", n_coordinates=6, **kw)
    v_a, v_b = np.array(ancf["tip_v_m"]), np.array(bez["tip_v_m"])
    peak = float(np.abs(v_a).max())
    diff = float(np.abs(v_b - v_a).max()) / peak
    move_a = float(np.abs(np.array(ancf_fine["tip_v_m"])[::2] - v_a).max()) / peak
    move_b = float(np.abs(np.array(bez6["tip_v_m"]) - v_b).max()) / peak
    t = np.array(ancf["time_s"])
    fig, (ax, bx) = new_figure(2, 1, size=(7.0, 5.4), sharex=True,
                               gridspec_kw={"height_ratios": [2, 1]})
    ax.plot(t, v_a, "-", lw=2.2, color="C0", label="ANCF cable, 16 el. (DAE core)")
    ax.plot(t, v_b, "--", lw=1.2, color="C1",
            label="floating frame, Bézier 4 (minimal coordinates)")
    ax.set(ylabel="tip deflection v [m]",
           title="Spin-up beam, Ω0 = 4 rad/s (hub frame, in plane)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    bx.plot(t, 1e3 * (v_b - v_a), color="C3", label="Bézier − ANCF")
    bx.set(xlabel="time t [s]", ylabel="difference [mm]")
    bx.grid(True, alpha=0.3)
    bx.legend()
    plot = to_plot(fig, "tip", "Kane's spin-up beam: tip deflection of the floating-frame "
                   "link against the ANCF model, and their difference.")
    return Measurement({"difference_of_peak": diff, "ancf_step_move_of_peak": move_a,
                        "bezier_basis_move_of_peak": move_b,
                        "difference_over_refinement": diff / (move_a + move_b),
                        "peak_m": peak},
                       f"h = 10 ms, ρ∞ = 0.8; ANCF peak {peak:.4f} m; difference "
                       f"{100 * diff:.3f} % of it; refinement moves {100 * move_a:.3f} % "
                       f"(ANCF, h/2) and {100 * move_b:.3f} % (Bézier 6).", [], [plot])


@check
def spinup_frequency_stretch(quick: bool) -> Measurement:
    f = _spin_run(basis="bezier", n_coordinates=4, omega0_rad_s=4.0, t_end_s=30.0,
                  rho_inf=1.0)
    t = np.array(f["time_s"])
    stretch = float(np.array(f["tip_stretch_m"])[t > 16.0].mean())
    w, w_ref = f["after_spinup_frequency_rad_s"], f["inplane_frequency_reference_rad_s"]
    s_ref = f["axial_stretch_reference_m"]
    rows = [{"figure": "frequency after T [rad/s]", "measured": f"{w:.5f}",
             "reference": f"{w_ref:.5f}", "error": f"{w / w_ref - 1:+.2e}"},
            {"figure": "axial stretch after T [m]", "measured": f"{stretch:.5e}",
             "reference": f"{s_ref:.5e}", "error": f"{stretch / s_ref - 1:+.2e}"}]
    return Measurement({"frequency_error_rel": abs(w / w_ref - 1),
                        "stretch_error_rel": abs(stretch / s_ref - 1)},
                       "Mean stretch over t > 16 s.", rows)


@check
def spinup_omega10_kinematics(quick: bool) -> Measurement:
    kw = {"omega0_rad_s": 10.0, "t_end_s": 20.0, "dt_s": 0.005}
    ref = np.array(_spin_run(basis="ancf", n_coordinates=8, **kw)["tip_v_m"])
    peak = float(np.abs(ref).max())
    four = np.array(_spin_run(basis="bezier", n_coordinates=4, kinematics="fourth_order",
                              **kw)["tip_v_m"])
    paper = np.array(_spin_run(basis="bezier", n_coordinates=4, kinematics="paper",
                              **kw)["tip_v_m"])
    return Measurement({"fourth_order_difference_of_peak":
                        float(np.abs(four - ref).max()) / peak,
                        "paper_model_difference_of_peak": float(np.abs(paper - ref).max()) / peak,
                        "peak_m": peak}, f"ANCF peak {peak:.4f} m.")


# ------------------------------------------------------------------ vibrating screen
@check
def screen_three_methods(quick: bool) -> Measurement:
    from .runs import run

    f = run("vibrating_screen_1t2r")
    t = np.array(f["time_s"])
    taus = {"Newton–Euler (ordered SOC)": np.array(f["torque_Nmm"]),
            "Lagrange, 2nd kind": np.array(f["torque_lagrange_Nmm"]),
            "constrained DAE (fem.Robot)": np.array(f["torque_dae_Nmm"])}
    scale = float(np.abs(taus["Newton–Euler (ordered SOC)"]).max())
    diff = f["max_method_difference_Nmm"]
    fig, (ax, bx) = new_figure(2, 1, size=(9.0, 5.6), sharex=True,
                               gridspec_kw={"height_ratios": [3, 2]})
    for (name, tau), style, lw in zip(taus.items(), ("-", "--", ":"), (3.0, 1.8, 1.2),
                                      strict=True):
        ax.plot(t, tau, style, lw=lw, label=name)
    ax.set(ylabel="drive torque M [N·mm]",
           title="1T2R vibrating screen, θ = 0.3 sin t: three methods")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ne = taus["Newton–Euler (ordered SOC)"]
    for name, tau in list(taus.items())[1:]:
        bx.semilogy(t, np.maximum(np.abs(tau - ne), 1e-17),
                    label=f"|{name.split(' (')[0].split(',')[0]} − Newton–Euler|")
    bx.axhline(1.9, color="0.5", ls="--", label="paper: N-E vs ADAMS, 1.9 N·mm")
    bx.set(xlabel="time t [s]", ylabel="|difference| [N·mm]")
    bx.grid(True, which="both", alpha=0.3)
    bx.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    plot = to_plot(fig, "torque", "Vibrating screen: the drive torque by three methods "
                   "(top) and their differences on a log scale (bottom).")
    rows = [{"pair": k, "max |difference| [N·mm]": f"{v:.2e}"}
            for k, v in f["method_differences_Nmm"].items()]
    return Measurement({"max_difference_Nmm": float(diff),
                        "max_difference_rel": float(diff) / scale,
                        "torque_max_Nmm": f["torque_max_Nmm"],
                        "torque_min_Nmm": f["torque_min_Nmm"]},
                       f"501 instants; torque {f['torque_min_Nmm']:.3f} … "
                       f"{f['torque_max_Nmm']:.3f} N·mm.", rows, [plot])


@check
def flexible_pendulum_energy(quick: bool) -> Measurement:
    import fem

    m = fem.Model("flexible pendulum", gravity=(0, 0, -9.81))
    _, nodes = fem.straight_cable(m, (0, 0, 0), (1.2, 0, 0), 8,
                                  fem.Material(0.7e6, 0.3, 5540), 0.0018, 1.215e-8)
    m.fix(nodes[0], "r")
    res = fem.simulate(m, 2.0, 5e-4, rho_inf=1.0, tol=1e-8, sensors={
        "E": lambda t, q, v, a, l: m.energy(q, v)["total_J"],
        "K": lambda t, q, v, a, l: m.energy(q, v)["kinetic_J"]})
    E, K = res.sensors["E"], res.sensors["K"]
    return Measurement({"energy_error_of_max_kinetic": float(np.abs(E - E[0]).max() / K.max()),
                        "constraint_residual": float(res.stats["residual_constraints"].max())},
                       "4000 steps.")


# ------------------------------------------------------------------ peer code
PEER_EXUDYN = Path(__file__).resolve().parent / "data" / "peer_exudyn_cable.jsonl"
"""Exudyn's runs of the cable benchmark (``tests/benchmarks/peer_exudyn_cable.py``)."""


@check
def cable_dynamics_vs_exudyn(quick: bool) -> Measurement:
    import json

    import fem

    peers = [json.loads(ln) for ln in PEER_EXUDYN.read_text().splitlines()
             if ln.startswith("{")]
    header = PEER_EXUDYN.read_text().splitlines()[0].lstrip("# ")
    case = _case("cantilever_cable")
    rows, worst = [], 0.0
    for peer in peers:
        model = case.build(n_elements=peer["elements"])
        tip = int(model.node_dofs(model.node("tip"))[2])
        res = fem.simulate(model, peer["steps"] * 1e-3, 1e-3, rho_inf=0.8, tol=1e-10)
        z = float(res.q[-1, tip])
        rel = abs(z / peer["tip_z_m"] - 1)
        worst = max(worst, rel)
        rows.append({"elements": peer["elements"], "fem tip z [m]": f"{z:.10f}",
                     f"Exudyn {peer['version']} tip z [m]": f"{peer['tip_z_m']:.10f}",
                     "Exudyn tolerance": f"{peer['tol']:g}", "difference": f"{rel:.1e}"})
    return Measurement({"max_difference_rel": worst}, f"Peer run: {header}.", rows)
