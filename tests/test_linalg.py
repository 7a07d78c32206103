"""The linear-algebra layer (fem.assembly.linalg): every storage gives the same matrix and solution,
the storage choice follows the pattern, singular matrices are named."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import fem
from fem.assembly.linalg import Factorization, Pattern, choose_storage
from fem.core.errors import SingularMatrixError


def _chain_pattern(n_blocks: int, b: int = 6, rng=None):
    """Overlapping b×b blocks along a chain (a cable's stiffness), plus a clamp's saddle
    rows, in a shuffled numbering so that the band must be found by the ordering."""
    rng = rng or np.random.default_rng(0)
    n = (n_blocks + 1) * (b // 2)
    rows, cols = [], []
    for e in range(n_blocks):
        d = np.arange(e * (b // 2), e * (b // 2) + b)
        rows.append(np.repeat(d, b))
        cols.append(np.tile(d, b))
    m = b // 2
    for k in range(m):                    # constraint rows n…n+m−1 on the first coordinates
        rows += [np.array([n + k]), np.array([k])]
        cols += [np.array([k]), np.array([n + k])]
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    N = n + m
    shuffle = rng.permutation(N)
    return N, shuffle[rows], shuffle[cols]


def test_storages_assemble_the_same_matrix_and_solve_alike():
    rng = np.random.default_rng(1)
    N, rows, cols = _chain_pattern(40, rng=rng)
    vals = rng.standard_normal(rows.size)
    # make the coordinate block diagonally dominant (as M/h²β + K is)
    vals[rows == cols] += 50.0
    ref = sp.coo_matrix((vals, (rows, cols)), shape=(N, N)).toarray()
    b = rng.standard_normal(N)
    x_ref = np.linalg.solve(ref, b)
    for kind in ("dense", "banded", "sparse"):
        A = Pattern((N, N), rows, cols, kind=kind)(vals)
        dense = A if isinstance(A, np.ndarray) else A.toarray()
        np.testing.assert_allclose(dense, ref, rtol=0, atol=1e-13)
        x = Factorization(A).solve(b)
        np.testing.assert_allclose(x, x_ref, rtol=1e-10, atol=1e-12)
    banded = Pattern((N, N), rows, cols, kind="banded")
    assert banded.kind == "banded" and banded.kl <= 10 and banded.ku <= 10, \
        "the RCM ordering must recover the chain's narrow band from a shuffled numbering"


def test_storage_choice_follows_the_pattern():
    N, rows, cols = _chain_pattern(200)
    assert choose_storage(N, rows, cols)[0] == "banded"
    # a dense coupling (every coordinate to every other): no band pays
    n = 400
    r, c = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    assert choose_storage(n, r.ravel(), c.ravel())[0] == "sparse"
    assert choose_storage(50, r[:50, :50].ravel(), c[:50, :50].ravel())[0] == "dense"
    with pytest.raises(ValueError, match="storage"):
        choose_storage(10, rows[:3], cols[:3], "skyline")


def test_operation_counts_follow_the_factors_not_the_clock():
    """``Factorization.operations`` (the factorization policy's clock-free cost): the
    textbook counts for dense and band LU, and SuperLU's own factors on a tridiagonal
    matrix (COLAMD keeps it nearly fill-free: 3 flops per column, 3 entries per row)."""
    n = 400
    T = sp.diags([-np.ones(n - 1), 4.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1],
                 format="csr")
    flops, solve = Factorization(T).operations()
    assert Factorization(T).kind == "sparse"
    assert 3.0 * (n - 1) <= flops <= 3.1 * n and 2.0 * (3 * n - 2) <= solve <= 6.2 * n
    assert Factorization(T.toarray()).operations() == (2.0 / 3.0 * n**3, 2.0 * n * n)
    N, rows, cols = _chain_pattern(60)
    vals = np.random.default_rng(2).standard_normal(rows.size)
    vals[rows == cols] += 50.0
    B = Pattern((N, N), rows, cols, kind="banded")(vals)
    kl, ku = B.kl, B.ku
    assert Factorization(B).operations() == (2.0 * N * kl * (kl + ku + 1),
                                             2.0 * N * (2 * kl + ku + 1))


def test_beam_iteration_matrix_is_banded_and_solves_like_superlu():
    # calibrated choice (SPARSE_FLOPS_PER_UNKNOWN): a 32-element ANCF beam's saddle
    # matrix (408 unknowns, band 34) factorizes 2.5x faster banded than with SuperLU
    model = fem.Model("beam", gravity=(0, 0, -9.81))
    _, nodes = fem.straight_beam(model, (0, 0, 0), (1, 0, 0), 32,
                                 fem.Material(2.1e11, 0.3, 7850), section="rectangle",
                                 width=0.03, height=0.02)
    model.fix(nodes[0])
    asm = model.assemble()
    assert asm.n + asm.m > 300 and asm._pat_S.kind == "banded"
    q = asm.q0 + 1e-3 * np.random.default_rng(0).standard_normal(asm.n)
    kv = asm.internal_forces(q, None, tangent=True)[1]
    args = (1.0, 1e-4, kv, asm.hessian_values(np.zeros(asm.m), q), asm.jacobian_values(q))
    b = np.random.default_rng(1).standard_normal(asm.n + asm.m)
    x = Factorization(asm.saddle(*args, q=q)).solve(b)
    S = sp.csr_matrix(asm.saddle(*args, q=q).toarray())
    x_ref = spla.splu(S.tocsc()).solve(b)
    assert np.abs(x - x_ref).max() <= 1e-9 * np.abs(x_ref).max()


@pytest.mark.parametrize("kind", ["dense", "banded", "sparse"])
def test_singular_matrix_is_named(kind):
    N, rows, cols = _chain_pattern(60)
    vals = np.ones(rows.size)
    vals[rows == cols] = 10.0
    Factorization(Pattern((N, N), rows, cols, kind=kind)(vals), "test matrix")  # regular
    # zero one coordinate's row and column: a coordinate without mass or stiffness
    k = int(rows[0]) if int(rows[0]) < N - 3 else 0
    vals = vals.copy()
    vals[(rows == k) | (cols == k)] = 0.0
    A = Pattern((N, N), rows, cols, kind=kind)(vals)
    with pytest.raises(SingularMatrixError, match="test matrix is singular"):
        Factorization(A, "test matrix")


def test_cable_dynamics_identical_across_storages():
    """The same falling cantilever, iteration matrix stored banded (chosen) and dense."""
    tips = {}
    for dense in (None, True):
        model = fem.Model("cantilever", gravity=(0, 0, -9.81))
        sec = fem.rectangle_section(0.02, 0.02)
        _, nodes = fem.straight_cable(model, (0, 0, 0), (2.0, 0, 0), 12,
                                      fem.Material(2.1e11, 0.3, 7850), sec["area"],
                                      sec["iy"])
        model.fix(nodes[0])
        asm = model.assemble(dense=dense)
        if dense is None:
            assert asm._pat_S.kind == "banded"
        res = fem.simulate(model, 0.05, 1e-3, rho_inf=0.8, tol=1e-8)
        tips[dense] = res.q[:, model.node_dofs(nodes[-1])[2]]
    np.testing.assert_allclose(tips[None], tips[True], rtol=1e-9, atol=1e-12)
    assert abs(tips[None][-1]) > 1e-4


def test_matvec_matches_the_sparse_product():
    from fem.assembly.linalg import matvec

    rng = np.random.default_rng(5)
    A = sp.random(300, 300, density=0.05, random_state=7, format="csr")
    x = rng.standard_normal(300)
    np.testing.assert_allclose(matvec(A)(x), A @ x, rtol=1e-14, atol=1e-14)
    D = A.toarray()
    np.testing.assert_allclose(matvec(D)(x), D @ x, rtol=1e-14, atol=1e-14)


@pytest.mark.compiled
def test_compiled_substitution_matches_lapack_dense_and_banded():
    """The compiled substitution of compiled Newton loops (issue 23) solves as LAPACK's
    getrs/gbtrs do, to round-off, pivoting included."""
    import scipy.linalg as sla

    from fem.assembly.linalg import Factorization, Pattern, substitution_kernels

    kernels = substitution_kernels()
    if kernels is None:
        pytest.skip("numba missing or off")
    dense_solve, band_solve = kernels
    rng = np.random.default_rng(7)
    n = 40
    A = rng.normal(size=(n, n))                    # pivots off the diagonal
    b = rng.normal(size=n)
    kind, lu, piv, *_ = Factorization(A).substitution_data()
    x = b.copy()
    dense_solve(lu, piv, x)
    x_ref = sla.lu_solve(sla.lu_factor(A), b)
    assert kind == 0 and np.abs(x - x_ref).max() <= 1e-12 * np.abs(x_ref).max()
    rows, cols = np.nonzero(np.abs(np.subtract.outer(np.arange(n), np.arange(n))) <= 3)
    vals = rng.normal(size=rows.size)             # a band, unsymmetric, pivoting
    B = Pattern((n, n), rows, cols, kind="banded")(vals)
    dense = B.toarray()                           # before: the LU overwrites the band
    F = Factorization(B)
    kind, lu, piv, kl, ku, perm = F.substitution_data()
    x = np.empty(n)
    band_solve(lu, kl, ku, piv, perm, b, x)
    x_ref = np.linalg.solve(dense, b)
    assert kind == 1 and np.abs(x - x_ref).max() <= 1e-10 * np.abs(x_ref).max()
    assert np.abs(F.solve(b) - x).max() <= 1e-12 * np.abs(x_ref).max()


@pytest.mark.compiled
def test_compiled_band_lu_is_lapacks():
    """The compiled band LU of compiled Newton loops (issue 23) pivots as LAPACK's gbtrf,
    its factors and solves equal gbtrf's to round-off in gbtrf's layout (so
    ``Factorization`` and the compiled substitution take them), on an unsymmetric band
    that pivots and on a saddle matrix (zero block, pivots forced off the diagonal);
    a singular band fails the pivot test."""
    import scipy.linalg as sla

    from fem.assembly.linalg import BandedMatrix, band_lu_kernel

    lu_kernel = band_lu_kernel()
    if lu_kernel is None:
        pytest.skip("numba missing or off")
    rng = np.random.default_rng(3)
    n = 60
    d = np.subtract.outer(np.arange(n), np.arange(n))
    rows, cols = np.nonzero((d <= 4) & (d >= -2))
    band = Pattern((n, n), rows, cols, kind="banded")(rng.normal(size=rows.size))
    K = rng.normal(size=(n, n))                       # a chain's saddle: [[K, Jᵀ], [J, 0]]
    K = np.where(np.abs(d) <= 5, K + K.T, 0.0) + 20.0 * np.eye(n)
    J = np.zeros((6, n))
    J[np.arange(6), np.arange(6)] = 1.0
    S = np.block([[K, J.T], [J, np.zeros((6, 6))]])
    r, c = np.nonzero(S)
    saddle = Pattern(S.shape, r, c, kind="banded")(S[r, c])
    for B in (band, saddle):
        A = B.toarray()
        ref = Factorization(BandedMatrix(B.ab.copy(order="F"), B.kl, B.ku, B.perm))
        ab, piv = B.ab.copy(order="F"), np.zeros(A.shape[0], np.int32)
        assert lu_kernel(ab, B.kl, B.ku, piv)
        assert np.array_equal(piv, ref.piv) and (piv != np.arange(piv.size)).any()
        assert np.abs(ab - ref.lu).max() <= 1e-12 * np.abs(ref.lu).max()   # 2e-14
        b = rng.normal(size=A.shape[0])
        x = Factorization.of_banded(ab, piv, B.kl, B.ku, B.perm).solve(b)
        x_ref = sla.solve(A, b)
        assert np.abs(x - x_ref).max() <= 1e-12 * np.abs(x_ref).max()
        assert np.abs(x - ref.solve(b)).max() <= 1e-13 * np.abs(x_ref).max()
    singular = BandedMatrix(band.ab.copy(order="F"), band.kl, band.ku, band.perm)
    singular.ab[band.kl + band.ku, :] = 0.0                    # zero diagonal …
    singular.ab[band.kl + band.ku + 1:, :] = 0.0               # … and nothing below it
    assert not lu_kernel(singular.ab, band.kl, band.ku, np.zeros(n, np.int32))
