"""The iteration matrix factorized with its constant linear rows eliminated, in NumPy.

Where a saddle is above :data:`~fem.assembly.linalg.DENSE_LIMIT` only by its constant
linear rows (a robot of rigid links joined by frames: every joint's point rows, the
ground joints' axis rows and the plate's continuity rows are linear), the
:class:`~fem.solvers.elimination.Elimination` of those rows brings the matrix the LU
factorizes under it: the flagship robot in robot words, 363 unknowns (a sparse LU) →
225 (a dense one).  The compiled loop makes these factorizations itself
(:mod:`fem.solvers.constant_iteration`); this module makes them from the assembled
saddle — the NumPy path's every factorization and the compiled path's first — with the
same storage (:class:`~fem.solvers.elimination.EliminatedFactorization`, whose LU and
pivot rows the compiled loop then substitutes with), and solves them in NumPy.
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp
from scipy.linalg.lapack import dgetrf, dgetrs

from ..core.errors import SingularMatrixError
from .elimination import EliminatedFactorization, Elimination

__all__ = ["ReducedFactorization"]


def _transform(el: Elimination) -> tuple:
    """``(H_subᵀ, E, H, H_fᵀ)`` of ``el``, kept on it: ``H`` on the reduced unknowns
    transposed (size × n_L, sparse: ``T = I_sub − H_sub`` on the pivots), and ``E``,
    ``H`` and ``H`` on the free coordinates transposed dense (a solve's few products)."""
    cached = getattr(el, "_numpy_transform", None)
    if cached is None:
        nf = el.free.size
        Hs = sp.hstack([el.H[:, el.free], sp.csr_matrix((el.pivots.size, el.size - nf))])
        cached = el._numpy_transform = (sp.csr_matrix(Hs.T), el.E.toarray(), el.H.toarray(),
                                        el.H[:, el.free].T.toarray())
    return cached


class ReducedFactorization(EliminatedFactorization):
    """The full saddle ``A`` factorized as the dense LU of its reduced saddle ``Tᵀ A T``
    (:class:`~fem.solvers.elimination.Elimination`), formed from ``A`` in NumPy;
    :meth:`solve` is the full matrix's, in NumPy; the compiled loop substitutes with it
    as with the LU it makes itself (:meth:`substitution_data`, kind 2).

    Parameters
    ----------
    A : scipy.sparse matrix or ndarray (N × N)
        The full saddle.
    elimination : Elimination
    what, hint : str
        The singular error's words (:class:`~fem.assembly.linalg.Factorization`).
    """

    def __init__(self, A, elimination: Elimination, what: str = "system matrix",
                 hint: str | None = None):
        el = elimination
        A = A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)
        HsT = _transform(el)[0]
        Ap = np.asfortranarray(A[:, el.pivots])                  # the pivot columns
        Ar = np.asfortranarray(A[el.pivots])                     # and rows
        AT = A[:, el.sub] - (HsT @ Ap.T).T                       # A T, T = I_sub − H_sub
        R = AT[el.sub] - HsT @ AT[el.pivots]                     # Tᵀ A T
        lu, piv, info = dgetrf(R, overwrite_a=True)
        tail = f"; {hint}" if hint else ""
        if info > 0:
            raise SingularMatrixError(f"{what} is singular (diagonal number {info} of its "
                                      f"reduced LU is exactly zero){tail}")
        self._check(0, np.abs(np.diag(lu)), what, tail)
        self.shape = (el.N, el.N)
        self.kind = "dense"
        self.lu = (np.asfortranarray(lu), piv.astype(np.int32))
        # an Elimination of its own arrays: the compiled loop reads these pivot rows and
        # columns (and refactorizes in the work matrix, kept per elimination)
        work = getattr(el, "_numpy_work", None)
        if work is None:
            work = el._numpy_work = np.zeros((el.N, el.N), order="F")
        ints, floats = el.data[0], el.data[1]
        own = copy.copy(el)
        own.data = (ints, (floats[0], floats[1], np.zeros(el.N), np.zeros(el.size)), work,
                    Ar, Ap)
        self.elimination = own
        self._Ar, self._Ap = Ar, Ap

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``x`` with ``A x = b`` (the steps of the compiled substitution, in NumPy)."""
        el = self.elimination
        _, E, H, Hft = _transform(el)
        n, piv, n_rows, nf = el.n, el.pivots, el.n + el.rows, el.free.size
        b = np.asarray(b, dtype=float)
        x = np.zeros(el.N)
        d = E @ b[n_rows]                             # d_p = E b_L
        g = b - self._Ap @ d                          # g = b − A d
        y = g[el.sub]
        y[:nf] -= Hft @ g[piv]                        # Tᵀ g
        y, _ = dgetrs(self.lu[0], self.lu[1], y)
        x[el.sub] = y
        x[piv] = d - H @ x[:n]                        # Δq_p = d_p − H Δq_f
        x[n_rows] = E.T @ (b[piv] - self._Ar @ x)     # Pᵀ Δλ_L = (b − A x)_p
        return x
