"""ANCF cable against Euler–Bernoulli closed forms and against itself by finite differences."""

import cantilever_cable as case
import numpy as np
import pytest
from fdcheck import energy_gradient, force_tangent

import fem

E, RHO, L, B = 2.1e11, 7850.0, 2.0, 0.02


def test_static_tip_deflection_under_gravity():
    # reference: w = qL⁴/8EI (linear Euler–Bernoulli; the geometric nonlinearity of a
    # 1.1 % deflection changes it by ~1e-4, well inside the 0.2 % tolerance)
    fig = case.run(n_elements=8, analysis="static")
    ref = case.reference()["tip_z_m"]
    assert abs(fig["tip_z_m"] / ref - 1) < 2e-3
    assert fig["residual_relative"] < 1e-8


def test_tip_force_deflection():
    # reference: w = FL³/3EI for a small tip force (no gravity); cubic Hermite shapes are
    # exact for a point load at a node, so what remains is the geometric nonlinearity,
    # of relative order (FL²/EI)²/10 ≈ 1e-6 for F = 2 N
    fig = case.run(n_elements=4, analysis="static", gravity=False, tip_force_z_N=-2.0)
    ref = case.reference(gravity=False, tip_force_z_N=-2.0)["tip_z_m"]
    assert abs(fig["tip_z_m"] / ref - 1) < 1e-5


def test_cantilever_bending_frequencies():
    # reference: (βₙL)² √(EI/ρAL⁴)/2π, βₙL = 1.87510, 4.69409, 7.85476 — within 0.5 %
    fig = case.run(n_elements=16, analysis="modal", gravity=False, n_modes=12)
    f = np.array(fig["bending_z_frequencies_hz"][:3])
    ref = np.array(case.reference()["bending_frequencies_hz"])
    assert np.all(np.abs(f / ref - 1) < 5e-3), (f, ref)
    # the square section bends alike about y and z: every bending frequency twice
    allf = np.array(fig["frequencies_hz"])
    assert np.allclose(allf[0], allf[1], rtol=1e-9)
    assert np.all(np.diff(allf) >= 0)


def _element(n=3, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 12))
    for e in range(n):
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        le = 0.3 + rng.random()
        p = rng.normal(size=3)
        X[e] = np.concatenate([p, d, p + le * d, d])
    fam = fem.elements.get("ancf_cable")(X, fem.Material(2e9, 0.3, 1000.0), area=1e-3,
                                         inertia=2e-7)
    return fam, X, rng


def test_tangent_and_force_against_finite_differences_at_a_large_deformation():
    # tests/test_element_families.py checks every family near its reference; here a
    # large, general deformation
    fam, X, rng = _element()
    q = X + 0.05 * rng.normal(size=X.shape)
    f, K = fam.forces(q, tangent=True)
    assert np.abs(K - force_tangent(fam, q, 1e-7)).max() / np.abs(K).max() < 1e-6
    assert np.abs(energy_gradient(fam, q, 1e-6) - f).max() / np.abs(f).max() < 1e-7


def test_rigid_motion_gives_no_force():
    fam, X, rng = _element(seed=2)
    a = rng.normal(size=3)
    a *= 2.0 / np.linalg.norm(a)           # a large finite rotation (2 rad)
    Kx = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    from scipy.linalg import expm
    R = expm(Kx)
    Xv = X.reshape(-1, 4, 3)
    q = Xv @ R.T
    q[:, [0, 2]] += rng.normal(size=3)      # translate positions only
    f, _ = fam.forces(q.reshape(X.shape))
    assert np.abs(f).max() < 1e-6 * fam.EA.max() * 1e-6
    assert np.abs(fam.energy(q.reshape(X.shape))).max() < 1e-20


def test_mass_matrix_reproduces_mass_and_moments():
    fam, X, _ = _element()
    m = fam.mass_scalar()
    t = fam.translation_pattern()
    rhoA = 1000.0 * 1e-3
    assert np.allclose(t @ m @ t, rhoA * fam.L, rtol=1e-14)
    # first moment about node A along the element: ∫ρA x dx = ρA L²/2 ; x-position
    # coordinates of the straight element: r = x along the unit axis → q_x = [0, 1, L, 1]
    qx = np.stack([np.zeros_like(fam.L), np.ones_like(fam.L), fam.L, np.ones_like(fam.L)], 1)
    assert np.allclose(np.einsum("ei,eij,j->e", qx, m, t), rhoA * fam.L**2 / 2)
    assert np.allclose(np.einsum("ei,eij,ej->e", qx, m, qx), rhoA * fam.L**3 / 3)


def _pendulum(rho_inf, h=5e-4, t_end=2.0):
    # Berzeri–Shabana very flexible pendulum: L = 1.2 m, A = 0.0018 m², I = 1.215e-8 m⁴,
    # ρ = 5540 kg/m³, E = 0.7 MPa; pinned at one end, released horizontal
    m = fem.Model("flexible pendulum", gravity=(0, 0, -9.81))
    _, nodes = fem.straight_cable(m, (0, 0, 0), (1.2, 0, 0), 8, fem.Material(0.7e6, 0.3, 5540),
                                  0.0018, 1.215e-8)
    m.fix(nodes[0], "r")
    last = []            # the energies of the last state recorded: E and K take one sum

    def energy(q, v):
        if not (last and np.array_equal(last[0], q) and np.array_equal(last[1], v)):
            last[:] = [q.copy(), v.copy(), m.energy(q, v)]
        return last[2]

    res = fem.simulate(m, t_end, h, rho_inf=rho_inf, tol=1e-8, sensors={
        "E": lambda t, q, v, a, l: energy(q, v)["total_J"],
        "K": lambda t, q, v, a, l: energy(q, v)["kinetic_J"]})
    return res.sensors["E"], res.sensors["K"].max(), res


def test_free_cable_pendulum_energy():
    # ρ∞ = 1: no algorithmic dissipation — energy error below 1e-3 of the largest kinetic
    # energy over 2 s (measured 6.6e-4 at h = 5e-4 s; the error falls as h²)
    E, K, res = _pendulum(1.0)
    assert np.abs(E - E[0]).max() / K < 1e-3
    assert res.stats["residual_constraints"].max() < 1e-11
    # the dissipation at ρ∞ < 1 at twice the step (1000 steps of 1 ms each): the ordering
    # and the falling envelope are properties of the scheme at any step, and at 1 ms the
    # losses are 4-5× those at 0.5 ms, so the three stay further apart (1.6e-4, 8.2e-4,
    # 6.3e-3 of the largest kinetic energy; 3.5e-5, 1.5e-4, 1.8e-3 at 0.5 ms)
    losses = []
    for rho in (0.8, 0.5, 0.0):
        Er, Kr, _ = _pendulum(rho, h=1e-3, t_end=1.0)
        losses.append((Er[0] - Er[-1]) / Kr)
        if rho <= 0.5:
            # with strong dissipation the energy envelope (max over 0.1 s windows) falls
            w = 100
            env = np.array([Er[i:i + w].max() for i in range(0, len(Er) - w + 1, w)])
            assert np.all(np.diff(env) <= 1e-9 * Kr)
    # more dissipation as ρ∞ falls
    assert 0 < losses[0] < losses[1] < losses[2]


@pytest.mark.parametrize("n", [3, 8])
def test_dynamic_cantilever_oscillates_about_static_sag(n):
    fig = case.run(n_elements=n, analysis="dynamic", t_end_s=0.5, dt_s=1e-3, rho_inf=0.8)
    ref = case.reference()["tip_z_m"]
    # dropped from rest: the tip swings to ≈ 2× the static sag (undamped step response)
    assert 1.8 < fig["tip_z_min_m"] / ref < 2.05
    assert fig["max_residual_constraints"] < 1e-11


def _free_cable(n: int):
    """A free steel cable of ``n`` elements (model, group), for the kernel checks."""
    m = fem.Model()
    grp, _ = fem.straight_cable(m, (0, 0, 0), (2, 0, 0), n, fem.Material(2.1e11, 0.3, 7850),
                                4e-4, 1.3e-8)
    return m, grp


@pytest.mark.compiled
def test_compiled_kernel_matches_the_numpy_reference():
    # issue 12: the numba kernel and the NumPy form agree to round-off at a large,
    # arbitrary deformation (forces and tangent)
    from fem.elements import kernels

    if not kernels.available():
        pytest.skip("numba not available (FEM_NO_JIT or not installed)")
    m, grp = _free_cable(7)
    q = m.q0[grp.dofs] + 0.2 * np.random.default_rng(3).standard_normal(grp.dofs.shape)
    fam = grp.family
    f_ref, K_ref = fam.forces_numpy(q, tangent=True)
    f, K = fam.forces(q, tangent=True)
    assert np.abs(f - f_ref).max() <= 1e-12 * np.abs(f_ref).max()
    assert np.abs(K - K_ref).max() <= 1e-12 * np.abs(K_ref).max()
    f2, K2 = fam.forces(q)
    assert K2 is None and np.array_equal(f2, f)


@pytest.mark.compiled
def test_compiled_gather_scatter_matches_the_numpy_assembly():
    # issue 12: add_forces gathers q[dofs] and scatters f into the global vector inside
    # the kernel; the generic path (forces_numpy + np.bincount) is the reference
    from fem.elements import ElementFamily, kernels

    if not kernels.available():
        pytest.skip("numba not available (FEM_NO_JIT or not installed)")
    m, grp = _free_cable(9)
    q = m.q0 + 0.2 * np.random.default_rng(5).standard_normal(m.n_dof)
    fam = grp.family
    fam.use_kernel = False
    out_ref = np.full(m.n_dof, 0.5)            # contributions add to what is there
    K_ref = ElementFamily.add_forces(fam, q, None, grp.dofs, out_ref, tangent=True)
    fam.use_kernel = True
    out = np.full(m.n_dof, 0.5)
    K = fam.add_forces(q, None, grp.dofs, out, tangent=True)
    assert np.abs(out - out_ref).max() <= 1e-12 * np.abs(out_ref).max()
    assert np.abs(K - K_ref).max() <= 1e-12 * np.abs(K_ref).max()
    out2 = np.full(m.n_dof, 0.5)
    assert fam.add_forces(q, None, grp.dofs, out2) is None
    assert np.array_equal(out2, out)
