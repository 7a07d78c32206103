"""Seed 004 — 1T2R parallel vibrating screen: kinematics and rigid inverse dynamics.

Validation table (reference — tolerance — why):

* closure of all loops — ≤ 1e-12 m at every step — closed-form positions, only round-off.
* seed eqs 2–3 and the seed's S6 coordinates — 1e-12 — the same equations, re-derived.
* velocities / accelerations — central finite differences of the positions in time —
  1e-6 relative to the largest value — FD truncation h²/6 ≈ 2e-9 for first differences
  (h = 1e-4 s), h²/12 ≈ 1e-7 for second differences and angular rates (h = 1e-3 s);
  round-off ≤ 2e-8.  Measured: ≤ 3.6e-9 and ≤ 3.3e-7.
* drive torque — Newton–Euler (ordered SOC) vs Lagrange II —
  max(1e-6 N·mm, 1e-9 relative) — independent analytic methods, round-off only.
* crank held still — gravity torque dV/dθ by central differences of the potential
  energy (h = 1e-5 rad) — 1e-7 N·mm — truncation h²/6·V''' ≈ 1e-9 N·mm plus round-off
  ε|V|/h ≈ 1e-8 N·mm; measured 8e-9 N·mm.
* global balance — Σ(inertia − gravity) of all links = ground reactions — 1e-12 N.
* generic Newton–Euler — pendulum rod, ``τ = m g (l/2) cos φ + m l² φ̈ / 3`` — 1e-12.
* generic Lagrange, 2 DOF — double pendulum, against Newton–Euler solved in two chains.
* constrained DAE of natural-coordinate bars (``fem.driven_inverse_dynamics``, torque from
  the drive multiplier) — against both — max(1e-6 N·mm, 1e-9 relative) over the whole
  5 s run; measured 5.5e-10 N·mm.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fem.core.errors import ModelError  # noqa: E402
from fem.rigid import lagrange, newton_euler  # noqa: E402
from fem.rigid import screen_1t2r as screen  # noqa: E402
from fem.rigid.newton_euler import Chain, Link, revolute, spherical  # noqa: E402


def _load_case():
    spec = importlib.util.spec_from_file_location(
        "vibrating_screen_1t2r", ROOT / "cases" / "vibrating_screen_1t2r.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


case = _load_case()
G = np.array([0.0, 0.0, -9.81])
MECH = screen.Screen1T2R()


def crank(t, A=0.3):
    """Seed §3.4: θ = 0.3 sin t."""
    return A * np.sin(t), A * np.cos(t), -A * np.sin(t)


@pytest.fixture(scope="module")
def run():
    t = np.arange(501) * 0.01
    motion = screen.kinematics(MECH, *crank(t))
    return t, motion, screen.newton_euler(motion, G)


def com_from_joints(joints):
    """Every link's centre is the midpoint of its end joints (uniform rods)."""
    return {name: 0.5 * (joints[a] + joints[b]) for name, (a, b) in screen.LINK_ENDS.items()}


def rod_direction(joints, ends):
    d = joints[ends[1]] - joints[ends[0]]
    return d / np.linalg.norm(d, axis=1, keepdims=True)


# --------------------------------------------------------------------------- kinematics

def test_loop_closure_every_step(run):
    _, m, _ = run
    J = m.joints
    lengths = MECH.lengths
    errors = [np.abs(np.linalg.norm(J[b] - J[a], axis=1) - lengths[name])
              for name, (a, b) in screen.LINK_ENDS.items()]
    errors.append(np.linalg.norm(J["R5"] - 0.5 * (J["R2"] + J["R3"]), axis=1))
    hinge = (J["R3"] - J["R2"]) / MECH.l2
    errors.append(np.abs(np.einsum("ni,ni->n", J["S6"] - J["R5"], hinge)))  # R5 axis ⟂ rod
    errors.append(np.abs(np.concatenate([J[k][:, 0] for k in ("R2", "R3")])))  # planar loop
    assert max(e.max() for e in errors) <= 1e-12
    assert m.loop_closure.max() <= 1e-12


def test_positions_satisfy_seed_equations():
    """Seed eqs 1–3 and the seed's S6 formula, written in the seed's own variables (mm).

    The seed prints D = 2 l1 l4 sin(θ−α) − 2 l4 H sin α + l4 l7 sin α; re-deriving
    |S6 − S7| = l5 gives −2 l4 H cos α in the middle term (an OCR or print error), used here.
    """
    th = np.linspace(-0.3, 0.3, 13)
    J, a, b = screen.positions(MECH, th)
    l1, l2, l3, l4, l5, H, l7, l8 = (screen.TABLE1_MM[k] for k in
                                     ("l1", "l2", "l3", "l4", "l5", "H", "l7", "l8"))
    A = 2 * l1 * l2 * np.sin(th)
    B = 2 * l2 * (l1 * np.cos(th) - l7)
    C = l1**2 + l2**2 + l7**2 - l3**2 - 2 * l1 * l7 * np.cos(th)
    D = 2 * l1 * l4 * np.sin(th - a) - 2 * l4 * H * np.cos(a) + l4 * l7 * np.sin(a)
    E = -2 * l4 * l8
    Q = (l1**2 + l2**2 / 4 + l4**2 + H**2 + l7**2 / 4 + l8**2 - l5**2
         + l1 * l2 * np.cos(th - a) - 2 * l1 * H * np.sin(th) - l2 * H * np.sin(a)
         - l1 * l7 * np.cos(th) - l2 * l7 * np.cos(a) / 2)
    scale = l2 * l7                     # size of the terms, mm²
    assert np.abs(A * np.sin(a) + B * np.cos(a) + C).max() <= 1e-12 * scale
    assert np.abs(D * np.sin(b) + E * np.cos(b) + Q).max() <= 1e-12 * scale
    S6 = np.stack([-l4 * np.cos(b),
                   l1 * np.cos(th) - l4 * np.sin(a) * np.sin(b) + l2 * np.cos(a) / 2,
                   l1 * np.sin(th) + l4 * np.sin(b) * np.cos(a) + l2 * np.sin(a) / 2], axis=1)
    assert np.abs(1e3 * J["S6"] - S6).max() <= 1e-12 * l7
    assert np.allclose(1e3 * J["R2"][:, 2], l1 * np.sin(th), rtol=0, atol=1e-12)  # eq 1


def test_assembly_branch_at_t0():
    """Branch σα = σβ = +1: R3 and S6 above the base plane (values quoted in the docs)."""
    J, a, b = screen.positions(MECH, [0.0])
    assert a[0] == pytest.approx(0.5433142473551481, abs=1e-12)
    assert b[0] == pytest.approx(0.2828017116168107, abs=1e-12)
    assert J["R3"][0, 2] > 0 and J["S6"][0, 2] > 0


def test_velocities_accelerations_match_finite_differences(run):
    t, m, _ = run
    h_v, h_a = 1e-4, 1e-3     # first and second central differences in time

    def at(dt):
        J, a, b = screen.positions(MECH, crank(t + dt)[0])
        return J, com_from_joints(J), a, b

    (_, c_p, a_p, b_p), (_, c_m, a_m, b_m) = at(h_v), at(-h_v)
    (J_P, C_P, A_P, B_P), (J_M, C_M, A_M, B_M) = at(h_a), at(-h_a)
    J_0, C_0 = m.joints, com_from_joints(m.joints)

    def rel(exact, approx):
        return np.abs(exact - approx).max() / np.abs(exact).max()

    checks = {}
    for name, lm in m.links.items():
        checks[f"{name} v"] = rel(lm.com_vel, (c_p[name] - c_m[name]) / (2 * h_v))
        checks[f"{name} a"] = rel(lm.com_acc, (C_P[name] - 2 * C_0[name] + C_M[name]) / h_a**2)
        # Rod direction u: u̇ = ω × u, ü = ε × u + ω × (ω × u).
        u, u_p, u_m = (rod_direction(J, lm.ends) for J in (J_0, J_P, J_M))
        udot = np.cross(lm.omega, u)
        uddot = np.cross(lm.omega_dot, u) + np.cross(lm.omega, udot)
        checks[f"{name} ω"] = rel(udot, (u_p - u_m) / (2 * h_a))
        checks[f"{name} ε"] = rel(uddot, (u_p - 2 * u + u_m) / h_a**2)
    checks["α̇"] = rel(m.alpha_dot, (a_p - a_m) / (2 * h_v))
    checks["β̇"] = rel(m.beta_dot, (b_p - b_m) / (2 * h_v))
    checks["α̈"] = rel(m.alpha_ddot, (A_P - 2 * m.alpha + A_M) / h_a**2)
    checks["β̈"] = rel(m.beta_ddot, (B_P - 2 * m.beta + B_M) / h_a**2)
    checks["ż"] = rel(m.z_dot, (J_P["R2"][:, 2] - J_M["R2"][:, 2]) / (2 * h_a))
    worst = max(checks, key=checks.get)
    assert checks[worst] <= 1e-6, f"{worst}: {checks[worst]:.2e}"


def test_unreachable_configuration_raises():
    short = screen.Screen1T2R.from_mm(l3=50.0)      # |R2R4| ≥ 500 mm > l2 + l3
    with pytest.raises(ModelError, match="four-bar"):
        screen.kinematics(short, [0.0], [0.0], [0.0])
    with pytest.raises(ModelError, match="spatial limb"):
        screen.positions(screen.Screen1T2R.from_mm(l5=10.0), [0.0])
    with pytest.raises(ModelError, match="unknown parameter"):
        case.run(l9_mm=3.0)
    with pytest.raises(ModelError, match="four-bar"):
        case.run(t_end_s=0.1, l3_mm=50.0)


# --------------------------------------------------------------------------- dynamics

def test_newton_euler_equals_lagrange(run):
    """Independent methods, same kinematics: agreement to round-off over the whole run."""
    _, m, ne = run
    tau_ne = 1e3 * ne.component("R1", "M_axis")          # N·mm
    tau_l = 1e3 * screen.lagrange_torque(m, G)
    tol = max(1e-6, 1e-9 * np.abs(tau_ne).max())
    assert np.abs(tau_ne - tau_l).max() <= tol
    # Measured figures quoted in docs/vibrating_screen.md.
    assert tau_ne.max() == pytest.approx(65.620, abs=1e-3)
    assert tau_ne.min() == pytest.approx(40.437, abs=1e-3)


def test_case_run_summary(tmp_path):
    r = case.run(out=tmp_path, t_end_s=1.0)
    assert len(r["time_s"]) == len(r["torque_Nmm"]) == len(r["torque_lagrange_Nmm"]) == 101
    assert r["max_method_difference_Nmm"] <= 1e-6
    assert r["max_loop_closure_m"] <= 1e-12
    assert r["torque_max_Nmm"] >= r["torque_min_Nmm"]
    assert all((tmp_path / f).is_file() for f in ("torque.png", "method_difference.png"))
    geo = case.mechanism_geometry()
    assert geo["joints_m"]["S7"] == pytest.approx([-0.46, 0.275, 0.08])
    assert [lk["ends"] for lk in geo["links"]][3] == ["R5", "S6"]


@pytest.mark.xdist_group("validation_runs")
def test_three_methods_agree_over_whole_run():
    # the default run, shared with the validation check screen_three_methods (the same
    # fem.validation.runs.run in the same test process; read only)
    from fem.validation.runs import run as shared_run

    r = shared_run("vibrating_screen_1t2r")
    tau = np.asarray(r["torque_Nmm"])
    tol = max(1e-6, 1e-9 * np.abs(tau).max())
    assert set(r["method_differences_Nmm"]) == {"newton_euler-lagrange", "newton_euler-dae",
                                                "lagrange-dae"}
    assert r["max_method_difference_Nmm"] <= tol
    assert np.abs(np.asarray(r["torque_dae_Nmm"]) - tau).max() <= tol
    assert r["dae_max_constraint_residual"] <= 1e-12
    model = case.build()
    asm = model.assemble()
    assert asm.n == asm.m == 21            # fully driven: 20 joint rows + 1 drive row


def test_held_crank_gives_gravity_torque():
    """θ̇ = θ̈ = 0: τ = dV/dθ with V = −Σ m g·c, by central differences of V."""
    r = case.run(hold_crank=True, t_end_s=5.0, dt_s=0.25)
    theta = np.asarray(r["theta_rad"])
    masses = MECH.link_masses

    def V(th):
        C = com_from_joints(screen.positions(MECH, th)[0])
        return -sum(masses[k] * C[k] @ G for k in C)

    h = 1e-5
    tau_fd = 1e3 * (V(theta + h) - V(theta - h)) / (2 * h)   # N·mm
    assert np.abs(np.asarray(r["torque_Nmm"]) - tau_fd).max() <= 1e-7
    assert np.abs(np.asarray(r["torque_lagrange_Nmm"]) - tau_fd).max() <= 1e-7
    assert np.abs(np.asarray(r["torque_dae_Nmm"]) - tau_fd).max() <= 1e-7


def test_reactions_satisfy_global_balance(run):
    """Whole mechanism: Σ (m(a − g), c × m(a − g) + Iε + ω×Iω) = ground reactions."""
    _, m, ne = run
    force = sum(lm.mass * (lm.com_acc - G) for lm in m.links.values())
    moment = sum(np.cross(lm.com, lm.mass * (lm.com_acc - G))
                 + np.einsum("nij,nj->ni", lm.inertia, lm.omega_dot)
                 + np.cross(lm.omega, np.einsum("nij,nj->ni", lm.inertia, lm.omega))
                 for lm in m.links.values())
    ground = ("R1", "R4", "S7")
    f_ground = sum(ne.forces[j] for j in ground)
    m_ground = sum(np.cross(m.joints[j], ne.forces[j]) + ne.moments[j] for j in ground)
    assert np.abs(force - f_ground).max() <= 1e-12                  # N
    assert np.abs(moment - m_ground).max() <= 1e-12                 # N·m


def test_out_of_plane_release_does_not_change_torque(run):
    """The drive torque and in-plane reactions do not depend on how the over-constrained
    four-bar's out-of-plane reactions are made determinate (R3 vs R2 carries the twist)."""
    _, m, ne = run
    links, joints, chains = screen.newton_euler_model(m)
    twist_axis = m.links["coupler"].axis
    swapped = {"R2": newton_euler.universal("R2", "coupler", "crank", m.joints["R2"],
                                            [1.0, 0.0, 0.0], np.cross([1.0, 0, 0], twist_axis)),
               "R3": spherical("R3", "rocker", "coupler", m.joints["R3"])}
    joints = [swapped.get(j.name, j) for j in joints]
    alt = newton_euler.solve_inverse_dynamics(links, joints, chains, G)
    assert np.abs(alt.component("R1", "M_axis") - ne.component("R1", "M_axis")).max() <= 1e-15
    for j in ("R1", "R2", "R3", "R4"):
        assert np.abs(alt.forces[j][:, 1:] - ne.forces[j][:, 1:]).max() <= 1e-13


# --------------------------------------------------------------------------- generic API

def pendulum_link(phi, phid, phidd, m=0.7, length=0.4):
    """A uniform rod hinged at the origin about Z, angle φ from X in the XY plane."""
    e = np.stack([np.cos(phi), np.sin(phi), 0 * phi], axis=1)
    ep = np.stack([-np.sin(phi), np.cos(phi), 0 * phi], axis=1)
    Z = np.array([0.0, 0.0, 1.0])
    half = 0.5 * length
    inertia = m * length**2 / 12 * (np.eye(3) - e[:, :, None] * e[:, None, :])
    return Link("rod", m, half * e, half * (ep * phidd[:, None] - e * phid[:, None] ** 2),
                phid[:, None] * Z, phidd[:, None] * Z, inertia)


def test_newton_euler_pendulum_closed_form():
    t = np.linspace(0, 2, 41)
    phi, phid, phidd = 0.8 * np.sin(3 * t), 2.4 * np.cos(3 * t), -7.2 * np.sin(3 * t)
    m, length, g = 0.7, 0.4, 9.81
    rod = pendulum_link(phi, phid, phidd, m, length)
    pin = revolute("O", "rod", None, [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], driven=True)
    res = newton_euler.solve_inverse_dynamics([rod], [pin], [Chain("all", ["rod"], ["O"])],
                                              gravity=[0.0, -g, 0.0])
    exact = m * g * length / 2 * np.cos(phi) + m * length**2 / 3 * phidd
    assert np.abs(res.component("O", "M_axis") - exact).max() <= 1e-12
    assert np.abs(res.forces["O"] - m * (np.asarray(rod.com_acc) - [0, -g, 0])).max() <= 1e-12
    # The same rod by Lagrange (one DOF).
    e = np.asarray(rod.com) / (length / 2)
    ep = np.stack([-e[:, 1], e[:, 0], 0 * phi], axis=1)
    body = lagrange.Body("rod", m, rod.com, length / 2 * ep, -length / 2 * e,
                         np.broadcast_to([0.0, 0, 1], e.shape), np.zeros_like(e), rod.inertia)
    tau = lagrange.inverse_dynamics([body], phid, phidd, [0.0, -g, 0.0])[:, 0]
    assert np.abs(tau - exact).max() <= 1e-12


def test_newton_euler_errors():
    t = np.linspace(0, 1, 5)
    rod = pendulum_link(t, 1 + 0 * t, 0 * t)
    free = [spherical("O", "rod", None, [0.0, 0.0, 0.0])]
    with pytest.raises(ModelError, match="cannot be balanced"):     # nothing holds the torque
        newton_euler.solve_inverse_dynamics([rod], free, [Chain("c", ["rod"], ["O"])])
    twice = [revolute("O", "rod", None, [0.0, 0, 0], [0, 0, 1.0], driven=True),
             revolute("P", "rod", None, [0.4, 0, 0], [0, 0, 1.0], driven=True)]
    with pytest.raises(ModelError, match="not determined"):          # statically indeterminate
        newton_euler.solve_inverse_dynamics([rod], twice, [Chain("c", ["rod"], ["O", "P"])])
    with pytest.raises(ModelError, match="solved later"):
        newton_euler.solve_inverse_dynamics(
            [rod], twice, [Chain("c", ["rod"], ["O"]), Chain("d", [], ["P"])])


def test_lagrange_two_dof_matches_newton_euler_in_two_chains():
    """Planar double pendulum (absolute q1, relative q2): Christoffel form vs NE (SOC order:
    outer link first, then the inner link with the base drive)."""
    t = np.linspace(0, 1.5, 31)
    q = np.stack([0.5 * np.sin(2 * t), 0.3 + np.cos(t)], axis=1)
    qd = np.stack([np.cos(2 * t), -np.sin(t)], axis=1)
    qdd = np.stack([-2 * np.sin(2 * t), -np.cos(t)], axis=1)
    l1, l2, m1, m2 = 0.5, 0.3, 1.2, 0.8
    g = np.array([0.0, -9.81, 0.0])
    Z = np.array([0.0, 0.0, 1.0])

    def e(x):
        return np.stack([np.cos(x), np.sin(x), 0 * x], axis=1)

    def ep(x):
        return np.stack([-np.sin(x), np.cos(x), 0 * x], axis=1)

    q12 = q[:, 0] + q[:, 1]
    zero = np.zeros((len(t), 3))
    J1 = np.stack([0.5 * l1 * ep(q[:, 0]), zero], axis=2)
    H1 = np.zeros((len(t), 3, 2, 2))
    H1[:, :, 0, 0] = -0.5 * l1 * e(q[:, 0])
    J2 = np.stack([l1 * ep(q[:, 0]) + 0.5 * l2 * ep(q12), 0.5 * l2 * ep(q12)], axis=2)
    H2 = np.empty((len(t), 3, 2, 2))
    H2[:, :, 0, 0] = -l1 * e(q[:, 0]) - 0.5 * l2 * e(q12)
    H2[:, :, 0, 1] = H2[:, :, 1, 0] = H2[:, :, 1, 1] = -0.5 * l2 * e(q12)
    W1 = np.broadcast_to(np.stack([Z, 0 * Z], axis=1), (len(t), 3, 2))
    W2 = np.broadcast_to(np.stack([Z, Z], axis=1), (len(t), 3, 2))
    rod_I = lambda m, ln, u: m * ln**2 / 12 * (np.eye(3) - u[:, :, None] * u[:, None, :])
    I1, I2 = rod_I(m1, l1, e(q[:, 0])), rod_I(m2, l2, e(q12))
    c1, c2 = 0.5 * l1 * e(q[:, 0]), l1 * e(q[:, 0]) + 0.5 * l2 * e(q12)
    bodies = [lagrange.Body("1", m1, c1, J1, H1, W1, np.zeros_like(H1), I1),
              lagrange.Body("2", m2, c2, J2, H2, W2, np.zeros_like(H2), I2)]
    tau = lagrange.inverse_dynamics(bodies, qd, qdd, g)

    def acc(J, H):
        return np.einsum("nij,nj->ni", J, qdd) + np.einsum("nijk,nj,nk->ni", H, qd, qd)

    links = [Link("1", m1, c1, acc(J1, H1), qd[:, :1] * Z, qdd[:, :1] * Z, I1),
             Link("2", m2, c2, acc(J2, H2), (qd[:, :1] + qd[:, 1:]) * Z,
                  (qdd[:, :1] + qdd[:, 1:]) * Z, I2)]
    joints = [revolute("A", "1", None, [0.0, 0, 0], Z, driven=True),
              revolute("B", "2", "1", l1 * e(q[:, 0]), Z, driven=True)]
    res = newton_euler.solve_inverse_dynamics(
        links, joints, [Chain("outer", ["2"], ["B"]), Chain("inner", ["1"], ["A"])], g)
    assert np.abs(res.component("A", "M_axis") - tau[:, 0]).max() <= 1e-12
    assert np.abs(res.component("B", "M_axis") - tau[:, 1]).max() <= 1e-12
