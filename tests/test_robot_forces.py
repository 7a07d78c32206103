"""Springs and cylinders between two frames of a robot (``fem.robot.forces``).

References: a block on a spring (static deflection ``m g / k``, frequency ``√(k/m)/2π``,
the damped free vibration in closed form); Newton's second law for a block pushed by a
length-driven cylinder; a rigid rocker turned by a cylinder on its law-of-cosines length
(the rocker turns by the commanded angle, the cylinder's moment about the pivot is
``I_O θ̈``).
"""

from __future__ import annotations

import numpy as np
import pytest

import fem
from fem.robot import Rigid, Robot, add_cylinder, add_spring, pose

M, K = 2.0, 800.0                       # kg, N/m: ω = 20 rad/s


def block(gravity: float = 0.0, **spring):
    """A 2 kg block on a prismatic joint along x at x = 1 m, a spring to the wall at the
    origin (or nothing)."""
    robot = Robot("block", gravity=(-gravity, 0.0, 0.0))
    robot.add_link("block", Rigid(M, inertia=0.1 * np.eye(3)), frames={"c": pose((1, 0, 0))})
    robot.add_joint("slide", "prismatic", "ground", ("block", "c"), axis="x")
    robot.add_ground_frame("wall", pose((0.0, 0.0, 0.0)))
    s = add_spring(robot, "spring", ("ground", "wall"), ("block", "c"), **spring) \
        if spring else None
    return robot, s


def test_spring_static_deflection_and_frequency():
    robot, spring = block(gravity=9.81, stiffness=K)
    q = robot.rest().q
    x = robot.frame_pose("block", "c", q)[0][0]
    assert abs(x - (1.0 - M * 9.81 / K)) < 1e-10
    assert abs(spring.force(q) + M * 9.81) < 1e-9          # compressed: negative tension
    f = fem.modes(robot.model, n_modes=1).frequencies_hz[0]
    assert abs(f - np.sqrt(K / M) / (2 * np.pi)) < 1e-9 * f


def test_damped_spring_follows_the_closed_form():
    zeta = 0.05
    c = 2 * zeta * np.sqrt(K * M)
    robot, spring = block(stiffness=K, damping=c)
    q0 = robot.model.q0.copy()
    r = robot.links["block"].fields[0][0]
    q0[r] += 0.01                                           # pulled out 1 cm, let go
    res = fem.simulate(robot.model, 1.0, 5e-4, q0=q0, rho_inf=1.0)
    w = np.sqrt(K / M)
    wd = w * np.sqrt(1 - zeta**2)
    t = np.asarray(res.t)
    exact = 0.01 * np.exp(-zeta * w * t) * (np.cos(wd * t) + zeta * w / wd * np.sin(wd * t))
    x = np.asarray(res.q)[:, r] - 1.0
    assert np.abs(x - exact).max() < 2e-3 * 0.01
    assert spring.energy(res.q[-1], res.v[-1], None)["elastic_J"] < 0.5 * K * 1e-4 * 0.05


def test_cylinder_force_is_mass_times_acceleration():
    robot, _ = block()
    cyl = add_cylinder(robot, "cylinder", ("ground", "wall"), ("block", "c"),
                       length=lambda t: (1 + 0.1 * t**2, 0.2 * t, 0.2))
    res = fem.driven_inverse_dynamics(robot.model, np.linspace(0.0, 1.0, 5))
    assert abs(cyl.length(res.q[-1]) - 1.1) < 1e-12
    assert all(abs(cyl.force(q, lam) - M * 0.2) < 1e-10 for q, lam in zip(res.q, res.lam,
                                                                           strict=True))


def test_cylinder_turns_a_rigid_rocker_by_its_length_law():
    m, length = 3.0, 1.2
    O, P = np.zeros(3), np.array([0.8, 0.0, 0.0])
    phi0 = np.radians(40.0)
    e = np.array([np.cos(phi0), np.sin(phi0), 0.0])
    A = 0.5 * length * e                                  # the cylinder's pin on the rocker
    robot = Robot("rocker")
    robot.add_link("rocker", Rigid(m, com=(length / 2, 0, 0),
                                   inertia=m * length**2 / 12 * np.diag([0.0, 1.0, 1.0])),
                   frames={"O": pose(O, x=e), "A": pose(A, x=e)})
    robot.add_joint("O", "revolute", "ground", ("rocker", "O"))
    robot.add_ground_frame("P", pose(P))

    def angle(t):
        return 0.5 * np.sin(t), 0.5 * np.cos(t), -0.5 * np.sin(t)

    r = 0.5 * length

    def law(t):                     # |A(θ) − P| and its rates (law of cosines)
        th, thd, thdd = angle(t)
        ph = phi0 + th
        g = r * r + P @ P - 2 * r * P[0] * np.cos(ph)
        g1, g2 = 2 * r * P[0] * np.sin(ph), 2 * r * P[0] * np.cos(ph)
        L = np.sqrt(g)
        Ld = g1 * thd / (2 * L)
        return L, Ld, (g2 * thd**2 + g1 * thdd) / (2 * L) - Ld**2 / L

    cyl = add_cylinder(robot, "lift", ("ground", "P"), ("rocker", "A"), length=law)
    t = np.linspace(0.0, 2.0, 9)
    res = fem.driven_inverse_dynamics(robot.model, t)
    I_O = m * length**2 / 3
    for tk, q, lam in zip(t, res.q, res.lam, strict=True):
        th, _, thdd = angle(tk)
        assert abs(robot.joint_value("O", q) - th) < 1e-12
        a = robot.frame_pose("rocker", "A", q)[0]
        u = (a - P) / np.linalg.norm(a - P)               # the push on A, per newton
        moment = np.cross(a, cyl.force(q, lam) * u)[2]
        assert abs(moment - I_O * thdd) < 1e-10 * m * length**2


def test_held_cylinder_is_a_strut():
    robot, _ = block(gravity=9.81)
    strut = add_cylinder(robot, "strut", ("ground", "wall"), ("block", "c"))
    st = robot.rest()
    assert abs(strut.length(st.q) - 1.0) < 1e-12
    assert abs(strut.force(st.q, st.lam) - M * 9.81) < 1e-9       # holds the weight


@pytest.mark.parametrize("call, match", [
    (lambda r: add_spring(r, "s", ("ground", "wall"), ("block", "c"), stiffness=-1.0),
     "stiffness"),
    (lambda r: add_spring(r, "s", ("ground", "wall"), ("block", "c"), stiffness=1.0,
                          damping=-2.0), "damping"),
    (lambda r: add_spring(r, "s", ("block", "c"), ("block", "c"), stiffness=1.0),
     "both ends"),
    (lambda r: add_cylinder(r, "c", ("ground", "wall"), ("block", "c"), length="long"),
     "length"),
    (lambda r: add_cylinder(r, "c", ("ground", "wall"), ("block", "nowhere")),
     "no frame 'nowhere'"),
    (lambda r: add_cylinder(r, "c", "wall", ("block", "c")), "a frame is"),
    (lambda r: add_spring(r.model, "s", ("ground", "wall"), ("block", "c"), stiffness=1.0),
     "fem.Robot"),
])
def test_bad_input_names_the_argument(call, match):
    robot, _ = block()
    with pytest.raises(fem.ModelError, match=match):
        call(robot)


def test_add_body_refuses_what_is_not_a_body():
    with pytest.raises(fem.ModelError, match="NonlinearBody"):
        fem.Model("m").add_body(object())
