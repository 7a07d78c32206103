"""Planar robots (``fem.robot.planar``), links of a given reduction
(``fem.robot.Substructure``) and tube sections of rods.

References: one ANCF cable against two clamped end to end (the clamp of the plane is a
shared node: the same frequencies to round-off); a rigid pendulum in the plane
(``f = √(m g d / I_O) / 2π``); a reduced cable cantilever clamped in the plane (Euler–
Bernoulli's frequencies, once: the in-plane modes); the tube's area and second moment
written out.
"""

from __future__ import annotations

import numpy as np
import pytest

import fem
from fem.reduction import reduce_body
from fem.robot import (
    AncfCable,
    Rigid,
    Robot,
    Substructure,
    add_planar_joint,
    keep_in_plane,
    pose,
    section_properties,
)
from fem.robots.vehicle_arm import in_plane

STEEL = fem.Material(E=2e11, nu=0.3, rho=7800)
TUBE = dict(section="rectangle", width=0.1, height=0.1, wall=0.004)


def _cables(split: bool) -> fem.Robot:
    r = Robot("beam in the plane")
    at = {k: pose((x, 0, 0), z="y", x="x") for k, x in (("o", 0.0), ("m", 1.0), ("t", 2.0))}
    if split:
        r.add_link("a", AncfCable(STEEL, elements=8, **TUBE), {"o": at["o"], "m": at["m"]})
        r.add_link("b", AncfCable(STEEL, elements=8, **TUBE), {"m": at["m"], "t": at["t"]})
    else:
        r.add_link("a", AncfCable(STEEL, elements=16, **TUBE), {"o": at["o"], "t": at["t"]})
    keep_in_plane(r, "y")
    if split:
        add_planar_joint(r, "m", "fixed", ("a", "m"), ("b", "m"))
    add_planar_joint(r, "o", "revolute", "ground", ("a", "o"))
    add_planar_joint(r, "t", "revolute", "ground", ("b" if split else "a", "t"))
    return r


def test_cables_clamped_end_to_end_are_one_cable():
    one, two = (fem.modes(_cables(s).model, n_modes=4).frequencies_hz for s in (False, True))
    np.testing.assert_allclose(two, one, rtol=1e-9)
    # pinned–pinned Euler–Bernoulli, to the discretization: f₁ = (π/L)² √(EI/ρA) / 2π
    s = section_properties("rectangle", "tube", width=0.1, height=0.1, wall=0.004)
    f1 = (np.pi / 2.0) ** 2 * np.sqrt(2e11 * s["iy"] / (7800 * s["area"])) / (2 * np.pi)
    assert abs(one[0] / f1 - 1) < 1e-4


def test_tube_section_written_out():
    s = section_properties("rectangle", "tube", width=0.12, height=0.08, wall=0.005)
    assert s["area"] == pytest.approx(0.12 * 0.08 - 0.11 * 0.07, rel=1e-14)
    assert s["iy"] == pytest.approx((0.12 * 0.08**3 - 0.11 * 0.07**3) / 12, rel=1e-14)
    assert s["iz"] == pytest.approx((0.08 * 0.12**3 - 0.07 * 0.11**3) / 12, rel=1e-14)
    with pytest.raises(fem.ModelError, match="wall"):
        section_properties("rectangle", "tube", width=0.1, height=0.1, wall=0.05)
    with pytest.raises(fem.ModelError, match="wall"):
        fem.robot.AncfBeam(STEEL, **TUBE)


def test_rigid_pendulum_in_the_plane():
    # let go 0.05 rad from hanging: the period 2π √(I_O / m g d) (1 + φ₀²/16)
    m, L, g, phi0 = 2.0, 0.8, 9.81, 0.05
    r = Robot("pendulum", gravity=(0.0, 0.0, -g))
    d = (np.sin(phi0), 0.0, -np.cos(phi0))
    r.add_link("rod", Rigid(m, com=(L / 2, 0, 0), inertia=m * L**2 / 12 * np.diag([0, 1, 1])),
               {"pivot": pose((0, 0, 0), z="y", x=d), "end": pose(L * np.array(d), z="y", x=d)})
    rows = keep_in_plane(r, "y")
    assert len(rows) == 3
    add_planar_joint(r, "pivot", "revolute", "ground", ("rod", "pivot"))
    res = fem.simulate(r.model, 3.0, 1e-3, q0=r.model.q0, rho_inf=1.0)
    x = np.array([r.frame_pose("rod", "end", q)[0][0] for q in res.q])
    t = np.asarray(res.t)
    k = np.flatnonzero((x[:-1] > 0) & (x[1:] <= 0))          # downward zero crossings
    tc = t[k] + (t[k + 1] - t[k]) * x[k] / (x[k] - x[k + 1])
    period = 2 * np.pi * np.sqrt((m * L**2 / 3) / (m * g * L / 2)) * (1 + phi0**2 / 16)
    assert abs(np.diff(tc).mean() / period - 1) < 2e-4
    y = np.array([r.frame_pose("rod", "end", q)[0][1] for q in res.q])
    assert np.abs(y).max() < 1e-12                             # in the plane


def test_reduced_cable_clamped_in_the_plane_has_euler_bernoulli_frequencies():
    L, E, rho, A, I = 1.0, 2e11, 7800.0, 1e-4, 1e-9
    fe = fem.Model("cantilever")
    _, nodes = fem.straight_cable(fe, (0, 0, 0), (L, 0, 0), 16, fem.Material(E, 0.3, rho),
                                  A, I)
    root = [fe.point(nodes[0]), fe.node_field(nodes[0], "r_x")]
    red = in_plane(reduce_body(fe, {"root": root}, n_modes=6))
    r = Robot("cantilever")
    r.add_link("beam", Substructure(red, fe, {"root": root, "tip": fe.point(nodes[-1])}),
               {"root": pose((0, 0, 0), z="y", x="x"), "tip": pose((L, 0, 0), z="y", x="x")})
    keep_in_plane(r, "y")
    add_planar_joint(r, "clamp", "fixed", "ground", ("beam", "root"))
    f = fem.modes(r.model, n_modes=2).frequencies_hz
    beta = np.array([1.8751041, 4.6940911])
    closed = beta**2 / (2 * np.pi) * np.sqrt(E * I / (rho * A * L**4))
    np.testing.assert_allclose(f, closed, rtol=2e-4)


def test_bad_input_names_the_argument():
    r = Robot("tilted")
    r.add_link("rod", Rigid(1.0, inertia=np.eye(3)),
               {"a": pose((0, 0, 0), z=(0, 1, 1), x="x")})
    with pytest.raises(fem.ModelError, match="not built in the plane"):
        keep_in_plane(r, "y")
    with pytest.raises(fem.ModelError, match="kind"):
        add_planar_joint(r, "j", "spherical", "ground", ("rod", "a"))
    with pytest.raises(fem.ModelError, match="no link 'arm'"):
        keep_in_plane(r, "y", links=["arm"])
    with pytest.raises(fem.ModelError, match="fem.Robot"):
        keep_in_plane(r.model)
    fe = fem.Model("fe")
    with pytest.raises(fem.ModelError, match="reduction"):
        Substructure(object(), fe, {"a": None})


def test_servo_motor_on_a_planar_revolute():
    # a rod hanging from a planar pin, driven θ = 0.3 sin 2t: τ = I_O θ̈ + m g (L/2) sin θ
    m, L, g = 2.0, 0.8, 9.81
    r = Robot("driven pendulum", gravity=(0.0, 0.0, -g))
    down = (0.0, 0.0, -1.0)
    r.add_link("rod", Rigid(m, com=(L / 2, 0, 0), inertia=m * L**2 / 12 * np.diag([0, 1, 1])),
               {"pivot": pose((0, 0, 0), z="y", x=down), "end": pose((0, 0, -L), z="y", x=down)})
    keep_in_plane(r, "y")
    add_planar_joint(r, "pivot", "revolute", "ground", ("rod", "pivot"))
    r.add_motor("motor", "pivot", servo=lambda t: (0.3 * np.sin(2 * t), 0.6 * np.cos(2 * t),
                                                   -1.2 * np.sin(2 * t)))
    t = np.linspace(0.0, 2.0, 9)
    res = fem.driven_inverse_dynamics(r.model, t)
    th, thdd = 0.3 * np.sin(2 * t), -1.2 * np.sin(2 * t)
    tau = np.array([r.efforts(q, lam)["motor"] for q, lam in zip(res.q, res.lam, strict=True)])
    exact = m * L**2 / 3 * thdd + m * g * L / 2 * np.sin(th)
    assert np.abs(tau - exact).max() < 1e-10 * np.abs(exact).max()
    assert max(abs(r.joint_value("pivot", q) - x) for q, x in zip(res.q, th, strict=True)) \
        < 1e-12
    with pytest.raises(fem.ModelError, match="already a joint"):
        add_planar_joint(r, "pivot", "revolute", "ground", ("rod", "end"))
