"""The linear-algebra layer: matrix storage chosen once per pattern, one factorization API.

Solvers never decide how a matrix is stored or factorized.  They assemble through a
:class:`Pattern` and call :func:`factorize` (or :class:`Factorization`) on what it
returns; this module picks, by measurement (``docs/performance.md``):

``dense``
    LAPACK ``getrf``/``getrs`` for systems up to :data:`DENSE_LIMIT` unknowns.
``banded``
    LAPACK ``gbtrf``/``gbtrs`` on a reverse Cuthill–McKee ordering computed once from the
    pattern, when the ordered bandwidth is narrow (chains of cables and beams).  The
    contributions are summed straight into LAPACK band storage: no CSR, no symbolic
    analysis at run time.
``sparse``
    SuperLU with COLAMD otherwise (plate meshes, whose constraint rows couple far apart
    coordinates).

Every factorization raises :class:`~fem.core.errors.SingularMatrixError` with the matrix's
name on a zero or negligible pivot, whatever the storage.
"""

from __future__ import annotations

import os

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..core.errors import SingularMatrixError
from ..core.jit import compiled

__all__ = ["DENSE_LIMIT", "SPARSE_FLOPS_PER_UNKNOWN", "BandedMatrix", "Factorization",
           "Pattern", "band_lu_kernel", "choose_storage", "dense_lu_kernel", "factorize",
           "matvec", "substitution_kernels"]

DENSE_LIMIT = 300
"""Systems with at most this many unknowns are stored and factorized densely, unless the
pattern has a narrow band.  Measured: the flagship robot (228 unknowns) runs fastest
dense; at 534 unknowns a dense LU alone is faster than SuperLU (2.4 vs 3.2 ms) but the
whole run is slower dense (3.5 vs 2.8 s)."""

SPARSE_FLOPS_PER_UNKNOWN = 7200.0
"""SuperLU's factorization time per unknown on fill-free (chain) patterns, in flops of a
LAPACK band LU on one core: measured 1.2–2.2 µs per unknown for SuperLU on cable and
beam iteration matrices of 396–1560 unknowns, and ≈ 6 Gflop/s for ``gbtrf``
(``docs/performance.md``).  Plate patterns fill in and cost SuperLU far more per
unknown; their bands are hundreds wide and never pass this test."""

STORAGE = os.environ.get("FEM_STORAGE") or None
"""Force one storage for every automatically chosen pattern (``dense``, ``banded`` or
``sparse``); for measurements only (environment variable ``FEM_STORAGE``)."""

_getrf, _getrs = sla.get_lapack_funcs(("getrf", "getrs"), (np.zeros(1),))
_gbtrf, _gbtrs = sla.get_lapack_funcs(("gbtrf", "gbtrs"), (np.zeros(1),))


# ================================================================ storage choice
def _rcm(n: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    from scipy.sparse.csgraph import reverse_cuthill_mckee
    A = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    A = (A + A.T).tocsr()
    return np.asarray(reverse_cuthill_mckee(A, symmetric_mode=True), dtype=np.int64)


def choose_storage(n: int, rows: np.ndarray, cols: np.ndarray,
                   kind: str | None = None) -> tuple[str, np.ndarray | None]:
    """Storage of a square ``n × n`` pattern with entries at ``(rows, cols)``.

    Returns ``(kind, perm)``: ``perm`` is the RCM ordering for ``"banded"``, else None.
    A band pays when its LU (``≈ 2 n kl (kl + ku)`` flops, no indexing) is cheaper than
    the alternative: below :data:`DENSE_LIMIT` a quarter of the dense LU (``⅔ n³``);
    above it SuperLU's floor, :data:`SPARSE_FLOPS_PER_UNKNOWN` band flops per unknown
    (calibrated on cable, beam and plate iteration matrices, ``docs/performance.md``).
    The floor is what SuperLU costs on a fill-free chain, so a band is chosen only where
    it is sure to be faster.
    """
    if kind is not None and kind not in ("dense", "banded", "sparse"):
        raise ValueError(f"storage must be 'dense', 'banded' or 'sparse', not {kind!r}")
    if kind == "dense" or (kind is None and n <= 24):
        return "dense", None
    if kind == "sparse":
        return "sparse", None
    perm = _rcm(n, rows, cols)
    inv = np.empty_like(perm)
    inv[perm] = np.arange(n)
    d = inv[rows] - inv[cols]
    kl = int(max(d.max(initial=0), 0))
    ku = int(max((-d).max(initial=0), 0))
    if kind == "banded":
        return "banded", perm
    band_flops = 2.0 * n * (kl + 1) * (kl + ku + 1)
    other = 0.25 * (2.0 / 3.0) * n**3 if n <= DENSE_LIMIT else SPARSE_FLOPS_PER_UNKNOWN * n
    if band_flops <= other:
        return "banded", perm
    return ("dense" if n <= DENSE_LIMIT else "sparse"), None


# ================================================================ banded matrices
class BandedMatrix:
    """A square matrix in LAPACK band storage for ``gbtrf``, in a symmetric permutation.

    ``ab[kl + ku + i − j, j] = A[perm[i], perm[j]]`` (rows ``0…kl−1`` are the LU's
    fill space); ``ab`` is Fortran-ordered.
    """

    def __init__(self, ab: np.ndarray, kl: int, ku: int, perm: np.ndarray):
        self.ab, self.kl, self.ku, self.perm = ab, kl, ku, perm
        n = ab.shape[1]
        self.shape = (n, n)

    def toarray(self) -> np.ndarray:
        n, kl, ku = self.shape[0], self.kl, self.ku
        P = np.zeros((n, n))
        for d in range(-kl, ku + 1):          # d = j − i
            j = np.arange(max(d, 0), min(n, n + d))
            P[j - d, j] = self.ab[kl + ku - d, j]
        A = np.empty_like(P)
        A[np.ix_(self.perm, self.perm)] = P
        return A


# ================================================================ patterns
class Pattern:
    """Fixed positions of a list of contributions in an (n × m) matrix.

    ``Pattern(shape, rows, cols, dense)(values)`` returns the matrix with ``values[k]``
    added at ``(rows[k], cols[k])`` (duplicates summed): a dense array or a CSR matrix as
    ``dense`` says, or the storage named by ``kind`` (``"dense"``, ``"sparse"``,
    ``"banded"``: a :class:`BandedMatrix`; ``"auto"``: chosen by
    :func:`choose_storage`).  The index of every contribution
    into the storage is computed once; assembling is one ``np.bincount``.
    """

    def __init__(self, shape: tuple[int, int], rows: np.ndarray, cols: np.ndarray,
                 dense: bool = False, kind: str | None = None):
        self.shape = shape
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        if kind is None:                # the two-way switch of the ``dense`` flag
            kind = "dense" if dense else "sparse"
        elif kind == "auto":
            kind = STORAGE or "auto"
        if shape[0] != shape[1] and kind != "dense":
            kind = "sparse"
        perm = None
        if kind in ("auto", "banded"):
            kind, perm = choose_storage(shape[0], rows, cols,
                                        None if kind == "auto" else kind)
        self.kind = kind
        self.dense = kind == "dense"
        self.n_contrib = rows.size
        if kind == "dense":
            self.index = rows * shape[1] + cols
            self.size = shape[0] * shape[1]
        elif kind == "banded":
            n = shape[0]
            inv = np.empty_like(perm)
            inv[perm] = np.arange(n)
            i, j = inv[rows], inv[cols]
            d = i - j
            self.kl = kl = int(max(d.max(initial=0), 0))
            self.ku = ku = int(max((-d).max(initial=0), 0))
            self.ldab = ldab = 2 * kl + ku + 1
            self.perm = perm
            self.index = j * ldab + (kl + ku + i - j)     # Fortran order of (ldab, n)
            self.size = ldab * n
        else:
            keys = rows * shape[1] + cols
            uniq, inv = np.unique(keys, return_inverse=True)
            self.index = inv.ravel()
            self.size = uniq.size
            urows = uniq // shape[1]
            self.indices = (uniq % shape[1]).astype(np.int32)
            self.indptr = np.searchsorted(urows, np.arange(shape[0] + 1)).astype(np.int32)

    def __call__(self, values: np.ndarray):
        data = np.bincount(self.index, weights=values, minlength=self.size)
        if self.kind == "dense":
            return data.reshape(self.shape)
        if self.kind == "banded":
            ab = data.reshape(self.shape[0], self.ldab).T       # Fortran-ordered view
            return BandedMatrix(ab, self.kl, self.ku, self.perm)
        return sp.csr_matrix((data, self.indices, self.indptr), shape=self.shape)


# ================================================================ factorizations
class Factorization:
    """LU factorization of a square matrix (dense, banded or sparse) with a clear singular
    error.  A sparse matrix of at most :data:`DENSE_LIMIT` rows is factorized densely.

    ``hint`` is appended to the :class:`~fem.core.errors.SingularMatrixError` message; the
    default names the structural causes, which is right for a matrix at a given state.
    Newton solvers catch the error and diagnose from the iteration's evidence instead.
    """

    STRUCTURAL = ("look for redundant constraints, unconstrained rigid motions or "
                  "coordinates without mass/stiffness")

    def __init__(self, A, what: str = "system matrix", hint: str | None = STRUCTURAL):
        tail = f"; {hint}" if hint else ""
        self.shape = A.shape
        if sp.issparse(A) and A.shape[0] <= DENSE_LIMIT:
            A = A.toarray()
        if isinstance(A, BandedMatrix):
            self.kind = "banded"
            self.A = A
            lu, piv, info = _gbtrf(A.ab, A.kl, A.ku, overwrite_ab=1)
            d = np.abs(lu[A.kl + A.ku])
            self._check(info, d, what, tail)
            self.lu, self.piv = lu, piv
        elif isinstance(A, np.ndarray):
            self.kind = "dense"
            if A.ndim != 2 or A.shape[0] != A.shape[1] or A.dtype.kind not in "fiub":
                raise SingularMatrixError(f"{what} is singular (not a square real "
                                          f"matrix: {A.shape}, {A.dtype}){tail}")
            # LAPACK getrf directly: scipy's lu_factor adds ≈ 10 µs of checks per call,
            # a fifth of a small model's factorization (issue 23)
            lu, piv, info = _getrf(A, overwrite_a=False)
            if info > 0:
                raise SingularMatrixError(f"{what} is singular (diagonal number {info} "
                                          f"of its LU is exactly zero){tail}")
            self.lu = (lu, piv)
            self._check(0, np.abs(np.diag(lu)), what, tail)
        else:
            self.kind = "sparse"
            try:
                self.lu = spla.splu(A.tocsc(), permc_spec="COLAMD")
            except RuntimeError as err:
                raise SingularMatrixError(f"{what} is singular ({err}){tail}") from None

    @staticmethod
    def _check(info: int, d: np.ndarray, what: str, tail: str) -> None:
        if info > 0 or not np.all(np.isfinite(d)) or d.min() <= 1e-14 * d.max():
            ratio = d.min() / d.max() if np.all(np.isfinite(d)) and d.max() > 0 \
                else float("nan")
            raise SingularMatrixError(f"{what} is singular (pivot ratio {ratio:.1e}){tail}")

    def substitution_data(self) -> tuple | None:
        """``(kind, lu, piv, kl, ku, perm)`` for :func:`substitution_kernels` (kind 0
        dense, 1 banded; ``kl, ku, perm`` unused when dense), for compiled solvers that
        solve inside their own loops; None for a sparse factorization."""
        if self.kind == "dense":
            return 0, self.lu[0], self.lu[1], 0, 0, np.zeros(0, np.int64)
        if self.kind == "banded":
            return 1, self.lu, self.piv, self.A.kl, self.A.ku, self.A.perm
        return None

    def operations(self) -> tuple[float, float]:
        """Floating-point operations of this factorization and of one solve with it.

        Counted from the factors' structure, not timed, so the answer is the same on any
        machine and under any load: dense ``⅔ n³`` and ``2 n²``; banded
        ``2 n kl (kl + ku + 1)`` and ``2 n (2 kl + ku + 1)``; sparse ``Σ_k l_k (1 + 2 u_k)``
        (``l_k``, ``u_k`` the entries below and right of the k-th pivot of SuperLU's L and U)
        and ``2 nnz(L + U)``.  The sparse count reads the factors, which costs about a
        tenth of the factorization: call it once, not per factorization.
        """
        n = self.shape[0]
        if self.kind == "dense":
            return 2.0 / 3.0 * n**3, 2.0 * n * n
        if self.kind == "banded":
            kl, ku = self.A.kl, self.A.ku
            return 2.0 * n * kl * (kl + ku + 1), 2.0 * n * (2 * kl + ku + 1)
        L, U = self.lu.L.tocsc(), self.lu.U.tocsr()
        below = np.diff(L.indptr) - 1            # unit diagonal stored in L
        right = np.diff(U.indptr) - 1
        return float(below @ (1.0 + 2.0 * right)), 2.0 * float(L.nnz + U.nnz - n)

    def solve(self, b: np.ndarray) -> np.ndarray:
        if self.kind == "dense":
            x, _ = _getrs(self.lu[0], self.lu[1], b)
            return x
        if self.kind == "banded":
            p = self.A.perm
            y, _ = _gbtrs(self.lu, self.A.kl, self.A.ku, b[p], self.piv)
            x = np.empty_like(y)
            x[p] = y
            return x
        return self.lu.solve(b)


    @classmethod
    def of_dense(cls, lu: np.ndarray, piv: np.ndarray) -> Factorization:
        """A dense factorization from LU factors made elsewhere (``getrf``'s layout:
        :func:`dense_lu_kernel` inside a compiled Newton loop); the arrays are shared,
        not copied."""
        self = cls.__new__(cls)
        self.shape = lu.shape
        self.kind = "dense"
        self.lu = (lu, piv)
        return self

    @classmethod
    def of_banded(cls, ab: np.ndarray, piv: np.ndarray, kl: int, ku: int,
                  perm: np.ndarray) -> Factorization:
        """A banded factorization from LU factors made elsewhere (``gbtrf``'s layout and
        pivots, 0-based: :func:`band_lu_kernel` inside a compiled Newton loop) of the
        matrix ordered by ``perm``; the arrays are shared, not copied."""
        self = cls.__new__(cls)
        self.shape = (ab.shape[1], ab.shape[1])
        self.kind = "banded"
        self.A = BandedMatrix(ab, kl, ku, perm)
        self.lu, self.piv = ab, piv
        return self


def factorize(A, what: str = "system matrix",
              hint: str | None = Factorization.STRUCTURAL) -> Factorization:
    """Factorize ``A`` (ndarray, scipy sparse or :class:`BandedMatrix`); see
    :class:`Factorization`."""
    return Factorization(A, what, hint)


@compiled
def dense_lu_kernel(numba):
    """The compiled ``lu(a, piv) -> bool``: LU with partial pivoting of the square ``a``
    in place, in LAPACK ``getrf``'s layout (unit lower triangle below the diagonal, the
    row interchanges in ``piv``, 0-based) and its pivot choice (the first largest
    magnitude of the column); True when the pivots pass :meth:`Factorization._check`'s
    test (finite, smallest > 1e-14 of the largest).  For compiled Newton loops that
    renew their factorization without returning to Python (small dense systems: a
    27-unknown matrix in ≈ 4 µs, where ``Factorization`` costs ≈ 50 µs of calls).
    Right-looking in panels of 8 columns, so the trailing matrix is read once per panel,
    and indexed with unsigned integers, so LLVM vectorizes the updates (a signed index
    may wrap around): 4× the column-at-a-time form at 60–228 unknowns (134: 147 µs,
    228: 590 µs, where LAPACK's ``getrf`` takes 111 and ≈ 430 µs).  None without
    numba."""
    U = np.uint64

    @numba.njit(cache=True)
    def lu(a, piv):   # pragma: no cover - jit
        n = a.shape[0]
        nb = 8        # panels of 8 columns: the trailing matrix is updated once per panel
        for j0 in range(0, n, nb):
            j1 = min(j0 + nb, n)
            for j in range(j0, j1):               # the panel, unblocked
                uj = U(j)
                p = j
                big = abs(a[j, j])
                for i in range(j + 1, n):
                    x = abs(a[U(i), uj])
                    if x > big:
                        big, p = x, i
                piv[j] = p
                if p != j:
                    for c in range(n):
                        a[j, c], a[p, c] = a[p, c], a[j, c]
                d = a[j, j]
                if d == 0.0 or d != d:
                    return False
                r = 1.0 / d                       # as LAPACK's dgetf2
                for i in range(j + 1, n):
                    a[U(i), uj] *= r
                for c in range(j + 1, j1):
                    uc = U(c)
                    x = a[j, c]
                    if x != 0.0:
                        for i in range(j + 1, n):
                            a[U(i), uc] -= a[U(i), uj] * x
            for c in range(j1, n):
                uc = U(c)
                for j in range(j0, j1):           # U₁₂ = L₁₁⁻¹ A₁₂
                    uj = U(j)
                    x = a[j, c]
                    for i in range(j + 1, j1):
                        a[U(i), uc] -= a[U(i), uj] * x
                if j1 - j0 == 8:                  # A₂₂ −= L₂₁ U₁₂, a column at a time
                    u0 = U(j0)
                    x0, x1, x2, x3 = a[j0, c], a[j0 + 1, c], a[j0 + 2, c], a[j0 + 3, c]
                    x4, x5, x6, x7 = a[j0 + 4, c], a[j0 + 5, c], a[j0 + 6, c], a[j0 + 7, c]
                    for i in range(j1, n):
                        ui = U(i)
                        a[ui, uc] -= ((a[ui, u0] * x0 + a[ui, u0 + U(1)] * x1)
                                      + (a[ui, u0 + U(2)] * x2 + a[ui, u0 + U(3)] * x3)
                                      + ((a[ui, u0 + U(4)] * x4 + a[ui, u0 + U(5)] * x5)
                                         + (a[ui, u0 + U(6)] * x6
                                            + a[ui, u0 + U(7)] * x7)))
                else:
                    for j in range(j0, j1):
                        uj = U(j)
                        x = a[j, c]
                        for i in range(j1, n):
                            a[U(i), uc] -= a[U(i), uj] * x
        dmin = np.inf
        dmax = 0.0
        for j in range(n):
            x = abs(a[j, j])
            if not np.isfinite(x):
                return False
            dmin = min(dmin, x)
            dmax = max(dmax, x)
        return dmin > 1e-14 * dmax

    return lu


@compiled
def band_lu_kernel(numba):
    """The compiled ``lu(ab, kl, ku, piv) -> bool``: LU with partial pivoting of a band
    matrix in place, in LAPACK ``gbtrf``'s storage (``ab`` as :class:`BandedMatrix`
    holds it, its first ``kl`` rows the fill space) and its algorithm (``gbtf2``:
    the first largest magnitude of the column as pivot, interchanges applied within
    the band, multipliers scaled by the pivot's reciprocal, the rank-one update
    skipping zero rows), ``piv`` 0-based; True when the pivots pass
    :meth:`Factorization._check`'s test (the same as :func:`dense_lu_kernel`'s).  For
    compiled Newton loops that renew a banded factorization without returning to
    Python: ≈ 310 µs at 3084 unknowns, band 16 + 16, where ``gbtrf`` takes ≈ 500 µs
    (its unblocked ``gbtf2`` calls BLAS once a column) and the assembly around it
    ≈ 900 µs.  The inner loops index with unsigned integers so that LLVM vectorizes
    them (a signed index may wrap around).  None without numba."""
    U = np.uint64

    @numba.njit(cache=True)
    def lu(ab, kl, ku, piv):   # pragma: no cover - jit
        n = ab.shape[1]
        kv = kl + ku
        for j in range(ku + 1, min(kv, n)):       # fill space of the first columns
            for i in range(kv - j, kl):
                ab[i, j] = 0.0
        ju = 0                                    # the last column U reaches so far
        dmin = np.inf
        dmax = 0.0
        for j in range(n):
            uj = U(j)
            if j + kv < n:
                for i in range(kl):
                    ab[U(i), U(j + kv)] = 0.0
            km = min(kl, n - 1 - j)
            p = 0
            big = abs(ab[kv, j])
            for i in range(1, km + 1):
                x = abs(ab[U(kv + i), uj])
                if x > big:
                    big, p = x, i
            piv[j] = p + j
            d = abs(ab[kv + p, j])        # U's diagonal entry, final from here on
            if d == 0.0 or not np.isfinite(d):
                return False
            dmin = min(dmin, d)
            dmax = max(dmax, d)
            ju = max(ju, min(j + ku + p, n - 1))
            if p != 0:
                for c in range(j, ju + 1):
                    a = U(kv + j - c)
                    uc = U(c)
                    ab[a + U(p), uc], ab[a, uc] = ab[a, uc], ab[a + U(p), uc]
            if km > 0:
                r = 1.0 / ab[kv, j]
                for i in range(kv + 1, kv + km + 1):
                    ab[U(i), uj] *= r
                for c in range(j + 1, ju + 1):
                    uc = U(c)
                    o = kv + j - c
                    y = ab[U(o), uc]
                    if y != 0.0:
                        for i in range(1, km + 1):
                            ab[U(o + i), uc] -= ab[U(kv + i), uj] * y
        return dmin > 1e-14 * dmax

    return lu


@compiled
def substitution_kernels(numba):
    """Forward and back substitution with LAPACK's dense (``getrf``) and band (``gbtrf``)
    LU factors, one right-hand side (numba); None without numba.  For compiled loops
    that solve inside themselves (:mod:`fem.solvers.constant_iteration`): called from
    Python they are slower than LAPACK's ``getrs``/``gbtrs`` (4.8 against 2.4 µs at 60
    unknowns, 77 against 59 µs at 1548), whose wrapper costs less than their
    vectorized substitution saves.  The inner loops index with unsigned integers: numba
    cannot then wrap a negative index around, so LLVM vectorizes them (the same
    operations in the same order: bit-identical; band 16 + 16 at 3084 unknowns 152 →
    74 µs, where ``gbtrs`` takes 104 µs; dense 2.2 → 1.4 µs at 60 unknowns, 30 → 11 µs
    at 228)."""
    U = np.uint64

    @numba.njit(cache=True)
    def dense(lu, piv, b):   # pragma: no cover - jit
        n = b.size
        for i in range(n):                    # row interchanges, in order (laswp)
            p = piv[i]
            if p != i:
                b[i], b[p] = b[p], b[i]
        for j in range(n):                    # unit lower triangle, by columns
            x = b[j]
            if x != 0.0:
                uj = U(j)
                for i in range(j + 1, n):
                    b[U(i)] -= x * lu[U(i), uj]
        for j in range(n - 1, -1, -1):        # upper triangle, by columns
            x = b[j] / lu[j, j]
            b[j] = x
            if x != 0.0:
                uj = U(j)
                for i in range(j):
                    b[U(i)] -= x * lu[U(i), uj]

    @numba.njit(cache=True)
    def banded(ab, kl, ku, piv, perm, b, out):   # pragma: no cover - jit
        n = b.size
        y = np.empty(n)
        for i in range(n):
            y[i] = b[perm[i]]
        kd = kl + ku
        if kl > 0:
            for j in range(n - 1):            # L with its row interchanges
                lm = min(kl, n - j - 1)
                p = piv[j]
                if p != j:
                    y[j], y[p] = y[p], y[j]
                x = y[j]
                if x != 0.0:
                    uj = U(j)
                    for i in range(1, lm + 1):
                        y[U(j + i)] -= x * ab[U(kd + i), uj]
        for j in range(n - 1, -1, -1):        # U: kl + ku superdiagonals
            x = y[j] / ab[kd, j]
            y[j] = x
            if x != 0.0:
                uj = U(j)
                for i in range(max(0, j - kd), j):
                    y[U(i)] -= x * ab[U(kd + i - j), uj]
        for i in range(n):
            out[perm[i]] = y[i]

    return dense, banded


# ================================================================ products


@compiled
def _csr_kernel(numba):
    """The compiled CSR product (numba, cached on disk), or None without numba."""
    @numba.njit(cache=True)
    def csr_matvec(data, indices, indptr, x, y):   # pragma: no cover - jit
        for i in range(indptr.size - 1):
            acc = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                acc += data[k] * x[indices[k]]
            y[i] = acc

    return csr_matvec


def matvec(A):
    """``x ↦ A x`` for a constant matrix, as cheap per call as possible: the dense product,
    or for CSR a compiled loop over its arrays (scipy's ``A @ x`` spends ≈ 10 µs per call
    in dispatch; the cable benchmark multiplies the mass matrix 4000 times).  The
    product equals ``A @ x`` to round-off (summation order within a row)."""
    if isinstance(A, np.ndarray):
        return A.dot
    A = sp.csr_matrix(A, copy=True)
    A.eliminate_zeros()     # a pattern's explicit zeros (mass blocks m ⊗ I₃: two thirds)
    kernel = _csr_kernel()
    if kernel is None:
        return A.__matmul__
    data, indices, indptr, n = A.data, A.indices, A.indptr, A.shape[0]

    def product(x: np.ndarray) -> np.ndarray:
        y = np.empty(n)
        kernel(data, indices, indptr, x, y)
        return y

    return product
