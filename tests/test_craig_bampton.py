"""Craig–Bampton reduction and assembly (fem.reduction) against the unreduced models.

The reference of every comparison is an independent solution: the full finite-element
model of the same structure (not reduced), closed forms of Euler–Bernoulli theory, or
the exact solution of a single-degree-of-freedom oscillator.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

import fem
from fem.reduction import (
    ComponentAssembly,
    constrain,
    craig_bampton,
    frame_cms,
    generalized_eigen,
    linearize,
    newmark,
    null_space_basis,
)
from fem.reduction.frames import Frame, rectangle

E, RHO = 2.0e11, 7800.0


def _portal():
    """A hinged portal frame with a cantilevered arm, a pinned brace and two masses,
    in three substructures (columns+beam, arm, brace)."""
    fr = Frame("xz")
    a, b = fr.add_node(0, 0), fr.add_node(0, 2)
    c, d = fr.add_node(3, 2), fr.add_node(3, 0)
    e = fr.add_node(4.5, 2.5)
    s1, s2 = rectangle(0.1, 0.1, 0.005), rectangle(0.06, 0.06, 0.004)
    g1 = (fr.add_member(a, b, E, RHO, s1, n_elements=6)
          + fr.add_member(b, c, E, RHO, s1, n_elements=8, hinge_j=True)
          + fr.add_member(d, c, E, RHO, s1, n_elements=6))
    g2 = fr.add_member(c, e, E, RHO, s2, n_elements=8)
    g3 = fr.add_member(a, c, E, RHO, s2, n_elements=6, hinge_i=True, hinge_j=True)
    fr.fix(a)
    fr.fix(d, ("x", "z"))
    fr.add_mass(e, 5.0)
    fr.add_mass(b, 2.0)
    return fr, {"portal": g1, "arm": g2, "brace": g3}


def test_cms_converges_monotonically_to_the_full_model():
    fr, groups = _portal()
    f_full = fr.modes(3).frequencies_hz
    errors = []
    for k in range(0, 9):
        f = frame_cms(fr, groups, k).modes(3).frequencies_hz
        errors.append(f / f_full - 1)
    errors = np.array(errors)
    assert np.all(errors > -1e-9)                       # Rayleigh–Ritz: from above
    assert np.all(np.diff(errors, axis=0) <= 1e-9)       # falls as modes are added
    assert errors[0].max() > 1e-3                        # Guyan alone is not enough
    assert np.all(errors[-1] < 1e-3)                     # 0.1 % with 8 modes
    # all interior modes kept: the reduction is exact
    f_all = frame_cms(fr, groups, 10_000).modes(3).frequencies_hz
    np.testing.assert_allclose(f_all, f_full, rtol=1e-9)


def test_guyan_reduction_is_statically_exact_for_boundary_loads():
    fr, groups = _portal()
    M, K = fr.matrices()
    free = fr.active_dofs(M, K)
    f = np.zeros(fr.n_dof)
    tip = fr.dof(4, "z")
    f[tip] = -1000.0
    u = np.zeros(fr.n_dof)
    u[free] = sp.linalg.spsolve(K[free][:, free].tocsc(), f[free])
    cms = frame_cms(fr, groups, 0)
    Mr, Kr = cms.assembly.matrices()
    fr_ = np.zeros(cms.assembly.n_total)
    fr_[np.flatnonzero(cms.interface_dofs == tip)] = -1000.0
    x = np.linalg.solve(Kr, fr_[cms.assembly.free()])
    np.testing.assert_allclose(cms.expand(x), u, atol=1e-12 * np.abs(u).max())


def test_cantilever_reduced_to_its_tip_matches_closed_form():
    L, sec = 2.0, rectangle(0.04, 0.04, 0.003)
    fr = Frame("xz")
    a, b = fr.add_node(0, 0), fr.add_node(L, 0)
    fr.add_member(a, b, E, RHO, sec, n_elements=40)
    fr.fix(a)
    M, K = fr.matrices()
    free = fr.active_dofs(M, K)
    tip = np.flatnonzero(np.isin(free, [fr.dof(b, d) for d in ("x", "z", "ry")]))
    comp = craig_bampton(M[free][:, free], K[free][:, free], tip, 6)
    w2, _ = generalized_eigen(comp.M, comp.K, 6)
    f = np.sqrt(w2) / (2 * np.pi)
    lam = np.array([1.875104068711961, 4.694091132974175, 7.854757438237613])
    f_ref = lam**2 / L**2 * np.sqrt(E * sec["iy"] / (RHO * sec["area"])) / (2 * np.pi)
    bending = [np.min(np.abs(f / r - 1)) for r in f_ref]
    assert max(bending) < 1e-3, (f, f_ref)


def test_null_space_coupling_equals_shared_interface_coordinates():
    """Two halves of a clamped–clamped beam, coupled by B q = 0 (seed eqs 22–25) and by
    shared interface coordinates: same frequencies, and the clamped–clamped closed form."""
    L, sec = 2.0, rectangle(0.05, 0.05, 0.004)
    fr = Frame("xz")
    nodes = [fr.add_node(x, 0) for x in (0.0, L / 2)]
    fr.add_member(nodes[0], nodes[1], E, RHO, sec, n_elements=20)
    M, K = fr.matrices()
    keep = np.array([fr.dof(nodes[1], d) for d in ("x", "z", "ry")])
    interior = np.setdiff1d(np.arange(fr.n_dof), np.r_[[fr.dof(nodes[0], d)
                                                      for d in ("x", "z", "ry")], keep])
    idx = np.r_[keep, interior]
    Mh, Kh = M[idx][:, idx], K[idx][:, idx]
    left = craig_bampton(Mh, Kh, [0, 1, 2], 6)
    # the right half is the mirror image: x -> -x flips u_x and ry
    S = sp.diags(np.tile([-1.0, 1.0, -1.0], len(idx) // 3))
    right = craig_bampton(S @ Mh @ S, S @ Kh @ S, [0, 1, 2], 6)
    asm = ComponentAssembly(3)
    asm.add(left, [0, 1, 2])
    asm.add(right, [0, 1, 2])
    f_shared = asm.modes(4).frequencies_hz
    # stacked coordinates [left (9), right (9)]; B: left boundary = right boundary
    Mb = sla.block_diag(left.M, right.M)
    Kb = sla.block_diag(left.K, right.K)
    B = np.zeros((3, 18))
    B[:, :3] = np.eye(3)
    B[:, 9:12] = -np.eye(3)
    Mq, Kq, D = constrain(Mb, Kb, B)
    assert D.shape == (18, 15) and np.abs(B @ D.toarray()).max() < 1e-14
    f_null = np.sqrt(generalized_eigen(Mq, Kq, 4)[0]) / (2 * np.pi)
    np.testing.assert_allclose(f_null, f_shared, rtol=1e-10)
    lam = np.array([4.730040744862704, 7.853204624095838])
    f_ref = lam**2 / L**2 * np.sqrt(E * sec["iy"] / (RHO * sec["area"])) / (2 * np.pi)
    for r in f_ref:
        assert np.min(np.abs(f_shared / r - 1)) < 1e-3


def test_null_space_basis_of_a_rank_deficient_B():
    B = np.array([[1.0, -1.0, 0, 0], [0, 1.0, -1.0, 0], [1.0, 0, -1.0, 0]])   # rank 2
    D = null_space_basis(B)
    assert D.shape == (4, 2)
    assert np.abs(B @ D.toarray()).max() < 1e-14
    assert np.linalg.matrix_rank(D.toarray()) == 2


def _load_case(name):
    path = Path(__file__).resolve().parents[1] / "cases" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_test_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_reduction_of_a_linearized_ancf_cantilever():
    """The same reduction on an ANCF cable (3D, positions and slopes) linearized about its
    straight reference state: converges to the unreduced model's modes from above."""
    cc = _load_case("cantilever_cable")
    model = cc.build(n_elements=10, gravity=False)
    M, K, free = linearize(model)
    f_full = fem.modes(model, n_modes=4).frequencies_hz
    ends = model.node_dofs(model.node("tip"), ("r", "r_x"))
    tip = np.flatnonzero(np.isin(free, ends))
    assert len(tip) == 6
    prev = np.inf
    for k in (0, 2, 4, 8):
        c = craig_bampton(M, K, tip, k)
        f = np.sqrt(generalized_eigen(c.M, c.K, 4)[0]) / (2 * np.pi)
        err = f / f_full - 1
        assert np.all(err > -1e-9) and err.max() <= prev + 1e-12
        prev = err.max()
    assert prev < 1e-3


def test_newmark_matches_the_exact_oscillator():
    w = 2 * np.pi * 3.0
    t, q = newmark(np.eye(1), np.eye(1) * w**2, lambda t: np.zeros(1), 1e-4, 5000,
                   q0=[1.0])
    np.testing.assert_allclose(q[:, 0], np.cos(w * t), atol=2e-3)


@pytest.mark.parametrize("bad", [
    lambda: craig_bampton(np.eye(3), np.eye(3), [0, 5], 1),
    lambda: craig_bampton(np.eye(3), np.eye(3), [0, 0], 1),
    lambda: craig_bampton(np.eye(3), np.eye(3), [0], 5),
    lambda: craig_bampton(np.eye(3), np.eye(2), [0], 1),
    lambda: craig_bampton(np.eye(2), np.array([[1.0, -1.0], [-1.0, 1.0]]) * 0, [0], 1),
    lambda: ComponentAssembly(2).add(craig_bampton(np.eye(3), np.eye(3), [0], 1), [0, 1]),
    lambda: frame_cms(_portal()[0], {"all": [0, 1]}, 2),
])
def test_bad_input_raises_model_error(bad):
    with pytest.raises(fem.ModelError):
        bad()
