"""Compiled residual terms of a :class:`~fem.bodies.reduced_batch.ReducedBatch` and of
the reduced bodies' points.

On the NumPy path a Newton iteration of a robot of reduced links spends its body terms in
some forty small NumPy calls on arrays of tens of entries (the batch's gathers, the
generalized accelerations ``Ẍ``, ``W Ẍ``, the projection ``Lᵀ h``, the scatter), and
the general rows' maps in as many again (every reduced point's value and Jacobian, then
the rows' products).  On the compiled path (:func:`fem.core.jit.path`) three kernels do
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

      ∂x/∂r = v_c I,   ∂x/∂e_a = s_a I,   ∂x/∂η_k = Σ_a Y_a,k e_a;

* ``rows_state`` from the maps' values ``X`` and Jacobians ``J``: the general rows'
  ``Φ`` and ``Φ_q`` values, the gathered products ``X_a·X_b`` and ``J X`` summed in
  entry order (what :meth:`fem.constraints.general._Batched.state` forms with
  ``np.bincount``).

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
    """The compiled ``(terms, points, rows_state)`` (numba), or None on the NumPy path.

    ``terms(q, v, a, idx, ks, WT, hg, K, f0, inertial, F, out)``: with body ``b``'s
    global coordinates ``idx[b, :ks[b]]`` (``[r, u, v, w, η]``, ``ks[b] = 12 + m_b``; the
    rest padding) and the transpose ``WT[b]`` of its mass matrix of the generalized
    vectors ``W`` (n̄_V, n̄_V; row ``4 + a m̄ + k`` holds ``η_k e_a``): with
    ``inertial`` the inertia forces ``Lᵀ W Ẍ`` at ``(q, v, a)``, else the forces ``−Lᵀ
    h_g + [0; f₀ + K_r η]`` at ``q`` (``h_g = hg[b]`` (n̄_V, 3), ``K_r = K[b]`` (m̄,
    m̄), ``f₀ = f0[b]`` (m̄)), into ``F[b, :ks[b]]`` (``F`` (B, k̄), the padding set to
    zero) and, when ``out`` is not empty, added into ``out[idx[b, j]]``.

    ``points(q, frames, modal, ms, bi, v0, S0, Y, x, J)``: the ``n`` points ``j`` of
    bodies ``bi[j]`` (frame coordinates ``frames[b]`` (12), modal ones
    ``modal[b, :ms[b]]``), with ``v_c = v0[j]``, ``v_(u,v,w) = S0[j]``, ``Y = Y[j]`` (3,
    m̄): ``x[j]`` (3) and the Jacobians (3, 12 + m_b) one after the other, row-major,
    into the flat ``J``.

    ``rows_state(X, J, xa, xb, prow, jo, jJ, jx, phi, jv)``: ``phi[prow[e]] += X[xa[e]]
    X[xb[e]]`` and ``jv[jo[e]] += J[jJ[e]] X[jx[e]]`` in entry order (``phi``, ``jv``
    zeroed first)."""

    @numba.njit(cache=True)
    def terms(q, v, a, idx, ks, WT, hg, K, f0, inertial, F, out):   # pragma: no cover - jit
        B, kmax = F.shape
        mm = kmax - 12
        nV = WT.shape[1]
        G = np.zeros((nV, 3))
        h = np.zeros((3, nV))                    # h transposed
        E = np.empty((3, 3))
        own = np.empty(nV, np.int64)            # the body's own rows of X
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
            if inertial:
                for c in range(3):
                    G[0, c] = a[d[c]]
                for ax in range(3):
                    for c in range(3):
                        G[1 + ax, c] = a[d[3 + 3 * ax + c]]
                # η_k ë_a + η̈_k e_a + 2 η̇_k ė_a at row 4 + a m̄ + k
                for k in range(m):
                    ek, edk, eddk = q[d[12 + k]], v[d[12 + k]], a[d[12 + k]]
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
                for js in range(nr):
                    s = own[js]
                    g0, g1, g2 = G[s, 0], G[s, 1], G[s, 2]
                    for r in range(nV):
                        w = WT[b, s, r]
                        h[0, r] += w * g0
                        h[1, r] += w * g1
                        h[2, r] += w * g2
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
                        acc += q[d[12 + k]] * h[c, 4 + ax * mm + k]
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
                        acc += K[b, k, j] * q[d[12 + j]]
                    F[b, 12 + k] += acc
            for j in range(12 + m, kmax):
                F[b, j] = 0.0
            if out.size:
                for j in range(12 + m):
                    out[d[j]] += F[b, j]

    @numba.njit(cache=True)
    def points(q, frames, modal, ms, bi, v0, S0, Y, x, J):   # pragma: no cover - jit
        n = bi.size
        o = 0
        E = np.empty((3, 3))
        s = np.empty(3)
        for j in range(n):
            b = bi[j]
            m = ms[b]
            fr = frames[b]
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
                x[j, c] = vc * q[fr[c]] + s[0] * E[0, c] + s[1] * E[1, c] + s[2] * E[2, c]
                row = o + c * kp
                for i in range(12):
                    J[row + i] = 0.0
                J[row + c] = vc
                for ax in range(3):
                    J[row + 3 + 3 * ax + c] = s[ax]
                for k in range(m):
                    J[row + 12 + k] = (E[0, c] * Y[j, 0, k] + E[1, c] * Y[j, 1, k]
                                       + E[2, c] * Y[j, 2, k])
            o += 3 * kp

    @numba.njit(cache=True)
    def rows_state(X, J, xa, xb, prow, jo, jJ, jx, phi, jv):   # pragma: no cover - jit
        phi[:] = 0.0
        jv[:] = 0.0
        for e in range(xa.size):
            phi[prow[e]] += X[xa[e]] * X[xb[e]]
        for e in range(jo.size):
            jv[jo[e]] += J[jJ[e]] * X[jx[e]]

    return terms, points, rows_state
