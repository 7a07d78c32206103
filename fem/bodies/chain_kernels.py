"""Compiled evaluation of planar floating-frame chains and hub links (issue 23, item 2).

The NumPy form (:mod:`fem.bodies.chain_inertia` over the links' states of
:mod:`fem.bodies.chains`) makes about 250 small NumPy calls per Newton iteration of the
two-link fall (2–3-element operations, ≈ 1 µs each): 85 % of the run against a compiled
peer.  Here one compiled call evaluates, from ``(q, q̇, q̈)``, the link states (frame
angle ``φ_i = c_i·q``, the centre line ``p = p0 + L1 e − ½ x̂ (eᵀQe)`` of the paper's
kinematics at the quadrature points and the tip), the inertia forces ``Σ w Jᵀ r̈``, the
weight ``Σ w Jᵀ g``, the elastic and joint-spring forces ``K (q − θ_ref)`` and, when
asked, their tangents — with the chain rule of :mod:`fem.bodies.chain_inertia` (the sums
in every link's own coordinates ``y = (o, φ, e)``, carried to ``q`` by
``G = [J_o; c; E]``).  The NumPy form stays the reference and the fallback
(``FEM_NO_JIT=1``, :attr:`HubLinkSystem.use_kernel` False); the tests check that both
agree to round-off.

What is compiled: hub links and planar chains, every kinematics of
:data:`fem.elements.floating_frame.KINEMATICS` (the fourth-order foreshortening by the
running rule of :func:`fem.elements.floating_frame._fourth_order_kernel`, the nonlinear
curvature by :func:`fem.elements.floating_frame._bending_kernel`, both called from here).
Spatial chains (rotation products of up to four angles per link) keep the NumPy form.

Layout (:func:`pack`): ``index`` (int64) ``[nl, n, gravity?]`` then one row of
:data:`ROW` integers per link::

    0 P (points: quadrature points, a tip mass last), 1 ne, 2 na, 3 nb, 4 tip (1: a
    next link starts at the tip), 5 off L1 (P, 3, ne), 6 off H (P, nb, nb), 7 off p0
    (P, 3), 8 off w (P,), 9 off c (n,), 10 off tip data (L1 (3, ne), H (nb, nb),
    p0 (3,)), 11 off cols (index, ne),
    12 fourth-order foreshortening (0/1), 13 K (whole pieces of the rule), 14 G (rule
    points per piece), 15 off dY_K (K, G, nb), 16 off wt_K (K, G), 17 off dY (P, G, nb),
    18 off wt (P, G), 19 off nfull (index, P), 20 off the tip's dY (G, nb) and wt (G,),
    21 off the tip's nfull (index, 1),
    22 nonlinear curvature (0/1), 23 Pb (its rule's points), 24 off wb (Pb,), Bz
    (Pb, 4, ne), EI_z, EI_y

and ``data`` (float64) ``[g (3), K (n²), θ_ref (n)]`` then every link's arrays.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import compiled

__all__ = ["ROW", "pack", "chain_kernel"]

ROW = 25
HEAD = 3


def pack(gravity, K, theta_ref, links) -> tuple[np.ndarray, np.ndarray]:
    """``(index, data)`` of a chain (see the module docstring).

    ``links``: per link a dict with ``L1`` (P, 3, ne), ``H`` (P, nb, nb), ``p0`` (P, 3),
    ``w`` (P,), ``c`` (n,), ``cols`` (ne,), ``na``, ``nb``, ``tip`` (None, or the tip's
    ``(L1 (3, ne), H (nb, nb), p0 (3,))`` when a next link starts there), and with the
    fourth-order foreshortening ``rule`` ``(dY_K, wt_K, nfull (P,), dY (P, G, nb),
    wt (P, G))`` and ``tip_rule`` ``(nfull (1,), dY (1, G, nb), wt (1, G))`` (or None),
    with the nonlinear curvature ``bend`` ``(wb, Bz, EI_z, EI_y)`` (or None)."""
    n = K.shape[0]
    nl = len(links)
    rows = np.zeros((nl, ROW), np.int64)
    data = [np.asarray(gravity, float).ravel(), np.asarray(K, float).ravel(),
            np.asarray(theta_ref, float).ravel()]
    ints: list = []
    fo = 3 + n * n + n
    io = HEAD + ROW * nl

    def put(*arrays) -> int:
        nonlocal fo
        start = fo
        for a in arrays:
            data.append(np.asarray(a, float).ravel())
            fo += data[-1].size
        return start

    def put_int(a) -> int:
        nonlocal io
        start = io
        ints.append(np.asarray(a, np.int64).ravel())
        io += ints[-1].size
        return start

    for i, lk in enumerate(links):
        P, _, ne = lk["L1"].shape
        row = rows[i]
        row[:5] = (P, ne, lk["na"], lk["nb"], int(lk["tip"] is not None))
        row[5:10] = [put(lk[k]) for k in ("L1", "H", "p0", "w", "c")]
        row[10] = put(*lk["tip"]) if lk["tip"] is not None else fo
        row[11] = put_int(lk["cols"])
        rule = lk.get("rule")
        if rule is not None:
            dYK, wtK, nfull, dY, wt = rule
            row[12:15] = (1, dYK.shape[0], dYK.shape[1])
            row[15], row[16], row[17], row[18] = put(dYK), put(wtK), put(dY), put(wt)
            row[19] = put_int(nfull)
            tr = lk.get("tip_rule")
            if tr is not None:
                row[20] = put(tr[1], tr[2])
                row[21] = put_int(tr[0])
        bend = lk.get("bend")
        if bend is not None:
            wb, Bz, ei_z, ei_y = bend
            row[22:24] = (1, wb.size)
            row[24] = put(wb, Bz, [ei_z, ei_y])
    index = [np.array([nl, n, int(np.any(gravity))], np.int64), rows.ravel(), *ints]
    return (np.ascontiguousarray(np.concatenate(index), dtype=np.int64),
            np.ascontiguousarray(np.concatenate(data), dtype=float))


# the kernels call each other through globals, not closure cells (numba keys a closure's
# disk cache on its cells; a cell holding a dispatcher differs in every process)
_local = _project = _evaluate = _coupling = _fo_terms = _fo_form = _bending = None


@compiled
def chain_kernel(numba):
    """The compiled ``evaluate(index, data, q, v, a, inertia, weight, tangent, mq, f, M,
    C, Kq, Kw)`` of :func:`pack`'s layout (None without numba):

    * ``inertia``: ``mq += Σ w Jᵀ r̈`` (without the constant twist and hub masses), with
      ``tangent`` ``M``, ``C`` (``∂/∂q̇``) and ``Kq`` (``∂/∂q``) added (n, n);
    * ``weight``: ``f += K (q − θ_ref) + f_curv − Σ w Jᵀ g`` (``f_curv`` the nonlinear
      curvature's), with ``tangent`` ``Kw += Σ w g·H − ∂f_curv/∂q`` (the tangent of
      the internal forces is ``K − Kw``).

    The same sums as :class:`fem.bodies.chain_inertia.ChainInertia` (another order:
    equal to round-off)."""
    global _local, _project, _evaluate, _coupling, _fo_terms, _fo_form, _bending
    from ..elements.floating_frame import _bending_kernel, _fourth_order_kernel

    _fo_terms, _fo_form, _ = _fourth_order_kernel()
    _bending = _bending_kernel()

    @numba.njit(cache=True)
    def local(e, L1, H, p0, P, ne, na, nb, p, Pe, Qe):  # pragma: no cover - jit
        """``p`` (P, 3), ``Pe`` (P, 3, ne), ``Qe = Q e_b`` (P, 2 nb) of the paper's
        kinematics (:meth:`FloatingFrameLink.local_band`)."""
        for k in range(P):
            for r in range(3):
                s = p0[k, r]
                for j in range(ne):
                    x = L1[k, r, j]
                    Pe[k, r, j] = x
                    s += x * e[j]
                p[k, r] = s
            half = 0.0
            for f in range(2):
                o = na + f * nb
                for i in range(nb):
                    s = 0.0
                    for j in range(nb):
                        s += H[k, i, j] * e[o + j]
                    Qe[k, f * nb + i] = s
                    half += s * e[o + i]
                    Pe[k, 0, o + i] -= s
            p[k, 0] -= 0.5 * half

    @numba.njit(cache=True)
    def project(X, Gs, cols, out):  # pragma: no cover - jit
        """``out += Gᵀ X G`` for ``G = [Gs; E]`` (``Gs`` (4, n), ``E`` picks ``cols``)."""
        n = Gs.shape[1]
        ne = cols.size
        T = np.zeros((4, n))
        for r in range(4):
            for s in range(4):
                x = X[r, s]
                if x != 0.0:
                    for j in range(n):
                        T[r, j] += x * Gs[s, j]
        for r in range(4):
            for i in range(n):
                g = Gs[r, i]
                if g != 0.0:
                    for j in range(n):
                        out[i, j] += g * T[r, j]
        for k in range(ne):
            ck = cols[k]
            for r in range(4):
                xa = X[r, 4 + k]
                xb = X[4 + k, r]
                for i in range(n):
                    g = Gs[r, i]
                    out[i, ck] += g * xa
                    out[ck, i] += xb * g
            for m in range(ne):
                out[ck, cols[m]] += X[4 + k, 4 + m]

    @numba.njit(cache=True)
    def coupling(H, na, nb, e, p, Pe, fs, dYK, wtK, nfull, dY, wt):  # pragma: no cover
        """The dense ``Q`` (P, 2 nb, 2 nb) of the points: ``H`` on both fields, with the
        fourth-order foreshortening (``fs``) its part ``Q4`` from the running rule, whose
        terms it also takes off ``p`` and ``Pe`` (:meth:`FloatingFrameLink._local`)."""
        P = H.shape[0]
        nq = 2 * nb
        Qd = np.zeros((P, nq, nq))
        for k in range(P):
            for i in range(nb):
                for j in range(nb):
                    x = H[k, i, j]
                    Qd[k, i, j] = x
                    Qd[k, nb + i, nb + j] = x
        if fs:
            ey = np.empty(nb)
            ez = np.empty(nb)
            for i in range(nb):
                ey[i] = e[na + i]
                ez[i] = e[na + nb + i]
            u = np.empty(P)
            gy = np.empty((P, nb))
            gz = np.empty((P, nb))
            WK = np.empty((wtK.shape[0], wtK.shape[1], 3))
            WP = np.empty((P, wt.shape[1], 3))
            _fo_terms(ey, ez, dYK, wtK, nfull, dY, wt, u, gy, gz, WK, WP)
            Q4 = np.empty((P, nq, nq))
            _fo_form(dYK, WK, nfull, dY, WP, Q4)
            for k in range(P):
                p[k, 0] -= u[k]
                for i in range(nb):
                    Pe[k, 0, na + i] -= gy[k, i]
                    Pe[k, 0, na + nb + i] -= gz[k, i]
                for i in range(nq):
                    for j in range(nq):
                        Qd[k, i, j] += Q4[k, i, j]
        return Qd

    @numba.njit(cache=True)
    def evaluate(index, data, q, v, a, inertia, weight, tangent, mq, f, M, C, Kq,
                 Kw):  # pragma: no cover - jit
        nl, n, grav = index[0], index[1], index[2]
        g = data[0:3]
        Kd = data[3:3 + n * n]
        th = data[3 + n * n:3 + n * n + n]
        if weight:
            for i in range(n):
                s = 0.0
                for j in range(n):
                    s += Kd[i * n + j] * (q[j] - th[j])
                f[i] += s
        Jo = np.zeros((3, n))          # the origin's J, κ = J̇ q̇ and ∂²o/∂q∂q
        ko = np.zeros(3)
        Ho = np.zeros((3, n, n)) if tangent else np.zeros((3, 0, 0))
        has_o = False
        R = np.empty((3, 3))
        R1 = np.empty((3, 3))
        R2 = np.empty((3, 3))
        for li in range(nl):
            row = index[HEAD + ROW * li:HEAD + ROW * (li + 1)]
            P, ne, na, nb, tip = row[0], row[1], row[2], row[3], row[4]
            oL1, oH, op0, ow, oc, ot, ocols = (row[5], row[6], row[7], row[8], row[9],
                                               row[10], row[11])
            L1 = data[oL1:oL1 + P * 3 * ne].reshape(P, 3, ne)
            H = data[oH:oH + P * nb * nb].reshape(P, nb, nb)
            p0 = data[op0:op0 + 3 * P].reshape(P, 3)
            w = data[ow:ow + P]
            c = data[oc:oc + n]
            cols = index[ocols:ocols + ne]
            nq = 2 * nb
            e = np.empty(ne)
            ed = np.empty(ne)
            edd = np.empty(ne)
            for k in range(ne):
                e[k] = q[cols[k]]
                ed[k] = v[cols[k]]
                edd[k] = a[cols[k]]
            phi = 0.0
            phd = 0.0
            phdd = 0.0
            for j in range(n):
                cj = c[j]
                if cj != 0.0:
                    phi += cj * q[j]
                    phd += cj * v[j]
                    phdd += cj * a[j]
            cs, sn = np.cos(phi), np.sin(phi)
            R[0, 0], R[0, 1], R[0, 2] = cs, -sn, 0.0
            R[1, 0], R[1, 1], R[1, 2] = sn, cs, 0.0
            R[2, 0], R[2, 1], R[2, 2] = 0.0, 0.0, 1.0
            R1[0, 0], R1[0, 1], R1[0, 2] = -sn, -cs, 0.0
            R1[1, 0], R1[1, 1], R1[1, 2] = cs, -sn, 0.0
            R1[2, 0], R1[2, 1], R1[2, 2] = 0.0, 0.0, 0.0
            R2[0, 0], R2[0, 1], R2[0, 2] = -cs, sn, 0.0
            R2[1, 0], R2[1, 1], R2[1, 2] = -sn, -cs, 0.0
            R2[2, 0], R2[2, 1], R2[2, 2] = 0.0, 0.0, 0.0
            p = np.empty((P, 3))
            Pe = np.empty((P, 3, ne))
            Qe = np.empty((P, nq))
            _local(e, L1, H, p0, P, ne, na, nb, p, Pe, Qe)
            fs = row[12]
            if fs:
                Kp, G, ofs = row[13], row[14], row[15:22]
                dYK = data[ofs[0]:ofs[0] + Kp * G * nb].reshape(Kp, G, nb)
                wtK = data[ofs[1]:ofs[1] + Kp * G].reshape(Kp, G)
                dY = data[ofs[2]:ofs[2] + P * G * nb].reshape(P, G, nb)
                wt = data[ofs[3]:ofs[3] + P * G].reshape(P, G)
                nfull = index[ofs[4]:ofs[4] + P]
            else:
                Kp, G = 0, 0
                dYK, wtK = np.zeros((0, 0, 0)), np.zeros((0, 0))
                dY, wt = np.zeros((0, 0, 0)), np.zeros((0, 0))
                nfull = index[0:0]
            Qd = _coupling(H, na, nb, e, p, Pe, fs, dYK, wtK, nfull, dY, wt)
            if row[22] and weight:           # the nonlinear curvature
                Pb = row[23]
                ob = row[24]
                wb = data[ob:ob + Pb]
                Bz = data[ob + Pb:ob + Pb + Pb * 4 * ne].reshape(Pb, 4, ne)
                ei = data[ob + Pb + Pb * 4 * ne:ob + Pb + Pb * 4 * ne + 2]
                gb = np.empty(ne)
                hb = np.empty((ne, ne)) if tangent else np.empty((0, 0))
                _bending(e, wb, Bz, ei[0], ei[1], tangent, gb, hb)
                for i in range(ne):
                    f[cols[i]] += gb[i]
                    if tangent:
                        for j in range(ne):
                            Kw[cols[i], cols[j]] -= hb[i, j]
            m = 4 + ne
            Gs = np.zeros((4, n))
            for r in range(3):
                for j in range(n):
                    Gs[r, j] = Jo[r, j]
            for j in range(n):
                Gs[3, j] = c[j]
            # ------------------------------------------------------------ weight
            if weight and grav:
                sw = 0.0
                swp = np.zeros(3)
                swPe = np.zeros((3, ne))
                for k in range(P):
                    wk = w[k]
                    sw += wk
                    for r in range(3):
                        swp[r] += wk * p[k, r]
                        for j in range(ne):
                            swPe[r, j] += wk * Pe[k, r, j]
                fa = 0.0
                for r in range(3):
                    for s in range(3):
                        fa += g[r] * R1[r, s] * swp[s]
                for j in range(n):
                    x = c[j] * fa
                    if has_o:
                        for r in range(3):
                            x += Jo[r, j] * sw * g[r]
                    f[j] -= x
                Rg = np.zeros(3)
                for s in range(3):
                    for r in range(3):
                        Rg[s] += R[r, s] * g[r]
                for j in range(ne):
                    x = 0.0
                    for s in range(3):
                        x += Rg[s] * swPe[s, j]
                    f[cols[j]] -= x
                if tangent:
                    X = np.zeros((m, m))
                    x = 0.0
                    for r in range(3):
                        for s in range(3):
                            x += g[r] * R2[r, s] * swp[s]
                    X[3, 3] = x
                    R1g = np.zeros(3)
                    for s in range(3):
                        for r in range(3):
                            R1g[s] += R1[r, s] * g[r]
                    for j in range(ne):
                        x = 0.0
                        for s in range(3):
                            x += R1g[s] * swPe[s, j]
                        X[3, 4 + j] = x
                        X[4 + j, 3] = x
                    gR0 = g[0] * R[0, 0] + g[1] * R[1, 0] + g[2] * R[2, 0]
                    for i in range(nq):
                        for j in range(nq):
                            s = 0.0
                            for k in range(P):
                                s += w[k] * Qd[k, i, j]
                            X[4 + na + i, 4 + na + j] = -gR0 * s
                    _project(X, Gs, cols, Kw)
                    if has_o:
                        for r in range(3):
                            gr = sw * g[r]
                            for i in range(n):
                                for j in range(n):
                                    Kw[i, j] += gr * Ho[r, i, j]
            # ----------------------------------------------------------- inertia
            if inertia:
                # the origin's acceleration J_o q̈ + κ_o
                ao = np.zeros(3)
                if has_o:
                    for r in range(3):
                        s = ko[r]
                        for j in range(n):
                            s += Jo[r, j] * a[j]
                        ao[r] = s
                V = np.empty((3, 3))
                for r in range(3):
                    for s in range(3):
                        V[r, s] = phdd * R1[r, s] + (phd * phd) * R2[r, s]
                Ped = np.zeros((P, 3))
                Pedd = np.zeros((P, 3))
                Qed = np.zeros((P, nq))
                Qedd = np.zeros((P, nq))
                wacc = np.empty((P, 3))
                u = np.zeros(3)
                fa = 0.0
                fe = np.zeros(ne)
                for k in range(P):
                    for r in range(3):
                        s1 = 0.0
                        s2 = 0.0
                        for j in range(ne):
                            s1 += Pe[k, r, j] * ed[j]
                            s2 += Pe[k, r, j] * edd[j]
                        Ped[k, r] = s1
                        Pedd[k, r] = s2
                    qs = 0.0
                    for i in range(nq):
                        s1 = 0.0
                        s2 = 0.0
                        for j in range(nq):
                            s1 += Qd[k, i, j] * ed[na + j]
                            s2 += Qd[k, i, j] * edd[na + j]
                        Qed[k, i] = s1
                        Qedd[k, i] = s2
                        qs += s1 * ed[na + i]
                    wk = w[k]
                    for r in range(3):
                        x = ao[r] - qs * R[r, 0]
                        for s in range(3):
                            x += (V[r, s] * p[k, s] + R[r, s] * Pedd[k, s]
                                  + 2.0 * phd * R1[r, s] * Ped[k, s])
                        wacc[k, r] = wk * x
                        u[r] += wk * x
                    for r in range(3):
                        for s in range(3):
                            fa += wacc[k, r] * R1[r, s] * p[k, s]
                    for s in range(3):
                        y = 0.0
                        for r in range(3):
                            y += R[r, s] * wacc[k, r]
                        for j in range(ne):
                            fe[j] += y * Pe[k, s, j]
                for j in range(n):
                    x = c[j] * fa
                    if has_o:
                        for r in range(3):
                            x += Jo[r, j] * u[r]
                    mq[j] += x
                for j in range(ne):
                    mq[cols[j]] += fe[j]
                if tangent:
                    X0 = np.zeros((m, m))
                    X1 = np.zeros((m, m))
                    X2 = np.zeros((m, m))
                    Jh = np.zeros((3, m))
                    Hy = np.zeros((3, m))
                    Ha = np.zeros((3, m))
                    for k in range(P):
                        wk = w[k]
                        for r in range(3):
                            Jh[r, 0] = 0.0
                            Jh[r, 1] = 0.0
                            Jh[r, 2] = 0.0
                            Jh[r, r] = 1.0
                            s0 = 0.0
                            s1 = 0.0
                            s2 = 0.0
                            for s in range(3):
                                s0 += R1[r, s] * p[k, s]
                                s1 += phd * R2[r, s] * p[k, s] + R1[r, s] * Ped[k, s]
                                s2 += phdd * R2[r, s] * p[k, s] + R1[r, s] * Pedd[k, s]
                            Jh[r, 3] = s0
                            Hy[r, 3] = s1
                            Ha[r, 3] = s2
                            for j in range(ne):
                                t0 = 0.0
                                t1 = 0.0
                                for s in range(3):
                                    t0 += R[r, s] * Pe[k, s, j]
                                    t1 += R1[r, s] * Pe[k, s, j]
                                Jh[r, 4 + j] = t0
                                Hy[r, 4 + j] = phd * t1
                                Ha[r, 4 + j] = phdd * t1
                            for j in range(nq):
                                Hy[r, 4 + na + j] -= R[r, 0] * Qed[k, j]
                                Ha[r, 4 + na + j] -= R[r, 0] * Qedd[k, j]
                        for i in range(m):
                            for r in range(3):
                                wj = wk * Jh[r, i]
                                if wj != 0.0:
                                    for j in range(m):
                                        X0[i, j] += wj * Jh[r, j]
                                        X1[i, j] += wj * Hy[r, j]
                                        X2[i, j] += wj * Ha[r, j]
                    for i in range(m):
                        for j in range(m):
                            X1[i, j] *= 2.0
                    # Σ wacc·Ĥ
                    x = 0.0
                    for k in range(P):
                        for r in range(3):
                            for s in range(3):
                                x += wacc[k, r] * R2[r, s] * p[k, s]
                    X2[3, 3] += x
                    for j in range(ne):
                        x = 0.0
                        for k in range(P):
                            for r in range(3):
                                for s in range(3):
                                    x += wacc[k, r] * R1[r, s] * Pe[k, s, j]
                        X2[3, 4 + j] += x
                        X2[4 + j, 3] += x
                    for k in range(P):
                        wr = (wacc[k, 0] * R[0, 0] + wacc[k, 1] * R[1, 0]
                              + wacc[k, 2] * R[2, 0])
                        for i in range(nq):
                            for j in range(nq):
                                X2[4 + na + i, 4 + na + j] -= wr * Qd[k, i, j]
                    _project(X0, Gs, cols, M)
                    _project(X1, Gs, cols, C)
                    _project(X2, Gs, cols, Kq)
                    if has_o:
                        # Y = [2 Mo (H_o q̇), Mo (H_o q̈)] lifted by Gᵀ; u·H_o
                        hv = np.zeros((3, n))
                        ha = np.zeros((3, n))
                        for r in range(3):
                            for i in range(n):
                                s1 = 0.0
                                s2 = 0.0
                                for j in range(n):
                                    s1 += Ho[r, i, j] * v[j]
                                    s2 += Ho[r, i, j] * a[j]
                                hv[r, i] = s1
                                ha[r, i] = s2
                        Y0 = np.zeros((m, n))
                        Y1 = np.zeros((m, n))
                        for i in range(m):
                            for r in range(3):
                                x = X0[i, r]
                                if x != 0.0:
                                    for j in range(n):
                                        Y0[i, j] += 2.0 * x * hv[r, j]
                                        Y1[i, j] += x * ha[r, j]
                        for r in range(4):
                            for i in range(n):
                                gri = Gs[r, i]
                                if gri != 0.0:
                                    for j in range(n):
                                        C[i, j] += gri * Y0[r, j]
                                        Kq[i, j] += gri * Y1[r, j]
                        for k in range(ne):
                            ck = cols[k]
                            for j in range(n):
                                C[ck, j] += Y0[4 + k, j]
                                Kq[ck, j] += Y1[4 + k, j]
                        for r in range(3):
                            ur = u[r]
                            for i in range(n):
                                for j in range(n):
                                    Kq[i, j] += ur * Ho[r, i, j]
            # ------------------------------------- the tip: the next link's origin
            if tip:
                tL1 = data[ot:ot + 3 * ne].reshape(1, 3, ne)
                tH = data[ot + 3 * ne:ot + 3 * ne + nb * nb].reshape(1, nb, nb)
                tp0 = data[ot + 3 * ne + nb * nb:ot + 3 * ne + nb * nb + 3].reshape(1, 3)
                pt = np.empty((1, 3))
                Pt = np.empty((1, 3, ne))
                Qt = np.empty((1, nq))
                _local(e, tL1, tH, tp0, 1, ne, na, nb, pt, Pt, Qt)
                if fs:
                    otr, otn = row[20], row[21]
                    tdY = data[otr:otr + G * nb].reshape(1, G, nb)
                    twt = data[otr + G * nb:otr + G * nb + G].reshape(1, G)
                    tnf = index[otn:otn + 1]
                else:
                    tdY, twt, tnf = dY, wt, nfull
                Qdt = _coupling(tH, na, nb, e, pt, Pt, fs, dYK, wtK, tnf, tdY, twt)
                R1p = np.zeros(3)
                R2p = np.zeros(3)
                for r in range(3):
                    for s in range(3):
                        R1p[r] += R1[r, s] * pt[0, s]
                        R2p[r] += R2[r, s] * pt[0, s]
                qs = 0.0
                for i in range(nq):
                    s = 0.0
                    for j in range(nq):
                        s += Qdt[0, i, j] * ed[na + j]
                    qs += s * ed[na + i]
                for r in range(3):
                    x = phd * phd * R2p[r] - qs * R[r, 0]
                    for s in range(3):
                        y = 0.0
                        for j in range(ne):
                            y += Pt[0, s, j] * ed[j]
                        x += 2.0 * phd * R1[r, s] * y
                    ko[r] += x
                    for j in range(n):
                        Jo[r, j] += R1p[r] * c[j]
                    for j in range(ne):
                        y = 0.0
                        for s in range(3):
                            y += R[r, s] * Pt[0, s, j]
                        Jo[r, cols[j]] += y
                if tangent:
                    for r in range(3):
                        for i in range(n):
                            ci = c[i]
                            if ci != 0.0:
                                for j in range(n):
                                    Ho[r, i, j] += ci * c[j] * R2p[r]
                        for j in range(ne):
                            y = 0.0
                            for s in range(3):
                                y += R1[r, s] * Pt[0, s, j]
                            cj = cols[j]
                            for i in range(n):
                                ci = c[i]
                                if ci != 0.0:
                                    Ho[r, i, cj] += ci * y
                                    Ho[r, cj, i] += ci * y
                        for i in range(nq):
                            for j in range(nq):
                                Ho[r, cols[na + i], cols[na + j]] -= R[r, 0] * Qdt[0, i, j]
                has_o = True

    _local, _project, _evaluate, _coupling = local, project, evaluate, coupling
    return evaluate
