"""The chains' inertia forces, weight and mass summed in the links' frames
(:mod:`fem.chain_inertia`, issue 23) against the point-by-point sums over ``J`` and
``∂²r/∂q∂q`` of :meth:`~fem.chains.PlanarChainSystem.kinematics` (the former
implementation): equal to round-off for every basis, both kinematics, hub links, planar
chains with tip masses and joint springs, spatial chains with D-H offsets."""

from __future__ import annotations

import numpy as np
import pytest

from fem.bodies.chains import HubLink, PlanarChain, dh_chain
from fem.elements.floating_frame import FloatingFrameLink

BASES = [("bezier", 4), ("bspline", 5), ("fe", 4), ("modes", 3)]


def _reference(asm, q, v, a, g):
    """The point-by-point sums (the implementation before the frame coordinates)."""
    J, Hs = asm.kinematics(q)
    wm = asm.wm
    Hv = np.einsum("pink,k->pin", Hs, v)
    acc = np.einsum("pin,n->pi", J, a) + np.einsum("pin,n->pi", Hv, v)
    f = np.einsum("p,pin,pi->n", wm, J, acc) + asm.M_const @ a
    M = np.einsum("p,pin,pim->nm", wm, J, J) + asm.M_const
    C = 2.0 * np.einsum("p,pin,pim->nm", wm, J, Hv)
    Ha = np.einsum("pink,k->pin", Hs, a)
    Kq = np.einsum("p,pink,pi->nk", wm, Hs, acc) + np.einsum("p,pin,pik->nk", wm, J, Ha)
    return {"f": f, "M": M, "C": C, "Kq": Kq, "fg": np.einsum("p,pin,i->n", wm, J, g),
            "Kg": np.einsum("p,pink,i->nk", wm, Hs, g)}


def _check(model, seed: int = 0) -> None:
    asm = model.assemble()
    rng = np.random.default_rng(seed)
    n = asm.n
    q = model.q0 + 0.05 * rng.standard_normal(n)
    v, a = rng.standard_normal(n), rng.standard_normal(n)
    g = np.asarray(model.gravity, float)
    ref = _reference(asm, q, v, a, g)
    f, (M, Kq, C) = asm.inertia_forces(q, v, a, tangent=True)
    fg, Kg = asm._inertia_state(q).weight(g, tangent=True)
    got = {"f": f, "M": M, "C": C, "Kq": Kq, "fg": fg, "Kg": Kg}
    for key, r in ref.items():
        err = np.abs(got[key] - r).max() / np.abs(r).max()
        assert err < 1e-12, (key, err)
    assert np.abs(asm.mass_matrix(q) - ref["M"]).max() < 1e-12 * np.abs(ref["M"]).max()
    # the residual path (no tangent) gives the same force
    f0, none = asm.inertia_forces(q, v, a)
    assert none is None and np.array_equal(f0, f)


def _link(basis, n, kinematics):
    return FloatingFrameLink(3.0, basis, n, 20.0, 1e7, 2e3, 3e3, GJ=1e3,
                             polar_inertia_per_length=0.1, kinematics=kinematics)


@pytest.mark.parametrize("kinematics", ["seed", "fourth_order"])
@pytest.mark.parametrize("basis, n", BASES)
def test_hub_link_and_planar_chain(basis, n, kinematics):
    _check(HubLink(_link(basis, n, kinematics), hub_inertia=2.0, gravity=(0.0, -9.81, 1.0)))
    links = [_link(basis, n, kinematics) for _ in range(3)]
    _check(PlanarChain(links, [0.1, 0.2, -0.3], tip_masses=[1.0, 0.0, 2.0],
                       joint_stiffness=[0.0, 10.0, 0.0]), seed=1)


@pytest.mark.parametrize("kinematics", ["seed", "fourth_order"])
@pytest.mark.parametrize("basis, n", BASES)
def test_spatial_chain(basis, n, kinematics):
    dh = [[0.0, 0.0, np.pi / 2], [0.2, 0.1, 0.0], [0.0, 0.0, 0.3]]
    _check(dh_chain(dh, 3.0, 50.0, 1e7, 2e3, 3e3, 1e3, basis=basis, n_coordinates=n,
                    angles=[0.1, 0.2, 0.3], kinematics=kinematics,
                    tip_masses=[1.0, 0.0, 3.0]), seed=2)


def test_state_is_kept_for_one_configuration_only():
    """The weight and the inertia of one Newton iteration share the link states; another
    configuration (or a copy of q changed in place) builds new ones."""
    model = PlanarChain([_link("bspline", 5, "seed") for _ in range(2)], [0.1, 0.2])
    asm = model.assemble()
    q = model.q0 + 0.01
    s1 = asm._inertia_state(q)
    assert asm._inertia_state(q.copy()) is s1
    q[3] += 1e-3
    assert asm._inertia_state(q) is not s1
