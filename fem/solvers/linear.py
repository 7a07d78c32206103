"""Solvers of linear structural problems given as matrices: the lowest eigenpairs of
``K φ = ω² M φ`` that stay accurate when ``K``/``M`` span many decades (short elements,
tiny rotational masses, stiff actuators), and Newmark's average-acceleration integration
of ``M q̈ + C q̇ + K q = f(t)`` (a reduced component's equations, for instance).  They take
matrices, not models; :func:`fem.modes` and :func:`fem.simulate` solve models."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..core.errors import ModelError
from ..core.validate import integer

__all__ = ["generalized_eigen", "newmark"]


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


def newmark(M, K, force: Callable[[float], np.ndarray], dt: float, n_steps: int,
            C=None, q0=None, v0=None) -> tuple[np.ndarray, np.ndarray]:
    """Linear Newmark average-acceleration integration of ``M q̈ + C q̇ + K q = f(t)``
    (unconditionally stable, no numerical damping).  Returns ``(t, q)`` with ``q`` of
    shape ``(n_steps + 1, n)``.

    This is how a reduced component enters time integration as a flexible body: its
    ``(M_r, K_r)`` (alone, or assembled with others) are the equations of motion of its
    boundary and modal coordinates, and ``T`` recovers the physical motion.
    """
    M = np.asarray(M.toarray() if sp.issparse(M) else M, float)
    K = np.asarray(K.toarray() if sp.issparse(K) else K, float)
    n = M.shape[0]
    C = np.zeros((n, n)) if C is None else np.asarray(C, float)
    n_steps = integer(n_steps, "n_steps", 1)
    if not dt > 0:
        raise ModelError(f"time step must be > 0; got {dt}")
    q = np.zeros(n) if q0 is None else np.array(q0, float)
    v = np.zeros(n) if v0 is None else np.array(v0, float)
    a = np.linalg.solve(M, force(0.0) - C @ v - K @ q)
    S = sla.cho_factor(M * 4 / dt**2 + C * 2 / dt + K)
    t = np.arange(n_steps + 1) * dt
    out = np.empty((n_steps + 1, n))
    out[0] = q
    for k in range(1, n_steps + 1):
        rhs = (force(t[k]) + M @ (4 / dt**2 * q + 4 / dt * v + a)
               + C @ (2 / dt * q + v))
        qn = sla.cho_solve(S, rhs)
        vn = 2 / dt * (qn - q) - v
        a = 4 / dt**2 * (qn - q) - 4 / dt * v - a
        q, v = qn, vn
        out[k] = q
    return t, out
