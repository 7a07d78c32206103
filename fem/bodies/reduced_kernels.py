"""Compiled residual terms of a :class:`~fem.bodies.reduced_batch.ReducedBatch` and of
the reduced bodies' points.

On the NumPy path a Newton iteration of a robot of reduced links spends its body terms in
some forty small NumPy calls on arrays of tens of entries (the batch's gathers, the
generalized accelerations ``Ẍ``, ``W Ẍ``, the projection ``Lᵀ h``, the scatter), and
the general rows' maps in as many again (every reduced point's value and Jacobian, then
the rows' products).  On the compiled path (:func:`fem.core.jit.path`) two kernels do
the same work in plain loops over the bodies and points:

* ``terms`` at ``(q, q̇, q̈)``: every body's inertia forces ``Lᵀ W Ẍ`` with::

      Ẍ = [r̈; ë_u; ë_v; ë_w; η_k ë_a + η̈_k e_a + 2 η̇_k ė_a],
      Lᵀ h = [h_0;  h_(1+a) + Σ_k η_k h_(a,k);  Σ_a e_a·h_(a,k)]

  (``h_(a,k)`` the row ``4 + a m̄ + k`` of ``h``, the axes ``e_a`` the rows of the
  frame's ``E``), what :meth:`ReducedBatch.inertia_all` gives without tangent; or at
  ``q`` the forces ``−Lᵀ h_g + [0; f₀ + K_r η]`` (the weight and point loads ``h_g``
  constant), what :meth:`ReducedBatch.forces_all` gives without tangent;
* ``points`` at ``q``: the values and Jacobians of reduced points ``x = v_c r + Σ_a s_a
  e_a``, ``s_a = v_a + Y_a·η`` (:meth:`ReducedPoint.evaluate_batch`)::

      ∂x/∂r = v_c I,   ∂x/∂e_a = s_a I,   ∂x/∂η_k = Σ_a Y_a,k e_a,

  weighted and added straight into the general rows' maps.

The general rows then form their ``Φ``, ``Φ_q`` and ``λ·Φ_qq`` from the maps with the
kernels of :mod:`fem.constraints.general_kernels`.

``terms`` loops over a body's own modes only (the batch's padded modes add exact zeros
to the NumPy sums) and adds every body's forces straight into the global vector
when given one (else into the padded ``(B, k̄)`` array only).  The equations are those
of the NumPy forms; the results agree to round-off (``tests/test_reduced_kernels.py``).
The kernels call no other kernel (their ``py_func`` runs as plain Python, which the
tests use without compiling).
"""

from __future__ import annotations

import numpy as np

from ..core.jit import compiled

__all__ = ["reduced_kernels"]


@compiled
def reduced_kernels(numba):
    """The compiled ``(terms, points)`` (numba), or None on the NumPy path.

    ``terms(q, v, a, idx, ks, WT, hg, K, f0, inertial, F, out)``: with body ``b``'s
    global coordinates ``idx[b, :ks[b]]`` (``[r, u, v, w, η]``, ``ks[b] = 12 + m_b``; the
    rest padding) and the transpose ``WT[b]`` of its mass matrix of the generalized
    vectors ``W`` (n̄_V, n̄_V; row ``4 + a m̄ + k`` holds ``η_k e_a``): with
    ``inertial`` the inertia forces ``Lᵀ W Ẍ`` at ``(q, v, a)``, else the forces ``−Lᵀ
    h_g + [0; f₀ + K_r η]`` at ``q`` (``h_g = hg[b]`` (n̄_V, 3), ``K_r = K[b]`` (m̄,
    m̄), ``f₀ = f0[b]`` (m̄)), into ``F[b, :ks[b]]`` (``F`` (B, k̄), the padding set to
    zero) and, when ``out`` is not empty, added into ``out[idx[b, j]]``.

    ``points(q, frames, modal, ms, bi, v0, S0, Y, coef, xdest, jdest, x, J)``: the ``n``
    points ``j`` of bodies ``bi[j]`` (frame coordinates ``frames[b]`` (12), modal ones
    ``modal[b, :ms[b]]``), with ``v_c = v0[j]``, ``v_(u,v,w) = S0[j]``, ``Y = Y[j]`` (3,
    m̄): their values (3 each) and Jacobians ((3, 12 + m_b) each, row-major), one point
    after the other, times ``coef[j]``, added into ``x[xdest[e]]`` and ``J[jdest[e]]``
    (entry ``e`` of the values, of the Jacobians): straight into the general rows' maps
    (:meth:`fem.constraints.general._Batched._maps`), or with ``coef`` ones and
    ``xdest``, ``jdest`` ranges into zeroed arrays."""

    @numba.njit(cache=True)
    def terms(q, v, a, idx, ks, WT, hg, K, f0, inertial, F, out):   # pragma: no cover - jit
        B, kmax = F.shape
        mm = kmax - 12
        nV = WT.shape[1]
        G = np.zeros((nV, 3))
        h = np.zeros((3, nV))                    # h transposed
        E = np.empty((3, 3))
        own = np.empty(nV, np.int64)            # the body's own rows of X
        eta = np.empty(mm)
        for b in range(B):
            m = ks[b] - 12
            d = idx[b]
            nr = 4 + 3 * m
            for r in range(4):
                own[r] = r
            for ax in range(3):
                for k in range(m):
                    own[4 + ax * m + k] = 4 + ax * mm + k
            for ax in range(3):
                for c in range(3):
                    E[ax, c] = q[d[3 + 3 * ax + c]]
            for k in range(m):
                eta[k] = q[d[12 + k]]
            if inertial:
                for c in range(3):
                    G[0, c] = a[d[c]]
                for ax in range(3):
                    for c in range(3):
                        G[1 + ax, c] = a[d[3 + 3 * ax + c]]
                # η_k ë_a + η̈_k e_a + 2 η̇_k ė_a at row 4 + a m̄ + k
                for k in range(m):
                    ek, edk, eddk = eta[k], v[d[12 + k]], a[d[12 + k]]
                    for ax in range(3):
                        r = 4 + ax * mm + k
                        for c in range(3):
                            j = d[3 + 3 * ax + c]
                            G[r, c] = ek * a[j] + eddk * E[ax, c] + 2.0 * edk * v[j]
                # h = W Ẍ as Σ_s W[:, s] Ẍ[s] over the body's own rows s (the column s
                # of W the row s of WT, contiguous), every row r at once (the padded
                # rows of W are zero)
                for r in range(nV):
                    h[0, r] = 0.0
                    h[1, r] = 0.0
                    h[2, r] = 0.0
                # four rows s a pass, added one after the other (the order of the sums
                # of one row at a time), fewer loads and stores of h
                js = 0
                while js + 4 <= nr:
                    s0, s1, s2, s3 = own[js], own[js + 1], own[js + 2], own[js + 3]
                    a0, a1, a2, a3 = G[s0, 0], G[s1, 0], G[s2, 0], G[s3, 0]
                    b0, b1, b2, b3 = G[s0, 1], G[s1, 1], G[s2, 1], G[s3, 1]
                    c0, c1, c2, c3 = G[s0, 2], G[s1, 2], G[s2, 2], G[s3, 2]
                    for r in range(nV):
                        w0, w1, w2, w3 = WT[b, s0, r], WT[b, s1, r], WT[b, s2, r], WT[b, s3, r]
                        h[0, r] = (((h[0, r] + w0 * a0) + w1 * a1) + w2 * a2) + w3 * a3
                        h[1, r] = (((h[1, r] + w0 * b0) + w1 * b1) + w2 * b2) + w3 * b3
                        h[2, r] = (((h[2, r] + w0 * c0) + w1 * c1) + w2 * c2) + w3 * c3
                    js += 4
                while js < nr:
                    s = own[js]
                    g0, g1, g2 = G[s, 0], G[s, 1], G[s, 2]
                    for r in range(nV):
                        w = WT[b, s, r]
                        h[0, r] += w * g0
                        h[1, r] += w * g1
                        h[2, r] += w * g2
                    js += 1
            else:
                for ir in range(nr):
                    r = own[ir]
                    for c in range(3):
                        h[c, r] = -hg[b, r, c]
            # Lᵀ h
            for c in range(3):
                F[b, c] = h[c, 0]
            for ax in range(3):
                for c in range(3):
                    acc = h[c, 1 + ax]
                    for k in range(m):
                        acc += eta[k] * h[c, 4 + ax * mm + k]
                    F[b, 3 + 3 * ax + c] = acc
            for k in range(m):
                acc = 0.0
                for ax in range(3):
                    r = 4 + ax * mm + k
                    for c in range(3):
                        acc += E[ax, c] * h[c, r]
                F[b, 12 + k] = acc
            if not inertial:                    # the modal forces f₀ + K_r η
                for k in range(m):
                    acc = f0[b, k]
                    for j in range(m):
                        acc += K[b, k, j] * eta[j]
                    F[b, 12 + k] += acc
            for j in range(12 + m, kmax):
                F[b, j] = 0.0
            if out.size:
                for j in range(12 + m):
                    out[d[j]] += F[b, j]

    @numba.njit(cache=True)
    def points(q, frames, modal, ms, bi, v0, S0, Y, coef, xdest, jdest, x,
               J):   # pragma: no cover - jit
        n = bi.size
        o = 0
        E = np.empty((3, 3))
        s = np.empty(3)
        for j in range(n):
            b = bi[j]
            m = ms[b]
            fr = frames[b]
            w = coef[j]
            for ax in range(3):
                for c in range(3):
                    E[ax, c] = q[fr[3 + 3 * ax + c]]
            for ax in range(3):
                acc = S0[j, ax]
                for k in range(m):
                    acc += Y[j, ax, k] * q[modal[b, k]]
                s[ax] = acc
            vc = v0[j]
            kp = 12 + m
            for c in range(3):
                xc = vc * q[fr[c]] + s[0] * E[0, c] + s[1] * E[1, c] + s[2] * E[2, c]
                x[xdest[3 * j + c]] += w * xc
                row = o + c * kp
                for i in range(12):                 # [v_c I, s_u I, s_v I, s_w I]
                    blk = i // 3
                    val = 0.0
                    if i - 3 * blk == c:
                        val = vc if blk == 0 else s[blk - 1]
                    J[jdest[row + i]] += w * val
                for k in range(m):
                    J[jdest[row + 12 + k]] += w * (E[0, c] * Y[j, 0, k] + E[1, c] * Y[j, 1, k]
                                                   + E[2, c] * Y[j, 2, k])
            o += 3 * kp

    return terms, points
