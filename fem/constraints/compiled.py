"""Compiled evaluation of every constraint row at once: ``Φ(q, t)`` and ``Φ_q`` values.

With the common form of :mod:`fem.constraints`, ``Φᵢ = Σ (A q + α)·(B q + β) + G q + c +
h(t)``, one pass over the CSR arrays of ``A``, ``B`` and ``G`` gives the values and the
Jacobian entries (in the assembly's pattern order: the ``A`` entries, the ``B`` entries,
then the ``G`` entries, each in CSR order).  The NumPy form in
:meth:`fem.assembly.Assembly.constraint_state_numpy` is the reference; the two agree to
round-off (the tests check 1e-13).  On the flagship robot the NumPy form made two SciPy
sparse products and about a dozen array operations per Newton iteration (≈ 60 µs);
this kernel takes a few microseconds.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import compiled

__all__ = ["state_kernel", "reaction_kernel"]


@compiled
def state_kernel(numba):
    """The compiled ``state(q, G, c_t, A, α, B, β_t, bil_row, phi, jv)`` (CSR triples
    for ``G``, ``A``, ``B``; ``c_t = c + h(t)``, ``β_t = β(t)``), or None without numba."""
    @numba.njit(cache=True)
    def state(q, g_ptr, g_idx, g_dat, c_t, a_ptr, a_idx, a_dat, alpha, b_ptr, b_idx,
              b_dat, beta_t, bil_row, phi, jv):   # pragma: no cover - jit
        m = c_t.size
        for i in range(m):
            acc = 0.0
            for k in range(g_ptr[i], g_ptr[i + 1]):
                acc += g_dat[k] * q[g_idx[k]]
            phi[i] = acc + c_t[i]
        n3 = alpha.size
        a = np.empty(n3)
        b = np.empty(n3)
        for r in range(n3):
            acc = 0.0
            for k in range(a_ptr[r], a_ptr[r + 1]):
                acc += a_dat[k] * q[a_idx[k]]
            a[r] = acc + alpha[r]
            acc = 0.0
            for k in range(b_ptr[r], b_ptr[r + 1]):
                acc += b_dat[k] * q[b_idx[k]]
            b[r] = acc + beta_t[r]
        s = np.zeros(m)
        for j in range(n3 // 3):
            s[bil_row[j]] += (a[3 * j] * b[3 * j] + a[3 * j + 1] * b[3 * j + 1]
                              + a[3 * j + 2] * b[3 * j + 2])
        for i in range(m):
            phi[i] += s[i]
        na = a_dat.size
        nb = b_dat.size
        for r in range(n3):
            for k in range(a_ptr[r], a_ptr[r + 1]):
                jv[k] = a_dat[k] * b[r]
            for k in range(b_ptr[r], b_ptr[r + 1]):
                jv[na + k] = b_dat[k] * a[r]
        for k in range(g_dat.size):
            jv[na + nb + k] = g_dat[k]

    return state


@compiled
def reaction_kernel(numba):
    """The compiled ``reaction(jv, lam_kept, rows, cols, out)``: ``out[cols[k]] +=
    jv[k] · lam_kept[rows[k]]`` in entry order (as ``np.bincount``), or None without
    numba."""
    @numba.njit(cache=True)
    def reaction(jv, lam_kept, rows, cols, out):   # pragma: no cover - jit
        for k in range(jv.size):
            out[cols[k]] += jv[k] * lam_kept[rows[k]]

    return reaction
