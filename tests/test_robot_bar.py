"""The slender rigid link :class:`fem.robot.Bar` (issue 40): a rod whose coordinates are its
two end points, against closed forms — a hinged bar's pendulum period (the elliptic
integral), a planar two-bar arm's joint torques (its Lagrange equations written out
here) — and its refusals of what a bar cannot express."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ellipk

import fem
from fem.robot import Bar, Rigid, Robot, pose

G = 9.81
DOWN = np.array([0.0, 0.0, -1.0])


def _hinged(theta0: float, L: float = 0.6, m: float = 2.0, joint: str = "revolute"):
    """A bar hinged at the origin about y, released from ``theta0`` [rad] from hanging."""
    robot = Robot("pendulum", gravity=(0.0, 0.0, -G))
    d = np.array([np.sin(theta0), 0.0, -np.cos(theta0)])
    robot.add_link("rod", Bar(m), {"pin": pose((0, 0, 0), z="y", x=d),
                                   "tip": pose(L * d, z="y", x=d)})
    robot.add_joint("hinge", joint, "ground", ("rod", "pin"))
    return robot


def _period(t: np.ndarray, x: np.ndarray) -> float:
    """The mean period from the upward zero crossings of ``x(t)`` (linear interpolation)."""
    i = np.flatnonzero((x[:-1] < 0.0) & (x[1:] >= 0.0))
    tc = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    return float(np.mean(np.diff(tc)))


@pytest.mark.parametrize("joint", ["revolute", "spherical"])
def test_hinged_bar_swings_with_the_compound_pendulums_period(joint):
    # a uniform rod about its end: I = m L²/3, its centre L/2 from the pin, so the
    # period at amplitude θ₀ is 4 √(2L/(3g)) K(sin²(θ₀/2)) (K: the complete elliptic
    # integral of the first kind, parameter m = k²).  A spherical joint swings it the
    # same in its plane: the bar has no spin to keep
    L, theta0 = 0.6, 0.8
    robot = _hinged(theta0, L, joint=joint)
    exact = 4.0 * np.sqrt(2.0 * L / (3.0 * G)) * ellipk(np.sin(theta0 / 2.0) ** 2)
    h = exact / 400
    res = fem.simulate(robot.model, 2.2 * exact, h, rho_inf=1.0, tol=1e-11)
    tip = robot.frame("rod", "tip").origin
    x = np.array([tip(q)[0] for q in res.q])
    # generalized-α (ρ∞ = 1: the trapezoidal rule) lengthens the period by (ωh)²/12
    assert abs(_period(res.t, x) / exact - 1.0) < 2e-4
    assert np.abs(x).max() == pytest.approx(L * np.sin(theta0), rel=1e-4)   # no loss
    asm = robot.model.assemble()
    assert asm.n == 6 and asm.m == (5 if joint == "revolute" else 4)


def _arm(links: str, th0):
    """A planar two-link arm in the x–z plane (joints about −y: the angle from x towards
    +z), uniform rods 0.5 m (2 kg) and 0.4 m (1.5 kg), built at the joint angles
    ``th0``."""
    l1, l2, m1, m2 = 0.5, 0.4, 2.0, 1.5
    robot = Robot("arm", gravity=(0.0, 0.0, -G))
    a = (0.0, -1.0, 0.0)
    e1 = np.array([np.cos(th0[0]), 0.0, np.sin(th0[0])])
    e2 = np.array([np.cos(th0[0] + th0[1]), 0.0, np.sin(th0[0] + th0[1])])
    B, C = l1 * e1, l1 * e1 + l2 * e2
    if links == "bar":
        robot.add_link("upper", Bar(m1), {"A": pose((0, 0, 0), z=a, x=e1),
                                          "B": pose(B, z=a, x=e1)})
        robot.add_link("fore", Bar(m2, share={"B": robot.frame("upper", "B")}),
                       {"B": pose(B, z=a, x=e2), "C": pose(C, z=a, x=e2)})
    else:
        for name, m, L, p, e, q in (("upper", m1, l1, (0, 0, 0), e1, B),
                                    ("fore", m2, l2, B, e2, C)):
            robot.add_link(name, Rigid(m, com=(L / 2, 0, 0), inertia=np.diag(
                [0.0, 1.0, 1.0]) * m * L**2 / 12), {"AB"[name == "fore"]: pose(p, z=a, x=e),
                                                    "BC"[name == "fore"]: pose(q, z=a, x=e)})
    robot.add_joint("shoulder", "revolute", "ground", ("upper", "A"))
    robot.add_joint("elbow", "revolute", ("upper", "B"), ("fore", "B"))
    return robot, (l1, l2, m1, m2)


def _motion(k):
    """Joint k's angle, rate and acceleration: a smooth swing of 0.9 and 1.3 rad."""
    amp, w, c = (0.9, 1.3)[k], (2.0, 3.0)[k], (0.3, 0.7)[k]
    return lambda t: (c + amp * np.sin(w * t), amp * w * np.cos(w * t),
                      -amp * w * w * np.sin(w * t))


def _lagrange_torques(t, dims):
    """τ = M(θ) θ̈ + c(θ, θ̇) + g(θ) of the planar arm of uniform rods (centres at half
    length, I = m l²/12 about them): the textbook two-link equations."""
    l1, l2, m1, m2 = dims
    (t1, w1, a1), (t2, w2, a2) = _motion(0)(t), _motion(1)(t)
    I1, I2, c1, c2 = m1 * l1**2 / 12, m2 * l2**2 / 12, l1 / 2, l2 / 2
    co, si = np.cos(t2), np.sin(t2)
    M11 = I1 + I2 + m1 * c1**2 + m2 * (l1**2 + c2**2 + 2 * l1 * c2 * co)
    M12 = I2 + m2 * (c2**2 + l1 * c2 * co)
    M22 = I2 + m2 * c2**2
    h = m2 * l1 * c2 * si
    g1 = (m1 * c1 + m2 * l1) * G * np.cos(t1) + m2 * c2 * G * np.cos(t1 + t2)
    g2 = m2 * c2 * G * np.cos(t1 + t2)
    return np.array([M11 * a1 + M12 * a2 - h * (2 * w1 * w2 + w2**2) + g1,
                     M12 * a1 + M22 * a2 + h * w1**2 + g2])


@pytest.mark.parametrize("links", ["bar", "rigid"])
def test_two_bar_arm_torques_equal_the_lagrange_equations(links):
    th0 = [_motion(k)(0.0)[0] for k in range(2)]
    robot, dims = _arm(links, th0)
    # a joint's angle runs from its parent frame's x to its child's: the elbow's is θ₂;
    # the shoulder's ground frame is put where the upper arm's is built, at θ₁(0)
    for k, j in enumerate(("shoulder", "elbow")):
        f = _motion(k)
        robot.add_motor(f"motor {j}", j, servo=lambda t, f=f, z=(th0[0], 0.0)[k]: (
            f(t)[0] - z, f(t)[1], f(t)[2]))
    times = np.linspace(0.0, 2.0, 41)
    res = fem.driven_inverse_dynamics(robot.model, times)
    asm = robot.model.assemble()
    tau = np.array([[asm.efforts(lam)[f"motor {j}"] for j in ("shoulder", "elbow")]
                    for lam in res.lam])
    ref = np.array([_lagrange_torques(t, dims) for t in times])
    assert np.abs(tau - ref).max() <= 1e-9 * np.abs(ref).max()
    # the bars: the three points' 9 coordinates (B shared), 2 lengths, 3 + 1 rows at the
    # shoulder, 1 at the elbow and the two motors; the rigid links 24 and 24
    assert (asm.n, asm.m) == ((9, 9) if links == "bar" else (24, 24))


def test_bar_joint_rows_and_spin():
    # a revolute normal to the bar writes its point and one row, and gives the bar its
    # spin: every frame of the bar then has the axis and bar × axis as directions
    robot, _ = _arm("bar", [0.3, 0.7])
    f = robot.frame("upper", "B")
    assert [c.name for c in robot.joints["shoulder"].constraints] == ["shoulder point",
                                                                     "shoulder axis"]
    assert [c.name for c in robot.joints["elbow"].constraints] == ["elbow axis"]
    q0 = robot.model.assemble().q0
    R = f.pose.rotation
    for i in range(3):
        assert np.allclose(f.axis(i)(q0), R[:, i], atol=1e-12)
    # placing closes the joints moving each link rigidly (a shared point with its first
    # bar), and a start in motion meets the drives' rates with rigid link velocities
    q = q0 + 0.02 * np.sin(np.arange(q0.size))
    assert robot.place(q=q, report=True).residual < 1e-12
    robot.add_motor("m1", "shoulder", servo=lambda t: (0.5 * t, 0.5, 0.0))
    robot.add_motor("m2", "elbow", servo=lambda t: (0.7 + 0.2 * t, 0.2, 0.0))
    v, residual = robot.start_velocity(robot.place(), 0.0)
    assert residual < 1e-12 and robot.joint_rate("elbow", robot.place(), v) == \
        pytest.approx(0.2, rel=1e-10)
    # a frame between the ends sits on the segment
    robot2 = Robot("r")
    robot2.add_link("rod", Bar(1.0), {"a": pose((0, 0, 0), x="x"), "mid": pose((0.3, 0, 0)),
                                      "b": pose((1.0, 0, 0), x="x")})
    assert np.allclose(robot2.frame("rod", "mid").origin(robot2.model.assemble().q0),
                       (0.3, 0.0, 0.0))


def test_bar_refuses_what_it_cannot_express():
    def rod(robot, name="rod", x=(1.0, 0, 0), p=(0, 0, 0), **kw):
        p = np.asarray(p, float)
        return robot.add_link(name, Bar(1.0, **kw), {"a": pose(p, x=x),
                                                     "b": pose(p + np.asarray(x), x=x)})

    with pytest.raises(fem.ModelError, match="runs between two frames"):
        Robot("r").add_link("rod", Bar(1.0), {"a": pose((0, 0, 0))})
    with pytest.raises(fem.ModelError, match="same place"):
        Robot("r").add_link("rod", Bar(1.0), {"a": pose((0, 0, 0)), "b": pose((0, 0, 0))})
    with pytest.raises(fem.ModelError, match="off the bar's axis"):
        Robot("r").add_link("rod", Bar(1.0), {"a": pose((0, 0, 0)), "b": pose((1, 0, 0)),
                                              "side": pose((0.5, 0.1, 0))})
    with pytest.raises(fem.ModelError, match="mass"):
        Bar(-1.0)
    # a revolute along the bar: a bar has no spin to turn about
    r = Robot("r")
    rod(r)
    with pytest.raises(fem.ModelError, match=r"joint 'spin'.*link 'rod'.*normal to the bar"):
        r.add_joint("spin", "revolute", "ground", ("rod", "a"), axis="x")
    # a fixed or prismatic joint needs the bar's orientation about its own axis
    for kind in ("fixed", "prismatic"):
        r = Robot("r")
        rod(r)
        with pytest.raises(fem.ModelError, match=rf"joint 'j' \({kind}\).*link 'rod'.*"
                                                 r"revolute joint normal to it"):
            r.add_joint("j", kind, "ground", ("rod", "a"))
    # a universal joint whose first axis is on a bar no joint has given a spin
    r = Robot("r")
    rod(r)
    rod(r, "other", x=(0, 1.0, 0), p=(1.0, 0, 0))
    with pytest.raises(fem.ModelError, match=r"joint 'u'.*link 'rod' is a Bar.*no "
                                             r"orientation about its own axis"):
        r.add_joint("u", "universal", ("rod", "b"), ("other", "a"), axis="y", axis2="z")
    # two bars that neither carries the axis: the joints from the fixed end out
    r = Robot("r")
    rod(r)
    rod(r, "other", x=(0, 1.0, 0), p=(1.0, 0, 0))
    with pytest.raises(fem.ModelError, match="both links.*from the fixed end out"):
        r.add_joint("j", "revolute", ("rod", "b"), ("other", "a"))
    # sharing: an end of another bar, at the same place, on one of this bar's ends
    r = Robot("r")
    rod(r)
    with pytest.raises(fem.ModelError, match="end frame of another Bar"):
        Bar(1.0, share={"a": "rod"})
    with pytest.raises(fem.ModelError, match="m away"):
        rod(r, "other", p=(1.5, 0, 0), share={"a": r.frame("rod", "b")})
    with pytest.raises(fem.ModelError, match="not one of its ends"):
        r.add_link("third", Bar(1.0, share={"mid": r.frame("rod", "b")}),
                   {"a": pose((1, 0, 0)), "mid": pose((1.5, 0, 0)), "b": pose((2, 0, 0))})
