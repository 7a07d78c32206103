"""Lowest eigenpairs of ``K φ = ω² M φ`` that stay accurate when ``K``/``M`` span many
decades (short elements, tiny rotational masses, stiff actuators)."""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..errors import ModelError

__all__ = ["generalized_eigen"]


def generalized_eigen(M, K, n_modes: int, dense_limit: int = 1500
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Lowest ``n_modes`` pairs ``(ω², Φ)`` with ``Φᵀ M Φ = I``, ascending.

    Dense (``n ≤ dense_limit``): with ``K = L Lᵀ`` (Cholesky) the largest eigenvalues
    ``μ = 1/ω²`` of ``L⁻¹ M L⁻ᵀ`` — the lowest modes are then as accurate as the
    largest of a well-scaled problem, whereas ``eigh(K, M)`` loses them when
    ``ω²_max/ω²_min`` nears ``1/ε``; a singular ``K`` (free body) falls back to
    ``eigh(K, M)``.  Sparse: shift-invert Lanczos about a small negative shift.
    """
    n = M.shape[0]
    k = min(int(n_modes), n)
    if k <= 0:
        return np.zeros(0), np.zeros((n, 0))
    if n <= dense_limit or k >= n - 1:
        Md = M.toarray() if sp.issparse(M) else np.asarray(M, float)
        Kd = K.toarray() if sp.issparse(K) else np.asarray(K, float)
        Md, Kd = (Md + Md.T) / 2, (Kd + Kd.T) / 2
        try:
            L = sla.cholesky(Kd, lower=True)
            X = sla.solve_triangular(L, Md, lower=True)
            A = sla.solve_triangular(L, X.T, lower=True)
            mu, V = sla.eigh((A + A.T) / 2, subset_by_index=[n - k, n - 1])
            if np.any(mu <= 0):
                raise np.linalg.LinAlgError("massless modes")
            w2 = 1.0 / mu[::-1]
            Phi = sla.solve_triangular(L.T, V[:, ::-1], lower=False)
        except np.linalg.LinAlgError:
            try:
                w2, Phi = sla.eigh(Kd, Md, subset_by_index=[0, k - 1])
            except np.linalg.LinAlgError as err:
                raise ModelError(f"eigenproblem failed ({err}): the mass matrix is not "
                                 "positive definite on the free coordinates") from None
    else:
        shift = -1e-6 * abs(K.diagonal()).max() / max(abs(M.diagonal()).max(), 1e-300)
        w2, Phi = spla.eigsh(sp.csc_matrix(K), k=k, M=sp.csc_matrix(M), sigma=shift,
                             which="LM")
        o = np.argsort(w2)
        w2, Phi = w2[o], Phi[:, o]
    Phi = Phi / np.sqrt(np.einsum("ij,ij->j", Phi, M @ Phi))
    return w2, Phi
