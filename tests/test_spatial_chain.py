"""Spatial chain of floating-frame links on D-H revolute joints (seed 002, example 3).

References, each independent of the spatial-chain code:
* a chain whose joints all turn about parallel axes is a planar chain: the
  :class:`~fem.model.chains.PlanarChain` (its own kinematics) in a rotated base frame gives the
  same coordinates and the rotated positions;
* conservation of energy with ρ∞ = 1 during a spatial fall;
* finite differences of the positions (Jacobian, ∂²r/∂q∂q), of the inertia forces
  (Newton tangents) and of the tip rotation (generalized force of a torque);
* the static twist of a shaft under an end torque, φ(L) = T L / GJ.
"""

from __future__ import annotations

import numpy as np
import pytest
from fdcheck import inertia_tangents, jacobian

import fem
from fem.elements.floating_frame import FloatingFrameLink
from fem.model.chains import PlanarChain, SpatialChain, dh_chain

L, RHO_A, EA, EI, GJ = 7.0, 45.0, 3e7, 4e6, 3e6


def _links(nl=2, n=3):
    return [FloatingFrameLink(L, "bezier", n, RHO_A, EA, EI, 0.8 * EI, GJ=GJ,
                              polar_inertia_per_length=0.45) for _ in range(nl)]


def _rot(axis, a):
    c, s = np.cos(a), np.sin(a)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R = np.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R


def _spatial(nl=3, kinematics="paper"):
    dh = [[0.0, 0.0, np.pi / 2], [0.2, 0.1, -0.6], [0.0, 0.3, 0.9]][:nl]
    return dh_chain(dh, L, RHO_A * L, EA, 0.8 * EI, EI, GJ, n_coordinates=3,
                    angles=[0.3, 0.4, -0.7][:nl], tip_masses=[5.0] * nl,
                    base=_rot(0, 0.3) @ _rot(2, 0.2), kinematics=kinematics)


def test_parallel_axes_reproduce_planar_chain():
    """Three links, parallel joint axes along B·z, gravity B·(0, −g, 0): q(t) equals the
    planar chain's and every point is B times the planar one."""
    B = _rot(1, 0.7) @ _rot(0, -0.4)
    th = [0.2, -0.5, 0.4]
    planar = PlanarChain(_links(3), th, gravity=(0.0, -9.81, 0.0), tip_masses=[3, 3, 10])
    spatial = SpatialChain(_links(3), th, base=B, gravity=B @ [0.0, -9.81, 0.0],
                           tip_masses=[3, 3, 10])
    rp = fem.simulate(planar, 0.3, 0.005, rho_inf=0.9)
    rs = fem.simulate(spatial, 0.3, 0.005, rho_inf=0.9)
    qp, qs = np.asarray(rp.q), np.asarray(rs.q)
    assert np.abs(qp[-1] - qp[0]).max() > 0.05          # the chain really moved
    assert np.allclose(qs, qp, rtol=0, atol=1e-10)
    for q in (qp[0], qp[-1]):
        lp, ls = planar.centrelines(q), spatial.centrelines(q)
        for a, b in zip(lp, ls, strict=True):
            assert np.allclose(b, a @ B.T, atol=1e-12)


def test_energy_conserved_in_spatial_fall():
    model = _spatial(3)
    res = fem.simulate(model, 0.4, 0.005, rho_inf=1.0)
    en = [model.energy(q, v) for q, v in zip(res.q, res.v, strict=True)]
    kin = np.array([e["kinetic"] for e in en])
    total = np.array([sum(e.values()) for e in en])
    twist = np.array([model.tip_twists(q) for q in res.q])
    defl = np.array([model.tip_deflections(q) for q in res.q])
    assert kin.max() > 1e3
    assert np.abs(total - total[0]).max() <= 1e-4 * kin.max()
    assert np.abs(twist).max() > 1e-5                   # the fall twists the links
    assert np.abs(defl[:, :, 1]).max() > 1e-4           # and bends them out of plane


@pytest.mark.parametrize("kinematics", ["paper", "fourth_order"])
def test_kinematics_finite_differences(kinematics):
    """J = ∂r/∂q and ∂²r/∂q∂q of all mass points against central differences (with the
    fourth-order links the centre lines are quartic and their Q(e) varies)."""
    asm = _spatial(3, kinematics).assemble()
    rng = np.random.default_rng(7)
    q = asm.q0 + 0.05 * rng.standard_normal(asm.n)
    J, H = asm.kinematics(q)
    h = 1e-6
    assert np.allclose(J, jacobian(asm.positions, q, h), atol=1e-7)
    Hfd = jacobian(lambda x: asm.kinematics(x)[0], q, h)
    assert np.allclose(H, Hfd, atol=1e-7)
    assert np.abs(H).max() > 1.0


def test_inertia_force_tangents():
    """∂f/∂q̈ = M(q), ∂f/∂q̇ exact; ∂f/∂q without the third derivatives (q̇ = 0)."""
    asm = _spatial(2).assemble()
    rng = np.random.default_rng(11)
    n = asm.n
    q = asm.q0 + 0.05 * rng.standard_normal(n)
    v = rng.standard_normal(n)
    a = rng.standard_normal(n)
    _, (M, _, _) = asm.inertia_forces(q, v, a, tangent=True)
    h = 1e-6
    C, Cfd, Kq0, Kfd = inertia_tangents(asm, q, v, a, h)
    assert np.allclose(C, Cfd, rtol=1e-6, atol=1e-5 * np.abs(C).max())
    Mfd = jacobian(lambda x: asm.inertia_forces(q, v, x)[0], a, h)
    assert np.allclose(M, Mfd, atol=1e-5 * np.abs(M).max())
    assert np.allclose(Kq0, Kfd, atol=1e-5 * np.abs(Kq0).max())
    # the weight's tangent
    _, Ki = asm.internal_forces(q, tangent=True)
    Kifd = jacobian(lambda x: asm.internal_forces(x)[0], q, h)
    assert np.allclose(Ki, Kifd, atol=1e-6 * np.abs(Ki).max())


def test_tip_rotation_rates_finite_differences():
    """skew(W q̇) = Ṙ Rᵀ of the last tip frame, Ṙ by central differences."""
    model = _spatial(3)
    asm = model.assemble()
    rng = np.random.default_rng(2)
    q = asm.q0 + 0.05 * rng.standard_normal(asm.n)
    v = rng.standard_normal(asm.n)

    def tip_frame(qq):
        R = model.frames(qq)[-1][1]
        for axis, c in model.tip_vectors[-1]:
            R = R @ _rot(axis, float(c @ qq))
        return R

    h = 1e-6
    Om = (tip_frame(q + h * v) - tip_frame(q - h * v)) / (2 * h) @ tip_frame(q).T
    w = asm.tip_rotation_rates(q) @ v
    assert np.allclose([Om[2, 1], Om[0, 2], Om[1, 0]], w, atol=1e-7)


def _static(model, n_iter=30):
    asm = model.assemble()
    q = asm.q0.copy()
    h = 1e-7
    for _ in range(n_iter):
        f, K = asm.internal_forces(q, tangent=True)
        r = asm.external_forces(0.0, q) - f
        if np.abs(r).max() < 1e-9:
            break
        Kext = np.column_stack([(asm.external_forces(0.0, q + h * e)
                                 - asm.external_forces(0.0, q - h * e)) / (2 * h)
                                for e in np.eye(asm.n)])
        q = q + np.linalg.solve(K - Kext, r)
    return q


def test_end_torque_twists_links():
    """A torque T about the (straight) arm's axis at the last tip: each link twists by
    T L / GJ statically; applied suddenly it excites a torsional oscillation about it."""
    T = 2.0e4
    for basis in ("modes", "fe", "bezier"):
        links = [FloatingFrameLink(L, basis, 4 if basis == "fe" else 3, RHO_A, EA, EI, EI,
                                   GJ=GJ,
                                   polar_inertia_per_length=0.45) for _ in range(2)]
        model = SpatialChain(links, [0.0, 0.0], gravity=(0.0, 0.0, 0.0),
                             joint_stiffness=[1e6, 1e6], tip_torque=lambda t: (T, 0.0, 0.0))
        q = _static(model)
        if basis == "modes":
            # Ritz with the clamped–free torsion modes sin((2k−1)πx/2L), k ≤ n_a:
            # φ(L) = T L/GJ · 8/π² Σ 1/(2k−1)² (the series converges to 1)
            na = links[0].na
            ritz = 8 / np.pi**2 * sum(1 / (2 * k - 1) ** 2 for k in range(1, na + 1))
            assert model.tip_twists(q) == pytest.approx([ritz * T * L / GJ] * 2, rel=1e-6)
        else:
            assert model.tip_twists(q) == pytest.approx([T * L / GJ] * 2, rel=1e-2)
    res = fem.simulate(model, 0.1, 0.0005, rho_inf=1.0)
    tw = np.array([model.tip_twists(qq) for qq in res.q])
    assert np.abs(tw[:, 1]).max() > 1.5 * T * L / GJ    # overshoot of a step load
    assert np.abs(tw[:, 1]).max() < 2.5 * 2 * T * L / GJ


def test_bad_input():
    with pytest.raises(fem.ModelError):
        SpatialChain(_links(2), [0.0, 0.0], dh=[[0, 0, 0]])
    with pytest.raises(fem.ModelError):
        SpatialChain(_links(2), [0.0, 0.0], base=np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(fem.ModelError):
        SpatialChain(_links(2), [0.0, 0.0], tip_torque=3.0)
    with pytest.raises(fem.ModelError):
        dh_chain([[0, 0, 0], [0, 0, 0]], [7.0, 7.0, 7.0], 300.0, EA, EI, EI, GJ)
    with pytest.raises(fem.ModelError):
        dh_chain([[0, 0, 0]], -1.0, 300.0, EA, EI, EI, GJ)


def test_five_link_case_builds_and_rejects_bad_pose():
    import importlib
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cases"))
    case = importlib.import_module("five_link_arm_fall")
    model = case.build()
    assert len(model.links) == 5 and model.n_dof == 5 * (1 + model.links[0].n_coordinates)
    # the 0.2 m offset: link 2 starts 0.2 m beside link 1's tip along joint 2's axis
    (o1, _), (o2, _) = model.frames(model.q0)[:2]
    assert np.linalg.norm(o2 - (o1 + [case.PARAMS["length_m"], 0.0, 0.0])) == \
        pytest.approx(0.2, abs=1e-12)
    with pytest.raises(fem.ModelError):
        case.build(theta0_deg=[0.0, 10.0])
