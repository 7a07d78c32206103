"""Compiled inertia and forces of bodies nonlinear in their coordinates, declared as data.

A body that can be evaluated without Python declares its kernel as arrays
(:meth:`fem.bodies.NonlinearBody.compiled_kernel`); the assembly packs every body's
declaration into one flat layout (:func:`pack`) and a compiled solver calls one entry
point, :func:`body_terms`, inside its Newton loop (numba cannot take functions as data
without losing its disk cache, so the kernels are chosen by a number).

Layout of :func:`pack`, one row of ``header`` (int64, 8 columns) per body::

    kind, m (modes), dof offset, k (coordinates), data offset, index offset, P (pairs of
    the cubic modal force, 0 without), unused

``dofs`` (int64) the bodies' global coordinates one after the other; ``data`` (float64)
and ``index`` (int64) each body's arrays.

Kinds
-----
``KIND_CHAIN`` (a planar chain or hub link of :mod:`fem.model.chains`): ``data`` and
``index`` the chain's layout of :func:`fem.bodies.chain_kernels.pack`; the inertia
``Σ w Jᵀ r̈`` (without the constant masses) and the forces ``K (q − θ_ref) − Σ w Jᵀ g``.

``KIND_REDUCED`` (:class:`fem.bodies.ReducedBody`): ``data`` = ``W`` (n_V²), ``K_r``
(m²), ``f0`` (m), the constant load vectors ``h_g`` (n_V × 3: gravity ``W e_c ⊗ g`` and
point loads), and with the cubic modal force ``K2`` at the pairs (P × m), ``K3`` at the
pairs packed (its upper triangle by columns, P (P + 1) / 2; compressed: its factor
``G``, P × r, row-major, and then ``K2`` and ``G`` in single precision, two values a
slot), the pair weights (P) and room for the last pair vectors (1 + m + 2P: a flag,
``η``, ``K2·η`` and ``K3 (η_j η_k w)``, kept by the kernels so that a tangent at the
residual's ``η`` does not compute them again); with the FE model's damping then ``C_X``
((3 n_V)² in single precision, :meth:`ReducedBody.damping_terms`) and room for its last
force (1 + 2k + 3 n_V: a flag, ``q_b``, ``q̇_b``, ``C_X Ẋ``).  ``index`` = the pairs
``j ≤ k`` (2P), ``K3``'s form (-1 packed, ``r`` its factor's rank) and where ``C_X``
starts in ``data`` (-1: no FE damping).  The formulas are those of :meth:`ReducedBody.inertia`
and :meth:`ReducedBody.forces` without tangents: the inertia ``Lᵀ (W Ẍ + C_X Ẋ)`` and
the forces ``−Lᵀ h_g + [0; f0 + K_r η + (½ K2·η + ⅓ K3:ηη) η]``
(module docstring of :mod:`fem.bodies.reduced`); the tests check them against those
methods to round-off.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import compiled

__all__ = ["KIND_REDUCED", "KIND_CHAIN", "pack", "body_terms", "reduced_inertia",
           "reduced_damping", "body_tangents"]

KIND_REDUCED = 0
KIND_CHAIN = 1


def pack(kernels: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray, int]]):
    """``(header, dofs, data, index)`` of the bodies' declarations ``(kind, m, dofs,
    data, index, P)`` (see the module docstring)."""
    header = np.zeros((len(kernels), 8), np.int64)
    dofs, data, index = [], [], []
    do = fo = io = 0
    for b, (kind, m, d, f, i, P) in enumerate(kernels):
        header[b, :7] = (kind, m, do, d.size, fo, io, P)
        dofs.append(np.asarray(d, np.int64))
        data.append(np.asarray(f, float).ravel())
        index.append(np.asarray(i, np.int64).ravel())
        do, fo, io = do + d.size, fo + data[-1].size, io + index[-1].size
    cat = lambda L, dt: (np.ascontiguousarray(np.concatenate(L), dtype=dt) if L
                         else np.zeros(0, dt))
    return header, cat(dofs, np.int64), cat(data, float), cat(index, np.int64)


# the kernels call each other through globals, not closure cells (numba keys a closure's
# disk cache on its cells; a cell holding a dispatcher differs in every process)
_project = _reduced = _pairs = _rates = _gather = _rowdot = None
_damp_force = _damp_tangent = _damp_h = None
_lwr = _reduced_inertia = _reduced_tangent = None
_chain = _chain_body = _chain_tangent = None


@compiled
def body_terms(numba):
    """The compiled ``body_terms(header, dofs, data, index, q, v, a, mq, f)``: adds every
    body's inertia ``M(q) a + f_qv`` into ``mq`` and its forces (elastic less the weight
    and point loads) into ``f``, both global (n,); None without numba."""
    global _project, _reduced, _pairs, _rates, _gather, _chain, _chain_body
    global _damp_force, _damp_tangent, _damp_h, _rowdot
    from .chain_kernels import chain_kernel

    _chain = chain_kernel()

    @numba.njit(cache=True)
    def project(E, eta, h, m, out):   # pragma: no cover - jit
        """``Lᵀ h`` of a reduced body (:meth:`ReducedBody._project`)."""
        for i in range(3):
            out[i] = h[0, i]
        for a in range(3):
            for i in range(3):
                s = h[1 + a, i]
                for k in range(m):
                    s += eta[k] * h[4 + a * m + k, i]
                out[3 + 3 * a + i] = s
        for k in range(m):
            s = 0.0
            for a in range(3):
                for i in range(3):
                    s += E[a, i] * h[4 + a * m + k, i]
            out[12 + k] = s

    @numba.njit(cache=True, fastmath={"reassoc", "contract"})
    def rowdot(A, x, n_rows, n, out):   # pragma: no cover - jit
        """``out = A x`` for ``A`` (n_rows × n) row-major flat, of any float type."""
        for p in range(n_rows):
            g = A[p * n:(p + 1) * n]
            s = 0.0
            for j in range(n):
                s += g[j] * x[j]
            out[p] = s

    _rowdot = rowdot

    @numba.njit(cache=True, fastmath={"reassoc", "contract"})
    def pairs(data, index, o, P, m, eta, b, cv):   # pragma: no cover - jit
        """The cubic modal force's pair vectors from ``data[o:]``: ``b = K2·η`` and
        ``cv = K3 (η_j η_k w)`` (the packed symmetric product, a column at a time: an
        update and a dot product in one pass; the dot product's sum reassociated so
        both vectorize — 2.6× faster at 741 pairs, the same values to round-off).  A
        compressed ``K3`` (its factor ``G``) comes with ``K2`` and ``G`` in single
        precision (:meth:`ReducedBody.compiled_kernel`)."""
        rank = index[2 * P]               # -1: K3 packed; r: its factor G (P × r)
        n2 = P * m if rank < 0 else (P * m + 1) // 2    # compressed: K2 and G float32
        npk = P * (P + 1) // 2 if rank < 0 else (P * rank + 1) // 2
        o += n2
        K3 = data[o:o + npk]
        w = data[o + npk:o + npk + P]
        c0 = o + npk + P                  # the last η and its pair vectors
        last = data[c0 + 1:c0 + 1 + m]
        same = data[c0] == 1.0
        if same:
            for j in range(m):
                if last[j] != eta[j]:
                    same = False
                    break
        bl = data[c0 + 1 + m:c0 + 1 + m + P]
        cl = data[c0 + 1 + m + P:c0 + 1 + m + 2 * P]
        if same:
            b[:] = bl
            cv[:] = cl
            return
        ee = np.empty(P)
        for p in range(P):
            ee[p] = eta[index[p]] * eta[index[P + p]] * w[p]
        if rank < 0:
            b[:] = np.dot(data[o - n2:o].reshape(P, m), eta)          # BLAS
        else:
            _rowdot(data[o - n2:o].view(np.float32), eta, P, m, b)
        cv[:] = 0.0
        if rank >= 0:                     # cv = G (Gᵀ ee), G in single precision
            G = K3.view(np.float32)
            t = np.zeros(rank)
            for p in range(P):
                ep = ee[p]
                g = G[p * rank:(p + 1) * rank]
                for c in range(rank):
                    t[c] += g[c] * ep
            _rowdot(G, t, P, rank, cv)
        for c in range(P if rank < 0 else 0):        # the packed K3 a column at a time
            base = c * (c + 1) // 2
            ec = ee[c]
            col = K3[base:base + c]
            s = 0.0
            for r in range(c):
                k = col[r]
                cv[r] += k * ec
                s += k * ee[r]
            cv[c] += s + K3[base + c] * ec
        last[:] = eta
        bl[:] = b
        cl[:] = cv
        data[c0] = 1.0

    @numba.njit(cache=True)
    def rates(m, qb, vb, ab):   # pragma: no cover - jit
        """``(E, Ė, Ë, Ẍ)`` of a reduced body from its coordinates ``qb, q̇b, q̈b``:
        ``Ẍ = [r̈; Ë; η_k ë_a + η̈_k e_a + 2 η̇_k ė_a]`` (:meth:`ReducedBody._rates`)."""
        nV = 4 + 3 * m
        E = np.empty((3, 3))
        Ed = np.empty((3, 3))
        Edd = np.empty((3, 3))
        for a in range(3):
            for i in range(3):
                E[a, i] = qb[3 + 3 * a + i]
                Ed[a, i] = vb[3 + 3 * a + i]
                Edd[a, i] = ab[3 + 3 * a + i]
        G = np.empty((nV, 3))
        for i in range(3):
            G[0, i] = ab[i]
        for a in range(3):
            for i in range(3):
                G[1 + a, i] = Edd[a, i]
                for j in range(m):
                    G[4 + a * m + j, i] = (qb[12 + j] * Edd[a, i] + ab[12 + j] * E[a, i]
                                           + 2.0 * vb[12 + j] * Ed[a, i])
        return E, Ed, Edd, G

    @numba.njit(cache=True)
    def gather(d, q, v, acc):   # pragma: no cover - jit
        """A body's own coordinates, velocities and accelerations."""
        k = d.size
        qb = np.empty(k)
        vb = np.empty(k)
        ab = np.empty(k)
        for j in range(k):
            qb[j] = q[d[j]]
            vb[j] = v[d[j]]
            ab[j] = acc[d[j]]
        return qb, vb, ab

    @numba.njit(cache=True, fastmath={"reassoc", "contract"})
    def damp_force(m, Cx, E, eta, Ed, etad, h):   # pragma: no cover - jit
        """``h = C_X Ẋ`` (n_V, 3) with ``Ẋ = L q̇ = [ṙ; Ė; η̇_k e_a + η_k ė_a]``: the FE
        model's damping at the current pose (:meth:`ReducedBody.damping_terms`); ``Cx``
        the (3 n_V)² matrix flat, ``Ed`` (4, 3) the frame's rates ``[ṙ; ė_u; ė_v; ė_w]``."""
        nV = 4 + 3 * m
        n3 = 3 * nV
        xd = np.empty(n3)
        for c in range(12):
            xd[c] = Ed[c // 3, c % 3]
        for a in range(3):
            for k in range(m):
                o = 3 * (4 + a * m + k)
                for i in range(3):
                    xd[o + i] = etad[k] * E[a, i] + eta[k] * Ed[1 + a, i]
        _rowdot(Cx, xd, n3, n3, h.reshape(n3))

    @numba.njit(cache=True)
    def damp_h(m, data, od, qb, vb, h):   # pragma: no cover - jit
        """``h = C_X Ẋ`` of a reduced body whose ``C_X`` starts at ``data[od]``, kept
        after it with the ``(q, q̇)`` it was made at (a flag, ``q_b``, ``q̇_b``, ``h``),
        so that the tangent at the residual's state does not compute it again."""
        nV = 4 + 3 * m
        k = 12 + m
        n3 = 3 * nV
        c0 = od + (n3 * n3 + 1) // 2             # C_X in single precision
        same = data[c0] == 1.0
        if same:
            for j in range(k):
                if data[c0 + 1 + j] != qb[j] or data[c0 + 1 + k + j] != vb[j]:
                    same = False
                    break
        hf = h.reshape(n3)
        hc = data[c0 + 1 + 2 * k:c0 + 1 + 2 * k + n3]
        if same:
            hf[:] = hc
            return
        E = qb[3:12].copy().reshape(3, 3)
        Ev = vb[:12].copy().reshape(4, 3)
        _damp_force(m, data[od:c0].view(np.float32), E, qb[12:], Ev, vb[12:], h)
        data[c0 + 1:c0 + 1 + k] = qb
        data[c0 + 1 + k:c0 + 1 + 2 * k] = vb
        hc[:] = hf
        data[c0] = 1.0

    @numba.njit(cache=True, fastmath={"reassoc", "contract"})
    def damp_tangent(m, Cx, E, eta, Ed, etad, h, wv, wq, out):   # pragma: no cover - jit
        """``out += Lᵀ C_X (wv L + wq ∂Ẋ/∂q) + wq (∂L/∂q)ᵀ h`` (k, k): ``wv`` times
        the damping's ``∂/∂q̇`` plus ``wq`` times its ``∂/∂q`` at ``h = C_X Ẋ``.  The
        columns of ``L`` and ``∂Ẋ/∂q = L(Ė, η̇)`` have 1 to m + 1 entries each, so
        ``C_X R`` is a sum of rows of ``C_X`` (symmetric) and ``Lᵀ (C_X R)`` a gather."""
        nV = 4 + 3 * m
        n3 = 3 * nV
        k = 12 + m
        Y = np.zeros((k, n3))                   # Y[c] = (C_X R)[:, c], C_X read once:
        if wv != 0.0:                           # its row x goes to the one or two
            for x in range(12):                 # columns of R with an entry in row x
                row = Cx[x * n3:(x + 1) * n3]   # (r and e_a: column x itself)
                y = Y[x]
                for z in range(n3):
                    y[z] += wv * row[z]
        for a in range(3):
            for kk in range(m):
                g1 = wv * eta[kk] + wq * etad[kk]
                for i in range(3):
                    x = 3 * (4 + a * m + kk) + i
                    row = Cx[x * n3:(x + 1) * n3]
                    g2 = wv * E[a, i] + wq * Ed[1 + a, i]
                    y1 = Y[3 + 3 * a + i]
                    y2 = Y[12 + kk]
                    for z in range(n3):
                        r = row[z]
                        y1[z] += g1 * r
                        y2[z] += g2 * r
        for c2 in range(k):                     # out[c1, c2] += Σ_x L[x, c1] Y[c2, x]
            y = Y[c2]
            for i in range(3):
                out[i, c2] += y[i]
            for a in range(3):
                for i in range(3):
                    s = y[3 * (1 + a) + i]
                    for kk in range(m):
                        s += eta[kk] * y[3 * (4 + a * m + kk) + i]
                    out[3 + 3 * a + i, c2] += s
            for kk in range(m):
                s = 0.0
                for a in range(3):
                    for i in range(3):
                        s += E[a, i] * y[3 * (4 + a * m + kk) + i]
                out[12 + kk, c2] += s
        if wq != 0.0:                           # ∂L/∂q · h: the (e_a, η_k) blocks
            for a in range(3):
                for i in range(3):
                    for kk in range(m):
                        x = wq * h[4 + a * m + kk, i]
                        out[3 + 3 * a + i, 12 + kk] += x
                        out[12 + kk, 3 + 3 * a + i] += x

    @numba.njit(cache=True)
    def reduced(m, d, data, index, P, q, v, acc, mq, f):   # pragma: no cover - jit
        nV = 4 + 3 * m
        k = d.size
        qb, vb, ab = _gather(d, q, v, acc)
        E, _Ed, _Edd, G = _rates(m, qb, vb, ab)
        eta = qb[12:]
        h = np.dot(data[:nV * nV].reshape(nV, nV), G)          # W Ẍ (BLAS)
        od = index[2 * P + 1]                      # where C_X starts (-1: none)
        if od >= 0:                                 # + C_X Ẋ: the FE model's damping
            hd = np.empty((nV, 3))
            _damp_h(m, data, od, qb, vb, hd)
            h += hd
        out = np.empty(k)
        _project(E, eta, h, m, out)
        for j in range(k):
            mq[d[j]] += out[j]
        o = nV * nV
        Kr = data[o:o + m * m]
        f0 = data[o + m * m:o + m * m + m]
        o += m * m + m
        hg = data[o:o + 3 * nV].reshape(nV, 3)
        o += 3 * nV
        _project(E, eta, hg, m, out)
        fe = np.empty(m)
        for j in range(m):
            s = f0[j]
            for l in range(m):
                s += Kr[j * m + l] * eta[l]
            fe[j] = s
        if P > 0:                                   # the cubic modal force
            b = np.empty(P)
            cv = np.empty(P)
            _pairs(data, index, o, P, m, eta, b, cv)
            jj = index[:P]
            kk = index[P:2 * P]
            for p in range(P):
                val = 0.5 * b[p] + cv[p] / 3.0
                fe[jj[p]] += val * eta[kk[p]]
                if jj[p] != kk[p]:
                    fe[kk[p]] += val * eta[jj[p]]
        for j in range(12):
            f[d[j]] -= out[j]
        for j in range(m):
            f[d[12 + j]] += fe[j] - out[12 + j]

    @numba.njit(cache=True)
    def chain_body(d, data, index, q, v, acc, mq, f):   # pragma: no cover - jit
        """A chain or hub link (:mod:`fem.bodies.chain_kernels`) on the
        coordinates ``d``: its inertia into ``mq``, its forces into ``f``."""
        k = d.size
        ql, vl, al = q[d], v[d], acc[d]
        ml = np.zeros(k)
        fl = np.zeros(k)
        no = np.zeros((0, 0))
        _chain(index, data, ql, vl, al, True, True, False, ml, fl, no, no, no, no)
        for j in range(k):
            mq[d[j]] += ml[j]
            f[d[j]] += fl[j]

    _project, _reduced, _pairs, _rates, _gather = project, reduced, pairs, rates, gather
    _damp_force, _damp_tangent = damp_force, damp_tangent
    _damp_h = damp_h
    _chain_body = chain_body

    @numba.njit(cache=True)
    def terms(header, dofs, data, index, q, v, a, mq, f):   # pragma: no cover - jit
        for b in range(header.shape[0]):
            kind, m, do, k, fo, io, P = (header[b, 0], header[b, 1], header[b, 2],
                                         header[b, 3], header[b, 4], header[b, 5],
                                         header[b, 6])
            if kind == KIND_REDUCED:
                _reduced(m, dofs[do:do + k], data[fo:], index[io:], P, q, v, a, mq, f)
            elif kind == KIND_CHAIN:
                _chain_body(dofs[do:do + k], data[fo:], index[io:], q, v, a, mq, f)

    return terms


@compiled
def reduced_inertia(numba):
    """The compiled ``reduced_inertia(m, W, qb, vb, ab, f, M, Kq, Cq)`` of a reduced
    body: its inertia ``f = Lᵀ W Ẍ`` (k,) and the tangents ``M = Lᵀ W L``,
    ``Kq = ∂f/∂q`` and ``Cq = ∂f/∂q̇`` (k, k; empty ``M``: the force alone), all
    written in place, from the body's own
    coordinates ``qb, vb, ab`` (k,); the blocks of :meth:`ReducedBody._LtWR` and the
    NumPy :meth:`ReducedBody.inertia` they replace (a test checks them to round-off).
    None without numba."""
    global _lwr
    body_terms()                  # defines _project

    @numba.njit(cache=True)
    def lwr(W, m, E, eta, x, scale, rigid, Er, AW, out):   # pragma: no cover - jit
        """``out = Σ_i L_iᵀ W R_i`` by blocks (:meth:`ReducedBody._LtWR`): ``L`` of
        ``(A, E)`` with ``A`` the frame columns ``e_r, e_a`` and ``Σ_k η_k e_(a,k)``,
        ``R`` of ``(A_r, E_r)`` with ``A_r``'s ``Σ_k scale x_k e_(a,k)`` (and ``e_r,
        e_a`` when ``rigid``).  Both ``A`` are sparse (one entry a row): their products
        are sums over ``η`` and ``x``, and the modal block is ``Σ_ab (E E_rᵀ)_ab W_ab``;
        ``AW = Aᵀ W`` (4, n_V), the same for every ``R``."""
        nV = 4 + 3 * m
        rig = 1.0 if rigid else 0.0
        WAt = np.empty((4, nV))                            # (W A_r)ᵀ, W symmetric
        for c in range(4):
            for r in range(nV):
                WAt[c, r] = rig * W[c, r]
        for a in range(3):
            o = 4 + a * m
            for k in range(m):
                e = scale * x[k]
                for r in range(nV):
                    WAt[1 + a, r] += e * W[o + k, r]
        WA = WAt.T
        AWA = np.empty((4, 4))                             # Aᵀ W A_r
        for d in range(4):
            AWA[0, d] = WA[0, d]
            for a in range(3):
                s = WA[1 + a, d]
                o = 4 + a * m
                for k in range(m):
                    s += eta[k] * WA[o + k, d]
                AWA[1 + a, d] = s
        out[:12, :12] = 0.0
        for i in range(3):
            for c in range(4):
                for d in range(4):
                    out[i + 3 * c, i + 3 * d] = AWA[c, d]
        for i in range(3):                                 # Aᵀ W B'_i = Σ_a E_r[a, i] (Aᵀ W)_a
            for c in range(4):
                for k in range(m):
                    out[i + 3 * c, 12 + k] = (Er[0, i] * AW[c, 4 + k]
                                              + Er[1, i] * AW[c, 4 + m + k]
                                              + Er[2, i] * AW[c, 4 + 2 * m + k])
        for k in range(m):
            for c in range(4):
                for i in range(3):
                    s = 0.0
                    for a in range(3):
                        s += E[a, i] * WA[4 + a * m + k, c]
                    out[12 + k, 3 * c + i] = s
        out[12:, 12:] = 0.0                                # Σ_ab (E E_rᵀ)_ab W_ab
        for a in range(3):
            for b in range(3):
                p = E[a, 0] * Er[b, 0] + E[a, 1] * Er[b, 1] + E[a, 2] * Er[b, 2]
                if p != 0.0:
                    oa, ob = 4 + a * m, 4 + b * m
                    for kp in range(m):
                        for k in range(m):
                            out[12 + kp, 12 + k] += p * W[oa + kp, ob + k]

    _lwr = lwr

    @numba.njit(cache=True)
    def inertia(m, W, qb, vb, ab, f, M, Kq, Cq):   # pragma: no cover - jit
        E, Ed, Edd, G = _rates(m, qb, vb, ab)
        eta = qb[12:]
        etad = vb[12:]
        etadd = ab[12:]
        h = W @ G
        _project(E, eta, h, m, f)
        if M.shape[0] == 0:           # the force alone
            return
        nV = 4 + 3 * m
        AW = np.empty((4, nV))                      # Aᵀ W: the frame columns' rows of W
        AW[0] = W[0]
        for a in range(3):
            AW[1 + a] = W[1 + a]
            o = 4 + a * m
            for kk in range(m):
                e = eta[kk]
                for r in range(nV):
                    AW[1 + a, r] += e * W[o + kk, r]
        _lwr(W, m, E, eta, eta, 1.0, True, E, AW, M)
        _lwr(W, m, E, eta, etad, 2.0, False, 2.0 * Ed, AW, Cq)
        _lwr(W, m, E, eta, etadd, 1.0, False, Edd, AW, Kq)
        for a in range(3):                          # ∂L/∂q · h: the (e_a, η_k) blocks
            for i in range(3):
                for k in range(m):
                    x = h[4 + a * m + k, i]
                    Kq[3 + 3 * a + i, 12 + k] += x
                    Kq[12 + k, 3 + 3 * a + i] += x

    global _reduced_inertia
    _reduced_inertia = inertia
    return inertia


@compiled
def reduced_damping(numba):
    """The compiled ``reduced_damping(m, Cx, qb, vb, f, Kq, Cq)`` of a reduced body with
    the FE model's damping (:meth:`ReducedBody.damping_terms`): adds ``Lᵀ C_X Ẋ`` to
    ``f`` (k,) and, unless ``Kq`` is empty, its ``∂/∂q`` to ``Kq`` and ``∂/∂q̇ = Lᵀ C_X
    L`` to ``Cq`` (k, k), from the body's own coordinates and rates.  None without
    numba."""
    body_terms()                  # defines _damp_force, _damp_tangent, _project

    @numba.njit(cache=True)
    def damping(m, Cx, qb, vb, f, Kq, Cq):   # pragma: no cover - jit
        nV = 4 + 3 * m
        E = qb[3:12].copy().reshape(3, 3)
        Ev = vb[:12].copy().reshape(4, 3)
        h = np.empty((nV, 3))
        _damp_force(m, Cx, E, qb[12:], Ev, vb[12:], h)
        out = np.empty(12 + m)
        _project(E, qb[12:], h, m, out)
        f += out
        if Kq.shape[0] == 0:
            return
        _damp_tangent(m, Cx, E, qb[12:], Ev, vb[12:], h, 1.0, 0.0, Cq)
        _damp_tangent(m, Cx, E, qb[12:], Ev, vb[12:], h, 0.0, 1.0, Kq)

    return damping


@compiled
def body_tangents(numba):
    """The compiled ``body_tangents(header, dofs, data, index, q, v, a, cK, cC, S)``:
    adds every body's ``M(q) + cK (∂f_inertia/∂q + ∂f/∂q) + cC ∂f_inertia/∂q̇`` (its
    part of the iteration matrix, :meth:`fem.assembly.Assembly.saddle`) into the dense
    ``S`` at its coordinates; the layout of :func:`pack`.  The forces' tangent is that
    of :meth:`ReducedBody.forces`: ``K_r`` (with the cubic modal force ``K2·η + K3:ηη``)
    on the modal block, minus the constant loads' ``(e_a, η_k)`` blocks; a chain's those
    of :func:`fem.bodies.chain_kernels.chain_kernel`.  None without numba."""
    global _reduced_tangent, _chain_tangent
    reduced_inertia()                 # defines _reduced_inertia (and body_terms' helpers)

    @numba.njit(cache=True)
    def reduced_tangent(m, d, data, index, P, q, v, acc, cK, cC, S):   # pragma: no cover
        nV = 4 + 3 * m
        k = d.size
        qb, vb, ab = _gather(d, q, v, acc)
        W = data[:nV * nV].reshape(nV, nV)
        f = np.empty(k)
        M = np.empty((k, k))
        Kq = np.empty((k, k))
        Cq = np.empty((k, k))
        _reduced_inertia(m, W, qb, vb, ab, f, M, Kq, Cq)
        o = nV * nV
        Kr = data[o:o + m * m]
        o += m * m + m
        hg = data[o:o + 3 * nV].reshape(nV, 3)
        o += 3 * nV
        for a in range(3):            # minus the loads' (e_a, η_k) blocks
            for i in range(3):
                for j in range(m):
                    x = hg[4 + a * m + j, i]
                    Kq[3 + 3 * a + i, 12 + j] -= x
                    Kq[12 + j, 3 + 3 * a + i] -= x
        for i in range(m):
            for j in range(m):
                Kq[12 + i, 12 + j] += Kr[i * m + j]
        if P > 0:                     # K2·η + K3:ηη at the pairs, both halves
            b = np.empty(P)
            cv = np.empty(P)
            _pairs(data, index, o, P, m, qb[12:], b, cv)
            jj = index[:P]
            kk = index[P:2 * P]
            rank = index[2 * P]
            third = 1.0 if rank < 0 else 1.0 / 3.0
            for p in range(P):
                x = b[p] + third * cv[p]
                Kq[12 + jj[p], 12 + kk[p]] += x
                if jj[p] != kk[p]:
                    Kq[12 + kk[p], 12 + jj[p]] += x
            if rank >= 0:             # compressed K3: + ⅔ H Hᵀ (ReducedBody._quartic_tangent)
                o2 = o + (P * m + 1) // 2        # K2 in single precision too
                G = data[o2:o2 + (P * rank + 1) // 2].view(np.float32)
                eta = qb[12:]
                H = np.zeros((m, rank))
                for p in range(P):
                    j, l = jj[p], kk[p]
                    for c in range(rank):
                        g = G[p * rank + c]
                        H[j, c] += g * eta[l]
                        if j != l:
                            H[l, c] += g * eta[j]
                HH = np.dot(H, H.T)       # BLAS
                for i in range(m):
                    for n in range(m):
                        Kq[12 + i, 12 + n] += 2.0 / 3.0 * HH[i, n]
        D = np.zeros((k, k))
        od = index[2 * P + 1]                      # where C_X starts (-1: none)
        if od >= 0:                   # the FE model's damping: cC ∂/∂q̇ + cK ∂/∂q
            E = qb[3:12].copy().reshape(3, 3)
            Ev = vb[:12].copy().reshape(4, 3)
            hd = np.empty((nV, 3))
            _damp_h(m, data, od, qb, vb, hd)
            Cx = data[od:od + (9 * nV * nV + 1) // 2].view(np.float32)
            _damp_tangent(m, Cx, E, qb[12:], Ev, vb[12:], hd, cC, cK, D)
        for i in range(k):
            gi = d[i]
            for j in range(k):
                S[gi, d[j]] += M[i, j] + cK * Kq[i, j] + cC * Cq[i, j] + D[i, j]

    @numba.njit(cache=True)
    def chain_tangent(d, data, index, q, v, acc, cK, cC, S):   # pragma: no cover - jit
        """A chain's ``M(q) + cK (K_q + K − K_w) + cC C`` (without its constant masses,
        which are the structure's ``mass``) at its coordinates ``d``."""
        k = d.size
        M = np.zeros((k, k))
        C = np.zeros((k, k))
        Kq = np.zeros((k, k))
        Kw = np.zeros((k, k))
        ml = np.zeros(k)
        fl = np.zeros(k)
        _chain(index, data, q[d], v[d], acc[d], True, True, True, ml, fl, M, C, Kq, Kw)
        Kd = data[3:3 + k * k]        # the chain's stiffness by columns (chain_kernels.pack)
        for i in range(k):
            gi = d[i]
            for j in range(k):
                S[gi, d[j]] += M[i, j] + cK * (Kq[i, j] + Kd[j * k + i] - Kw[i, j]) \
                    + cC * C[i, j]

    _reduced_tangent, _chain_tangent = reduced_tangent, chain_tangent

    @numba.njit(cache=True)
    def tangents(header, dofs, data, index, q, v, a, cK, cC, S):   # pragma: no cover - jit
        for b in range(header.shape[0]):
            kind, m, do, k, fo, io, P = (header[b, 0], header[b, 1], header[b, 2],
                                         header[b, 3], header[b, 4], header[b, 5],
                                         header[b, 6])
            if kind == KIND_REDUCED:
                _reduced_tangent(m, dofs[do:do + k], data[fo:], index[io:], P, q, v, a,
                                 cK, cC, S)
            elif kind == KIND_CHAIN:
                _chain_tangent(dofs[do:do + k], data[fo:], index[io:], q, v, a, cK, cC, S)

    return tangents
