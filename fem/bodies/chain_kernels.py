"""Compiled evaluation of floating-frame chains and hub links (issue 23, item 2).

The NumPy form (:mod:`fem.bodies.chain_inertia` over the links' states of
:mod:`fem.model.chains`) makes about 250 small NumPy calls per Newton iteration of the
two-link fall (2–3-element operations, ≈ 1 µs each): 85 % of the run against a compiled
peer.  Here one compiled call evaluates, from ``(q, q̇, q̈)``, the link states (every
link's frame, the centre line ``p = p0 + L1 e − ½ x̂ (eᵀQe)`` at the quadrature points
and the tip), the inertia forces ``Σ w Jᵀ r̈``, the weight ``Σ w Jᵀ g``, the elastic and
joint-spring forces ``K (q − θ_ref)`` and, when asked, their tangents — with the chain
rule of :mod:`fem.bodies.chain_inertia` (the sums in every link's own coordinates
``y = (o, a, e)``, carried to ``q`` by ``G = [J_o; C; E]``).  The NumPy form stays the
reference and the fallback (``FEM_NO_JIT=1``, :attr:`HubLinkSystem.use_kernel` False);
the tests check that both agree to round-off.

Every link's frame is a small program run in the kernel (:func:`pack`): start from a
constant rotation, multiply by constant rotations and by elementary rotations of angles
``c·q``, add rigid offsets to the origin — one turn about z for hub links and planar
chains (``φ_i = c_i·q``), the D-H walk of :meth:`fem.model.chains.SpatialChain.walk`
for spatial chains (up to four angles per link, accumulated along the chain).  Every
kinematics of :data:`fem.elements.floating_frame.KINEMATICS`: the fourth-order
foreshortening by the running rule of
:func:`fem.elements.floating_frame.fourth_order_kernel`, the nonlinear curvature by
:func:`fem.elements.floating_frame.bending_kernel`, both called from here.

Layout (:func:`pack`): ``index`` (int64) ``[nl, n, gravity?]`` then one row of
:data:`ROW` integers per link::

    0 P (points: quadrature points, a tip mass last), 1 ne, 2 na, 3 nb, 4 tip (1: a
    next link starts at the tip), 5 off L1 (P, 3, ne), 6 off H (P, nb, nb), 7 off p0
    (P, 3), 8 off w (P,), 9 operations of the frame's program, 10 off tip data (L1
    (3, ne), H (nb, nb), p0 (3,)), 11 off cols (index, ne),
    12 fourth-order foreshortening (0/1), 13 K (whole pieces of the rule), 14 G (rule
    points per piece), 15 off dY_K (K, G, nb), 16 off wt_K (K, G), 17 off dY (P, G, nb),
    18 off wt (P, G), 19 off nfull (index, P), 20 off the tip's dY (G, nb) and wt (G,),
    21 off the tip's nfull (index, 1),
    22 nonlinear curvature (0/1), 23 Pb (its rule's points), 24 off wb (Pb,), Bz
    (Pb, 4, ne), EI_z, EI_y, 25 off the frame's program (index: ``(op, axis, data
    offset)`` per operation), 26–31 ``[lo, hi)`` of the columns where each of the three
    rows of ``Pe`` is nonzero (:func:`_nonzero_columns`; the per-point sums run there)

and ``data`` (float64) ``[g (3), K (n², by columns), θ_ref (n)]`` then every link's
arrays.  The header is ``[nl, n, gravity?, K]``, ``K`` the most angles a frame carries.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import compiled

__all__ = ["ROW", "pack", "chain_kernel"]

ROW = 32
HEAD = 4
RESET, CONST, TURN, OFFSET = 0, 1, 2, 3
"""The operations of a link's frame program (:func:`pack`)."""


def pack(gravity, K, theta_ref, links) -> tuple[np.ndarray, np.ndarray]:
    """``(index, data)`` of a chain (see the module docstring).

    ``links``: per link a dict with ``L1`` (P, 3, ne), ``H`` (P, nb, nb), ``p0`` (P, 3),
    ``w`` (P,), ``cols`` (ne,), ``na``, ``nb``, ``tip`` (None, or the tip's
    ``(L1 (3, ne), H (nb, nb), p0 (3,))`` when a next link starts there), ``ops`` the
    program of its frame from the previous link's (``(RESET, 0, B (3, 3))``: start
    from ``B``; ``(CONST, 0, F)``: ``R ← R F``; ``(TURN, axis, c (n,))``: ``R ← R
    E_axis(c·q)``; ``(OFFSET, 0, p (3,))``: the rigid offset ``R p`` joins the origin;
    the previous tip joins it before the program), and with the
    fourth-order foreshortening ``rule`` ``(dY_K, wt_K, nfull (P,), dY (P, G, nb),
    wt (P, G))`` and ``tip_rule`` ``(nfull (1,), dY (1, G, nb), wt (1, G))`` (or None),
    with the nonlinear curvature ``bend`` ``(wb, Bz, EI_z, EI_y)`` (or None)."""
    n = K.shape[0]
    nl = len(links)
    rows = np.zeros((nl, ROW), np.int64)
    # the most angles a frame carries: turns since the last RESET
    kmax = k = 0
    for lk in links:
        for op, _, _ in lk["ops"]:
            k = 0 if op == RESET else k + (op == TURN)
            kmax = max(kmax, k)
    data = [np.asarray(gravity, float).ravel(), np.asarray(K, float).T.ravel(),
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
        row[5:9] = [put(lk[k]) for k in ("L1", "H", "p0", "w")]
        row[9] = len(lk["ops"])
        ops = [(op, axis, put(x)) for op, axis, x in lk["ops"]]
        row[25] = put_int(np.array(ops, np.int64).reshape(-1))
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
        row[26:32] = _nonzero_columns(lk).ravel()
        bend = lk.get("bend")
        if bend is not None:
            wb, Bz, ei_z, ei_y = bend
            row[22:24] = (1, wb.size)
            row[24] = put(wb, Bz, [ei_z, ei_y])
    index = [np.array([nl, n, int(np.any(gravity)), max(kmax, 1)], np.int64), rows.ravel(),
             *ints]
    return (np.ascontiguousarray(np.concatenate(index), dtype=np.int64),
            np.ascontiguousarray(np.concatenate(data), dtype=float))


def _nonzero_columns(lk) -> np.ndarray:
    """``[lo, hi)`` (3, 2) per row of the points' ``Pe = L1 − x̂ (Q e)ᵀ``: the columns
    where ``L1`` (the points' and the tip's) is nonzero, row 0 with the transverse band
    ``[na, na + 2 nb)`` of the coupling; ``[0, 0)`` for a row without any."""
    L1 = np.asarray(lk["L1"], float)
    nz = np.any(L1 != 0.0, axis=0)                                 # (3, ne)
    if lk["tip"] is not None:
        nz |= np.asarray(lk["tip"][0], float).reshape(3, -1) != 0.0
    na, nb = int(lk["na"]), int(lk["nb"])
    nz[0, na:na + 2 * nb] = True
    out = np.zeros((3, 2), np.int64)
    for r in range(3):
        j = np.flatnonzero(nz[r])
        if j.size:
            out[r] = j[0], j[-1] + 1
    return out


# the kernels call each other through globals, not closure cells (numba keys a closure's
# disk cache on its cells; a cell holding a dispatcher differs in every process)
_local = _project = _evaluate = _coupling = _fo_terms = _fo_form = _bending = None
_turn = _origin_term = _rmul = _atb = _contract = _mv2 = _lift = None
_qmv2 = _qsum = _hmul = _hmul2 = _pmv2 = _fo_mul = None


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
    global _fo_mul
    global _turn, _origin_term, _rmul, _atb, _contract, _mv2, _lift, _qmv2, _qsum
    global _hmul, _hmul2, _pmv2
    from ..elements.floating_frame import bending_kernel, fourth_order_kernel

    _fo_terms, _fo_form, _fo_mul = fourth_order_kernel()
    _bending = bending_kernel()

    @numba.njit(cache=True)
    def local(e, L1, H, p0, P, ne, na, nb, p, Pe, Qe, ed, Qed):  # pragma: no cover - jit
        """``p`` (P, 3), ``Pe`` (P, 3, ne), ``Qe = Q e_b`` (P, 2 nb) of the paper's
        kinematics (:meth:`FloatingFrameLink.local_band`), and with ``Qed`` (P, 2 nb)
        also ``Q ė_b`` in the same pass over ``H`` (``Qed`` empty: not)."""
        nq = 2 * nb
        for k in range(P):
            for r in range(3):
                s = p0[k, r]
                for j in range(ne):
                    x = L1[k, r, j]
                    Pe[k, r, j] = x
                    s += x * e[j]
                p[k, r] = s
            if Qed.shape[0]:
                _hmul2(H, k, na, nb, e, ed, Qe, Qed)
            else:
                _hmul(H, k, na, nb, e, Qe)
            half = 0.0
            for i in range(nq):
                x = Qe[k, i]
                half += x * e[na + i]
                Pe[k, 0, na + i] -= x
            p[k, 0] -= 0.5 * half

    @numba.njit(cache=True)
    def hmul(H, k, o, nb, x, out):  # pragma: no cover - jit
        """``out[k] = Q_k x[o:o + 2 nb]``: ``H_k`` on each transverse field.  ``H`` is
        symmetric to the bit (:func:`fem.bases.foreshortening`), so its rows serve as
        columns: the sums run over ``j`` outside, every product lands in its own entry,
        in the order of the row sums ``Σ_j H_ij x_j``."""
        for f in range(2):
            c = f * nb
            for i in range(nb):
                out[k, c + i] = 0.0
            for j in range(nb):
                xj = x[o + c + j]
                for i in range(nb):
                    out[k, c + i] += H[k, j, i] * xj

    @numba.njit(cache=True)
    def atb(A, B, s, out):  # pragma: no cover - jit
        """``out += A[:s]ᵀ B[:s]`` (the zeros of ``A`` skipped)."""
        for r in range(s):
            for i in range(A.shape[1]):
                x = A[r, i]
                if x != 0.0:
                    for j in range(B.shape[1]):
                        out[i, j] += x * B[r, j]

    @numba.njit(cache=True)
    def mv2(A, x, y, ax, ay):  # pragma: no cover - jit
        """``ax = A x``, ``ay = A y`` for a stack ``A`` (P, I, J) (``ax``, ``ay`` (P, I))."""
        for k in range(A.shape[0]):
            for i in range(A.shape[1]):
                s1 = 0.0
                s2 = 0.0
                for j in range(A.shape[2]):
                    s1 += A[k, i, j] * x[j]
                    s2 += A[k, i, j] * y[j]
                ax[k, i] = s1
                ay[k, i] = s2

    @numba.njit(cache=True)
    def hmul2(H, k, o, nb, x, y, ox, oy):  # pragma: no cover - jit
        """:func:`hmul` of ``x`` and ``y`` in one pass over ``H_k`` (the same sums)."""
        for i in range(2 * nb):
            ox[k, i] = 0.0
            oy[k, i] = 0.0
        for j in range(nb):
            xa, xb = x[o + j], x[o + nb + j]
            ya, yb = y[o + j], y[o + nb + j]
            for i in range(nb):
                h = H[k, j, i]
                ox[k, i] += h * xa
                ox[k, nb + i] += h * xb
                oy[k, i] += h * ya
                oy[k, nb + i] += h * yb

    @numba.njit(cache=True)
    def pmv2(Pe, rg, x, y, ax, ay):  # pragma: no cover - jit
        """:func:`mv2` of ``Pe`` (P, 3, ne) on the columns ``rg[r, 0]:rg[r, 1]`` of each
        row ``r``, where its nonzeros lie (:func:`pack`)."""
        for k in range(Pe.shape[0]):
            for r in range(3):
                s1 = 0.0
                s2 = 0.0
                for j in range(rg[r, 0], rg[r, 1]):
                    s1 += Pe[k, r, j] * x[j]
                    s2 += Pe[k, r, j] * y[j]
                ax[k, r] = s1
                ay[k, r] = s2

    @numba.njit(cache=True)
    def qmv2(Qd, H, x, y, ax, ay, both):  # pragma: no cover - jit
        """:func:`mv2` of the points' ``Q``: ``Qd`` where formed (P > 0), else ``H`` on
        each of the two fields (:func:`hmul`: the same sums without the zero blocks);
        ``ay`` only with ``both``."""
        if Qd.shape[0]:
            _mv2(Qd, x, y, ax, ay)
            return
        for k in range(H.shape[0]):
            _hmul(H, k, 0, H.shape[1], x, ax)
            if both:
                _hmul(H, k, 0, H.shape[1], y, ay)

    @numba.njit(cache=True)
    def qsum(Qd, H, c, scale, X, o):  # pragma: no cover - jit
        """``X[o:, o:] += scale Σ_p c_p Q_p`` (the 2 nb × 2 nb block): from ``Qd`` where
        formed, else from ``H``, added to both fields' diagonal blocks (see
        :func:`qmv2`)."""
        dense = Qd.shape[0] > 0
        A = Qd if dense else H
        m = A.shape[1]
        for i in range(m):
            for j in range(m):
                x = 0.0
                for pt in range(A.shape[0]):
                    x += c[pt] * A[pt, i, j]
                X[o + i, o + j] += scale * x
                if not dense:
                    X[o + m + i, o + m + j] += scale * x

    @numba.njit(cache=True)
    def lift(Ck, k, fa, Jo, has_o, uo, sign, out):  # pragma: no cover - jit
        """``out += sign (C[:k]ᵀ fa + J_oᵀ uo)`` (``J_o`` only with ``has_o``)."""
        for j in range(out.size):
            x = 0.0
            for b in range(k):
                x += Ck[b, j] * fa[b]
            if has_o:
                for r in range(3):
                    x += Jo[r, j] * uo[r]
            out[j] += sign * x

    @numba.njit(cache=True)
    def contract(u, Ho, out):  # pragma: no cover - jit
        """``out += Σ_r u_r Ho[r]``."""
        for r in range(u.size):
            ur = u[r]
            if ur != 0.0:
                for i in range(out.shape[0]):
                    for j in range(out.shape[1]):
                        out[i, j] += ur * Ho[r, i, j]

    @numba.njit(cache=True)
    def project(X, Gs, s, cols, out):  # pragma: no cover - jit
        """``out += Gᵀ X G`` for ``G = [Gs[:s]; E]`` (``Gs`` (≥ s, n), ``E`` picks
        ``cols``; ``X`` (s + ne, s + ne))."""
        n = Gs.shape[1]
        ne = cols.size
        T = np.zeros((s, n))
        _atb(X[:s, :s].T, Gs, s, T)
        _atb(Gs, T, s, out)
        for k in range(ne):
            ck = cols[k]
            for r in range(s):
                xa = X[r, s + k]
                xb = X[s + k, r]
                if xa != 0.0 or xb != 0.0:
                    for i in range(n):
                        g = Gs[r, i]
                        out[i, ck] += g * xa
                        out[ck, i] += xb * g
            for m in range(ne):
                out[ck, cols[m]] += X[s + k, s + m]

    @numba.njit(cache=True)
    def rmul(A, F, t):  # pragma: no cover - jit
        """``A ← A F`` in place for 3 × 3 matrices (``t`` a work row)."""
        for r in range(3):
            for c in range(3):
                t[c] = A[r, 0] * F[0, c] + A[r, 1] * F[1, c] + A[r, 2] * F[2, c]
            A[r, 0] = t[0]
            A[r, 1] = t[1]
            A[r, 2] = t[2]

    @numba.njit(cache=True)
    def turn(axis, th, R, dR, ddR, k):  # pragma: no cover - jit
        """``R ← R E_axis(θ)`` with its derivatives in the ``k`` angles so far and the new
        one (:meth:`fem.bodies.chain_inertia.RotationProduct.turn`)."""
        E = np.eye(3)
        E1 = np.zeros((3, 3))
        E2 = np.zeros((3, 3))
        i, j = (1, 2) if axis == 0 else ((2, 0) if axis == 1 else (0, 1))
        c, s = np.cos(th), np.sin(th)
        E[i, i], E[i, j], E[j, i], E[j, j] = c, -s, s, c
        E1[i, i], E1[i, j], E1[j, i], E1[j, j] = -s, -c, c, -s
        E2[i, i], E2[i, j], E2[j, i], E2[j, j] = -c, s, -s, -c
        t = np.empty(3)
        for a in range(k):
            for b in range(k):
                _rmul(ddR[a, b], E, t)
            for r in range(3):
                for c in range(3):
                    x = dR[a, r, 0] * E1[0, c] + dR[a, r, 1] * E1[1, c] + dR[a, r, 2] * E1[2, c]
                    ddR[a, k, r, c] = x
                    ddR[k, a, r, c] = x
            _rmul(dR[a], E, t)
        for r in range(3):
            for c in range(3):
                ddR[k, k, r, c] = R[r, 0] * E2[0, c] + R[r, 1] * E2[1, c] + R[r, 2] * E2[2, c]
                dR[k, r, c] = R[r, 0] * E1[0, c] + R[r, 1] * E1[1, c] + R[r, 2] * E1[2, c]
        _rmul(R, E, t)

    @numba.njit(cache=True)
    def origin_term(R, dR, ddR, Ck, k, pt, Pt, Qt, cols, na, ed, ad, v, tangent, Jo, ko,
                    Ho, qs):  # pragma: no cover - jit
        """Add the point ``R(a) p(e)`` of the current frame to the origin: ``J_o``,
        ``κ_o`` and (``tangent``) ``H_o`` (:func:`frame_jacobian`, ``_kappa``,
        :func:`frame_hessian` of :mod:`fem.bodies.chain_inertia`).  ``Pt`` (3, ne) and
        ``Qt`` (nq, nq, for the tangent only) empty for a rigid offset; ``qs`` the point's
        ``ėᵀ Q ė``."""
        n = Jo.shape[1]
        ne = Pt.shape[1]
        nq = Qt.shape[0]
        dRp = np.zeros((k, 3))
        ddRp = np.zeros((k, k, 3))
        for a in range(k):
            for r in range(3):
                x = 0.0
                for t in range(3):
                    x += dR[a, r, t] * pt[t]
                dRp[a, r] = x
            for b in range(k):
                for r in range(3):
                    x = 0.0
                    for t in range(3):
                        x += ddR[a, b, r, t] * pt[t]
                    ddRp[a, b, r] = x
        Ped = np.zeros(3)
        for t in range(3):
            for j in range(ne):
                Ped[t] += Pt[t, j] * ed[j]
        for r in range(3):
            x = -qs * R[r, 0]
            for a in range(k):
                y = 0.0
                for t in range(3):
                    y += dR[a, r, t] * Ped[t]
                x += 2.0 * ad[a] * y
                for b in range(k):
                    x += ad[a] * ad[b] * ddRp[a, b, r]
            ko[r] += x
            for a in range(k):
                y = dRp[a, r]
                for j in range(n):
                    Jo[r, j] += y * Ck[a, j]
            for j in range(ne):
                y = 0.0
                for t in range(3):
                    y += R[r, t] * Pt[t, j]
                Jo[r, cols[j]] += y
        if not tangent:
            return
        for r in range(3):
            for a in range(k):
                for b in range(k):
                    y = ddRp[a, b, r]
                    if y != 0.0:
                        for i in range(n):
                            ci = Ck[a, i] * y
                            if ci != 0.0:
                                for j in range(n):
                                    Ho[r, i, j] += ci * Ck[b, j]
            for a in range(k):
                for j in range(ne):
                    y = 0.0
                    for t in range(3):
                        y += dR[a, r, t] * Pt[t, j]
                    cj = cols[j]
                    for i in range(n):
                        ci = Ck[a, i]
                        if ci != 0.0:
                            Ho[r, i, cj] += ci * y
                            Ho[r, cj, i] += ci * y
            for i in range(nq):
                for j in range(nq):
                    Ho[r, cols[na + i], cols[na + j]] -= R[r, 0] * Qt[i, j]

    @numba.njit(cache=True)
    def coupling(H, na, nb, e, p, Pe, fs, dense, dYK, wtK, nfull, dY, wt, WK,
                 WP):  # pragma: no cover
        """The points' dense ``Q`` (P, 2 nb, 2 nb) where ``dense`` (a tangent with the
        fourth-order foreshortening, or of a single point), else nothing (P = 0): ``H``
        on both fields, with the fourth-order foreshortening (``fs``) its part ``Q4``
        from the running rule.  With ``fs`` it also takes that rule's terms off ``p``
        and ``Pe`` (:meth:`FloatingFrameLink._local`) and fills the rule's weights
        ``WK``, ``WP``.  The sums that need no tangent take ``Q x`` as ``H`` on each
        field (:func:`hmul`) plus ``Q4 x`` from the weights (the ``mul`` of
        :func:`fourth_order_kernel`, O(P G nb); forming ``Q4`` is O(P G nb²)) — the
        same in a tangent's evaluation and without one."""
        P = H.shape[0]
        nq = 2 * nb
        if not dense and not fs:
            return np.zeros((0, nq, nq))
        Qd = np.zeros((P if dense else 0, nq, nq))
        for k in range(Qd.shape[0]):
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
            _fo_terms(ey, ez, dYK, wtK, nfull, dY, wt, u, gy, gz, WK, WP)
            for k in range(P):
                p[k, 0] -= u[k]
                for i in range(nb):
                    Pe[k, 0, na + i] -= gy[k, i]
                    Pe[k, 0, na + nb + i] -= gz[k, i]
            if dense:
                Q4 = np.empty((P, nq, nq))
                _fo_form(dYK, WK, nfull, dY, WP, Q4)
                for k in range(P):
                    for i in range(nq):
                        for j in range(nq):
                            Qd[k, i, j] += Q4[k, i, j]
        return Qd

    @numba.njit(cache=True)
    def evaluate(index, data, q, v, a, inertia, weight, tangent, mq, f, M, C, Kq,
                 Kw):  # pragma: no cover - jit
        nl, n, grav, Kmax = index[0], index[1], index[2], index[3]
        g = data[0:3]
        Kd = data[3:3 + n * n]
        th = data[3 + n * n:3 + n * n + n]
        if weight:                     # K (q − θ_ref), K stored by columns
            y = np.zeros(n)
            for j in range(n):
                x = q[j] - th[j]
                if x != 0.0:
                    for i in range(n):
                        y[i] += Kd[j * n + i] * x
            for i in range(n):
                f[i] += y[i]
        Jo = np.zeros((3, n))          # the origin's J, κ = J̇ q̇ and ∂²o/∂q∂q
        ko = np.zeros(3)
        Ho = np.zeros((3, n, n)) if tangent else np.zeros((3, 0, 0))
        has_o = False
        R = np.eye(3)                  # the running rotation product and its angles
        dR = np.zeros((Kmax, 3, 3))
        ddR = np.zeros((Kmax, Kmax, 3, 3))
        Ck = np.zeros((Kmax, n))
        k = 0
        no_P = np.zeros((3, 0))
        no_Q = np.zeros((0, 0))
        for li in range(nl):
            row = index[HEAD + ROW * li:HEAD + ROW * (li + 1)]
            P, ne, na, nb, tip = row[0], row[1], row[2], row[3], row[4]
            oL1, oH, op0, ow, nops = row[5], row[6], row[7], row[8], row[9]
            ot, ocols, oops = row[10], row[11], row[25]
            rg = row[26:32].reshape(3, 2)    # where Pe's rows are nonzero
            ulo = min(rg[0, 0], rg[1, 0], rg[2, 0])
            uhi = max(rg[0, 1], rg[1, 1], rg[2, 1])
            L1 = data[oL1:oL1 + P * 3 * ne].reshape(P, 3, ne)
            H = data[oH:oH + P * nb * nb].reshape(P, nb, nb)
            p0 = data[op0:op0 + 3 * P].reshape(P, 3)
            w = data[ow:ow + P]
            cols = index[ocols:ocols + ne]
            nq = 2 * nb
            e, ed, edd = q[cols], v[cols], a[cols]
            # ------------------------------------------- the frame: its program
            for o in range(nops):
                typ, arg, off = index[oops + 3 * o], index[oops + 3 * o + 1], \
                    index[oops + 3 * o + 2]
                if typ == 0:                        # start from a constant rotation
                    for r in range(3):
                        for t in range(3):
                            R[r, t] = data[off + 3 * r + t]
                    k = 0
                elif typ == 1:                      # a constant rotation
                    F = data[off:off + 9].reshape(3, 3)
                    t3 = np.empty(3)
                    for b in range(k):
                        for c in range(k):
                            _rmul(ddR[b, c], F, t3)
                        _rmul(dR[b], F, t3)
                    _rmul(R, F, t3)
                elif typ == 2:                      # an elementary rotation by c·q
                    cv = data[off:off + n]
                    x = 0.0
                    for j in range(n):
                        x += cv[j] * q[j]
                    _turn(arg, x, R, dR, ddR, k)
                    for j in range(n):
                        Ck[k, j] = cv[j]
                    k += 1
                else:                               # a rigid offset: origin term
                    ad = np.zeros(k)
                    for b in range(k):
                        for j in range(n):
                            ad[b] += Ck[b, j] * v[j]
                    _origin_term(R, dR, ddR, Ck, k, data[off:off + 3], no_P, no_Q, cols,
                                 na, ed, ad, v, tangent, Jo, ko, Ho, 0.0)
                    has_o = True
            s = 3 + k
            m = s + ne
            ad = np.zeros(k)
            add = np.zeros(k)
            for b in range(k):
                for j in range(n):
                    cj = Ck[b, j]
                    if cj != 0.0:
                        ad[b] += cj * v[j]
                        add[b] += cj * a[j]
            W1 = np.zeros((3, 3))           # Σ ȧ dR, Σ ä dR, Σ ȧȧ ddR
            A1 = np.zeros((3, 3))
            W2 = np.zeros((3, 3))
            for b in range(k):
                for r in range(3):
                    for t in range(3):
                        W1[r, t] += ad[b] * dR[b, r, t]
                        A1[r, t] += add[b] * dR[b, r, t]
                        for c in range(k):
                            W2[r, t] += ad[b] * ad[c] * ddR[b, c, r, t]
            # --------------------------------------------- the link's points
            p = np.empty((P, 3))
            Pe = np.empty((P, 3, ne))
            Qe = np.empty((P, nq))
            fs = row[12]
            # Q ė = H ė (+ Q4 ė from the rule, below) in local's pass over H
            dense = tangent and (fs or P == 1)       # a dense Q for the tangent
            Qed = np.empty((P if inertia else 0, nq))
            _local(e, L1, H, p0, P, ne, na, nb, p, Pe, Qe, ed, Qed)
            Kp, G = row[13], row[14]
            if fs:
                ofs = row[15:22]
                dYK = data[ofs[0]:ofs[0] + Kp * G * nb].reshape(Kp, G, nb)
                wtK = data[ofs[1]:ofs[1] + Kp * G].reshape(Kp, G)
                dY = data[ofs[2]:ofs[2] + P * G * nb].reshape(P, G, nb)
                wt = data[ofs[3]:ofs[3] + P * G].reshape(P, G)
                nfull = index[ofs[4]:ofs[4] + P]
            else:
                dYK, wtK = np.zeros((0, 0, 0)), np.zeros((0, 0))
                dY, wt = np.zeros((0, 0, 0)), np.zeros((0, 0))
                nfull = index[0:0]
            WK = np.empty((Kp if fs else 0, G, 3))
            WP = np.empty((P if fs else 0, G, 3))
            Qd = _coupling(H, na, nb, e, p, Pe, fs, dense, dYK, wtK, nfull, dY, wt, WK,
                           WP)
            if fs and inertia:               # Q ė = H ė + Q4 ė
                q4 = np.empty((P, nq))
                _fo_mul(dYK, WK, nfull, dY, WP, ed[na:na + nq], q4)
                for pt in range(P):
                    for i in range(nq):
                        Qed[pt, i] += q4[pt, i]
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
            Gs = np.zeros((s, n))            # G = [J_o; C; E]
            for r in range(3):
                for j in range(n):
                    Gs[r, j] = Jo[r, j]
            for b in range(k):
                for j in range(n):
                    Gs[3 + b, j] = Ck[b, j]
            dRp = np.zeros((P, k, 3))        # ∂R/∂a_b p
            for pt in range(P):
                for b in range(k):
                    for r in range(3):
                        x = 0.0
                        for t in range(3):
                            x += dR[b, r, t] * p[pt, t]
                        dRp[pt, b, r] = x
            # ------------------------------------------------------------ weight
            if weight and grav:
                sw = 0.0
                swp = np.zeros(3)
                swPe = np.zeros((3, ne))
                for pt in range(P):
                    wk = w[pt]
                    sw += wk
                    for r in range(3):
                        swp[r] += wk * p[pt, r]
                        for j in range(rg[r, 0], rg[r, 1]):
                            swPe[r, j] += wk * Pe[pt, r, j]
                fa = np.zeros(k)
                for b in range(k):
                    for r in range(3):
                        for t in range(3):
                            fa[b] += g[r] * dR[b, r, t] * swp[t]
                _lift(Ck, k, fa, Jo, has_o, sw * g, -1.0, f)
                Rg = np.zeros(3)
                for t in range(3):
                    for r in range(3):
                        Rg[t] += R[r, t] * g[r]
                for j in range(ne):
                    x = 0.0
                    for t in range(3):
                        x += Rg[t] * swPe[t, j]
                    f[cols[j]] -= x
                if tangent:
                    X = np.zeros((m, m))
                    for b in range(k):
                        for c in range(k):
                            x = 0.0
                            for r in range(3):
                                for t in range(3):
                                    x += g[r] * ddR[b, c, r, t] * swp[t]
                            X[3 + b, 3 + c] = x
                        for j in range(ne):
                            x = 0.0
                            for r in range(3):
                                for t in range(3):
                                    x += g[r] * dR[b, r, t] * swPe[t, j]
                            X[3 + b, s + j] = x
                            X[s + j, 3 + b] = x
                    gR0 = g[0] * R[0, 0] + g[1] * R[1, 0] + g[2] * R[2, 0]
                    _qsum(Qd, H, w, -gR0, X, s + na)
                    _project(X, Gs, s, cols, Kw)
                    if has_o:
                        _contract(sw * g, Ho, Kw)
            # ----------------------------------------------------------- inertia
            if inertia:
                ao = np.zeros(3)             # the origin's acceleration J_o q̈ + κ_o
                if has_o:
                    for r in range(3):
                        x = ko[r]
                        for j in range(n):
                            x += Jo[r, j] * a[j]
                        ao[r] = x
                Ped = np.zeros((P, 3))
                Pedd = np.zeros((P, 3))
                Qedd = np.zeros((P, nq))
                wacc = np.empty((P, 3))
                u = np.zeros(3)
                fa = np.zeros(k)
                fe = np.zeros(ne)
                _pmv2(Pe, rg, ed, edd, Ped, Pedd)
                edb, eddb = ed[na:na + nq], edd[na:na + nq]
                if tangent:                              # Q q̈ for the tangent
                    _qmv2(Qd, H, eddb, eddb, Qedd, Qedd, False)
                for pt in range(P):
                    qs = 0.0
                    for i in range(nq):
                        qs += Qed[pt, i] * edb[i]
                    wk = w[pt]
                    for r in range(3):
                        x = ao[r] - qs * R[r, 0]
                        for t in range(3):
                            x += ((A1[r, t] + W2[r, t]) * p[pt, t] + R[r, t] * Pedd[pt, t]
                                  + 2.0 * W1[r, t] * Ped[pt, t])
                        wacc[pt, r] = wk * x
                        u[r] += wk * x
                    for b in range(k):
                        for r in range(3):
                            fa[b] += wacc[pt, r] * dRp[pt, b, r]
                    for t in range(3):
                        y = 0.0
                        for r in range(3):
                            y += R[r, t] * wacc[pt, r]
                        for j in range(rg[t, 0], rg[t, 1]):
                            fe[j] += y * Pe[pt, t, j]
                _lift(Ck, k, fa, Jo, has_o, u, 1.0, mq)
                for j in range(ne):
                    mq[cols[j]] += fe[j]
                if tangent:
                    # the points' J, (∂J/∂q)q̇ and (∂J/∂q)q̈ stacked, row 3 pt + r, on the
                    # columns where they can be nonzero: the frame's s, then the
                    # coordinates ulo:uhi of Pe (column s + j − ulo)
                    mc = s + uhi - ulo
                    JA = np.zeros((3 * P, mc))
                    HY = np.zeros((3 * P, mc))
                    HA = np.zeros((3 * P, mc))
                    JW = np.empty((3 * P, mc))
                    for pt in range(P):
                        wk = w[pt]
                        for r in range(3):
                            i = 3 * pt + r
                            JA[i, r] = 1.0
                            for b in range(k):
                                s1 = 0.0
                                s2 = 0.0
                                for t in range(3):
                                    s1 += dR[b, r, t] * Ped[pt, t]
                                    s2 += dR[b, r, t] * Pedd[pt, t]
                                    for c in range(k):
                                        x = ddR[c, b, r, t] * p[pt, t]
                                        s1 += ad[c] * x
                                        s2 += add[c] * x
                                JA[i, 3 + b] = dRp[pt, b, r]
                                HY[i, 3 + b] = s1
                                HA[i, 3 + b] = s2
                            for j in range(ulo, uhi):
                                t0 = 0.0
                                t1 = 0.0
                                t2 = 0.0
                                for t in range(3):
                                    t0 += R[r, t] * Pe[pt, t, j]
                                    t1 += W1[r, t] * Pe[pt, t, j]
                                    t2 += A1[r, t] * Pe[pt, t, j]
                                c = s + j - ulo
                                JA[i, c] = t0
                                HY[i, c] = t1
                                HA[i, c] = t2
                            for j in range(nq):
                                c = s + na + j - ulo
                                HY[i, c] -= R[r, 0] * Qed[pt, j]
                                HA[i, c] -= R[r, 0] * Qedd[pt, j]
                            for c in range(mc):
                                JW[i, c] = wk * JA[i, c]
                    # X0 = Σ w Jᵀ J, X1 = 2 Σ w Jᵀ (J̇-terms), X2 = Σ w Jᵀ (J̈-terms)
                    WT = JW.T
                    X0c = np.dot(WT, JA)
                    X1c = np.dot(WT, HY)
                    X2c = np.dot(WT, HA)
                    X0 = np.zeros((m, m))
                    X1 = np.zeros((m, m))
                    X2 = np.zeros((m, m))
                    for i in range(mc):
                        ii = i if i < s else i + ulo
                        for j in range(mc):
                            jj = j if j < s else j + ulo
                            X0[ii, jj] = X0c[i, j]
                            X1[ii, jj] = 2.0 * X1c[i, j]
                            X2[ii, jj] = X2c[i, j]
                    # Σ wacc·Ĥ
                    for b in range(k):
                        for c in range(k):
                            x = 0.0
                            for pt in range(P):
                                for r in range(3):
                                    for t in range(3):
                                        x += wacc[pt, r] * ddR[b, c, r, t] * p[pt, t]
                            X2[3 + b, 3 + c] += x
                        for j in range(ne):
                            x = 0.0
                            for pt in range(P):
                                for r in range(3):
                                    for t in range(3):
                                        x += wacc[pt, r] * dR[b, r, t] * Pe[pt, t, j]
                            X2[3 + b, s + j] += x
                            X2[s + j, 3 + b] += x
                    wr = np.empty(P)
                    for pt in range(P):
                        wr[pt] = (wacc[pt, 0] * R[0, 0] + wacc[pt, 1] * R[1, 0]
                                  + wacc[pt, 2] * R[2, 0])
                    _qsum(Qd, H, wr, -1.0, X2, s + na)
                    _project(X0, Gs, s, cols, M)
                    _project(X1, Gs, s, cols, C)
                    _project(X2, Gs, s, cols, Kq)
                    if has_o:
                        # Y = [2 Mo (H_o q̇), Mo (H_o q̈)] lifted by Gᵀ; u·H_o
                        hv = np.zeros((3, n))
                        ha = np.zeros((3, n))
                        _mv2(Ho, v, a, hv, ha)
                        Y0 = np.zeros((m, n))
                        Y1 = np.zeros((m, n))
                        for i in range(m):
                            for r in range(3):
                                x = X0[i, r]
                                if x != 0.0:
                                    for j in range(n):
                                        Y0[i, j] += 2.0 * x * hv[r, j]
                                        Y1[i, j] += x * ha[r, j]
                        _atb(Gs, Y0, s, C)
                        _atb(Gs, Y1, s, Kq)
                        for b in range(ne):
                            cb = cols[b]
                            for j in range(n):
                                C[cb, j] += Y0[s + b, j]
                                Kq[cb, j] += Y1[s + b, j]
                        _contract(u, Ho, Kq)
            # ------------------------------------- the tip: the next link's origin
            if tip:
                tL1 = data[ot:ot + 3 * ne].reshape(1, 3, ne)
                tH = data[ot + 3 * ne:ot + 3 * ne + nb * nb].reshape(1, nb, nb)
                tp0 = data[ot + 3 * ne + nb * nb:ot + 3 * ne + nb * nb + 3].reshape(1, 3)
                ptip = np.empty((1, 3))
                Pt = np.empty((1, 3, ne))
                Qt = np.empty((1, nq))
                Qtd = np.empty((1, nq))
                _local(e, tL1, tH, tp0, 1, ne, na, nb, ptip, Pt, Qt, ed, Qtd)
                if fs:
                    otr, otn = row[20], row[21]
                    tdY = data[otr:otr + G * nb].reshape(1, G, nb)
                    twt = data[otr + G * nb:otr + G * nb + G].reshape(1, G)
                    tnf = index[otn:otn + 1]
                else:
                    tdY, twt, tnf = dY, wt, nfull
                tWK = np.empty((Kp if fs else 0, G, 3))
                tWP = np.empty((1 if fs else 0, G, 3))
                Qdt = _coupling(tH, na, nb, e, ptip, Pt, fs, tangent, dYK, wtK, tnf, tdY,
                                twt, tWK, tWP)
                if fs:                       # Q ė = H ė + Q4 ė
                    q4 = np.empty((1, nq))
                    _fo_mul(dYK, tWK, tnf, tdY, tWP, ed[na:na + nq], q4)
                    for i in range(nq):
                        Qtd[0, i] += q4[0, i]
                qs = 0.0                     # ėᵀ Q ė
                for i in range(nq):
                    qs += Qtd[0, i] * ed[na + i]
                _origin_term(R, dR, ddR, Ck, k, ptip[0], Pt[0],
                             Qdt[0] if tangent else no_Q, cols, na, ed, ad, v, tangent,
                             Jo, ko, Ho, qs)
                has_o = True

    _local, _project, _evaluate, _coupling = local, project, evaluate, coupling
    _turn, _origin_term, _rmul, _atb, _contract = turn, origin_term, rmul, atb, contract
    _mv2, _lift, _qmv2, _qsum, _hmul = mv2, lift, qmv2, qsum, hmul
    _pmv2, _hmul2 = pmv2, hmul2
    return evaluate
