"""Compiled element kernels (numba), with the NumPy forms as their references.

A family uses a kernel here when :data:`AVAILABLE` is true and keeps its NumPy form
otherwise (numba missing, or ``FEM_NO_JIT=1`` in the environment); both give the same
forces and tangents to round-off, which the tests check.  Kernels are compiled once per
machine and cached on disk (``cache=True``), so a second process does not recompile.

Each kernel loops over elements × quadrature points in compiled code: for the cable,
force and symmetric tangent cost ≈ 0.8 µs per element instead of ≈ 5–8 µs of NumPy
batching overhead at small batch sizes (issue 12).
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["AVAILABLE", "cable_forces"]

AVAILABLE = False
cable_forces = None

if os.environ.get("FEM_NO_JIT", "") not in ("1", "true", "yes"):
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is a dependency; keep a fallback
        numba = None
    if numba is not None:
        AVAILABLE = True

if AVAILABLE:

    @numba.njit(cache=True, fastmath=False)
    def cable_forces(Q, N1, N2, wa, wb, eps_out, f, K, tangent):  # pragma: no cover - jit
        """Exact-curvature ANCF cable (see :meth:`AncfCable.forces` for the formulas).

        Q (n, 4, 3) element coordinates; N1, N2 (n, q, 4) first and second derivatives of
        the Hermite functions at the Gauss points; wa = EA·w·L, wb = ½EI·w·L (n, q).
        Writes f (n, 12) and, when ``tangent``, K (n, 12, 12).
        """
        n, nq = N1.shape[0], N1.shape[1]
        a = np.empty(3)
        b = np.empty(3)
        H = np.empty((6, 6))
        for e in range(n):
            for i in range(12):
                f[e, i] = 0.0
            if tangent:
                for i in range(12):
                    for j in range(12):
                        K[e, i, j] = 0.0
            for g in range(nq):
                for d in range(3):
                    sa = 0.0
                    sb = 0.0
                    for k in range(4):
                        sa += N1[e, g, k] * Q[e, k, d]
                        sb += N2[e, g, k] * Q[e, k, d]
                    a[d] = sa
                    b[d] = sb
                A = a[0] * a[0] + a[1] * a[1] + a[2] * a[2]
                B = b[0] * b[0] + b[1] * b[1] + b[2] * b[2]
                C = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
                iA = 1.0 / A
                iA2 = iA * iA
                iA3 = iA2 * iA
                eps = 0.5 * (A - 1.0)
                eps_out[e, g] = eps
                w_a = wa[e, g]
                w_b = wb[e, g]
                gA = (3.0 * C * C * iA - 2.0 * B) * iA3
                gC = -2.0 * C * iA3
                ca = w_a * eps + 2.0 * w_b * gA
                cc = w_b * gC
                cb = 2.0 * w_b * iA2
                for d in range(3):
                    da = ca * a[d] + cc * b[d]
                    db = cb * b[d] + cc * a[d]
                    for k in range(4):
                        f[e, 3 * k + d] += N1[e, g, k] * da + N2[e, g, k] * db
                if not tangent:
                    continue
                gAA = (6.0 * B - 12.0 * C * C * iA) * iA2 * iA2
                gAC = 6.0 * C * iA2 * iA2
                gCC = -2.0 * iA3
                c_aa = w_b * 4.0 * gAA + w_a
                c_ab = w_b * 2.0 * gAC
                c_bb = w_b * gCC
                d_aa = 2.0 * w_b * gA + w_a * eps
                for i in range(3):
                    for j in range(3):
                        aa = a[i] * a[j]
                        ab = a[i] * b[j]
                        ba = b[i] * a[j]
                        bb = b[i] * b[j]
                        H[i, j] = c_aa * aa + c_ab * (ab + ba) + c_bb * bb
                        H[i, 3 + j] = 4.0 * c_bb * ab + c_ab * aa + c_bb * ba
                        H[3 + i, 3 + j] = c_bb * aa
                    H[i, i] += d_aa
                    H[i, 3 + i] += w_b * gC
                    H[3 + i, 3 + i] += cb
                for i in range(3):
                    for j in range(3):
                        H[3 + i, j] = H[j, 3 + i]
                # K += Bᵀ H B, B = [N1 ⊗ I₃; N2 ⊗ I₃]
                for k in range(4):
                    n1k = N1[e, g, k]
                    n2k = N2[e, g, k]
                    for m in range(k, 4):
                        n1m = N1[e, g, m]
                        n2m = N2[e, g, m]
                        c11 = n1k * n1m
                        c12 = n1k * n2m
                        c21 = n2k * n1m
                        c22 = n2k * n2m
                        for i in range(3):
                            for j in range(3):
                                K[e, 3 * k + i, 3 * m + j] += (
                                    c11 * H[i, j] + c12 * H[i, 3 + j]
                                    + c21 * H[3 + i, j] + c22 * H[3 + i, 3 + j])
            if tangent:
                for k in range(4):
                    for m in range(k + 1, 4):
                        for i in range(3):
                            for j in range(3):
                                K[e, 3 * m + j, 3 * k + i] = K[e, 3 * k + i, 3 * m + j]
