"""General control laws on motors (fem.robot.Controller, ComputedTorque,
InverseDynamics), slew-rate limits and the controllers' recorded states.

References: the planar double pendulum's closed-form inverse dynamics (Spong,
Hutchinson & Vidyasagar 2006, §7.4.1) for :class:`InverseDynamics`; the error equation
``ë + K_d ė + K_p e = 0`` of computed torque with an exact model, solved in closed form;
the PD class for a user law of the same form; central differences for the loop's
derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import fem
from fem.robot import PD, AncfBeam, ComputedTorque, Controller, InverseDynamics, Rigid, Robot, pose

M1, M2, L1, L2, G = 2.0, 1.5, 0.8, 0.6, 9.81


def rod(m, length):
    return Rigid(m, com=(length / 2, 0, 0),
                 inertia=np.diag([0.0, m * length**2 / 12, m * length**2 / 12]))


def double_pendulum(g: float = G, **motor) -> Robot:
    """Two rods in the xy plane on z axes, gravity along −y; joint angles from +x."""
    r = Robot("double pendulum", gravity=(0.0, -g, 0.0))
    r.add_link("l1", rod(M1, L1), frames={"a": pose((0, 0, 0)), "b": pose((L1, 0, 0))})
    r.add_link("l2", rod(M2, L2), frames={"a": pose((L1, 0, 0)), "b": pose((L1 + L2, 0, 0))})
    r.add_joint("shoulder", "revolute", "ground", ("l1", "a"))
    r.add_joint("elbow", "revolute", ("l1", "b"), ("l2", "a"))
    for j in ("shoulder", "elbow"):
        r.add_motor(j, j, **{k: (v[j] if isinstance(v, dict) else v)
                             for k, v in motor.items()})
    return r


def closed_form_torques(th, w, a):
    """``M(θ) θ̈ + C(θ, θ̇) θ̇ + g(θ)`` of the double pendulum (θ2 relative)."""
    lc1, lc2 = L1 / 2, L2 / 2
    I1, I2 = M1 * L1**2 / 12, M2 * L2**2 / 12
    c2, s2 = np.cos(th[1]), np.sin(th[1])
    m11 = M1 * lc1**2 + I1 + M2 * (L1**2 + lc2**2 + 2 * L1 * lc2 * c2) + I2
    m12 = M2 * (lc2**2 + L1 * lc2 * c2) + I2
    m22 = M2 * lc2**2 + I2
    hh = -M2 * L1 * lc2 * s2
    cor = np.array([hh * (2 * w[0] * w[1] + w[1] ** 2), -hh * w[0] ** 2])
    g1 = (M1 * lc1 + M2 * L1) * G * np.cos(th[0]) + M2 * lc2 * G * np.cos(th[0] + th[1])
    g2 = M2 * lc2 * G * np.cos(th[0] + th[1])
    return np.array([[m11, m12], [m12, m22]]) @ a + cor + np.array([g1, g2])


def test_inverse_dynamics_of_a_rigid_robot_is_the_closed_form():
    """:class:`InverseDynamics` of the double pendulum built in robot words equals the
    closed-form ``M θ̈ + C θ̇ + g`` at random states to 1e-9 of the torques' size."""
    model = InverseDynamics(double_pendulum(servo=lambda t: (0.0, 0.0, 0.0)))
    rng = np.random.default_rng(3)
    for _ in range(5):
        th, w, a = rng.uniform(-2, 2, 2), rng.uniform(-3, 3, 2), rng.uniform(-5, 5, 2)
        ref = closed_form_torques(th, w, a)
        assert np.abs(model(th, w, a) - ref).max() < 1e-9 * np.abs(ref).max(), (th, w, a)


def test_inverse_dynamics_of_a_closed_loop_robot_is_its_newton_euler_model():
    """:class:`InverseDynamics` of the 3-RRRU parallel robot with rigid links (robot
    words, placed by Gauss–Newton in its closed loops) along the circle equals the
    independent Newton–Euler model with closed-form kinematics (:mod:`fem.robots.rrru3`)
    to 2e-8 of the torques.  The links are made slender (radius 0.1 mm): the rigid
    equivalent of a rod carries its section's rotary inertia, which the Newton–Euler
    model leaves out (1e-5 at the real 10 mm, falling with the radius squared)."""
    from fem.robots.rrru3_flexible_links import (
        build_flexible_links_robot,
        liu2018_circle_path,
        liu2018_geometry,
        rigid_torque_function,
    )

    geom = liu2018_geometry()
    path = liu2018_circle_path(geom, 0.5)
    rigid = build_flexible_links_robot(geom, mode="inverse", drive="joints",
                                       link_model="rigid", path=path, radius=1e-4)
    motions = [m.drive.motion for m in rigid.robot.motors.values()]
    model = InverseDynamics(rigid.robot)
    for t in (0.0, 0.4, 0.9, 1.5, 2.0):
        tau = model(*np.array([m(t) for m in motions]).T)
        ref = np.array([rigid_torque_function(geom, path, k)(t) for k in range(3)])
        assert np.abs(tau - ref).max() < 2e-8 * np.abs(ref).max(), (t, tau, ref)


def test_inverse_dynamics_refuses_robots_it_cannot_model():
    with pytest.raises(fem.ModelError, match="must be a servo"):
        InverseDynamics(double_pendulum(effort=0.0))
    steel = fem.Material(2.1e11, 0.3, 7850.0)
    r = Robot("flexible")
    r.add_link("arm", AncfBeam(steel, radius=0.01, elements=2),
               frames={"a": pose((0, 0, 0)), "b": pose((1.0, 0, 0))})
    r.add_joint("hub", "revolute", "ground", ("arm", "a"))
    r.add_motor("hub", "hub", servo=lambda t: (0.0, 0.0, 0.0))
    with pytest.raises(fem.ModelError, match="flexible"):
        InverseDynamics(r)


def _error_closed_form(e0, de0, kp, kd, t):
    """``e(t)`` of ``ë + kd ė + kp e = 0`` (underdamped)."""
    z, wn = kd / (2 * np.sqrt(kp)), np.sqrt(kp)
    wd = wn * np.sqrt(1 - z * z)
    return np.exp(-z * wn * t) * (e0 * np.cos(wd * t) + (de0 + z * wn * e0) / wd * np.sin(wd * t))


@pytest.mark.parametrize("period, t_end, tol", [(None, 0.1, 2e-5),
                                             pytest.param(1e-3, 0.6, 3e-3, marks=pytest.mark.slow)])
def test_computed_torque_with_the_exact_model_gives_the_designed_error_dynamics(
        period, t_end, tol):
    """Computed torque on the double pendulum (gravity on), its model the same robot's
    :class:`InverseDynamics`: each joint's tracking error of a moving reference follows
    ``ë + K_d ė + K_p e = 0`` from its initial error (closed form) — to 2e-5 rad when
    continuous (derivatives by forward differences; about two Newton iterations a step),
    to 3e-3 rad of 0.2 sampled at 1 kHz (the zero-order hold's lag).  Without the model
    (gravity and coupling uncompensated) the error is 0.05 rad.  The controller's states
    are recorded."""
    kp, kd = 100.0, 8.0
    refs = {"shoulder": lambda t: (0.2 + 0.3 * np.sin(2 * t), 0.6 * np.cos(2 * t),
                                   -1.2 * np.sin(2 * t)),
            "elbow": lambda t: (-0.1 + 0.5 * t**2, 1.0 * t, 1.0)}
    model = InverseDynamics(double_pendulum(servo=lambda t: (0.0, 0.0, 0.0)))
    ct = ComputedTorque(model, kp, kd, [refs["shoulder"], refs["elbow"]], period=period)
    plant = double_pendulum(controller=ct)
    res = plant.simulate(t_end, 1e-3, start="placed", rho_inf=1.0)
    for j in ("shoulder", "elbow"):
        r0, dr0, _ = refs[j](0.0)
        e = np.array([refs[j](t)[0] for t in res.t]) - res.sensors[f"{j} angle_rad"]
        ref = _error_closed_form(r0, dr0, kp, kd, res.t)
        assert np.abs(e - ref).max() < tol, (j, np.abs(e - ref).max())
        assert np.allclose(res.sensors[f"{j} error_rad"], e, atol=1e-12)
        assert np.allclose(res.sensors[f"{j} reference_rad"],
                           [refs[j](t)[0] for t in res.t], atol=1e-12)
    if period is None:
        assert np.mean(res.stats["iterations"]) < 2.5
        assert "forward differences" in ct.derivatives
    else:       # the same law on a model without gravity: far off the closed form
        light = InverseDynamics(double_pendulum(0.0, servo=lambda t: (0.0, 0.0, 0.0)))
        bad = double_pendulum(controller=ComputedTorque(
            light, kp, kd, [refs["shoulder"], refs["elbow"]], period=period))
        res = bad.simulate(t_end, 1e-3, start="placed", rho_inf=1.0)
        e = np.array([refs["shoulder"](t)[0] for t in res.t]) - res.sensors[
            "shoulder angle_rad"]
        assert np.abs(e - _error_closed_form(0.2, 0.6, kp, kd, res.t)).max() > 0.05


def test_a_user_law_equal_to_pd_runs_as_the_pd():
    """A :class:`Controller` whose law is the PD (derivatives by forward differences,
    and given analytically) runs as :class:`PD` on both joints of the double pendulum
    to 1e-7 rad, in as many Newton iterations."""
    kp, kd = np.array([80.0, 30.0]), np.array([6.0, 2.0])
    target = np.array([0.4, -0.3])
    pd = double_pendulum(controller={j: PD(kp[k], kd[k], reference=lambda t, x=target[k]:
                                           (x, 0.0, 0.0))
                                     for k, j in enumerate(("shoulder", "elbow"))})
    ref = pd.simulate(0.4, 2e-3, start="placed", rho_inf=0.9)

    def law(t, th, w):
        return kp * (target - th) - kd * w

    for jac in (None, lambda t, th, w: (-np.diag(kp), -np.diag(kd))):
        r = double_pendulum(controller=Controller(law, jacobian=jac))
        res = r.simulate(0.4, 2e-3, start="placed", rho_inf=0.9)
        for j in ("shoulder", "elbow"):
            d = np.abs(res.sensors[f"{j} angle_rad"] - ref.sensors[f"{j} angle_rad"]).max()
            assert d < 1e-7, (jac, j, d)
        assert np.sum(res.stats["iterations"]) <= np.sum(ref.stats["iterations"]) + 2


def test_pd_derivatives_match_central_differences_on_a_flexible_link_in_motion():
    """The PD's ``∂u/∂q`` and ``∂u/∂q̇`` (including ``∂θ̇/∂q = (∂B/∂q)ᵀ q̇``) on an ANCF
    beam's section, at a deformed, moving state, against central differences (1e-6)."""
    steel = fem.Material(2.1e11, 0.3, 7850.0)
    r = Robot("flexible")
    r.add_link("arm", AncfBeam(steel, radius=0.01, elements=2),
               frames={"a": pose((0, 0, 0)), "b": pose((1.0, 0, 0))})
    r.add_link("tip", rod(1.0, 0.5), frames={"a": pose((1.0, 0, 0))})
    r.add_joint("hub", "revolute", "ground", ("arm", "a"))
    r.add_joint("knee", "revolute", ("arm", "b"), ("tip", "a"))
    r.add_motor("knee", "knee", controller=PD(7.0, 3.0, reference=lambda t: (0.2, 0.1, 0.0)))
    fb = r.motors["knee"].actuator.feedback
    asm = r.model.assemble()
    rng = np.random.default_rng(0)
    q = asm.q0 + 1e-2 * rng.standard_normal(asm.n)
    v = rng.standard_normal(asm.n)
    gq, gv = fb.gradient(0.0, q, v)
    eps = 1e-6
    for g, which in ((gq, "q"), (gv, "v")):
        num = np.zeros(len(fb.dofs))
        for i, d in enumerate(fb.dofs):
            dp, dm = (q.copy(), q.copy()) if which == "q" else (v.copy(), v.copy())
            dp[d] += eps
            dm[d] -= eps
            up = fb.effort(0.0, dp, v) if which == "q" else fb.effort(0.0, q, dp)
            um = fb.effort(0.0, dm, v) if which == "q" else fb.effort(0.0, q, dm)
            num[i] = (up - um) / (2 * eps)
        assert np.abs(g - num).max() < 1e-6 * max(1.0, np.abs(num).max()), which


@pytest.mark.parametrize("period", [None, 2e-3])
def test_rate_limit_bounds_the_effort_slew(period):
    """A PD whose reference steps to 0.5 rad at 50 ms, with ``rate_limit`` = 200 N·m/s:
    the effort ramps at exactly that slope from the last applied effort (continuous: the
    last step's; sampled: the last sample's) and never faster; without the limit it
    jumps to k_p × 0.5 at once."""
    from test_control import rigid_link

    def ref(t):
        return (0.5 if t >= 0.05 - 1e-12 else 0.0, 0.0, 0.0)

    robot = rigid_link(PD(100.0, 5.0, reference=ref, rate_limit=200.0, period=period))
    res = robot.simulate(0.12, 1e-3, start="placed", rho_inf=1.0)
    u, t = res.sensors["motor effort_Nm"], res.t
    assert np.abs(np.diff(u)).max() <= 200.0 * (period or 1e-3) * (1 + 1e-9)
    k0 = int(np.argmin(np.abs(t - 0.05)))
    assert np.abs(u[:k0]).max() < 1e-12
    lead = 1e-3 if period is None else period
    for k in (k0, k0 + 10, k0 + 20):
        assert u[k] == pytest.approx(200.0 * (t[k] - 0.05 + lead), rel=1e-9), (k, u[k])
    free = rigid_link(PD(100.0, 5.0, reference=ref, period=period))
    u_free = free.simulate(0.06, 1e-3, start="placed").sensors["motor effort_Nm"]
    assert u_free[k0] == pytest.approx(50.0, rel=1e-2)


def test_bad_laws_are_named():
    with pytest.raises(fem.ModelError, match="law"):
        Controller("not a function")
    bad = double_pendulum(controller=Controller(lambda t, th, w: np.zeros(3)))
    with pytest.raises(fem.ModelError, match="returned 3 efforts"):
        bad.simulate(0.01, 1e-3, start="placed")
    nan = double_pendulum(controller=Controller(lambda t, th, w: np.full(2, np.nan)))
    with pytest.raises(fem.ModelError, match="must be finite"):
        nan.simulate(0.01, 1e-3, start="placed")
    with pytest.raises(fem.ModelError, match="references for 2 motors"):
        double_pendulum(controller=ComputedTorque(lambda *a: np.zeros(1), 1.0, 1.0,
                                                  [lambda t: (0, 0, 0)]))
    with pytest.raises(fem.ModelError, match="kp"):
        ComputedTorque(lambda *a: np.zeros(2), [1.0, -1.0], 1.0, [lambda t: (0, 0, 0)] * 2)
    with pytest.raises(fem.ModelError, match="limit gives 1 values"):
        double_pendulum(controller=Controller(lambda t, th, w: -th, limit=[1.0]))


def test_feedforward_from_an_inverse_dynamics_run_tracks_its_trajectory():
    """The double pendulum's servo run (both joints on rest-to-rest motions, gravity on)
    gives each motor's torque and angle (:meth:`fem.Robot.feedforward`); the same robot
    driven by a soft PD with that feedforward and reference tracks the trajectory within
    1e-3 rad (what is left is the table's interpolation between 4 ms steps), while the
    soft PD alone, without feedforward, is 0.1 rad off."""
    from fem.robot import rest_to_rest

    motions = {"shoulder": rest_to_rest(0.8, 1.0, 0.0), "elbow": rest_to_rest(-0.6, 1.0, 0.0)}
    servo = double_pendulum(servo=motions)
    inverse = fem.simulate(servo.model, 1.0, 4e-3, q0=servo.place(0.0))
    ff = servo.feedforward(inverse)
    assert set(ff) == {"shoulder", "elbow"}
    soft = {j: PD(20.0, 4.0, **ff[j]) for j in motions}
    res = double_pendulum(controller=soft).simulate(1.0, 4e-3, start="placed")
    alone = {j: PD(20.0, 4.0, reference=motions[j]) for j in motions}
    off = double_pendulum(controller=alone).simulate(1.0, 4e-3, start="placed")
    for j, m in motions.items():
        ref = np.array([m(t)[0] for t in res.t])
        assert np.abs(res.sensors[f"{j} angle_rad"] - ref).max() < 1e-3, j
    assert max(np.abs(off.sensors[f"{j} angle_rad"]
                      - np.array([m(t)[0] for t in off.t])).max()
               for j, m in motions.items()) > 0.1


def test_a_law_may_read_frame_poses():
    """A law reading the rod tip's height through ``state.frame`` (task-space feedback,
    sampled at 1 kHz) runs as the same law written in the joint angle
    (``y = L sin θ``) to 1e-10 rad."""
    from test_control import L, rigid_link

    def by_frame(t, th, w, state):
        y = state.frame("arm", "b")[0][1]
        return [40.0 * (0.2 - y) / L - 3.0 * w[0]]

    def by_angle(t, th, w):
        return [40.0 * (0.2 - L * np.sin(th[0])) / L - 3.0 * w[0]]

    runs = [rigid_link(Controller(law, period=1e-3)).simulate(
        0.3, 1e-3, start="placed", rho_inf=1.0).sensors["hub angle_rad"]
        for law in (by_frame, by_angle)]
    assert np.abs(runs[0] - runs[1]).max() < 1e-10
    assert runs[0][-1] > 0.05
