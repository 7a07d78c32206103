"""Seed 000 — 3-RRRU robot: motion profiles, rigid kinematics and reference inverse dynamics.

Validation table (reference — tolerance — why):

* eq 45 profile numbers — the seed's ω, H, cruise speeds (ω = 2π/t_a, v = 2πHω) — 5e-3
  relative — the seed prints 2–3 significant digits.
* profiles — s = ∫ṡ, ṡ = ∫s̈ by 20-point Gauss–Legendre per smooth phase — 1e-12
  (brief: 1e-9) — polynomial/trigonometric integrands, quadrature exact to round-off;
  rest at both ends exactly; the circle closes to 1e-12 m.
* inverse kinematics — loop closure, link lengths, R1/R2 planarity, R3 ⊥ link 3, U axis ⊥
  edge (eqs 33–36) — 1e-12 m — closed form, round-off only.
* mobility — Jacobian of the 12 joint constraints in (P, platform rotation, 9 limb angles):
  rank 12, and the 3 free motions carry no platform rotation (< 1e-6, FD Jacobian) — the
  seed's U-axis conditions (eq 36) make the rigid robot translational.
* θ̇, θ̈ — central differences of the IK angles along the paths — 1e-6 relative to the
  largest value — truncation h²θ'''/6 ≈ 1e-9 (h = 1e-5 s) and h²θ''''/12 ≈ 1e-7
  (h = 1e-4 s); round-off ε|θ|/h² ≈ 5e-9.
* forward kinematics — Newton on θ(P) = θ returns P to 1e-13 m.
* statics — τ at rest = ∂V/∂θ (virtual work: the actuators hold the robot, τ·δθ = δV),
  by central differences in θ through the forward kinematics (h = 1e-5 rad) — 1e-7
  relative — truncation h²V'''/6 ≈ 1e-10 N·m, round-off ε|V|/h ≈ 2e-9 N·m.
* mirror symmetry — P on the XZ plane: limbs 2 and 3 mirror (angles, torques, joints) —
  1e-12.
* dynamics, all three torques — Lagrange II in the minimal coordinates P: mass matrix from
  the kinetic energy, its P-derivatives and ∇V by central differences (h = 1e-5 m) — 1e-6
  relative — truncation (h/0.1 m)² ≈ 1e-8, round-off ≈ 1e-10.
* power balance — Σ τ_k θ̇_k = dE/dt pointwise (dE/dt = Σ ėᵀ M ë + ∂V/∂t with analytic
  rates) — 1e-10 relative; and E(t) − E(0) = ∫ Σ τθ̇ dt with E from positions and
  velocities only (no accelerations) by Gauss–Legendre per smooth phase — 1e-8 relative.
* seed figures (circle, literal H = 0.011) — mean torque −13.23/−18.44 N·m, mean deviation
  5.05/7.74 N·m (payload 6/10 kg) — 0.1 N·m — the seed's flexible platform moves the
  torques by ≤ 0.16 N·m (§5.3).
"""

from __future__ import annotations

import numpy as np
import pytest

from fem.core.errors import ModelError
from fem.model.trajectory import (
    CosineAccelerationProfile,
    SCurveProfile,
    SineAccelerationProfile,
    circle_path,
    line_path,
)
from fem.robots import rrru3
from fem.robots.rrru3 import RRRU3Geometry

GEOM = RRRU3Geometry()
P0 = np.array(GEOM.start_point)
LINE = rrru3.paper_line_path(GEOM)
CIRCLE = rrru3.paper_circle_path(GEOM)
GL_X, GL_W = np.polynomial.legendre.leggauss(20)


def _gauss_integral(f, a: float, b: float, pieces: int = 8):
    """∫_a^b f(t) dt by composite 20-point Gauss–Legendre (f vectorized, any trailing shape)."""
    edges = np.linspace(a, b, pieces + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        t = 0.5 * (hi - lo) * GL_X + 0.5 * (hi + lo)
        total = total + 0.5 * (hi - lo) * np.tensordot(GL_W, f(t), axes=(0, 0))
    return total


def _phase_edges(profile, t_end: float) -> list[float]:
    bp = profile.breakpoints()
    return [0.0] + [b for b in bp[1:] if b < t_end] + [t_end]


# --------------------------------------------------------------------------------------
# motion profiles and paths
# --------------------------------------------------------------------------------------
def test_eq45_numbers_match_the_seed():
    line = CosineAccelerationProfile.from_amplitude(duration=0.8, amplitude=0.003)
    circ = CosineAccelerationProfile.from_amplitude(duration=1.6, amplitude=0.011)
    assert line.omega == pytest.approx(19.6, rel=5e-3)
    assert circ.omega == pytest.approx(9.82, rel=5e-3)
    assert line.cruise_speed == pytest.approx(0.37, rel=5e-3)
    assert circ.cruise_speed == pytest.approx(0.68, rel=5e-3)
    assert line.distance == pytest.approx(0.177653, abs=1e-6)
    # the seed's circle numbers overrun the circumference; closing it needs H = 0.01061
    closed = CIRCLE.profile
    assert circ.distance / (2 * np.pi * 0.1) == pytest.approx(1.0367, abs=1e-4)
    assert closed.amplitude == pytest.approx(0.0106103, abs=1e-7)
    assert round(closed.amplitude, 3) == 0.011
    # eq 45 itself: a = H ω² (1 − cos ωt) in the acceleration phase
    t = np.linspace(0.0, line.accel_time, 7)
    np.testing.assert_allclose(line(t)[2], line.amplitude * line.omega**2
                               * (1 - np.cos(line.omega * t)), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("profile", [
    CosineAccelerationProfile(0.8, 0.2),
    SineAccelerationProfile(1.0, 0.3, accel_fraction=0.3),
    SCurveProfile(1.2, 0.5, accel_fraction=0.4, jerk_fraction=0.3),
    SCurveProfile(1.0, 1.0, accel_fraction=0.5, jerk_fraction=0.5),
])
def test_profile_integrates_consistently(profile):
    T = profile.duration
    s, sd, sdd = profile(np.array([0.0, T]))
    assert s[0] == 0.0 and s[1] == pytest.approx(profile.distance, abs=1e-15)
    np.testing.assert_array_equal(sd, 0.0)
    for t_end in np.linspace(0.05, 1.0, 9) * T:
        edges = _phase_edges(profile, t_end)
        pos = sum(_gauss_integral(lambda t: profile(t)[1], a, b, 1)
                  for a, b in zip(edges[:-1], edges[1:], strict=True))
        vel = sum(_gauss_integral(lambda t: profile(t)[2], a, b, 1)
                  for a, b in zip(edges[:-1], edges[1:], strict=True))
        s, sd, _ = profile(t_end)
        assert abs(pos - s) < 1e-12 * profile.distance
        assert abs(vel - sd) < 1e-12 * profile.cruise_speed


def test_paths_are_consistent_and_the_circle_closes():
    for path in (LINE, CIRCLE, rrru3.paper_circle_path(GEOM, closed=False)):
        T = path.duration
        x0, v0, _ = path(0.0)
        x1, v1, _ = path(T)
        np.testing.assert_array_equal(v0, 0.0)
        np.testing.assert_allclose(v1, 0.0, atol=1e-15)
        np.testing.assert_allclose(x0, P0, atol=1e-15)
        edges = _phase_edges(path.profile, T)
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            dx = _gauss_integral(lambda t, p=path: p(t)[1], a, b, 4)
            dv = _gauss_integral(lambda t, p=path: p(t)[2], a, b, 4)
            np.testing.assert_allclose(dx, path(b)[0] - path(a)[0], atol=1e-12)
            np.testing.assert_allclose(dv, path(b)[1] - path(a)[1], atol=1e-12)
    np.testing.assert_allclose(CIRCLE(CIRCLE.duration)[0], P0, atol=1e-12)
    # counter-clockwise seen from +Z: starts towards +Y, stays on the circle in z = −0.8
    x, v, _ = CIRCLE(np.linspace(0.0, 1.6, 50))
    assert CIRCLE(0.1)[1][1] > 0.0
    np.testing.assert_allclose(np.linalg.norm(x - [0, 0, -0.8], axis=1), 0.1, atol=1e-15)
    np.testing.assert_allclose(x[:, 2], -0.8, atol=1e-15)
    np.testing.assert_allclose(LINE(0.8)[0], P0 + [0, 0.177653, 0], atol=1e-6)
    # scalar → (3,), vector → (n, 3)
    assert LINE(0.3)[0].shape == (3,) and LINE(np.array([0.3, 0.4]))[2].shape == (2, 3)
    # any plane: a circle about X stays in x = 0 on the unit circle
    tilted = circle_path([0, 0, 0], 1.0, [1, 0, 0], 0.5, CosineAccelerationProfile(1, 1))
    x = tilted(np.linspace(0, 1, 11))[0]
    np.testing.assert_allclose(x[:, 0], 0.0, atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0, atol=1e-15)
    with pytest.raises(ValueError):
        line_path([0, 0, 0], [0, 0, 0], LINE.profile)


# --------------------------------------------------------------------------------------
# kinematics
# --------------------------------------------------------------------------------------
POSES = np.array([P0, [0.0, 0.0, -0.8], [-0.1, 0.05, -0.75], [0.05, -0.1, -0.85]])


def test_inverse_kinematics_closes_every_joint_constraint():
    l1, l2, l3 = GEOM.link_lengths
    jp = rrru3.joint_positions(GEOM, POSES)
    for k in range(3):
        A, B, C, U = jp["A"][k], jp["B"][:, k], jp["C"][:, k], jp["U"][:, k]
        t = GEOM.tangent(k)
        np.testing.assert_allclose(U, POSES + GEOM.attachment_offset(k), atol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(B - A, axis=1), l1, atol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(C - B, axis=1), l2, atol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(U - C, axis=1), l3, atol=1e-12)
        np.testing.assert_allclose((B - A) @ t, 0.0, atol=1e-12)  # eq 33₄: planar
        np.testing.assert_allclose((C - A) @ t, 0.0, atol=1e-12)
        a = np.cross(t, C - B)  # R3 axis (eq 35)
        np.testing.assert_allclose(np.sum(a * (U - C), axis=1), 0.0, atol=1e-12)  # eq 33₅
        np.testing.assert_allclose(a @ t, 0.0, atol=1e-12)  # eq 36, home orientation
    q = rrru3.limb_coordinates(GEOM, POSES)
    for P, qi in zip(POSES, q, strict=True):
        assert np.abs(rrru3.rigid_constraint_residuals(GEOM, P, np.eye(3), qi)).max() < 1e-12
    # the elbow-out branch: B outside A (Delta style) for every limb
    for k in range(3):
        assert np.all((jp["B"][:, k] - jp["A"][k]) @ GEOM.radial(k) > 0.3)


def test_rigid_robot_is_translational():
    def phi(x):
        rv = x[3:6]
        K = np.array([[0, -rv[2], rv[1]], [rv[2], 0, -rv[0]], [-rv[1], rv[0], 0]])
        rot = np.eye(3) + K + K @ K / 2 + K @ K @ K / 6 + K @ K @ K @ K / 24
        return rrru3.rigid_constraint_residuals(GEOM, x[:3], rot, x[6:].reshape(3, 3))

    for P in POSES:
        x = np.concatenate([P, np.zeros(3), rrru3.limb_coordinates(GEOM, P)[0].ravel()])
        h = 1e-7
        J = np.column_stack([(phi(x + h * e) - phi(x - h * e)) / (2 * h) for e in np.eye(15)])
        _, sv, Vt = np.linalg.svd(J)
        assert sv[-1] > 1e-3 * sv[0]  # rank 12
        null = Vt[12:]
        assert np.abs(null[:, 3:6]).max() < 1e-6  # no platform rotation
        assert np.linalg.matrix_rank(null[:, :3]) == 3  # P moves freely


@pytest.mark.parametrize("path", [LINE, CIRCLE], ids=["line", "circle"])
def test_actuator_rates_match_finite_differences(path):
    t = np.linspace(0.013, path.duration - 0.013, 41)
    P, Pd, Pdd = path(t)
    th, thd, thdd = rrru3.actuator_motion(GEOM, P, Pd, Pdd)
    ang = lambda tt: rrru3.actuator_angles(GEOM, path(tt)[0])
    h1, h2 = 1e-5, 1e-4
    fd1 = (ang(t + h1) - ang(t - h1)) / (2 * h1)
    fd2 = (ang(t + h2) - 2 * ang(t) + ang(t - h2)) / h2**2
    np.testing.assert_allclose(th, ang(t), atol=1e-15)
    assert np.abs(fd1 - thd).max() < 1e-6 * np.abs(thd).max()
    assert np.abs(fd2 - thdd).max() < 1e-6 * np.abs(thdd).max()
    # the analytic Jacobian is ∂θ/∂P
    Jt = rrru3.actuator_jacobian(GEOM, P)
    np.testing.assert_allclose(np.einsum("nij,nj->ni", Jt, Pd), thd, atol=1e-14)


@pytest.mark.parametrize("path", [LINE, CIRCLE], ids=["line", "circle"])
def test_one_pose_motion_is_the_vectorized_one(path):
    # the drive's scalar form (ActuatorMotion, solved by blocks) against the vectorized
    # closed forms, which the finite differences above check
    one = rrru3.ActuatorMotion(GEOM)
    for t in np.linspace(0.0, path.duration, 23):
        P, Pd, Pdd = path(t)
        ref = rrru3.actuator_motion(GEOM, P, Pd, Pdd)
        for got, want in zip(one(P, Pd, Pdd), ref, strict=True):
            np.testing.assert_allclose(got, want[0], rtol=0, atol=1e-12 * max(
                1.0, np.abs(want).max()))
    far = np.asarray(GEOM.start_point, float) + np.array([0.0, 0.0, 5.0])
    with pytest.raises(ModelError, match="limb 1"):
        one(far, np.zeros(3), np.zeros(3))


def test_forward_kinematics_inverts_the_inverse():
    for P in POSES:
        theta = rrru3.actuator_angles(GEOM, P)[0]
        np.testing.assert_allclose(rrru3.forward_kinematics(GEOM, theta, P + 0.01), P,
                                   atol=1e-13)


# --------------------------------------------------------------------------------------
# dynamics
# --------------------------------------------------------------------------------------
def test_static_torques_are_the_gradient_of_the_potential():
    for geom in (GEOM, GEOM.with_payload(10.0)):
        for P in POSES:
            theta = rrru3.actuator_angles(geom, P)[0]
            V = lambda th, P=P, geom=geom: rrru3.potential_energy(
                geom, rrru3.forward_kinematics(geom, th, P))[0]
            h = 1e-5
            dV = np.array([(V(theta + h * e) - V(theta - h * e)) / (2 * h) for e in np.eye(3)])
            tau = rrru3.gravity_torques(geom, P)[0]
            # the actuator holds the robot: τ = ∂V/∂θ (τ does work +τδθ against gravity)
            assert np.abs(tau - dV).max() < 1e-7 * np.abs(tau).max()
            assert np.all(tau < 0.0)  # seed sign convention (§5.2–5.4: negative torques)


def test_symmetric_pose_mirrors_limbs_2_and_3():
    mirror = np.diag([1.0, -1.0, 1.0])
    for x, z in [(0.1, -0.8), (-0.05, -0.75), (0.0, -0.9)]:
        P = np.array([[x, 0.0, z]])
        jp = rrru3.joint_positions(GEOM, P)
        for name in ("B", "C", "U", "W"):
            np.testing.assert_allclose(jp[name][:, 2], jp[name][:, 1] @ mirror, atol=1e-12)
            np.testing.assert_allclose(jp[name][:, 0, 1], 0.0, atol=1e-12)
        th = rrru3.actuator_angles(GEOM, P)[0]
        tau = rrru3.gravity_torques(GEOM, P)[0]
        assert abs(th[1] - th[2]) < 1e-12 and abs(tau[1] - tau[2]) < 1e-12 * abs(tau[1])


def _mass_matrix(geom, P):
    """Generalized mass matrix M(P) from the kinetic energy, by polarization."""
    M = np.empty((3, 3))
    E = np.eye(3)
    for i in range(3):
        M[i, i] = 2 * rrru3.kinetic_energy(geom, P, E[i])[0]
    for i in range(3):
        for j in range(i + 1, 3):
            M[i, j] = M[j, i] = (2 * rrru3.kinetic_energy(geom, P, E[i] + E[j])[0]
                                 - M[i, i] - M[j, j]) / 2
    return M


@pytest.mark.parametrize("path", [LINE, CIRCLE], ids=["line", "circle"])
def test_torques_agree_with_lagrange_equations(path):
    h = 1e-5
    E = np.eye(3)
    for t in np.linspace(0.05, path.duration - 0.05, 7):
        P, Pd, Pdd = path(t)
        M = _mass_matrix(GEOM, P)
        dM = [(_mass_matrix(GEOM, P + h * e) - _mass_matrix(GEOM, P - h * e)) / (2 * h)
              for e in E]
        gradV = np.array([(rrru3.potential_energy(GEOM, P + h * e)
                           - rrru3.potential_energy(GEOM, P - h * e))[0] / (2 * h) for e in E])
        Mdot = sum(dM[k] * Pd[k] for k in range(3))
        f_lagrange = M @ Pdd + Mdot @ Pd - 0.5 * np.array([Pd @ dM[k] @ Pd for k in range(3)]) \
            + gradV
        tau, _ = rrru3.inverse_dynamics(GEOM, P, Pd, Pdd)
        f_vw = rrru3.actuator_jacobian(GEOM, P)[0].T @ tau[0]
        assert np.abs(f_vw - f_lagrange).max() < 1e-6 * np.abs(f_lagrange).max()


@pytest.mark.parametrize("path", [LINE, CIRCLE], ids=["line", "circle"])
def test_power_balance(path):
    geom = GEOM
    t = np.linspace(0.0, path.duration, 161)
    ref = rrru3.reference_torques(path, t, geom)
    # pointwise: dE/dt = Σ ėᵀ M ë + m Ṗ·P̈ + Σ m g ż_c, from the analytic joint motion
    P, Pd, Pdd = path(t)
    _, st = rrru3.inverse_dynamics(geom, P, Pd, Pdd)
    g = geom.gravity
    dE = geom.moving_mass * (np.sum(Pd * Pdd, axis=1) + g * Pd[:, 2])
    m1, m2, m3 = geom.link_masses
    zero = np.zeros_like(Pd)
    for k in range(3):
        ends = [(zero, zero), (st.Bd[:, k], st.Bdd[:, k]), (st.Cd[:, k], st.Cdd[:, k]),
                (st.Ud[:, k], st.Udd[:, k])]
        for m, (va, aa), (vb, ab) in zip((m1, m2, m3), ends[:-1], ends[1:], strict=True):
            dE += m / 3 * np.sum(va * aa + vb * ab + 0.5 * (va * ab + vb * aa), axis=1)
            dE += m * g * 0.5 * (va[:, 2] + vb[:, 2])
    scale = np.abs(ref["power"]).max()
    assert np.abs(ref["power"] - dE).max() < 1e-10 * scale
    # integral: E from positions and velocities only; power integrated per smooth phase
    energy = lambda tt: (rrru3.kinetic_energy(geom, path(tt)[0], path(tt)[1])
                         + rrru3.potential_energy(geom, path(tt)[0]))
    power = lambda tt: rrru3.reference_torques(path, tt, geom)["power"]
    E0 = energy(0.0)[0]
    bp = path.profile.breakpoints()
    checks = np.linspace(0.0, path.duration, 9)[1:]
    dE_max = np.abs(energy(np.linspace(0, path.duration, 81)) - E0).max()
    for tc in checks:
        edges = [0.0] + [b for b in bp[1:] if b < tc] + [tc]
        work = sum(_gauss_integral(power, a, b, 2)
                   for a, b in zip(edges[:-1], edges[1:], strict=True))
        assert abs(energy(tc)[0] - E0 - work) < 1e-8 * dE_max


# --------------------------------------------------------------------------------------
# seed figures (documented in docs/rrru3_robot.md)
# --------------------------------------------------------------------------------------
def test_seed_circle_torque_statistics():
    path = rrru3.paper_circle_path(GEOM, closed=False)  # the seed's literal H = 0.011
    t = np.arange(321) * 0.005
    for payload, mean, dev in ((6.0, -13.23, 5.05), (10.0, -18.44, 7.74)):
        tau = rrru3.reference_torques(path, t, GEOM.with_payload(payload))["torque"]
        assert tau.mean() == pytest.approx(mean, abs=0.1)
        assert np.abs(tau - tau.mean()).mean() == pytest.approx(dev, abs=0.1)
        assert np.all(tau < 0.0)
