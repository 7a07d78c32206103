"""Compiled element kernels (numba), with the NumPy forms as their references.

A family uses a kernel here when :func:`available` is true (the process runs the compiled
path, :func:`fem.core.jit.path`) and keeps its NumPy form otherwise; both give the same
forces and tangents to round-off, which the tests check.  The kernels are defined on the
first call of :func:`available` (then the module's names below are the compiled
functions) and their compiled code is cached on disk (``cache=True``, in the user's
cache, :func:`fem.core.jit.cache_dir`).

Each kernel loops over elements × quadrature points in compiled code: for the cable,
force and symmetric tangent cost ≈ 0.8 µs per element instead of ≈ 5–8 µs of NumPy
batching overhead at small batch sizes (issue 12).
"""

from __future__ import annotations

import numpy as np

from ..core.jit import compiled

__all__ = ["available", "cable_forces"]

cable_forces = None

@compiled
def _build_cable_forces(numba):
    global cable_forces

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
            f[e, :] = 0.0
            if tangent:
                K[e, :, :] = 0.0
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
    return cable_forces


__all__ += ["cable_forces_global"]
cable_forces_global = None

@compiled
def _build_cable_forces_global(numba):
    global cable_forces_global

    @numba.njit(cache=True, fastmath=False)
    def cable_forces_global(q, dofs, N1, N2, wa, wb, eps_out, Q, f, out, K,
                            tangent):  # pragma: no cover - jit
        """:func:`cable_forces` on the global coordinates ``q``: gathers the elements'
        coordinates ``q[dofs]`` into the work array ``Q`` (n, 4, 3), computes ``f``
        (n, 12) and ``K``, and adds ``f`` into the global ``out`` at ``dofs`` in element
        order (as ``np.bincount``)."""
        n = dofs.shape[0]
        for e in range(n):
            for k in range(4):
                for d in range(3):
                    Q[e, k, d] = q[dofs[e, 3 * k + d]]
        cable_forces(Q, N1, N2, wa, wb, eps_out, f, K, tangent)
        for e in range(n):
            for i in range(12):
                out[dofs[e, i]] += f[e, i]
    return cable_forces_global


__all__ += ["plate_forces"]
plate_forces = None

@compiled
def _build_plate_forces(numba):
    global plate_forces
    _PA = np.array([0, 1, 2, 1, 0, 0])
    _PB = np.array([0, 1, 2, 2, 2, 1])

    @numba.njit(cache=True, fastmath=False)
    def plate_forces(Q, dS, D, d0, has_ans, dSt, lam, d0t, f, K, tangent):  # pragma: no cover
        """Bézier-triangle plate (see :meth:`BezierTrianglePlate.forces` for the formulas).

        Q (n, 16, 3); dS (n, q, 3, 16) natural derivatives of the shape functions; D (n, q,
        6, 6) weighted natural elasticity; d0 (n, q, 6) reference pairs; with ``has_ans`` the
        assumed E_χχ: dSt (n, t, 16) ∂S/∂χ at the tying points, lam (q, t) their weights,
        d0t (n, t).  Writes f (n, 48) and, when ``tangent``, K (n, 48, 48)."""
        n, nq = dS.shape[0], dS.shape[1]
        nt = dSt.shape[1]
        J = np.empty((3, 3))
        d = np.empty(6)
        sig = np.empty(6)
        P = np.empty((3, 3))
        PJ = np.empty((3, 3))
        B = np.empty((6, 48))
        DB = np.empty((6, 48))
        Jt = np.empty((nt, 3))
        dt = np.empty(nt)
        sig_t = np.empty(nt)
        Kg = np.empty((16, 16))
        for e in range(n):
            f[e, :] = 0.0
            if tangent:
                K[e, :, :] = 0.0
                Kg[:, :] = 0.0
            if has_ans:
                for t in range(nt):
                    s2 = 0.0
                    for c in range(3):
                        x = 0.0
                        for k in range(16):
                            x += dSt[e, t, k] * Q[e, k, c]
                        Jt[t, c] = x
                        s2 += x * x
                    dt[t] = s2 - d0t[e, t]
                    sig_t[t] = 0.0
            for g in range(nq):
                for a in range(3):
                    for c in range(3):
                        x = 0.0
                        for k in range(16):
                            x += dS[e, g, a, k] * Q[e, k, c]
                        J[a, c] = x
                for s in range(6):
                    a, b = _PA[s], _PB[s]
                    d[s] = J[a, 0] * J[b, 0] + J[a, 1] * J[b, 1] + J[a, 2] * J[b, 2] - d0[e, g, s]
                if has_ans:
                    x = 0.0
                    for t in range(nt):
                        x += lam[g, t] * dt[t]
                    d[2] = x
                for s in range(6):
                    x = 0.0
                    for r in range(6):
                        x += D[e, g, s, r] * d[r]
                    sig[s] = x
                for s in range(6):
                    a, b = _PA[s], _PB[s]
                    val = sig[s] if a == b else 0.5 * sig[s]
                    P[a, b] = val
                    P[b, a] = val
                if has_ans:
                    for t in range(nt):
                        sig_t[t] += sig[2] * lam[g, t]
                    P[2, 2] = 0.0
                for a in range(3):
                    for c in range(3):
                        PJ[a, c] = P[a, 0] * J[0, c] + P[a, 1] * J[1, c] + P[a, 2] * J[2, c]
                for k in range(16):
                    for c in range(3):
                        f[e, 3 * k + c] += 2.0 * (dS[e, g, 0, k] * PJ[0, c]
                                                 + dS[e, g, 1, k] * PJ[1, c]
                                                 + dS[e, g, 2, k] * PJ[2, c])
                if not tangent:
                    continue
                for s in range(6):
                    a, b = _PA[s], _PB[s]
                    for k in range(16):
                        for c in range(3):
                            B[s, 3 * k + c] = dS[e, g, a, k] * J[b, c] + dS[e, g, b, k] * J[a, c]
                if has_ans:
                    for m in range(48):
                        B[2, m] = 0.0
                    for t in range(nt):
                        w = 2.0 * lam[g, t]
                        if w != 0.0:
                            for k in range(16):
                                for c in range(3):
                                    B[2, 3 * k + c] += w * dSt[e, t, k] * Jt[t, c]
                for s in range(6):
                    for m in range(48):
                        x = 0.0
                        for r in range(6):
                            x += D[e, g, s, r] * B[r, m]
                        DB[s, m] = x
                for i in range(48):
                    for j in range(i, 48):
                        x = 0.0
                        for s in range(6):
                            x += B[s, i] * DB[s, j]
                        K[e, i, j] += x
                for k in range(16):
                    for m in range(16):
                        x = 0.0
                        for a in range(3):
                            for b in range(3):
                                x += dS[e, g, a, k] * P[a, b] * dS[e, g, b, m]
                        Kg[k, m] += 2.0 * x
            if not tangent:
                if has_ans:
                    for t in range(nt):
                        for k in range(16):
                            for c in range(3):
                                f[e, 3 * k + c] += 2.0 * dSt[e, t, k] * sig_t[t] * Jt[t, c]
                continue
            if has_ans:
                for t in range(nt):
                    for k in range(16):
                        for c in range(3):
                            f[e, 3 * k + c] += 2.0 * dSt[e, t, k] * sig_t[t] * Jt[t, c]
                    for k in range(16):
                        for m in range(16):
                            Kg[k, m] += 2.0 * sig_t[t] * dSt[e, t, k] * dSt[e, t, m]
            for i in range(48):
                for j in range(i):
                    K[e, i, j] = K[e, j, i]
            for k in range(16):
                for m in range(16):
                    for c in range(3):
                        K[e, 3 * k + c, 3 * m + c] += Kg[k, m]
    return plate_forces


__all__ += ["plate_forces_global"]
plate_forces_global = None

@compiled
def _build_plate_forces_global(numba):
    global plate_forces_global

    @numba.njit(cache=True, fastmath=False)
    def plate_forces_global(q, dofs, dS, D, d0, dSt, lam, d0t, Q, f, out, K,
                            tangent):  # pragma: no cover - jit
        """:func:`plate_forces` on the global coordinates ``q``: gathers the elements'
        coordinates ``q[dofs]`` into the work array ``Q`` (n, 16, 3), computes ``f``
        (n, 48) and ``K``, and adds ``f`` into the global ``out`` at ``dofs`` in element
        order (as ``np.bincount``).  The assumed thickness strain is on when there are
        tying points (``dSt.shape[1] > 0``)."""
        n = dofs.shape[0]
        for e in range(n):
            for k in range(16):
                for c in range(3):
                    Q[e, k, c] = q[dofs[e, 3 * k + c]]
        plate_forces(Q, dS, D, d0, dSt.shape[1] > 0, dSt, lam, d0t, f, K, tangent)
        for e in range(n):
            for i in range(48):
                out[dofs[e, i]] += f[e, i]
    return plate_forces_global


__all__ += ["KIND_CABLE", "KIND_PLATE", "KIND_NONE", "N_ARRAYS2", "N_ARRAYS3", "group_forces",
            "no_group", "work_arrays"]
KIND_CABLE = 0
KIND_PLATE = 1
KIND_NONE = -1
"""Kernel numbers of :func:`group_forces` (:meth:`ElementFamily.compiled_forces`);
``KIND_NONE`` adds nothing (a system without elastic element groups)."""
N_ARRAYS3 = N_ARRAYS2 = 4
"""The common layout of the work arrays of every kind: ``arrays3`` four C-contiguous
float 3-D arrays, ``arrays2`` four 2-D ones (padded with empty arrays), so that
:func:`group_forces` and the compiled loops calling it have one signature whatever the
kind (numba types a call by its arguments: every branch must accept every kind's)."""
group_forces = None


def no_group() -> tuple:
    """``(KIND_NONE, arrays3, arrays2)``: empty work arrays of the common layout, so a
    system without element forces calls the same compiled signature."""
    return (KIND_NONE, tuple(np.zeros((0, 0, 0)) for _ in range(N_ARRAYS3)),
            tuple(np.zeros((0, 0)) for _ in range(N_ARRAYS2)))


def work_arrays(arrays3, arrays2) -> tuple[tuple, tuple]:
    """``(arrays3, arrays2)`` in the common layout: each array C-contiguous, writable
    float (numba types a read-only array differently), padded with empty arrays."""
    def fit(arrays, ndim, count):
        out = [np.array(a, dtype=float, order="C") for a in arrays]
        if len(out) > count or any(a.ndim != ndim for a in out):
            raise ValueError(f"work arrays: at most {count} arrays of {ndim} dimensions")
        return tuple(out + [np.zeros((0,) * ndim) for _ in range(count - len(out))])
    return fit(arrays3, 3, N_ARRAYS3), fit(arrays2, 2, N_ARRAYS2)


@compiled
def _build_group_forces(numba):
    global group_forces

    @numba.njit(cache=True)
    def group_forces(kind, q, dofs, arrays3, arrays2, out, K, tangent):  # pragma: no cover
        """One element group's forces added into the global ``out`` (and its tangent in
        ``K`` with ``tangent``), the kernel chosen by ``kind``, its work arrays from
        :meth:`ElementFamily.compiled_forces`: the entry point of compiled solvers
        (:mod:`fem.solvers.constant_iteration`), which cannot take functions as data.

        Work arrays (the common layout, :data:`N_ARRAYS3`): the cable ``(N1, N2, Q, −)``,
        ``(wa, wb, scratch, f)``; the plate ``(Q, dS, D, dSt)``, ``(d0, lam, d0t, f)``
        with ``dS`` (n, q·3, 16), ``D`` (n, q·6, 6) and ``d0`` (n, q·6) the arrays of
        :func:`plate_forces` with their point axes merged."""
        if kind == KIND_CABLE:
            cable_forces_global(q, dofs, arrays3[0], arrays3[1], arrays2[0], arrays2[1],
                                arrays2[2], arrays3[2], arrays2[3], out, K, tangent)
        elif kind == KIND_PLATE:
            Q = arrays3[0]
            n = Q.shape[0]
            nq = arrays3[1].shape[1] // 3
            plate_forces_global(q, dofs, arrays3[1].reshape((n, nq, 3, 16)),
                                arrays3[2].reshape((n, nq, 6, 6)),
                                arrays2[0].reshape((n, nq, 6)), arrays3[3], arrays2[1],
                                arrays2[2], Q, arrays2[3], out, K, tangent)
    return group_forces


def available() -> bool:
    """Whether the compiled kernels run in this process (the compiled path); defines
    them on the first call."""
    built = [b() for b in (_build_cable_forces, _build_cable_forces_global,
                           _build_plate_forces, _build_plate_forces_global,
                           _build_group_forces)]
    return all(b is not None for b in built)
