"""Motors with feedback controllers (fem.robot.PD) in forward dynamics, and the
closed-loop poles of the linearized motion (fem.closed_loop_poles): against the closed
form of a PD-held rigid link, a flexible beam's free decay against its linearization,
and a sampled controller converging to the continuous one with its period."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import curve_fit

import fem
from fem.robot import PD, AncfBeam, Rigid, Robot, pose

L, M_ROD = 1.0, 2.0
I_HUB = M_ROD * L**2 / 3


def rigid_link(controller) -> Robot:
    robot = Robot("pd", gravity=(0.0, 0.0, 0.0))
    robot.add_link("arm", Rigid(M_ROD, com=(L / 2, 0, 0),
                                inertia=np.diag([0.0, M_ROD * L**2 / 12, M_ROD * L**2 / 12])),
                   frames={"a": pose((0, 0, 0)), "b": pose((L, 0, 0))})
    robot.add_joint("hub", "revolute", "ground", ("arm", "a"))
    robot.add_motor("motor", "hub", controller=controller)
    return robot


def step_response(kp, kd, target, t):
    """θ(t) of ``I θ̈ + kd θ̇ + kp (θ − target) = 0`` from rest at zero (underdamped)."""
    wn, z = np.sqrt(kp / I_HUB), kd / (2 * np.sqrt(kp * I_HUB))
    wd = wn * np.sqrt(1 - z * z)
    return target * (1 - np.exp(-z * wn * t) * (np.cos(wd * t) + z * wn / wd * np.sin(wd * t)))


def test_pd_held_rigid_link_is_the_closed_form():
    """A PD on the hub of a rigid rod steps to 0.3 rad: the angle follows the closed form
    of ``I θ̈ + k_d θ̇ + k_p (θ − θ_ref) = 0`` (4e-6 rad at h = 1 ms, ρ∞ = 1), Newton takes
    one iteration a step (the loop's derivatives are in the iteration matrix), and the
    linearization's poles are the closed form's ``−ζω_n ± iω_d`` to 1e-9."""
    kp, kd = 50.0, 2.0
    robot = rigid_link(PD(kp, kd, reference=lambda t: (0.3, 0.0, 0.0)))
    res = robot.simulate(1.5, 1e-3, start="placed", rho_inf=1.0)
    th = res.sensors["hub angle_rad"]
    assert np.abs(th - step_response(kp, kd, 0.3, res.t)).max() < 1e-5
    assert np.mean(res.stats["iterations"]) < 1.1
    u = res.sensors["motor effort_Nm"]
    assert u[0] == pytest.approx(kp * 0.3, rel=1e-9)
    s = fem.closed_loop_poles(robot.model, res.q[0])
    wn, z = np.sqrt(kp / I_HUB), kd / (2 * np.sqrt(kp * I_HUB))
    assert len(s) == 1
    assert s[0] == pytest.approx(complex(-z * wn, wn * np.sqrt(1 - z * z)), rel=1e-9)


def test_effort_limit_clips_the_controller():
    """With ``limit`` the effort saturates (a large step: the first second at the
    limit) and the link accelerates at limit / I while it does."""
    robot = rigid_link(PD(500.0, 20.0, reference=lambda t: (1.0, 0.0, 0.0), limit=5.0))
    res = robot.simulate(0.2, 1e-3, start="placed", rho_inf=1.0)
    u = res.sensors["motor effort_Nm"]
    assert np.abs(u).max() == pytest.approx(5.0)
    th = res.sensors["hub angle_rad"]
    assert th[-1] == pytest.approx(0.5 * 5.0 / I_HUB * 0.2**2, rel=1e-3)


def test_flexible_beam_free_decay_has_the_linearized_poles():
    """A steel rod (ANCF beam, 1 m) on a hub with a PD: its slow closed-loop pole, fitted
    (a damped cosine) to the hub's response to a 0.01 rad step after the flexible modes
    have rung out, equals the linearization's within 1 % in frequency and in decay rate;
    the linearization's slow pole is near the rigid rod's closed form (the rod bends a
    little), and its next pole is the rod's first flexible mode (above 10 Hz)."""
    steel = fem.Material(2.1e11, 0.3, 7850.0)
    R = 0.01
    robot = Robot("flexible hub", gravity=(0.0, 0.0, 0.0))
    robot.add_link("arm", AncfBeam(steel, radius=R, elements=4),
                   frames={"a": pose((0, 0, 0)), "b": pose((L, 0, 0))})
    robot.add_joint("hub", "revolute", "ground", ("arm", "a"))
    kp, kd = 20.0, 1.0
    robot.add_motor("motor", "hub", controller=PD(kp, kd, reference=lambda t: (0.01, 0, 0)))
    s = fem.closed_loop_poles(robot.model)
    s = s[np.abs(s.imag) > 1e-6]
    slow, flexible = s[0], s[1]
    m = 7850.0 * np.pi * R**2 * L
    wn_rigid = np.sqrt(kp / (m * L**2 / 3))
    assert abs(slow.imag / wn_rigid - 1) < 0.05
    assert flexible.imag / (2 * np.pi) > 10.0
    # force_scale: near rest the forces are far below the beam's round-off (EA ε)
    res = robot.simulate(3.0, 2e-3, start="placed", rho_inf=0.9, force_scale=1.0)
    keep = res.t > 1.0
    t, th = res.t[keep], res.sensors["hub angle_rad"][keep]

    def decay(t, a, b, sigma, w, c):
        return c + np.exp(sigma * (t - 1.0)) * (a * np.cos(w * t) + b * np.sin(w * t))

    p, _ = curve_fit(decay, t, th, p0=[-0.005, 0.0, slow.real * 0.9, slow.imag * 1.05, 0.01])
    assert abs(p[3] / slow.imag - 1) < 0.01, (p, slow)
    assert abs(p[2] / slow.real - 1) < 0.01, (p, slow)


def test_sampled_controller_converges_to_the_continuous_one_with_its_period():
    """The rigid link's PD sampled at 500 Hz and 1 kHz (zero-order hold) against the
    continuous PD (same step, h = 0.5 ms): the largest angle difference halves with the
    period (ratio 1.6–2.4), and at 1 kHz it is below 2 % of the step."""
    kp, kd = 50.0, 2.0
    ref = (lambda t: (0.3, 0.0, 0.0))
    runs = {}
    for period in (None, 2e-3, 1e-3):
        robot = rigid_link(PD(kp, kd, reference=ref, period=period))
        res = robot.simulate(0.6, 5e-4, start="placed", rho_inf=1.0)
        runs[period] = res.sensors["hub angle_rad"]
    d2 = np.abs(runs[2e-3] - runs[None]).max()
    d1 = np.abs(runs[1e-3] - runs[None]).max()
    assert 1.6 < d2 / d1 < 2.4, (d2, d1)
    assert d1 < 0.02 * 0.3


def test_bad_controllers_are_named():
    with pytest.raises(fem.ModelError, match="kp"):
        PD(-1.0, 0.0)
    with pytest.raises(fem.ModelError, match="period"):
        PD(1.0, 0.0, period=0.0)
    with pytest.raises(fem.ModelError, match="controller must be"):
        rigid_link("pd")
    with pytest.raises(fem.ModelError, match="servo and controller"):
        robot = Robot("r")
        robot.add_link("arm", Rigid(1.0, com=(0.5, 0, 0), inertia=np.eye(3) * 0.1),
                       frames={"a": pose((0, 0, 0))})
        robot.add_joint("hub", "revolute", "ground", ("arm", "a"))
        robot.add_motor("m", "hub", servo=lambda t: (0, 0, 0), controller=PD(1.0, 0.1))


@pytest.mark.slow
def test_closed_loop_case_feedforward_order():
    """The 3-RRRU robot with flexible links on its circle (``parallel_robot_control``):
    the task-space inverse dynamics as feedforward (with its motor angles as reference)
    tracks P within 0.1 mm; the rigid robot's torques leave about 1 cm; the PD alone at a
    bandwidth below the first flexible mode cannot hold the robot's weight."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cases"))
    import parallel_robot_control as case

    rows = case.run(None)["runs"]
    assert rows["pd_task"]["peak_error_mm"] < 0.1
    assert 1.0 < rows["pd_rigid"]["peak_error_mm"] < 30.0
    assert rows["pd"]["peak_error_mm"] > 10 * rows["pd_rigid"]["peak_error_mm"]
