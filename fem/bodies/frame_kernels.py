"""Compiled residual of a :class:`~fem.bodies.frame_batch.FrameBatch`.

On the NumPy path a batch spends a Newton iteration's residual in some 120 small NumPy
calls on arrays of tens of entries (the centre line, the tips, the elastic forces with
the weight, the inertia forces: ``docs/performance.md``, "Link models priced on one
robot"), and a factorization's tangents in dense products over every point's ``H``
(3 × k × k).  On the compiled path (:func:`fem.core.jit.path`) five kernels do the same
work in plain loops over the bodies and points, from shared intermediates and with the
known sparsity of ``J`` and ``H``:

* ``line_forces`` at ``q``: the centre line at the quadrature points and the tip
  (``p``, ``P_e``, the fourth-order running rule's values), the elastic forces with the
  nonlinear bending gradient and the weight, and the tips (point and section axes with
  their Jacobians) the general rows ask for;
* ``inertia`` at ``(q, q̇, q̈)`` from ``line_forces``' line: the centre line's inertia
  forces ``Σ_p w_p J_pᵀ (J_p q̈ + q̇ᵀH_p q̇)`` without ``H`` and the section directors' in
  closed form from their invariants;
* ``elastic_tangent``, ``inertia_tangent`` and ``tip_second``: the elastic tangent
  with the bending and weight Hessians, the inertia tangents ``(M, ∂f/∂q, ∂f/∂q̇)``
  (the directors' as derivatives of their closed form), the tips' second derivatives
  in the compact layout of :meth:`FrameBatch.tips_second_compact`.

The equations are those of the NumPy forms (:meth:`FrameBatch._first`,
:meth:`~FrameBatch._second`, :meth:`~FrameBatch._elastic_and_weight`,
:meth:`~FrameBatch._bending_gradient`, :meth:`~FrameBatch._tips_numpy`,
:meth:`~FrameBatch._tip_second_parts`, :meth:`~FrameBatch._quadratic`,
:meth:`~FrameBatch._director_forces`, :meth:`~FrameBatch._inertia_forces`), written out
in :func:`frame_kernels`; the results agree to round-off (``tests/test_frame_kernels.py``).
The kernels call no other kernel (their ``py_func`` runs as plain Python, which the
tests use without compiling).
"""

from __future__ import annotations

import numpy as np

from ..core.jit import compiled

__all__ = ["frame_kernels"]


_directors = _q_band = None
"""The helper kernels (the directors' forces, a point's ``Q`` band), module globals once
built: the kernels that call them refer to them as globals (a closure's dispatcher is a
new object in every process, which numba's disk cache cannot match: they were compiled
again in every run)."""


@compiled
def frame_kernels(numba):
    """The compiled ``(line_forces, inertia, elastic_tangent, inertia_tangent,
    tip_second)`` (numba), or None on the NumPy path.

    ``line_forces(qB, g, L1x, p0x, Hcx, DT, Wx, K, wb, Bz, ei, w_line, A, na, nb, R, pp,
    Pe, ac)`` → ``(f, r_t, J_t, d_t, Js_t)``: with every body's coordinates ``qB`` (B, k),
    ``k = 12 + ne``, ``R[c, j] = q[3 + 3j + c]`` and ``e = q[12:]``, the centre line at
    the ``P`` quadrature points and the tip (row ``P`` of the ``P + 1`` rows of
    ``L1x``, ``p0x``, ``Hcx``, ``Wx``)::

        p = p0 + L1 e − x̂ (½ e_bᵀQ e_b + ⅛ Σ_n W_n s_n²)
        P_e = L1 − x̂ ⊗ (Q e_b + ½ Σ_n W_n s_n (a_n, c_n) ⊗ D_n)   (on the band e_b)

    (``Q`` the coupling of both bending fields, ``a_n = D_n·e_y``, ``c_n = D_n·e_z``,
    ``s_n = a_n² + c_n²`` at the running rule's points ``n``, ``DT`` (B, nb, N), ``W``
    its weights; no rule: ``N = 0``) into the buffers ``R`` (B, 3, 3), ``pp`` (B, P+1,
    3), ``Pe`` (B, P+1, 3, ne), ``ac`` (B, 3, N) ``= (a, c, s)``; the forces::

        f_e = K e + ∂U_b/∂e,   f −= Σ_p w_p J_pᵀ g,
        J_p = [I, p_p,0 I, p_p,1 I, p_p,2 I, R P_e,p]

    (``U_b`` the nonlinear bending energy ``½ Σ_p w_p Σ_i EI_i (k_i² − z_i″²)``,
    ``k₁ = v″ + ½ v′ m``, ``k₂ = w″ + ½ w′ m``, ``m = v′v″ + w′w″``, ``z = B_z e``;
    no curvature: ``Pb = 0``); the tips ``r = r₀ + R p_t``, ``J`` as ``J_p``; the tip
    sections' axes ``d_a = R T(α) e_a``, ``α = A e``, ``T = R_z(α₀) R_y(α₁) R_x(α₂)``,
    ``∂d_a/∂R_j = T_ja I``, ``∂d_a/∂e = R Σ_i ∂T/∂α_i e_a A_i``.

    ``inertia(qB, vB, aB, R, pp, Pe, ac, Hcx, DT, Wx, w_line, na, nb, m_dir, s_dir,
    S_dir, t0, M_const)`` → ``f`` (B, k) at the line of the last ``line_forces``::

        f = Σ_p w_p J_pᵀ (J_p q̈ + 2 Ṙ ṗ − R x̂ (ė_bᵀQ ė_b + Σ_n W_n g_n))
        g_n = ½ s_n (ȧ_n² + ċ_n²) + (a_n ȧ_n + c_n ċ_n)²,   ṗ = P_e ė

    plus the section directors' (``m_dir`` (B,) < 0: none) in the complex form ``z = v
    + i w`` of the section axes, ``χ_x = x·(S e − i s)`` of the twist coordinates
    ``e_t = q[t0:t0 + nt]``::

        f_v + i f_w = (m_d + κ_e) z̈ + χ_ë z + 2 χ_ė ż
        f_t = Re(z̈·z̄) S e − Im(z̈·z̄) s + |z|² S ë + 2 Re(ż·z̄) S ė

    and ``M_const q̈`` (zero-sized: none).

    The tangents use the sparsity of a centre-line point's ``J_p = [I, p₀ I, p₁ I, p₂ I,
    E]`` (``E = R P_e``) and ``H_p``: ``∂²r_c/∂R_jc∂e = P_e,j`` and ``∂²r/∂e_b² = −R x̂ ⊗
    Q`` (``Q`` with the running rule's blocks ``Σ_n W_n [[½(s + 2a²), ac], [ac, ½(s +
    2c²)]] ⊗ D_n D_nᵀ``), nothing else.  ``elastic_tangent(qB, g, R, pp, Pe, ac, Hcx, DT,
    Wx, K, wb, Bz, ei, w_line, na, nb)`` → ``K + ∂²U_b/∂e² − Σ_p w_p g·H_p`` (B, k, k);
    ``inertia_tangent(…)`` (the arguments of ``inertia``) → ``(f, M, ∂f/∂q, ∂f/∂q̇)``::

        M = Σ_p w_p J_pᵀJ_p,   ∂f/∂q̇ = 2 Σ_p w_p J_pᵀ (H_p q̇),
        ∂f/∂q = Σ_p w_p (r̈_p·H_p + J_pᵀ (H_p q̈))

    (``r̈_p = J_p q̈ + q̇ᵀH_p q̇``; the form of :func:`~fem.bodies.base.inertia_from_points`)
    and for the section directors the derivatives of their closed form, e.g. ``M_vv =
    M_ww = (m_d + κ_e) I``, ``M_ve = v ⊗ Se + w ⊗ s``, ``M_we = w ⊗ Se − v ⊗ s``,
    ``M_ee = |z|² S``.  ``tip_second(qB, R, Pe, ac, Hcx, DT, Wx, A, na, nb)`` → the
    tips' ``P_e`` (B, 3, ne), ``−R x̂ ⊗ Q`` (B, 3, 2nb, 2nb), ``∂T_ja/∂e = Σ_i ∂T_ja/∂α_i
    A_i`` (B, 3 a, 3 j, ne) and ``∂²d_a/∂e² = Σ_ij R ∂²T/∂α_i∂α_j e_a A_i ⊗ A_j`` (B, 3 a,
    3, ne, ne), flat."""

    global _directors

    @numba.njit(cache=True)
    def directors(q, v, a, fb, m_d, s_d, S_d, t0, SE):  # pragma: no cover - jit
        """The section directors' inertia forces in closed form (``inertia``'s ``f_v +
        i f_w`` and ``f_t``) added into one body's ``fb``; ``SE`` (3, nt) left holding
        ``ëᵀS, ėᵀS, eᵀS`` of the twist coordinates.  Returns ``(κ_ë, κ_ė, σ_ë, σ_ė, m_d +
        κ_e, |z|², Re(ż·z̄), Re(z̈·z̄), Im(z̈·z̄))`` for the tangent's derivatives."""
        nt = s_d.shape[0]
        # xᵀS of x = ë, ė, e (rows of SE) and κ_x = xᵀS e, σ_x = x·s
        for j in range(nt):
            s_a = 0.0
            s_v = 0.0
            s_e = 0.0
            for i in range(nt):
                S = S_d[i, j]
                s_a += a[t0 + i] * S
                s_v += v[t0 + i] * S
                s_e += q[t0 + i] * S
            SE[0, j] = s_a
            SE[1, j] = s_v
            SE[2, j] = s_e
        ka = 0.0
        kv = 0.0
        ke = 0.0
        sa = 0.0
        sv = 0.0
        for j in range(nt):
            ka += a[t0 + j] * SE[2, j]
            kv += v[t0 + j] * SE[2, j]
            ke += q[t0 + j] * SE[2, j]
            sa += a[t0 + j] * s_d[j]
            sv += v[t0 + j] * s_d[j]
        ch = m_d + ke
        zz = 0.0
        zv = 0.0
        zar = 0.0
        zai = 0.0
        for c in range(3):
            zr, zi = q[6 + c], q[9 + c]
            vr, vi = v[6 + c], v[9 + c]
            ar, ai = a[6 + c], a[9 + c]
            # (κ − iσ)(x_r + i x_i) = κ x_r + σ x_i + i (κ x_i − σ x_r)
            fb[6 + c] += ka * zr + sa * zi + 2.0 * (kv * vr + sv * vi) + ch * ar
            fb[9 + c] += ka * zi - sa * zr + 2.0 * (kv * vi - sv * vr) + ch * ai
            zz += zr * zr + zi * zi
            zv += vr * zr + vi * zi
            zar += ar * zr + ai * zi
            zai += ai * zr - ar * zi
        for j in range(nt):
            fb[t0 + j] += zz * SE[0, j] + 2.0 * zv * SE[1, j] + zar * SE[2, j] \
                - zai * s_d[j]
        return ka, kv, sa, sv, ch, zz, zv, zar, zai

    _directors = directors

    global _q_band

    @numba.njit(cache=True)
    def q_band(Hcx, Wx, DT, ac, b, p, nb, Qt):  # pragma: no cover - jit
        """``Q`` (2 nb, 2 nb) of body ``b``'s point ``p`` on both transverse fields into
        ``Qt``: the foreshortening blocks ``Hcx`` and the running rule's ``Σ_n W_n D_n ⊗
        D_n`` weighted by the fields' values there (``ac``)."""
        nq = 2 * nb
        for i in range(nq):
            for j in range(nq):
                Qt[i, j] = 0.0
        for i in range(nb):
            for j in range(nb):
                Qt[i, j] = Hcx[b, p, i, j]
                Qt[nb + i, nb + j] = Hcx[b, p, i, j]
        for n in range(DT.shape[2]):
            wn = Wx[b, p, n]
            if wn == 0.0:
                continue
            av, cv, sn = ac[b, 0, n], ac[b, 1, n], ac[b, 2, n]
            wyy = wn * 0.5 * (sn + 2.0 * av * av)
            wyz = wn * av * cv
            wzz = wn * 0.5 * (sn + 2.0 * cv * cv)
            for i in range(nb):
                di = DT[b, i, n]
                for j in range(nb):
                    dd = di * DT[b, j, n]
                    Qt[i, j] += wyy * dd
                    Qt[i, nb + j] += wyz * dd
                    Qt[nb + i, j] += wyz * dd
                    Qt[nb + i, nb + j] += wzz * dd

    _q_band = q_band

    @numba.njit(cache=True)
    def line_forces(qB, g, L1x, p0x, Hcx, DT, Wx, K, wb, Bz, ei, w_line, A, na, nb,
                    R, pp, Pe, ac):  # pragma: no cover - jit
        B, k = qB.shape
        ne = k - 12
        P1 = p0x.shape[1]
        P = P1 - 1
        N = DT.shape[2]
        Pb = wb.shape[1]
        nq = 2 * nb
        gravity = g[0] != 0.0 or g[1] != 0.0 or g[2] != 0.0
        f = np.zeros((B, k))
        r_t = np.empty((B, 3))
        J_t = np.zeros((B, 3, k))
        d_t = np.empty((B, 3, 3))
        Js_t = np.zeros((B, 3, 3, k))
        corr = np.empty(1 + nq)
        z = np.empty(4)
        gz = np.empty(4)
        gt = np.empty(3)
        al = np.empty(3)
        F = np.zeros((3, 2, 3, 3))         # factor (z, y, x), order, 3 × 3
        T4 = np.empty((4, 3, 3))            # T, ∂T/∂α_0, ∂T/∂α_1, ∂T/∂α_2
        tmp = np.empty((3, 3))
        for b in range(B):
            q = qB[b]
            for c in range(3):
                for j in range(3):
                    R[b, c, j] = q[3 + 3 * j + c]
            b0 = 12 + na
            # the running rule's values a, c, s
            for n in range(N):
                av = 0.0
                cv = 0.0
                for m in range(nb):
                    av += q[b0 + m] * DT[b, m, n]
                    cv += q[b0 + nb + m] * DT[b, m, n]
                ac[b, 0, n] = av
                ac[b, 1, n] = cv
                ac[b, 2, n] = av * av + cv * cv
            # the centre line: p and P_e at the points and the tip
            for p in range(P1):
                for fld in range(2):
                    off = b0 + fld * nb
                    for i in range(nb):
                        acc = 0.0
                        for j in range(nb):
                            acc += Hcx[b, p, i, j] * q[off + j]
                        corr[1 + fld * nb + i] = acc
                acc = 0.0
                for i in range(nq):
                    acc += corr[1 + i] * q[b0 + i]
                corr[0] = 0.5 * acc
                for n in range(N):
                    w = Wx[b, p, n]
                    if w == 0.0:
                        continue
                    s = ac[b, 2, n]
                    corr[0] += w * (0.125 * s * s)
                    ha = w * (0.5 * s * ac[b, 0, n])
                    hc = w * (0.5 * s * ac[b, 1, n])
                    for m in range(nb):
                        corr[1 + m] += ha * DT[b, m, n]
                        corr[1 + nb + m] += hc * DT[b, m, n]
                for c in range(3):
                    acc = p0x[b, p, c]
                    for m in range(ne):
                        lv = L1x[b, p, c, m]
                        acc += lv * q[12 + m]
                        Pe[b, p, c, m] = lv
                    pp[b, p, c] = acc
                pp[b, p, 0] -= corr[0]
                for i in range(nq):
                    Pe[b, p, 0, na + i] -= corr[1 + i]
            # elastic forces K e and the nonlinear bending gradient
            for i in range(ne):
                acc = 0.0
                for j in range(ne):
                    acc += K[b, i, j] * q[12 + j]
                f[b, 12 + i] = acc
            if Pb > 0:
                ei1 = ei[b, 0]
                ei2 = ei[b, 1]
                for p in range(Pb):
                    for r in range(4):
                        acc = 0.0
                        for i in range(ne):
                            acc += Bz[b, p, r, i] * q[12 + i]
                        z[r] = acc
                    a, Av, c, Cv = z[0], z[1], z[2], z[3]
                    m_ = a * Av + c * Cv
                    k1 = Av + 0.5 * a * m_
                    k2 = Cv + 0.5 * c * m_
                    # ∂U/∂z = EI₁ k₁ ∂k₁/∂z + EI₂ k₂ ∂k₂/∂z − (0, EI₁ A, 0, EI₂ C)
                    gz[0] = ei1 * k1 * (0.5 * a * Av + 0.5 * m_) + ei2 * k2 * (0.5 * c * Av)
                    gz[1] = ei1 * k1 * (0.5 * a * a + 1.0) + ei2 * k2 * (0.5 * c * a) \
                        - ei1 * Av
                    gz[2] = ei1 * k1 * (0.5 * a * Cv) + ei2 * k2 * (0.5 * c * Cv + 0.5 * m_)
                    gz[3] = ei1 * k1 * (0.5 * a * c) + ei2 * k2 * (0.5 * c * c + 1.0) \
                        - ei2 * Cv
                    w = wb[b, p]
                    for i in range(ne):
                        acc = 0.0
                        for r in range(4):
                            acc += Bz[b, p, r, i] * gz[r]
                        f[b, 12 + i] += w * acc
            # the weight −Σ_p w_p J_pᵀ g
            if gravity:
                for d in range(3):
                    gt[d] = R[b, 0, d] * g[0] + R[b, 1, d] * g[1] + R[b, 2, d] * g[2]
                for p in range(P):
                    w = w_line[b, p]
                    for c in range(3):
                        f[b, c] -= w * g[c]
                        for j in range(3):
                            f[b, 3 + 3 * j + c] -= w * pp[b, p, j] * g[c]
                    for m in range(ne):
                        f[b, 12 + m] -= w * (gt[0] * Pe[b, p, 0, m] + gt[1] * Pe[b, p, 1, m]
                                             + gt[2] * Pe[b, p, 2, m])
            # the tip point
            for c in range(3):
                r_t[b, c] = q[c] + R[b, c, 0] * pp[b, P, 0] + R[b, c, 1] * pp[b, P, 1] \
                    + R[b, c, 2] * pp[b, P, 2]
                J_t[b, c, c] = 1.0
                for j in range(3):
                    J_t[b, c, 3 + 3 * j + c] = pp[b, P, j]
                for m in range(ne):
                    J_t[b, c, 12 + m] = R[b, c, 0] * Pe[b, P, 0, m] \
                        + R[b, c, 1] * Pe[b, P, 1, m] + R[b, c, 2] * Pe[b, P, 2, m]
            # the tip section: T(α) = R_z(α₀) R_y(α₁) R_x(α₂) and ∂T/∂α_i
            for i in range(3):
                acc = 0.0
                for m in range(ne):
                    acc += A[b, i, m] * q[12 + m]
                al[i] = acc
            cz, sz = np.cos(al[0]), np.sin(al[0])
            cy, sy = np.cos(al[1]), np.sin(al[1])
            cx, sx = np.cos(al[2]), np.sin(al[2])
            F[0, 0, 0, 0], F[0, 0, 0, 1], F[0, 0, 1, 0], F[0, 0, 1, 1] = cz, -sz, sz, cz
            F[0, 0, 2, 2] = 1.0
            F[0, 1, 0, 0], F[0, 1, 0, 1], F[0, 1, 1, 0], F[0, 1, 1, 1] = -sz, -cz, cz, -sz
            F[1, 0, 0, 0], F[1, 0, 0, 2], F[1, 0, 2, 0], F[1, 0, 2, 2] = cy, sy, -sy, cy
            F[1, 0, 1, 1] = 1.0
            F[1, 1, 0, 0], F[1, 1, 0, 2], F[1, 1, 2, 0], F[1, 1, 2, 2] = -sy, cy, -cy, -sy
            F[2, 0, 1, 1], F[2, 0, 1, 2], F[2, 0, 2, 1], F[2, 0, 2, 2] = cx, -sx, sx, cx
            F[2, 0, 0, 0] = 1.0
            F[2, 1, 1, 1], F[2, 1, 1, 2], F[2, 1, 2, 1], F[2, 1, 2, 2] = -sx, -cx, cx, -sx
            for o in range(4):               # orders (0,0,0), (1,0,0), (0,1,0), (0,0,1)
                o0 = 1 if o == 1 else 0
                o1 = 1 if o == 2 else 0
                o2 = 1 if o == 3 else 0
                for r in range(3):
                    for c in range(3):
                        tmp[r, c] = F[0, o0, r, 0] * F[1, o1, 0, c] \
                            + F[0, o0, r, 1] * F[1, o1, 1, c] + F[0, o0, r, 2] * F[1, o1, 2, c]
                for r in range(3):
                    for c in range(3):
                        T4[o, r, c] = tmp[r, 0] * F[2, o2, 0, c] + tmp[r, 1] * F[2, o2, 1, c] \
                            + tmp[r, 2] * F[2, o2, 2, c]
            for ax in range(3):
                for c in range(3):
                    d_t[b, ax, c] = R[b, c, 0] * T4[0, 0, ax] + R[b, c, 1] * T4[0, 1, ax] \
                        + R[b, c, 2] * T4[0, 2, ax]
                    for j in range(3):
                        Js_t[b, ax, c, 3 + 3 * j + c] = T4[0, j, ax]
                for m in range(ne):
                    # G[r] = Σ_i ∂T[r, ax]/∂α_i A_i,m; ∂d/∂e = R G
                    g0 = T4[1, 0, ax] * A[b, 0, m] + T4[2, 0, ax] * A[b, 1, m] \
                        + T4[3, 0, ax] * A[b, 2, m]
                    g1 = T4[1, 1, ax] * A[b, 0, m] + T4[2, 1, ax] * A[b, 1, m] \
                        + T4[3, 1, ax] * A[b, 2, m]
                    g2 = T4[1, 2, ax] * A[b, 0, m] + T4[2, 2, ax] * A[b, 1, m] \
                        + T4[3, 2, ax] * A[b, 2, m]
                    for c in range(3):
                        Js_t[b, ax, c, 12 + m] = R[b, c, 0] * g0 + R[b, c, 1] * g1 \
                            + R[b, c, 2] * g2
        return f, r_t, J_t, d_t, Js_t

    @numba.njit(cache=True)
    def inertia(qB, vB, aB, R, pp, Pe, ac, Hcx, DT, Wx, w_line, na, nb, m_dir, s_dir,
                S_dir, t0, M_const):  # pragma: no cover - jit
        B, k = qB.shape
        ne = k - 12
        P = w_line.shape[1]
        N = DT.shape[2]
        nt = s_dir.shape[1]
        f = np.zeros((B, k))
        gq = np.empty(max(N, 1))
        pd = np.empty(3)
        pa = np.empty(3)
        acc3 = np.empty(3)
        rt = np.empty(3)
        SE = np.empty((3, max(nt, 1)))
        for b in range(B):
            v = vB[b]
            a = aB[b]
            b0 = 12 + na
            for n in range(N):
                av = 0.0
                cv = 0.0
                for m in range(nb):
                    av += v[b0 + m] * DT[b, m, n]
                    cv += v[b0 + nb + m] * DT[b, m, n]
                t = ac[b, 0, n] * av + ac[b, 1, n] * cv
                gq[n] = 0.5 * ac[b, 2, n] * (av * av + cv * cv) + t * t
            for p in range(P):
                # ṗ = P_e ė, P_e ë
                for d in range(3):
                    s1 = 0.0
                    s2 = 0.0
                    for m in range(ne):
                        s1 += Pe[b, p, d, m] * v[12 + m]
                        s2 += Pe[b, p, d, m] * a[12 + m]
                    pd[d] = s1
                    pa[d] = s2
                # ė_bᵀ Q ė_b (both fields) and the running rule's part
                sq = 0.0
                for fld in range(2):
                    off = b0 + fld * nb
                    for i in range(nb):
                        acc = 0.0
                        for j in range(nb):
                            acc += Hcx[b, p, i, j] * v[off + j]
                        sq += acc * v[off + i]
                for n in range(N):
                    sq += Wx[b, p, n] * gq[n]
                # J q̈ + q̇ᵀH q̇
                for c in range(3):
                    x = a[c]
                    for j in range(3):
                        x += pp[b, p, j] * a[3 + 3 * j + c] + 2.0 * pd[j] * v[3 + 3 * j + c]
                    x += R[b, c, 0] * pa[0] + R[b, c, 1] * pa[1] + R[b, c, 2] * pa[2]
                    acc3[c] = x - R[b, c, 0] * sq
                w = w_line[b, p]
                for d in range(3):
                    rt[d] = w * (R[b, 0, d] * acc3[0] + R[b, 1, d] * acc3[1]
                                 + R[b, 2, d] * acc3[2])
                for c in range(3):
                    wa = w * acc3[c]
                    f[b, c] += wa
                    for j in range(3):
                        f[b, 3 + 3 * j + c] += pp[b, p, j] * wa
                for m in range(ne):
                    f[b, 12 + m] += rt[0] * Pe[b, p, 0, m] + rt[1] * Pe[b, p, 1, m] \
                        + rt[2] * Pe[b, p, 2, m]
            if m_dir[b] >= 0.0:
                _directors(qB[b], v, a, f[b], m_dir[b], s_dir[b], S_dir[b], t0, SE)
            if M_const.shape[0] > 0:
                for i in range(k):
                    acc = 0.0
                    for j in range(k):
                        acc += M_const[b, i, j] * a[j]
                    f[b, i] += acc
        return f

    @numba.njit(cache=True)
    def elastic_tangent(qB, g, R, pp, Pe, ac, Hcx, DT, Wx, K, wb, Bz, ei, w_line, na,
                        nb):  # pragma: no cover - jit
        B, k = qB.shape
        ne = k - 12
        P = w_line.shape[1]
        Pb = wb.shape[1]
        nq = 2 * nb
        gravity = g[0] != 0.0 or g[1] != 0.0 or g[2] != 0.0
        Kt = np.zeros((B, k, k))
        Qt = np.empty((nq, nq))
        z = np.empty(4)
        d1 = np.empty(4)
        d2 = np.empty(4)
        dm = np.empty(4)
        hz = np.empty((4, 4))
        t = np.empty((4, ne))
        for b in range(B):
            q = qB[b]
            b0 = 12 + na
            for i in range(ne):
                for j in range(ne):
                    Kt[b, 12 + i, 12 + j] = K[b, i, j]
            if Pb > 0:              # the nonlinear bending Hessian (bending_kernel's)
                ei1 = ei[b, 0]
                ei2 = ei[b, 1]
                for p in range(Pb):
                    for r in range(4):
                        acc = 0.0
                        for i in range(ne):
                            acc += Bz[b, p, r, i] * q[12 + i]
                        z[r] = acc
                    a, Av, c, Cv = z[0], z[1], z[2], z[3]
                    m_ = a * Av + c * Cv
                    k1 = Av + 0.5 * a * m_
                    k2 = Cv + 0.5 * c * m_
                    dm[0], dm[1], dm[2], dm[3] = Av, a, Cv, c
                    for r in range(4):
                        d1[r] = 0.5 * a * dm[r]
                        d2[r] = 0.5 * c * dm[r]
                    d1[1] += 1.0
                    d1[0] += 0.5 * m_
                    d2[3] += 1.0
                    d2[2] += 0.5 * m_
                    for r in range(4):
                        for s in range(4):
                            hz[r, s] = ei1 * d1[r] * d1[s] + ei2 * d2[r] * d2[s]
                    for s in range(4):
                        hz[0, s] += 0.5 * ei1 * k1 * dm[s]
                        hz[s, 0] += 0.5 * ei1 * k1 * dm[s]
                        hz[2, s] += 0.5 * ei2 * k2 * dm[s]
                        hz[s, 2] += 0.5 * ei2 * k2 * dm[s]
                    cm = 0.5 * (ei1 * k1 * a + ei2 * k2 * c)
                    hz[0, 1] += cm
                    hz[1, 0] += cm
                    hz[2, 3] += cm
                    hz[3, 2] += cm
                    hz[1, 1] -= ei1
                    hz[3, 3] -= ei2
                    w = wb[b, p]
                    for r in range(4):
                        for j in range(ne):
                            acc = 0.0
                            for s in range(4):
                                acc += hz[r, s] * Bz[b, p, s, j]
                            t[r, j] = w * acc
                    for i in range(ne):
                        for j in range(ne):
                            acc = 0.0
                            for r in range(4):
                                acc += Bz[b, p, r, i] * t[r, j]
                            Kt[b, 12 + i, 12 + j] += acc
            if not gravity:
                continue
            # −Σ_p w_p g·H_p: ∂²r/∂R_j∂e = P_e,j and ∂²r/∂e_b² = −R x̂ Q
            gx = g[0] * R[b, 0, 0] + g[1] * R[b, 1, 0] + g[2] * R[b, 2, 0]
            for p in range(P):
                w = w_line[b, p]
                for j in range(3):
                    for c in range(3):
                        wg = w * g[c]
                        col = 3 + 3 * j + c
                        for m in range(ne):
                            x = wg * Pe[b, p, j, m]
                            Kt[b, col, 12 + m] -= x
                            Kt[b, 12 + m, col] -= x
                _q_band(Hcx, Wx, DT, ac, b, p, nb, Qt)
                wx = w * gx
                for i in range(nq):
                    for j in range(nq):
                        Kt[b, b0 + i, b0 + j] += wx * Qt[i, j]
        return Kt

    @numba.njit(cache=True)
    def inertia_tangent(qB, vB, aB, R, pp, Pe, ac, Hcx, DT, Wx, w_line, na, nb, m_dir,
                        s_dir, S_dir, t0, M_const):  # pragma: no cover - jit
        B, k = qB.shape
        ne = k - 12
        P = w_line.shape[1]
        nt = s_dir.shape[1]
        nq = 2 * nb
        f = np.zeros((B, k))
        M = np.zeros((B, k, k))
        Kq = np.zeros((B, k, k))
        C = np.zeros((B, k, k))
        Qt = np.empty((nq, nq))
        E = np.empty((3, ne))
        Yv = np.empty((3, ne))
        Ya = np.empty((3, ne))
        u = np.empty(4)
        uv = np.empty(4)
        ua = np.empty(4)
        qv = np.empty(nq)
        qa = np.empty(nq)
        acc3 = np.empty(3)
        SE = np.empty((3, max(nt, 1)))
        for b in range(B):
            v = vB[b]
            a = aB[b]
            b0 = 12 + na
            for p in range(P):
                w = w_line[b, p]
                # J = [I, p₀ I, p₁ I, p₂ I, E = R P_e]: frame column (i, c) = 3i + c
                u[0] = 1.0
                uv[0] = 0.0
                ua[0] = 0.0
                for j in range(3):
                    u[1 + j] = pp[b, p, j]
                    s1 = 0.0
                    s2 = 0.0
                    for m in range(ne):
                        s1 += Pe[b, p, j, m] * v[12 + m]
                        s2 += Pe[b, p, j, m] * a[12 + m]
                    uv[1 + j] = s1
                    ua[1 + j] = s2
                for c in range(3):
                    for m in range(ne):
                        E[c, m] = R[b, c, 0] * Pe[b, p, 0, m] + R[b, c, 1] * Pe[b, p, 1, m] \
                            + R[b, c, 2] * Pe[b, p, 2, m]
                # Q of both fields with the running rule's blocks
                _q_band(Hcx, Wx, DT, ac, b, p, nb, Qt)
                sq = 0.0
                for i in range(nq):
                    x1 = 0.0
                    x2 = 0.0
                    for j in range(nq):
                        x1 += Qt[i, j] * v[b0 + j]
                        x2 += Qt[i, j] * a[b0 + j]
                    qv[i] = x1
                    qa[i] = x2
                    sq += v[b0 + i] * x1
                # the elastic columns of H q̇ and H q̈ (their frame columns: uv, ua)
                for c in range(3):
                    for m in range(ne):
                        y1 = 0.0
                        y2 = 0.0
                        for j in range(3):
                            y1 += Pe[b, p, j, m] * v[3 + 3 * j + c]
                            y2 += Pe[b, p, j, m] * a[3 + 3 * j + c]
                        Yv[c, m] = y1
                        Ya[c, m] = y2
                    for i in range(nq):
                        Yv[c, na + i] -= R[b, c, 0] * qv[i]
                        Ya[c, na + i] -= R[b, c, 0] * qa[i]
                # r̈ = J q̈ + q̇ᵀH q̇
                for c in range(3):
                    x = a[c]
                    for j in range(3):
                        x += pp[b, p, j] * a[3 + 3 * j + c] + 2.0 * uv[1 + j] * v[3 + 3 * j + c]
                    for m in range(ne):
                        x += E[c, m] * a[12 + m]
                    acc3[c] = x - R[b, c, 0] * sq
                # f += w Jᵀr̈, M += w JᵀJ, C += 2w JᵀHq̇, ∂f/∂q += w (r̈·H + JᵀHq̈)
                for i in range(4):
                    for c in range(3):
                        f[b, 3 * i + c] += w * u[i] * acc3[c]
                    for j in range(4):
                        mm = w * u[i] * u[j]
                        cc = 2.0 * w * u[i] * uv[j]
                        kk = w * u[i] * ua[j]
                        for c in range(3):
                            M[b, 3 * i + c, 3 * j + c] += mm
                            C[b, 3 * i + c, 3 * j + c] += cc
                            Kq[b, 3 * i + c, 3 * j + c] += kk
                for i in range(4):
                    wu = w * u[i]
                    for c in range(3):
                        row = 3 * i + c
                        for m in range(ne):
                            x = wu * E[c, m]
                            M[b, row, 12 + m] += x
                            M[b, 12 + m, row] += x
                            C[b, row, 12 + m] += 2.0 * wu * Yv[c, m]
                            C[b, 12 + m, row] += 2.0 * w * E[c, m] * uv[i]
                            Kq[b, row, 12 + m] += wu * Ya[c, m]
                            Kq[b, 12 + m, row] += w * E[c, m] * ua[i]
                for m in range(ne):
                    f[b, 12 + m] += w * (E[0, m] * acc3[0] + E[1, m] * acc3[1]
                                         + E[2, m] * acc3[2])
                    for n in range(ne):
                        M[b, 12 + m, 12 + n] += w * (E[0, m] * E[0, n] + E[1, m] * E[1, n]
                                                     + E[2, m] * E[2, n])
                        C[b, 12 + m, 12 + n] += 2.0 * w * (E[0, m] * Yv[0, n]
                                                           + E[1, m] * Yv[1, n]
                                                           + E[2, m] * Yv[2, n])
                        Kq[b, 12 + m, 12 + n] += w * (E[0, m] * Ya[0, n] + E[1, m] * Ya[1, n]
                                                      + E[2, m] * Ya[2, n])
                for j in range(3):
                    for c in range(3):
                        wa = w * acc3[c]
                        col = 3 + 3 * j + c
                        for m in range(ne):
                            x = wa * Pe[b, p, j, m]
                            Kq[b, col, 12 + m] += x
                            Kq[b, 12 + m, col] += x
                ax = w * (acc3[0] * R[b, 0, 0] + acc3[1] * R[b, 1, 0] + acc3[2] * R[b, 2, 0])
                for i in range(nq):
                    for j in range(nq):
                        Kq[b, b0 + i, b0 + j] -= ax * Qt[i, j]
            if m_dir[b] >= 0.0:
                # the section directors in closed form (see inertia) and its derivatives
                q = qB[b]
                ka, kv, sa, sv, ch, zz, zv, zar, _ = _directors(
                    q, v, a, f[b], m_dir[b], s_dir[b], S_dir[b], t0, SE)
                for c in range(3):
                    zr, zi = q[6 + c], q[9 + c]
                    vr, vi = v[6 + c], v[9 + c]
                    ar, ai = a[6 + c], a[9 + c]
                    M[b, 6 + c, 6 + c] += ch
                    M[b, 9 + c, 9 + c] += ch
                    C[b, 6 + c, 6 + c] += 2.0 * kv
                    C[b, 6 + c, 9 + c] += 2.0 * sv
                    C[b, 9 + c, 6 + c] -= 2.0 * sv
                    C[b, 9 + c, 9 + c] += 2.0 * kv
                    Kq[b, 6 + c, 6 + c] += ka
                    Kq[b, 6 + c, 9 + c] += sa
                    Kq[b, 9 + c, 6 + c] -= sa
                    Kq[b, 9 + c, 9 + c] += ka
                    for j in range(nt):
                        sj, Se, Sv, Sa = s_dir[b, j], SE[2, j], SE[1, j], SE[0, j]
                        x = zr * Se + zi * sj
                        M[b, 6 + c, t0 + j] += x
                        M[b, t0 + j, 6 + c] += x
                        x = zi * Se - zr * sj
                        M[b, 9 + c, t0 + j] += x
                        M[b, t0 + j, 9 + c] += x
                        C[b, 6 + c, t0 + j] += 2.0 * (vr * Se + vi * sj)
                        C[b, 9 + c, t0 + j] += 2.0 * (vi * Se - vr * sj)
                        C[b, t0 + j, 6 + c] += 2.0 * Sv * zr
                        C[b, t0 + j, 9 + c] += 2.0 * Sv * zi
                        Kq[b, 6 + c, t0 + j] += 2.0 * ar * Se + zr * Sa + 2.0 * vr * Sv
                        Kq[b, 9 + c, t0 + j] += 2.0 * ai * Se + zi * Sa + 2.0 * vi * Sv
                        Kq[b, t0 + j, 6 + c] += Se * ar - sj * ai + 2.0 * Sa * zr + 2.0 * Sv * vr
                        Kq[b, t0 + j, 9 + c] += Se * ai + sj * ar + 2.0 * Sa * zi + 2.0 * Sv * vi
                for j in range(nt):
                    for i in range(nt):
                        S = S_dir[b, j, i]
                        M[b, t0 + j, t0 + i] += zz * S
                        C[b, t0 + j, t0 + i] += 2.0 * zv * S
                        Kq[b, t0 + j, t0 + i] += zar * S
            if M_const.shape[0] > 0:
                for i in range(k):
                    acc = 0.0
                    for j in range(k):
                        acc += M_const[b, i, j] * a[j]
                        M[b, i, j] += M_const[b, i, j]
                    f[b, i] += acc
        return f, M, Kq, C

    @numba.njit(cache=True)
    def tip_second(qB, R, Pe, ac, Hcx, DT, Wx, A, na, nb):  # pragma: no cover - jit
        B, k = qB.shape
        ne = k - 12
        P = Pe.shape[1] - 1
        nq = 2 * nb
        o1 = B * 3 * ne
        o2 = o1 + B * 3 * nq * nq
        o3 = o2 + B * 9 * ne
        out = np.empty(o3 + B * 9 * ne * ne)
        Qt = np.empty((nq, nq))
        al = np.empty(3)
        F = np.zeros((3, 3, 3, 3))           # factor (z, y, x), order 0–2, 3 × 3
        T2 = np.empty((3, 3, 3, 3))          # ∂²T/∂α_i∂α_j
        T1 = np.empty((3, 3, 3))             # ∂T/∂α_i
        tmp = np.empty((3, 3))
        RT = np.empty((3, 3))
        Y = np.empty((3, ne))
        for b in range(B):
            q = qB[b]
            # P_e of the tip
            for j in range(3):
                for m in range(ne):
                    out[(b * 3 + j) * ne + m] = Pe[b, P, j, m]
            # −R x̂ ⊗ Q on the band
            _q_band(Hcx, Wx, DT, ac, b, P, nb, Qt)
            for c in range(3):
                rc = R[b, c, 0]
                base = o1 + (b * 3 + c) * nq * nq
                for i in range(nq):
                    for j in range(nq):
                        out[base + i * nq + j] = -rc * Qt[i, j]
            # the section: T(α) = R_z(α₀) R_y(α₁) R_x(α₂), its first and second derivatives
            for i in range(3):
                acc = 0.0
                for m in range(ne):
                    acc += A[b, i, m] * q[12 + m]
                al[i] = acc
            cz, sz = np.cos(al[0]), np.sin(al[0])
            cy, sy = np.cos(al[1]), np.sin(al[1])
            cx, sx = np.cos(al[2]), np.sin(al[2])
            F[0, 0, 0, 0], F[0, 0, 0, 1], F[0, 0, 1, 0], F[0, 0, 1, 1] = cz, -sz, sz, cz
            F[0, 0, 2, 2] = 1.0
            F[0, 1, 0, 0], F[0, 1, 0, 1], F[0, 1, 1, 0], F[0, 1, 1, 1] = -sz, -cz, cz, -sz
            F[0, 2, 0, 0], F[0, 2, 0, 1], F[0, 2, 1, 0], F[0, 2, 1, 1] = -cz, sz, -sz, -cz
            F[1, 0, 0, 0], F[1, 0, 0, 2], F[1, 0, 2, 0], F[1, 0, 2, 2] = cy, sy, -sy, cy
            F[1, 0, 1, 1] = 1.0
            F[1, 1, 0, 0], F[1, 1, 0, 2], F[1, 1, 2, 0], F[1, 1, 2, 2] = -sy, cy, -cy, -sy
            F[1, 2, 0, 0], F[1, 2, 0, 2], F[1, 2, 2, 0], F[1, 2, 2, 2] = -cy, -sy, sy, -cy
            F[2, 0, 1, 1], F[2, 0, 1, 2], F[2, 0, 2, 1], F[2, 0, 2, 2] = cx, -sx, sx, cx
            F[2, 0, 0, 0] = 1.0
            F[2, 1, 1, 1], F[2, 1, 1, 2], F[2, 1, 2, 1], F[2, 1, 2, 2] = -sx, -cx, cx, -sx
            F[2, 2, 1, 1], F[2, 2, 1, 2], F[2, 2, 2, 1], F[2, 2, 2, 2] = -cx, sx, -sx, -cx
            for i in range(3):
                for j in range(i, 4):
                    # j < 3: ∂²T/∂α_i∂α_j (factor m differentiated (i = m) + (j = m)
                    # times); j = 3: ∂T/∂α_i
                    d0 = (1 if i == 0 else 0) + (1 if j == 0 else 0)
                    d1 = (1 if i == 1 else 0) + (1 if j == 1 else 0)
                    d2 = (1 if i == 2 else 0) + (1 if j == 2 else 0)
                    for r in range(3):
                        for c in range(3):
                            tmp[r, c] = F[0, d0, r, 0] * F[1, d1, 0, c] \
                                + F[0, d0, r, 1] * F[1, d1, 1, c] \
                                + F[0, d0, r, 2] * F[1, d1, 2, c]
                    for r in range(3):
                        for c in range(3):
                            x = tmp[r, 0] * F[2, d2, 0, c] + tmp[r, 1] * F[2, d2, 1, c] \
                                + tmp[r, 2] * F[2, d2, 2, c]
                            if j == 3:
                                T1[i, r, c] = x
                            else:
                                T2[i, j, r, c] = x
                                T2[j, i, r, c] = x
            for ax in range(3):
                # ∂²t/∂R_j∂e_m = ∂T[j, ax]/∂e_m = Σ_i ∂T[j, ax]/∂α_i A_i,m
                for j in range(3):
                    base = o2 + ((b * 3 + ax) * 3 + j) * ne
                    for m in range(ne):
                        out[base + m] = T1[0, j, ax] * A[b, 0, m] + T1[1, j, ax] * A[b, 1, m] \
                            + T1[2, j, ax] * A[b, 2, m]
                # ∂²t_c/∂e² = Σ_ij (R ∂²T/∂α_i∂α_j)[c, ax] A_i ⊗ A_j
                for c in range(3):
                    for i in range(3):
                        for j in range(3):
                            RT[i, j] = R[b, c, 0] * T2[i, j, 0, ax] + R[b, c, 1] * T2[i, j, 1, ax] \
                                + R[b, c, 2] * T2[i, j, 2, ax]
                    for i in range(3):
                        for n in range(ne):
                            Y[i, n] = RT[i, 0] * A[b, 0, n] + RT[i, 1] * A[b, 1, n] \
                                + RT[i, 2] * A[b, 2, n]
                    base = o3 + ((b * 3 + ax) * 3 + c) * ne * ne
                    for m in range(ne):
                        a0, a1, a2 = A[b, 0, m], A[b, 1, m], A[b, 2, m]
                        for n in range(ne):
                            out[base + m * ne + n] = a0 * Y[0, n] + a1 * Y[1, n] + a2 * Y[2, n]
        return out

    return line_forces, inertia, elastic_tangent, inertia_tangent, tip_second
