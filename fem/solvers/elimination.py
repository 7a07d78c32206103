"""Constant linear constraint rows eliminated from the compiled loop's linear solve.

The iteration matrix of a system of declared structure (:mod:`fem.solvers.constant_iteration`)
is the saddle ``[[W, Cᵀ], [J, 0]]``: ``W`` the mass, damping and stiffness block, ``J``
the constraint Jacobian, ``C`` the rows' columns (``J`` but on servo rows).  Rows whose
Jacobian is constant and whose column is their row (clamps, couplings, the linear rows
``G q + c(t)`` of the declaration, ``J_L``) can be taken out of the factorized matrix
without changing the solve: with pivot coordinates ``p`` chosen once (``J_L[:, p] = P``
invertible, ``E = P⁻¹``, ``H = E J_L[:, f]`` on the other coordinates ``f``)

    Δq = T Δz + d,    T = [−H; I] (rows p; f),    d_p = E b_L,

and ``Tᵀ J_Lᵀ = 0``, so the rows of ``Tᵀ`` times the first block and the other rows give
the reduced saddle ``[[Tᵀ W T, Tᵀ C_Oᵀ], [J_O T, 0]]`` of ``2 n_L`` unknowns fewer, and
the eliminated multipliers follow from the pivot rows of the first block,
``Pᵀ Δλ_L = (b_q − W Δq − C_Oᵀ Δλ_O)_p``.  The solve is the full one's to round-off.

On the flagship robot (hexagon_6: 159 coordinates, 69 rows of which 51 linear) the
matrix the LU factorizes falls from 228 to 126 unknowns: ≈ 435 → 105 µs a
factorization, for a few µs of transformation (``docs/performance.md``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..assembly.linalg import Factorization
from ..core.jit import compiled

__all__ = ["Elimination", "EliminatedFactorization", "elimination_kernels",
           "linear_rows", "MIN_UNKNOWNS"]

MIN_UNKNOWNS = 64
"""Smallest iteration matrix (unknowns) whose linear rows are eliminated: below, the
LU costs a few µs and the transformation's loops as much as they save."""

TRANSFORM_WEIGHT = 3.0
"""The transformation's operations in units of the dense LU's (hexagon_6: 0.33 M of
them in 66 µs, where the LU runs at ≈ 16 Gflop/s)."""


def linear_rows(structure, m: int) -> np.ndarray:
    """Rows of ``structure`` (:class:`fem.assembly.system.ConstantStructure`) with a
    constant Jacobian that are their own column: no bilinear or product terms, not a
    servo row, a nonzero ``G`` row."""
    G = sp.csr_matrix(structure.jacobian)
    G.sum_duplicates()
    linear = np.abs(G).sum(axis=1).A1 > 0.0
    if structure.bilinear is not None:
        linear[np.asarray(structure.bilinear.row, dtype=np.int64)] = False
    if structure.products is not None:
        linear[np.asarray(structure.products.jrows, dtype=np.int64)] = False
    if structure.servo is not None:
        linear &= np.asarray(structure.servo.keep) != 0.0
    return np.flatnonzero(linear)


def _pivots(J: np.ndarray) -> np.ndarray | None:
    """Pivot columns of the rows of ``J`` (full row rank), one per row in row order,
    by Gaussian elimination that takes the sparsest row left and, among its entries
    within a tenth of its largest, the column with fewest entries left (Markowitz with
    a threshold: ``H`` sparse and bounded); None where the rows are dependent."""
    R = np.array(J, dtype=float)
    scale = np.abs(R).max(axis=1)
    left = list(range(R.shape[0]))
    piv = np.empty(R.shape[0], np.int64)
    while left:
        nnz = [np.count_nonzero(R[i]) for i in left]
        i = left.pop(int(np.argmin(nnz)))
        row = R[i]
        big = np.abs(row).max()
        if not big > 1e-10 * scale[i]:
            return None
        cand = np.flatnonzero(np.abs(row) >= 0.1 * big)
        counts = np.count_nonzero(R[left][:, cand], axis=0) if left else np.zeros(cand.size)
        c = int(cand[int(np.argmin(counts))])
        piv[i] = c
        for k in left:
            if R[k, c] != 0.0:
                R[k] -= (R[k, c] / row[c]) * row
                R[k, c] = 0.0
                R[k, np.abs(R[k]) <= 1e-14 * scale[k]] = 0.0
    return piv


class Elimination:
    """The linear rows of a saddle of ``n`` coordinates and ``m`` rows eliminated (see the
    module docstring), and the compiled kernels' data and work arrays.

    Parameters
    ----------
    J : ndarray (n_L, n)
        The constant Jacobian of the eliminated rows.
    rows : ndarray of int
        Their row numbers among the ``m``.
    n, m : int
        Coordinates and constraint rows of the saddle.

    Attributes
    ----------
    pivots, free : ndarray of int
        The pivot coordinate of each row, and the other coordinates.
    sub : ndarray of int
        The reduced saddle's unknowns (free coordinates, then the other rows' multipliers)
        as indices of the full one.
    E, H : scipy.sparse.csr_matrix
        ``P⁻¹`` (n_L × n_L) and ``P⁻¹ J_L`` on the free coordinates (n_L × n, zero on
        the pivots).
    data : tuple
        The compiled kernels' argument (:func:`elimination_kernels`).
    """

    def __init__(self, J: np.ndarray, rows: np.ndarray, n: int, m: int):
        J = np.asarray(J, dtype=float)
        piv = _pivots(J)
        if piv is None:
            raise ValueError("Elimination: the linear rows are dependent")
        N = n + m
        self.n, self.m, self.N = n, m, N
        self.rows = np.asarray(rows, dtype=np.int64)
        self.pivots = piv
        E = np.linalg.inv(J[:, piv])
        H = E @ J
        H[:, piv] = 0.0
        H[np.abs(H) <= 1e-14 * np.abs(H).max(initial=1.0)] = 0.0
        E[np.abs(E) <= 1e-14 * np.abs(E).max()] = 0.0
        self.E, self.H = sp.csr_matrix(E), sp.csr_matrix(H)
        self.free = np.setdiff1d(np.arange(n), piv)
        others = np.setdiff1d(np.arange(m), self.rows)
        self.sub = np.concatenate([self.free, n + others]).astype(np.int64)
        red = np.full(N, -1, np.int64)
        red[self.sub] = np.arange(self.sub.size)
        nl = piv.size
        ints = (n + self.rows, piv, self.sub, red, self.H.indptr.astype(np.int64),
                self.H.indices.astype(np.int64), self.E.indptr.astype(np.int64),
                self.E.indices.astype(np.int64))
        floats = (self.H.data.astype(float), self.E.data.astype(float), np.zeros(N),
                  np.zeros(self.sub.size))
        self.data = (ints, floats, np.zeros((N, N), order="F"),
                     np.zeros((nl, N), order="F"), np.zeros((N, nl), order="F"))

    @staticmethod
    def empty_data() -> tuple:
        """A :attr:`data` of no rows (the compiled kernels' argument where nothing is
        eliminated: the same types)."""
        i, f = np.zeros(0, np.int64), np.zeros(0)
        # 2 × 2, not empty: an empty matrix is C- and F-contiguous, typed another layout
        return ((i,) * 8, (f,) * 4, np.zeros((2, 2), order="F"),
                np.zeros((2, 2), order="F"), np.zeros((2, 2), order="F"))

    @property
    def size(self) -> int:
        """Unknowns of the reduced saddle (``n + m − 2 n_L``)."""
        return int(self.sub.size)

    def pays(self) -> bool:
        """Whether the reduced LU saves more than the transformation costs: at least
        :data:`MIN_UNKNOWNS` unknowns and at most half the full LU's operations
        (``(N − 2 n_L)³ ≤ ½ N³``), a decision from the sizes alone."""
        return self.N >= MIN_UNKNOWNS and self.size**3 <= 0.5 * self.N**3

    def operations(self) -> tuple[float, float]:
        """Floating-point operations of a factorization (the reduced LU and the
        transformation) and of a solve, counted as
        :meth:`fem.assembly.linalg.Factorization.operations` counts them: the
        transformation's (``2 N (n_H + n_L) + 2 (N − 2 n_L) n_H``, ``n_H`` the entries of
        ``H``), scattered and strided, weigh :data:`TRANSFORM_WEIGHT` LU operations."""
        N, nr, nl, nh = self.N, self.size, self.pivots.size, self.H.nnz
        factor = (2.0 / 3.0 * nr**3
                  + TRANSFORM_WEIGHT * (2.0 * N * (nh + nl) + 2.0 * nr * nh))
        solve = 2.0 * nr * nr + 4.0 * N * nl + 4.0 * nh + 4.0 * self.E.nnz
        return factor, solve

    def reduce(self, A: np.ndarray) -> np.ndarray:
        """The reduced saddle of the full ``A`` (NumPy reference of the kernel)."""
        n, nf = self.n, self.free.size
        T = np.zeros((self.N, self.size))
        T[self.sub, np.arange(self.size)] = 1.0
        T[self.pivots, :nf] = -self.H[:, self.free].toarray()
        keep = np.ones(self.N, bool)
        keep[n + self.rows] = False
        T = T[keep]
        Af = A[np.ix_(keep, keep)]
        return T.T @ Af @ T


class EliminatedFactorization(Factorization):
    """A factorization of the full saddle held as the dense LU of its reduced saddle
    (:class:`Elimination`), made by the compiled loop; :meth:`solve` is the full
    matrix's solve.  ``kind`` is ``"dense"``; :meth:`substitution_data` gives kind 2.

    Parameters
    ----------
    elimination : Elimination
        The eliminated rows and the work arrays the compiled loop fills.
    """

    def __init__(self, elimination: Elimination):
        nr = elimination.size
        self.elimination = elimination
        self.shape = (elimination.N, elimination.N)
        self.kind = "dense"
        self.lu = (np.zeros((nr, nr), order="F"), np.zeros(nr, np.int32))

    def substitution_data(self) -> tuple:
        """``(2, lu, piv, 0, 0, perm)`` (kind 2: eliminated; ``perm`` unused)."""
        return 2, self.lu[0], self.lu[1], 0, 0, np.zeros(0, np.int64)

    def operations(self) -> tuple[float, float]:
        """:meth:`Elimination.operations`."""
        return self.elimination.operations()

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``x`` with ``A x = b`` for the full saddle ``A``."""
        x = np.empty(self.shape[0])
        elimination_kernels()[1](self.lu[0], self.lu[1], self.elimination.data,
                                 np.ascontiguousarray(b, dtype=float), x)
        return x


_dense_solve = None


@compiled
def elimination_kernels(numba):
    """``(reduce, substitute)``, compiled:

    * ``reduce(el, lu)``: the full saddle formed in ``el``'s work matrix (overwritten)
      becomes the reduced saddle in ``lu`` (``Tᵀ A T`` by column and row operations on
      the few pivot columns and rows; the pivot rows and columns kept for the solve);
    * ``substitute(lu, piv, el, b, x)``: ``x`` solves the full saddle with the reduced
      saddle's LU factors in ``lu``, ``piv`` (``getrf``'s layout)."""
    global _dense_solve
    from ..assembly.linalg import substitution_kernels

    # a module global, not a closure cell: numba keys a closure's disk cache on its
    # cells, and a cell holding a dispatcher differs in every process (never a hit)
    _dense_solve = substitution_kernels()[0]
    U = np.uint64

    @numba.njit(cache=True)
    def reduce(el, lu):   # pragma: no cover - jit
        ints, _, A, Ar, Ap = el
        piv, sub, Hp, Hj = ints[1], ints[2], ints[4], ints[5]
        Hx = el[1][0]
        N = A.shape[0]
        for c in range(N):                    # the pivot rows and columns, for the solve
            uc = U(c)
            for k in range(piv.size):
                Ar[U(k), uc] = A[U(piv[k]), uc]
        for k in range(piv.size):
            pk = U(piv[k])
            uk = U(k)
            for i in range(N):
                Ap[U(i), uk] = A[U(i), pk]
        for k in range(piv.size):             # columns: A T
            pk = U(piv[k])
            for e in range(Hp[k], Hp[k + 1]):
                j = U(Hj[e])
                h = Hx[e]
                for i in range(N):
                    A[U(i), j] -= h * A[U(i), pk]
        for b in range(sub.size):             # rows: Tᵀ (A T), and the gather
            c = U(sub[b])
            for k in range(piv.size):
                x = A[piv[k], c]
                if x != 0.0:
                    for e in range(Hp[k], Hp[k + 1]):
                        A[U(Hj[e]), c] -= Hx[e] * x
            for a in range(sub.size):
                lu[a, b] = A[U(sub[a]), c]

    @numba.njit(cache=True)
    def substitute(lu, piv, el, b, x):   # pragma: no cover - jit
        ints, floats, _, Ar, Ap = el
        lrows, pv, sub, red, Hp, Hj, Ep, Ej = ints
        Hx, Ex, g, y = floats
        N = b.size
        nl = pv.size
        for k in range(nl):                   # the particular solution d_p = E b_L
            s = 0.0
            for e in range(Ep[k], Ep[k + 1]):
                s += Ex[e] * b[lrows[Ej[e]]]
            x[pv[k]] = s
        for i in range(N):
            g[i] = b[i]
        for k in range(nl):                   # g = b − A d
            d = x[pv[k]]
            if d != 0.0:
                uk = U(k)
                for i in range(N):
                    g[U(i)] -= d * Ap[U(i), uk]
        for a in range(sub.size):             # Tᵀ g
            y[a] = g[sub[a]]
        for k in range(nl):
            gk = g[pv[k]]
            if gk != 0.0:
                for e in range(Hp[k], Hp[k + 1]):
                    y[red[Hj[e]]] -= Hx[e] * gk
        _dense_solve(lu, piv, y)
        for a in range(sub.size):
            x[sub[a]] = y[a]
        for k in range(nl):                   # Δq_p = d_p − H Δq_f
            s = x[pv[k]]
            for e in range(Hp[k], Hp[k + 1]):
                s -= Hx[e] * x[Hj[e]]
            x[pv[k]] = s
        for i in range(nl):                   # (the rows' columns of Ar: Pᵀ, times 0)
            x[lrows[i]] = 0.0
        for k in range(nl):                   # Pᵀ Δλ_L = (b − A x)_p, by columns (a
            g[k] = b[pv[k]]                   # sum along a row would not vectorize)
        for c in range(N):
            xc = x[c]
            if xc != 0.0:
                uc = U(c)
                for k in range(nl):
                    g[U(k)] -= Ar[U(k), uc] * xc
        for k in range(nl):
            gk = g[k]
            for e in range(Ep[k], Ep[k + 1]):
                x[lrows[Ej[e]]] += Ex[e] * gk

    return reduce, substitute
