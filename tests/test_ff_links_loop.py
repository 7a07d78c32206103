"""Issue 18 item 5: the robot of Liu et al. (2018) with its third links as floating-frame
bodies, substructured into ``link_segments`` clamped segments, against the ANCF-beam
links (docs/floating_frame.md, "Floating-frame links in the closed loop").

The static droop of P is that of the motors holding the rigid robot's start angles
(``drive="joints"``): the collocated problem, which converges in both models."""

import numpy as np
import parallel_robot_flexible_links as case
import pytest

import fem
from fem.robots.rrru3_flexible_links import (
    build_flexible_links_robot,
    liu2018_circle_path,
    liu2018_geometry,
)


def _static(**links):
    geom = liu2018_geometry()
    rm = build_flexible_links_robot(geom, 6.9e8, 0.3, 0.01, mode="inverse",
                                    path=liu2018_circle_path(geom), drive="joints", **links)
    st = fem.solve_static(rm.model, tol=1e-13)
    asm = rm.model.assemble()
    droop = np.linalg.norm(rm.P(st.q) - geom.start_point)
    return droop, np.array([asm.efforts(st.lam)[a.name] for a in rm.actuators]), rm


def test_one_segment_is_the_single_body_link():
    # link_segments=1 is the model of issue 18 before substructuring: the droop 10.818 mm
    # and holding torques measured then (docs/ancf_beam.md); in robot words (issue 40)
    # 174 coordinates and 120 rows (the private builder's bars and points: 126, 72)
    droop, tau, rm = _static(link_model="floating_frame", link_segments=1)
    assert rm.counts["n_coordinates"] == 174 and rm.counts["n_constraints"] == 120
    assert len(rm.link_bodies) == 3 and all(len(c) == 1 for c in rm.link_segments)
    assert droop == pytest.approx(10.8184e-3, abs=1e-7)
    assert np.allclose(tau, [-8.47846, -10.19533, -10.19533], atol=1e-5)


def test_ancf_reference_converges_with_square_joint_sections():
    # the reference itself: with the end sections held square the ANCF droop converges
    # at second order in the element size (successive differences shrink ~4×: measured
    # 2.8e-3, 0.70e-3 mm); with free sections the joints' torsion shears the end nodes'
    # sections, whose stiffness falls with the element length, and the droop grows
    # ∝ n (differences 6.7e-3, 8.6e-3 mm, then 16, 31, 62 µm up to 256 elements)
    sq = [_static(n_elements=n, joint_sections="square")[0] for n in (8, 16, 32)]
    free = [_static(n_elements=n)[0] for n in (8, 16, 32)]
    d_sq, d_free = np.diff(sq), np.diff(free)
    assert 3.0 < d_sq[0] / d_sq[1] < 5.0, d_sq
    assert d_free[1] > d_free[0] > 0, d_free


def test_segments_approach_the_ancf_droop():
    # reference: ANCF beams, 32 elements per link with square joint sections (10.7656 mm;
    # 64 elements: +0.2 µm).  Measured floating-frame errors 52.6, 25.2, 13.9 µm for
    # 1, 2, 4 segments (first order in 1/S, docs/floating_frame.md); holding torques
    # within 4e-4 N·m of the ANCF robot's at 4 segments (1.6e-3 at 1)
    ref, tau_ref, _ = _static(n_elements=32, joint_sections="square")
    err, dtau = [], []
    for S in (1, 2, 4):
        droop, tau, _ = _static(link_model="floating_frame", link_segments=S)
        err.append(droop - ref)
        dtau.append(np.abs(tau - tau_ref).max())
    assert err[0] > err[1] > err[2] > 0, err
    assert err[2] < 0.3 * err[0] and err[2] < 1.5e-5, err      # < 0.14 % of the droop
    assert dtau[2] < 5e-4 < dtau[0], dtau


def test_bad_link_segments_are_refused():
    with pytest.raises(fem.ModelError, match="link_segments"):
        build_flexible_links_robot(link_model="floating_frame", link_segments=0)
    with pytest.raises(fem.ModelError, match="joint_sections"):
        build_flexible_links_robot(joint_sections="round")


@pytest.mark.slow
def test_circle_torques_within_1_percent_of_converged_ancf():
    """Issue 18 item 5: the paper's whole circle (2.09 s) in inverse dynamics with
    ``drive="joints"`` and the case's floating-frame defaults (4 segments, Bézier 4,
    fourth order) against ANCF beams (32 elements, square joint sections: 0.026 % of
    the range from 64), both at h = 2.5 ms (the step moves either by ≤ 0.13 %).
    Measured 0.36 % of the torque range here (0.34 % at h = 1.25 ms against ANCF-64;
    1 segment: 1.52 %); two runs, about 50 s (indicative, loaded machine)."""
    common = {"analysis": "inverse", "drive": "joints", "dt_s": 0.0025}
    ancf = case.run(None, **common, n_elements_per_link=32, joint_sections="square")
    ff = case.run(None, **common, link_model="floating_frame")
    assert ff["n_segments_per_link"] == 4
    a, f = np.array(ancf["torque_Nm"]), np.array(ff["torque_Nm"])
    assert np.array_equal(ancf["time_s"], ff["time_s"])
    assert np.abs(f - a).max() <= 0.01 * np.ptp(a), np.abs(f - a).max() / np.ptp(a)


def test_reduced_links_approach_the_ancf_droop():
    # link 3 as reduced links (fem.robot.Reduced: Craig–Bampton modes of an ANCF-beam FE
    # model of each segment, its end nodes the interfaces), the segments welded end to
    # end (fixed joints between node interfaces): a linear reduction misses the links'
    # tension stiffening inside a segment, which the segments' frames recover at second
    # order in 1/S (measured −197, −38.5, −4.8 µm for 1, 2, 4 segments of 8, 8, 4
    # elements against ANCF 32 with square sections, 10.7656 mm; holding torques within
    # 2.6e-3, 4.9e-4, 7.8e-5 N·m); the mode count hardly matters (2 or 4 modes: 1e-5 µm)
    ref, tau_ref, _ = _static(n_elements=32, joint_sections="square")
    err, dtau = [], []
    for S, elements in ((1, 8), (2, 8), (4, 4)):
        droop, tau, rm = _static(link_model="reduced", link_segments=S, link_coordinates=2,
                                 n_elements=elements)
        assert len(rm.link_segments[0]) == S
        err.append(abs(droop - ref))
        dtau.append(np.abs(tau - tau_ref).max())
    assert err[0] > 4.0 * err[1] > 4.0 * err[2], err
    assert err[2] < 6e-6 and err[0] < 0.03 * ref, err
    assert dtau[2] < 2e-4, dtau


def test_bad_reduced_link_arguments_are_named():
    with pytest.raises(fem.ModelError, match="n_elements.*interior node"):
        build_flexible_links_robot(link_model="reduced", n_elements=1, link_coordinates=2)
    with pytest.raises(fem.ModelError, match="link_coordinates"):
        build_flexible_links_robot(link_model="reduced", n_elements=2, link_coordinates=-1)
    with pytest.raises(fem.ModelError, match="reduced bodies"):
        build_flexible_links_robot(link_model="reduced", link_segments=10**6)


def _static_state(**links):
    geom = liu2018_geometry()
    rm = build_flexible_links_robot(geom, 6.9e8, 0.3, 0.01, mode="inverse",
                                    path=liu2018_circle_path(geom), drive="joints", **links)
    return rm, fem.solve_static(rm.model, tol=1e-13).q


def test_reduced_links_read_as_beams():
    # a reduced segment's centre line is its FE beam's at the modal superposition and its
    # gauges the beam's strains linear in the modes: the ends are the joints' points, and
    # at 4 welded segments (4 elements each) the mid-point deflection and the gauges are
    # those of ANCF 32 with square sections within the reduction's error (measured:
    # deflection 0.05–0.33 %, the gauges' bending 0.15–1.1 %, their axial part within
    # 1.1e-5, 0.7 % of the bending; the Green strain of the superposed modes put 5.9e-5 to
    # 8.7e-5 of stretch there, twice the true axial strain)
    from fem.maps import evaluate
    from fem.robots.rrru3_flexible_links import gauge_strains, link_midpoint_outputs

    ref, q_ref = _static_state(n_elements=32, joint_sections="square")
    rm, q = _static_state(link_model="reduced", link_segments=4, link_coordinates=2,
                          n_elements=4)
    chain, names = rm.link_segments[0], [f"limb 1 link3 segment {j + 1}" for j in range(4)]
    for j, (seg, nm) in enumerate(zip(chain, names, strict=True)):
        line = seg.centreline(q, 5)
        f0, f1 = ("C" if j == 0 else "root"), ("U" if j == 3 else "tip")
        assert np.allclose(line[0], evaluate(rm.robot.frame(nm, f0).origin, q)[0], atol=1e-12)
        assert np.allclose(line[-1], evaluate(rm.robot.frame(nm, f1).origin, q)[0], atol=1e-12)
        assert np.allclose(np.linalg.norm(np.diff(line, axis=0), axis=1), seg.length / 4,
                           rtol=1e-3)
    mid, mid_ref = (link_midpoint_outputs(m, x)["deformation"] for m, x in
                    ((rm, q), (ref, q_ref)))
    assert np.allclose(mid, mid_ref, rtol=0.006), mid / mid_ref - 1
    g_ref = gauge_strains(ref, q_ref, recovered=True)[:, 2:]          # ±z
    bend_ref, axial_ref = 0.5 * (g_ref[:, 0] - g_ref[:, 1]), g_ref.mean(axis=1)
    g = gauge_strains(rm, q, recovered=True)[:, 2:]   # (read at the point they converge
    bend, axial = 0.5 * (g[:, 0] - g[:, 1]), g.mean(axis=1)   # only with the element size)
    assert np.allclose(bend, bend_ref, rtol=0.02), bend / bend_ref - 1
    assert np.abs(axial - axial_ref).max() < 0.015 * np.abs(bend_ref).max(), axial


def test_welded_reduced_segments_are_the_beam_in_linear_statics():
    # with the links 100 times stiffer (E = 6.9e10 Pa: the tension's stiffening a
    # hundredth) two welded reduced segments of 8 elements deflect as ANCF 16 with square
    # sections: a reduction keeping every interface coordinate is exact in linear
    # statics (measured +0.012 % at the mid-point; with the rigid joint's 6 rows between
    # the segments, +3.4 % at any modulus, growing with the segments' elements)
    from fem.robots.rrru3_flexible_links import link_midpoint_outputs

    def mid(**links):
        geom = liu2018_geometry()
        rm = build_flexible_links_robot(geom, 6.9e10, 0.3, 0.01, mode="inverse",
                                        path=liu2018_circle_path(geom), drive="joints",
                                        **links)
        return link_midpoint_outputs(rm, fem.solve_static(rm.model, tol=1e-13).q)[
            "deformation"]

    ref = mid(n_elements=16, joint_sections="square")
    red = mid(link_model="reduced", link_segments=2, link_coordinates=2, n_elements=8)
    assert np.allclose(red, ref, rtol=5e-4), red / ref - 1


def test_reduced_segments_are_drawn_bending_against_the_links_chord():
    # the pictures magnify a reduced link's deformation measured against the frame
    # through the whole link's ends C and U (not each segment's own best fit, which drew
    # four scallops magnified 50 times): across the chord, zero at C and U, and at the
    # mid-point the centre line's distance from the chord (link_midpoint_outputs)
    from fem.io.output import drawing_for
    from fem.robots.rrru3_flexible_links import link_midpoint_outputs

    rm, q = _static_state(link_model="reduced", link_segments=2, link_coordinates=2,
                          n_elements=4)
    frame = drawing_for(rm.model).frame(0.0, q)
    x = np.asarray(frame.points) + np.asarray(frame.point_data["displacement"])
    dx = np.asarray(frame.point_data["deformation"])
    seg = rm.link_segments[0]
    c, u = seg[0].centreline(q, 2)[0], seg[-1].centreline(q, 2)[-1]
    mid = seg[0].centreline(q, 2)[-1]
    e = (u - c) / np.linalg.norm(u - c)
    for p, expected in ((c, 0.0), (u, 0.0),
                        (mid, link_midpoint_outputs(rm, q)["deformation"][0])):
        i = int(np.argmin(np.linalg.norm(x - p, axis=1)))
        assert np.linalg.norm(x[i] - p) < 1e-9
        across = np.linalg.norm(dx[i] - (dx[i] @ e) * e)
        assert across == pytest.approx(expected, abs=1e-6), (across, expected)
