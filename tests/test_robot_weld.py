"""A fixed joint between two deformable nodes (ANCF beam nodes, reduced links' node
interfaces) welds them as one continued beam: the points and the three gradients in
their build relation (Shabana and Mikkola 2003, a slope discontinuity by a constant
transformation of the gradients).

References: one ANCF beam of the same elements (a straight weld joins two beams into
it exactly); the closed form of an L-shaped cantilever (a weld at 90°); the ANCF beam
for reduced links welded end to end (a linear reduction with every interface coordinate
kept is exact in linear statics)."""

from __future__ import annotations

import numpy as np
import pytest

import fem
from fem.maps import evaluate
from fem.robot import AncfBeam, Robot, pose

E, NU, RHO, RADIUS = 2.1e11, 0.3, 7850.0, 0.01


def _steel() -> fem.Material:
    return fem.Material(E, NU, RHO)


def _tip(robot: Robot, link: str, frame: str, q: np.ndarray) -> np.ndarray:
    return evaluate(robot.frame(link, frame).origin, q)[0]


def test_a_straight_weld_is_one_beam():
    # two beams of 4 elements welded end to end against one beam of 8: the same
    # deflection under gravity and the same frequencies (the weld's rows make the two
    # end nodes one node); with a rigid joint's 6 rows the sections at the weld shear
    # apart and the pair is softer
    one = Robot("one", gravity=(0.0, 0.0, -9.81))
    one.add_link("b", AncfBeam(_steel(), radius=RADIUS, elements=8),
                 {"root": pose((0, 0, 0)), "tip": pose((2.0, 0, 0))})
    one.add_joint("clamp", "fixed", "ground", ("b", "root"))
    two = Robot("two", gravity=(0.0, 0.0, -9.81))
    for i in range(2):
        two.add_link(f"b{i}", AncfBeam(_steel(), radius=RADIUS, elements=4),
                     {"root": pose((1.0 * i, 0, 0)), "tip": pose((1.0 * (i + 1), 0, 0))})
    two.add_joint("clamp", "fixed", "ground", ("b0", "root"))
    two.add_joint("weld", "fixed", ("b0", "tip"), ("b1", "root"))
    names = [c.name for c in two.joints["weld"].constraints]
    assert sum("gradient" in n for n in names) == 3, names     # point + 3 gradients
    z1 = _tip(one, "b", "tip", one.rest().q)
    z2 = _tip(two, "b1", "tip", two.rest().q)
    assert z1[2] < -0.02
    assert np.allclose(z2, z1, rtol=0, atol=1e-10 * abs(z1[2])), z2 - z1
    w1 = fem.modes(one.model, n_modes=6).omega2
    w2 = fem.modes(two.model, n_modes=6).omega2
    assert np.allclose(w2, w1, rtol=1e-7)        # the eigensolver: 2.5e-8 apart


def test_a_weld_at_right_angles_is_the_l_frames_closed_form():
    # arm 1 along x (a), clamped; arm 2 along y (b) welded to its tip; a force P down at
    # arm 2's tip: δ = P (a³ + b³)/(3EI) + P a b²/(GJ) (arm 1 bends and twists by P b)
    # + P (a + b)/(k G A) (shear); 16 elements an arm: measured 5.6e-5 below it (2: 2.9 %;
    # a rigid joint's 6 rows instead: the static solve finds a mechanism at the corner)
    a, b, P = 1.0, 0.6, 2.0
    robot = Robot("L")
    robot.add_link("arm1", AncfBeam(_steel(), radius=RADIUS, elements=16),
                   {"root": pose((0, 0, 0)), "tip": pose((a, 0, 0))})
    robot.add_link("arm2", AncfBeam(_steel(), radius=RADIUS, elements=16),
                   {"root": pose((a, 0, 0), x=(0, 1, 0), z=(0, 0, 1)),
                    "tip": pose((a, b, 0), x=(0, 1, 0), z=(0, 0, 1))})
    robot.add_joint("clamp", "fixed", "ground", ("arm1", "root"))
    robot.add_joint("weld", "fixed", ("arm1", "tip"), ("arm2", "root"))
    robot.model.add_force(robot.frame("arm2", "tip").origin, (0.0, 0.0, -P))
    q = fem.solve_static(robot.model, tol=1e-12).q
    d = _tip(robot, "arm2", "tip", q) - np.array([a, b, 0.0])
    s = fem.robot.section_properties("circle", "rod", RADIUS)
    G = E / (2 * (1 + NU))
    k = 6 * (1 + NU) / (7 + 6 * NU)                              # Cowper, round
    delta = P * (a**3 + b**3) / (3 * E * s["iy"]) + P * a * b**2 / (G * 2 * s["iy"]) \
        + P * (a + b) / (k * G * s["area"])
    assert -d[2] == pytest.approx(delta, rel=3e-4), (-d[2] / delta - 1)


def test_a_rigid_link_and_a_beam_keep_the_rigid_joint():
    # a weld needs both frames to be deformable nodes: a beam clamped to a rigid link
    # (or the ground) keeps the 6 rows that clamp its section
    robot = Robot("r")
    robot.add_link("base", fem.robot.Rigid(1.0), {"end": pose((0, 0, 0))})
    robot.add_link("b", AncfBeam(_steel(), radius=RADIUS, elements=2),
                   {"root": pose((0, 0, 0)), "tip": pose((1.0, 0, 0))})
    robot.add_joint("clamp", "fixed", "ground", ("base", "end"))
    robot.add_joint("flange", "fixed", ("base", "end"), ("b", "root"))
    names = [c.name for c in robot.joints["flange"].constraints]
    assert len(names) == 4 and not any("gradient" in n for n in names), names


def test_dependent_interface_directions_are_named():
    # a reduced link's interface [point, x, y, z] needs three independent directions
    # (its frame's axes; a weld's transformation): refused naming the link and frame
    from fem.model.core import Model
    from fem.robot import Reduced

    fe = Model()
    built = AncfBeam(_steel(), radius=RADIUS, elements=2).build(
        fe, "b", {"root": pose((0, 0, 0)), "tip": pose((1.0, 0, 0))}).frames
    robot = Robot("r")
    with pytest.raises(fem.ModelError, match=r"link 'b': interface 'root'.*not independent"):
        robot.add_link("b", Reduced(fe, {f: [x.origin, x.tangent, x.tangent, x.basis[2]]
                                         for f, x in built.items()}, n_modes=2),
                       {"root": pose((0, 0, 0)), "tip": pose((1.0, 0, 0))})
