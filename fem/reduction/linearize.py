"""Linear ``(M, K)`` of a nonlinear :class:`fem.Model` (ANCF cables, beams, plates)
about a state, for Craig–Bampton reduction."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core.errors import ModelError
from ..core.validate import coordinates

__all__ = ["linearize"]


def linearize(model, q: np.ndarray | None = None, lam: np.ndarray | None = None
              ) -> tuple[sp.csr_matrix, sp.csr_matrix, np.ndarray]:
    """Mass and tangent stiffness of ``model`` about ``q`` on its unconstrained
    coordinates.

    ``K = ∂f_int/∂q + Σ λ_k ∂²Φ_k/∂q²`` (the tangent of :func:`fem.modes`).  Only
    constraints that hold single coordinates (``model.fix``, clamps) are allowed: their
    coordinates are removed.  Returns ``(M, K, free)`` with ``free`` the model coordinates
    kept (rows/columns of ``M`` and ``K``).

    Raises
    ------
    ModelError
        When a constraint couples several coordinates (joints: reduce each body
        separately and couple the reduced components instead).
    """
    asm = model.assemble()
    q = asm.q0 if q is None else coordinates(q, asm.n, "linearize: q")
    lam = np.zeros(asm.m) if lam is None else coordinates(lam, asm.m, "linearize: lam")
    _, kv = asm.internal_forces(q, tangent=True)
    K = asm.stiffness(kv, asm.hessian_values(lam, q))
    J = sp.csr_matrix(asm.jacobian(q, 0.0))
    J.eliminate_zeros()
    if J.shape[0] and np.any(np.diff(J.indptr) != 1):
        raise ModelError("linearize: the model has constraints coupling several coordinates; "
                         "only coordinate fixes (model.fix) can be removed here")
    held = np.unique(J.indices)
    free = np.setdiff1d(np.arange(asm.n), held)
    M = sp.csr_matrix(asm.M)
    K = sp.csr_matrix(K)
    return M[free][:, free], ((K + K.T) / 2)[free][:, free], free
