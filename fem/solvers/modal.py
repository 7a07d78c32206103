"""Modal analysis of the linearized constrained system about a configuration.

About an equilibrium ``(q*, λ*)`` the motions compatible with the constraints are
``δq = N z`` with ``N`` a basis of the null space of ``Φ_q(q*)``.  The tangent stiffness
includes the constraint geometric term ``Σλᵢ Φᵢ,qq``.  The eigenproblem
``Nᵀ K_t N z = ω² Nᵀ M N z`` gives the natural frequencies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from .._threads import blas_single_threaded
from ..errors import ModelError

__all__ = ["modes", "ModalResult"]


@dataclass
class ModalResult:
    frequencies_hz: np.ndarray     # (k,) ascending
    omega2: np.ndarray             # (k,) eigenvalues ω² [rad²/s²]
    shapes: np.ndarray             # (n_dof, k) mode shapes in global coordinates, M-normalized


def _null_space(J: np.ndarray) -> np.ndarray:
    n = J.shape[1]
    if J.shape[0] == 0:
        return np.eye(n)
    nz = J != 0
    if np.all(nz.sum(axis=1) == 1):      # only fixed coordinates: plain selection
        fixed = np.flatnonzero(nz.any(axis=0))
        free = np.setdiff1d(np.arange(n), fixed)
        return np.eye(n)[:, free]
    return sla.null_space(J)


@blas_single_threaded
def _sparse_fixed(asm, K, J, n_modes: int) -> ModalResult:
    """Large models whose constraints only fix coordinates: shift-invert Lanczos
    (``eigsh``, σ = 0) on the free coordinates, sparse throughout."""
    import scipy.sparse.linalg as spla

    fixed = np.unique(J.indices)
    free = np.setdiff1d(np.arange(asm.n), fixed)
    Kf = K.tocsr()[free][:, free]
    Kf = 0.5 * (Kf + Kf.T)
    Mf = asm.M_sparse.tocsr()[free][:, free]
    k = min(n_modes, len(free) - 2)
    w2, Z = spla.eigsh(Kf.tocsc(), k=k, M=Mf.tocsc(), sigma=0.0, which="LM")
    order = np.argsort(w2)
    w2, Z = w2[order], Z[:, order]
    shapes = np.zeros((asm.n, k))
    shapes[free] = Z
    return ModalResult(np.sqrt(np.clip(w2, 0.0, None)) / (2 * np.pi), w2, shapes)


def modes(model, q: np.ndarray | None = None, lam: np.ndarray | None = None, t: float = 0.0,
          n_modes: int | None = 10) -> ModalResult:
    """Natural frequencies and mode shapes about ``q`` (reference state by default).

    ``lam`` are the constraint multipliers of that state (from :func:`solve_static`);
    zero by default, which is exact for an unloaded reference state.
    """
    asm = model.assemble()
    q = asm.q0 if q is None else np.asarray(q, float)
    lam = np.zeros(asm.m) if lam is None else np.asarray(lam, float)
    _, kv = asm.internal_forces(q, tangent=True)
    K = asm.stiffness(kv, asm.hessian_values(lam, q))
    Js = asm.jacobian(q, t).tocsr()
    Js.eliminate_zeros()
    if (not isinstance(K, np.ndarray) and n_modes is not None and asm.n > 800
            and np.all(np.diff(Js.indptr) == 1)):
        return _sparse_fixed(asm, K, Js, n_modes)
    K = K if isinstance(K, np.ndarray) else K.toarray()
    M = asm.M if isinstance(asm.M, np.ndarray) else asm.M.toarray()
    J = asm.jacobian(q, t).toarray()
    N = _null_space(J)
    Kr = N.T @ K @ N
    Mr = N.T @ M @ N
    Kr = 0.5 * (Kr + Kr.T)
    try:
        w2, Z = sla.eigh(Kr, Mr)
    except np.linalg.LinAlgError as err:
        raise ModelError(f"modal analysis: the reduced mass matrix is not positive definite "
                         f"({err}); some free coordinates carry no mass") from None
    k = len(w2) if n_modes is None else min(n_modes, len(w2))
    w2, Z = w2[:k], Z[:, :k]
    f = np.sqrt(np.clip(w2, 0.0, None)) / (2 * np.pi)
    return ModalResult(f, w2, N @ Z)
