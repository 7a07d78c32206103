"""``fem.robot.ReducedBeam``: a slender link reduced from ANCF beam elements of it, read as
a beam (centre line, strain gauges), against closed forms of a cantilever and against
the ANCF link it reduces."""

from __future__ import annotations

import numpy as np
import pytest

import fem
from fem.maps import evaluate
from fem.robot import AncfBeam, ReducedBeam, Robot, pose

E, NU, RHO, R, L = 2.1e11, 0.3, 7850.0, 0.01, 1.0


def _cantilever(spec, P: float = 5.0):
    robot = Robot("cantilever")
    link = robot.add_link("b", spec, {"root": pose((0, 0, 0)), "tip": pose((L, 0, 0))})
    robot.add_joint("clamp", "fixed", "ground", ("b", "root"))
    robot.model.add_force(robot.frame("b", "tip").origin, (0.0, 0.0, -P))
    q = fem.solve_static(robot.model, tol=1e-12).q
    return robot, link, q


def _beam(elements: int = 8) -> AncfBeam:
    return AncfBeam(fem.Material(E, NU, RHO), radius=R, elements=elements)


def test_a_reduced_beam_cantilever_is_its_closed_form():
    # a tip force P: deflection P L³/3EI + P L/kGA (Timoshenko, Cowper's k), the centre
    # line's w(x) = P x²(3L − x)/6EI + P x/kGA, the surface strain at the fibre z = +R
    # (the tension side) P (L − x) R / EI, at an element's centre (the element's
    # curvature is constant, its mean; measured 2e-6).  The reduction keeps every interface
    # coordinate, so it is its FE model's own linear statics: the ANCF link of the same
    # 16 elements to 1.2e-6, both 1.0e-3 from the closed form at the tip (the elements'
    # error: 3.9e-3 at 8, 2.5e-4 at 32)
    P = 5.0
    robot, link, q = _cantilever(ReducedBeam(_beam(16), modes=2), P)
    ancf, _, q_ancf = _cantilever(_beam(16), P)
    s = fem.robot.section_properties("circle", "rod", R)
    EI, G = E * s["iy"], E / (2 * (1 + NU))
    k = 6 * (1 + NU) / (7 + 6 * NU)
    tip = evaluate(robot.frame("b", "tip").origin, q)[0]
    tip_ancf = evaluate(ancf.frame("b", "tip").origin, q_ancf)[0]
    delta = P * L**3 / (3 * EI) + P * L / (k * G * s["area"])
    assert tip[2] == pytest.approx(tip_ancf[2], rel=1e-5)
    assert -tip[2] == pytest.approx(delta, rel=1.5e-3)
    view = link.beam
    x = np.linspace(0.0, L, 5)
    line = view.centreline(q, 5)
    w = P * x**2 * (3 * L - x) / (6 * EI) + P * x / (k * G * s["area"])
    assert np.allclose(line[:, 0], x, atol=1e-6)
    assert np.allclose(-line[:, 2], w, rtol=0, atol=1.5e-3 * delta), -line[:, 2] / w - 1
    xc = 4.5 / 16 * L                 # an element's centre: its curvature is the mean
    eps = view.surface_strain(q, xc, 0.0, R)
    assert eps == pytest.approx(P * (L - xc) * R / EI, rel=1e-4), eps / (P * (L - xc) * R / EI)


def test_a_reduced_beam_link_swings_as_the_ancf_link():
    # a pendulum of one link falling from the horizontal under gravity for 0.2 s: the
    # tip's path of the reduced beam (4 modes) against the ANCF link of the same
    # elements (measured 3e-4 of the fall apart)
    paths = []
    for spec in (_beam(4), ReducedBeam(_beam(4), modes=4)):
        robot = Robot("pendulum", gravity=(0.0, 0.0, -9.81))
        robot.add_link("b", spec, {"root": pose((0, 0, 0), z=(0, 1, 0)),
                                   "tip": pose((L, 0, 0), z=(0, 1, 0))})
        robot.add_joint("pivot", "revolute", "ground", ("b", "root"))
        res = fem.simulate(robot.model, 0.2, 1e-3, rho_inf=0.8)
        tip = robot.frame("b", "tip").origin
        paths.append(np.array([evaluate(tip, qk)[0] for qk in res.q]))
    fall = np.abs(paths[0][:, 2]).max()
    assert fall > 0.1
    assert np.abs(paths[1] - paths[0]).max() < 2e-3 * fall, np.abs(paths[1] - paths[0]).max()


def test_bad_reduced_beam_input_is_named():
    with pytest.raises(fem.ModelError, match="beam must be a fem.robot.AncfBeam"):
        ReducedBeam(fem.Material(E, NU, RHO))
    with pytest.raises(fem.ModelError, match="no interior node"):
        ReducedBeam(_beam(1), modes=2)
    with pytest.raises(fem.ModelError, match="modes"):
        ReducedBeam(_beam(2), modes=-1)


def test_link_frame_of_a_body_without_a_mesh_is_refused():
    # Model.add_link_frame measures an element group or a body drawn on its FE model (a
    # reduced link) against a frame; anything else is named
    robot = Robot("r")
    link = robot.add_link("b", ReducedBeam(_beam(2), modes=0),
                          {"root": pose((0, 0, 0)), "tip": pose((L, 0, 0))})
    assert "b" in robot.model.link_frames                   # its chord, for the pictures
    root = robot.frame("b", "root")
    with pytest.raises(fem.ModelError, match="add_link_frame expects.*got str"):
        robot.model.add_link_frame("b", root.origin, root.origin, root.origin)
    with pytest.raises(fem.ModelError, match="add_link_frame 'b': tip"):
        robot.model.add_link_frame(link.body, root.origin, "tip", root.origin)
