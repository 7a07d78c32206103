"""The chains' inertia forces, weight and mass summed in the links' frames
(:mod:`fem.bodies.chain_inertia`, issue 23) against the point-by-point sums over ``J`` and
``∂²r/∂q∂q`` of :meth:`~fem.assembly.chains.PlanarChainSystem.kinematics` (the former
implementation): equal to round-off for every basis, both kinematics, hub links, planar
chains with tip masses and joint springs, spatial chains with D-H offsets."""

from __future__ import annotations

import numpy as np
import pytest
from saddlecheck import compiled_and_saddle

from fem.elements.floating_frame import KINEMATICS, FloatingFrameLink
from fem.model.chains import HubLink, PlanarChain, dh_chain

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


def _state(model, seed: int):
    """The system and a random state ``(q, q̇, q̈)`` near the model's reference."""
    asm = model.assemble()
    rng = np.random.default_rng(seed)
    n = asm.n
    q = model.q0 + 0.05 * rng.standard_normal(n)
    return asm, q, rng.standard_normal(n), rng.standard_normal(n)


def _check(model, seed: int = 0) -> None:
    asm, q, v, a = _state(model, seed)
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


@pytest.mark.parametrize("kinematics", ["paper", "fourth_order"])
@pytest.mark.parametrize("basis, n", BASES)
def test_hub_link_and_planar_chain(basis, n, kinematics):
    _check(HubLink(_link(basis, n, kinematics), hub_inertia=2.0, gravity=(0.0, -9.81, 1.0)))
    links = [_link(basis, n, kinematics) for _ in range(3)]
    _check(PlanarChain(links, [0.1, 0.2, -0.3], tip_masses=[1.0, 0.0, 2.0],
                       joint_stiffness=[0.0, 10.0, 0.0]), seed=1)


@pytest.mark.parametrize("kinematics", ["paper", "fourth_order"])
@pytest.mark.parametrize("basis, n", BASES)
def test_spatial_chain(basis, n, kinematics):
    dh = [[0.0, 0.0, np.pi / 2], [0.2, 0.1, 0.0], [0.0, 0.0, 0.3]]
    _check(dh_chain(dh, 3.0, 50.0, 1e7, 2e3, 3e3, 1e3, basis=basis, n_coordinates=n,
                    angles=[0.1, 0.2, 0.3], kinematics=kinematics,
                    tip_masses=[1.0, 0.0, 3.0]), seed=2)


def test_state_is_kept_for_one_configuration_only():
    """The weight and the inertia of one Newton iteration share the link states; another
    configuration (or a copy of q changed in place) builds new ones."""
    model = PlanarChain([_link("bspline", 5, "paper") for _ in range(2)], [0.1, 0.2])
    asm = model.assemble()
    q = model.q0 + 0.01
    s1 = asm._inertia_state(q)
    assert asm._inertia_state(q.copy()) is s1
    q[3] += 1e-3
    assert asm._inertia_state(q) is not s1


# ------------------------------------------------------------------------------------
# the compiled evaluation (fem.bodies.chain_kernels) against the NumPy form
def _both(asm, q, v, a) -> dict:
    """Every output of the chain's evaluation, compiled (True) and NumPy (False)."""
    out = {}
    for use in (True, False):
        asm.use_kernel = use
        asm._state = None
        f, (M, Kq, C) = asm.inertia_forces(q, v, a, tangent=True)
        fi, Kt = asm.internal_forces(q, v, tangent=True)
        out[use] = {"f": f, "M": M, "Kq": Kq, "C": C, "fi": fi, "Kt": Kt,
                    "f0": asm.inertia_forces(q, v, a)[0],
                    "fi0": asm.internal_forces(q, v)[0], "mass": asm.mass_matrix(q)}
    asm.use_kernel = True
    return out


def _check_kernel(model, seed: int = 0) -> None:
    out = _both(*_state(model, seed))
    for key, r in out[False].items():
        err = np.abs(out[True][key] - r).max() / max(np.abs(r).max(), 1e-300)
        assert err < 1e-13, (key, err)


@pytest.mark.compiled(heavy=True)
@pytest.mark.parametrize("kinematics", KINEMATICS)
@pytest.mark.parametrize("basis, n", BASES)
def test_compiled_chain_matches_numpy(basis, n, kinematics):
    """Hub links and planar chains (tip masses, joint springs, gravity off the plane),
    every kinematics: the compiled evaluation equals the NumPy form to round-off."""
    from fem.bodies.chain_kernels import chain_kernel

    if chain_kernel() is None:
        pytest.skip("numba off (FEM_NO_JIT=1): the NumPy form is the only one")
    hub = HubLink(_link(basis, n, kinematics), hub_inertia=2.0, gravity=(0.0, -9.81, 1.0))
    assert hub.assemble()._kernel() is not None
    _check_kernel(hub)
    chain = PlanarChain([_link(basis, n, kinematics) for _ in range(3)], [0.1, 0.2, -0.3],
                        tip_masses=[1.0, 0.0, 2.0], joint_stiffness=[0.0, 10.0, 0.0],
                        gravity=(0.0, -9.81, 0.5))
    _check_kernel(chain, seed=1)


@pytest.mark.compiled(heavy=True)
@pytest.mark.parametrize("kinematics", KINEMATICS)
@pytest.mark.parametrize("basis, n", BASES)
def test_compiled_spatial_chain_matches_numpy(basis, n, kinematics):
    """Spatial chains (D-H offsets and twists, a turned base, tip masses, gravity in
    every direction): the frame programs of the kernel give the NumPy form's forces and
    tangents to round-off."""
    from fem.bodies.chain_kernels import chain_kernel

    if chain_kernel() is None:
        pytest.skip("numba off (FEM_NO_JIT=1): the NumPy form is the only one")
    dh = [[0.0, 0.0, np.pi / 2], [0.2, 0.1, 0.0], [0.3, 0.0, 0.3]]
    c, s = np.cos(0.4), np.sin(0.4)
    base = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    model = dh_chain(dh, 3.0, 50.0, 1e7, 2e3, 3e3, 1e3, basis=basis, n_coordinates=n,
                     angles=[0.1, 0.2, 0.3], kinematics=kinematics, base=base,
                     tip_masses=[1.0, 0.0, 3.0], gravity=(0.3, -2.0, -9.81),
                     joint_stiffness=[5.0, 0.0, 1.0])
    assert model.assemble()._kernel() is not None
    _check_kernel(model, seed=2)


def test_links_with_their_kernels_off_keep_numpy():
    """A link whose own kernels are off (``use_kernel`` False) keeps its chain on the
    NumPy form, which declares no compiled structure."""
    off = _link("bezier", 4, "fourth_order")
    off.use_kernel = False
    for model in (HubLink(off, hub_inertia=2.0), PlanarChain([off, _link("fe", 4, "paper")],
                                                             [0.1, 0.2])):
        asm = model.assemble()
        assert asm._kernel() is None and asm.constant_structure() is None


@pytest.mark.compiled(heavy=True)
def test_compiled_iterations_match_numpy_run():
    """A two-link fall and a driven hub link run with the compiled iterations (the
    declared structure) and with the NumPy form: the same iterations (at one factor-cost
    ratio: the compiled chain declares its own, 6), states equal to round-off."""
    import fem
    from fem.bodies.chain_kernels import chain_kernel

    if chain_kernel() is None:
        pytest.skip("numba off (FEM_NO_JIT=1)")

    def hub_angle(t):
        return 0.5 * t * t, t, 1.0

    def runs(build, **kw):
        out = []
        for use in (True, False):
            model = build()
            model.assemble().use_kernel = use
            assert model.assemble().factor_cost_iterations == (6.0 if use else 0.7)
            out.append(fem.simulate(model, 0.2, 0.01, factor_cost=0.7, **kw))
        return out

    for build, kw in (
            (lambda: PlanarChain([_link("bspline", 4, "paper") for _ in range(2)],
                                 [0.3, 0.2]), {"rho_inf": 1.0}),
            (lambda: HubLink(_link("bezier", 4, "fourth_order"), hub_angle=hub_angle),
             {"rho_inf": 0.8, "force_scale": 10.0})):
        fast, ref = runs(build, **kw)
        assert np.array_equal(fast.stats["iterations"], ref.stats["iterations"])
        assert fast.info["factorizations"] == ref.info["factorizations"]
        for x, y in ((fast.q, ref.q), (fast.v, ref.v), (fast.lam, ref.lam)):
            if y.size:
                assert np.abs(x - y).max() <= 1e-11 * max(np.abs(y).max(), 1.0)


@pytest.mark.compiled(heavy=True)
@pytest.mark.parametrize("kind", ["hub, driven", "planar", "spatial"])
def test_compiled_iteration_matrix_of_chains_is_the_saddle(kind):
    """The iteration matrix the compiled loop forms for a chain (the chain's
    ``body_tangents``, its constant masses, the drive row) against
    :meth:`HubLinkSystem.saddle` from the general methods: 1e-12 of the largest entry."""
    from fem.bodies.chain_kernels import chain_kernel

    if chain_kernel() is None:
        pytest.skip("numba off (FEM_NO_JIT=1)")
    model = {
        "hub, driven": lambda: HubLink(_link("bspline", 5, "fourth_order"),
                                       hub_angle=lambda t: (t * t, 2 * t, 2.0),
                                       gravity=(0.0, -9.81, 0.0)),
        "planar": lambda: PlanarChain([_link("fe", 4, "fourth_order") for _ in range(2)],
                                      [0.1, 0.2], tip_masses=[1.0, 2.0],
                                      joint_stiffness=[3.0, 0.0]),
        "spatial": lambda: dh_chain([[0.0, 0.0, np.pi / 2], [0.2, 0.1, 0.0]], 3.0, 50.0,
                                    1e7, 2e3, 3e3, 1e3, basis="bezier", n_coordinates=4,
                                    angles=[0.1, 0.2], tip_masses=[1.0, 3.0]),
    }[kind]()
    asm, q, v, a = _state(model, 3)
    S, ref = compiled_and_saddle(model, q, v, a,
                                 np.random.default_rng(4).standard_normal(asm.m))
    assert np.abs(S - ref).max() <= 1e-12 * np.abs(ref).max()
