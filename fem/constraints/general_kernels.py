"""Compiled products of the general constraint rows' batched form.

:class:`fem.constraints.general._Batched` forms the rows' ``Φ`` and ``Φ_q`` values (every
residual) and ``λ·Φ_qq`` (every factorization) from the maps' values ``X`` and Jacobians
``J`` as gathered products summed with ``np.bincount`` over index arrays built once::

    Φ_row   += X_a·X_b,           Φ_q values += J_a X_b + J_b X_a,
    λ Φ_qq  = λ_row (Σ_c X_(b,c) H_(a,c) + … + J_aᵀ J_b + J_bᵀ J_a)

On the compiled path (:func:`fem.core.jit.path`) two kernels make the same sums in the
same order in one loop each, without the gathered temporaries (on the 3-RRRU robot with
reduced links: 6000 Jacobian products a residual; 2·10⁵ products into 1.2·10⁵ Hessian
entries a factorization).  The NumPy forms stay the reference and the NumPy path; the
results are the same (``tests/test_reduced_kernels.py``).  The kernels call no other
kernel.
"""

from __future__ import annotations

from ..core.jit import compiled

__all__ = ["general_kernels"]


@compiled
def general_kernels(numba):
    """The compiled ``(rows_state, rows_hessian)`` (numba), or None on the NumPy path.

    ``rows_state(X, J, xa, xb, prow, jo, jJ, jx, phi, jv)``: ``phi[prow[e]] += X[xa[e]]
    X[xb[e]]`` and ``jv[jo[e]] += J[jJ[e]] X[jx[e]]`` in entry order (``phi``, ``jv``
    zeroed first).

    ``rows_hessian(X, J, out, hv, hx, pa, pb, w, sizes, res)``: the general rows' ``λ·Φ_qq``
    values when the maps' second derivatives are constant: ``res[out[e]] += hv[e]
    X[hx[e]]`` (the maps' second derivatives times the other factor), then ``res[out[nh +
    e]] += J[pa[e]] J[pb[e]]`` (``J_aᵀ J_b``, both halves) in entry order (``res``
    zeroed first, ``nh`` the size of ``hv``), and term ``t``'s ``sizes[t]`` values (one
    after the other) times ``w[t] = λ_row keep_row``."""

    @numba.njit(cache=True)
    def rows_state(X, J, xa, xb, prow, jo, jJ, jx, phi, jv):   # pragma: no cover - jit
        phi[:] = 0.0
        jv[:] = 0.0
        for e in range(xa.size):
            phi[prow[e]] += X[xa[e]] * X[xb[e]]
        for e in range(jo.size):
            jv[jo[e]] += J[jJ[e]] * X[jx[e]]

    @numba.njit(cache=True)
    def rows_hessian(X, J, out, hv, hx, pa, pb, w, sizes, res):   # pragma: no cover - jit
        res[:] = 0.0
        nh = hv.size
        for e in range(nh):
            res[out[e]] += hv[e] * X[hx[e]]
        for e in range(pa.size):
            res[out[nh + e]] += J[pa[e]] * J[pb[e]]
        o = 0
        for t in range(sizes.size):
            wt = w[t]
            for i in range(o, o + sizes[t]):
                res[i] *= wt
            o += sizes[t]

    return rows_state, rows_hessian
