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
``KIND_CHAIN`` (a planar chain or hub link of :mod:`fem.bodies.chains`): ``data`` and
``index`` the chain's layout of :func:`fem.bodies.chain_kernels.pack`; the inertia
``Σ w Jᵀ r̈`` (without the constant masses) and the forces ``K (q − θ_ref) − Σ w Jᵀ g``.

``KIND_REDUCED`` (:class:`fem.bodies.ReducedBody`): ``data`` = ``W`` (n_V²), ``K_r``
(m²), ``f0`` (m), the constant load vectors ``h_g`` (n_V × 3: gravity ``W e_c ⊗ g`` and
point loads), and with the cubic modal force ``K2`` at the pairs (P × m), ``K3`` at the
pairs packed (its upper triangle by columns, P (P + 1) / 2) and the pair weights (P);
``index`` = the pairs ``j ≤ k`` (2P).  The formulas are those of
:meth:`ReducedBody.inertia` and :meth:`ReducedBody.forces` without tangents: the inertia
``Lᵀ W Ẍ`` and the forces ``−Lᵀ h_g + [0; f0 + K_r η + (½ K2·η + ⅓ K3:ηη) η]``
(module docstring of :mod:`fem.bodies.reduced`); the tests check them against those
methods to round-off.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import compiled

__all__ = ["KIND_REDUCED", "KIND_CHAIN", "pack", "body_terms"]

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
_project = _reduced = _chain = _chain_body = None


@compiled
def body_terms(numba):
    """The compiled ``body_terms(header, dofs, data, index, q, v, a, mq, f)``: adds every
    body's inertia ``M(q) a + f_qv`` into ``mq`` and its forces (elastic less the weight
    and point loads) into ``f``, both global (n,); None without numba."""
    global _project, _reduced, _chain, _chain_body
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

    @numba.njit(cache=True)
    def reduced(m, d, data, index, P, q, v, acc, mq, f):   # pragma: no cover - jit
        nV = 4 + 3 * m
        k = d.size
        E = np.empty((3, 3))
        Ed = np.empty((3, 3))
        Edd = np.empty((3, 3))
        for a in range(3):
            for i in range(3):
                g = d[3 + 3 * a + i]
                E[a, i] = q[g]
                Ed[a, i] = v[g]
                Edd[a, i] = acc[g]
        eta = np.empty(m)
        etad = np.empty(m)
        etadd = np.empty(m)
        for j in range(m):
            g = d[12 + j]
            eta[j] = q[g]
            etad[j] = v[g]
            etadd[j] = acc[g]
        G = np.empty((nV, 3))                       # Ẍ
        for i in range(3):
            G[0, i] = acc[d[i]]
        for a in range(3):
            for i in range(3):
                G[1 + a, i] = Edd[a, i]
                for j in range(m):
                    G[4 + a * m + j, i] = (eta[j] * Edd[a, i] + etadd[j] * E[a, i]
                                           + 2.0 * etad[j] * Ed[a, i])
        h = np.zeros((nV, 3))                       # W Ẍ
        for r in range(nV):
            for c in range(nV):
                w = data[r * nV + c]
                if w != 0.0:
                    h[r, 0] += w * G[c, 0]
                    h[r, 1] += w * G[c, 1]
                    h[r, 2] += w * G[c, 2]
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
            K2 = data[o:o + P * m]
            o += P * m
            npk = P * (P + 1) // 2
            K3 = data[o:o + npk]
            w = data[o + npk:o + npk + P]
            jj = index[:P]
            kk = index[P:2 * P]
            ee = np.empty(P)
            for p in range(P):
                ee[p] = eta[jj[p]] * eta[kk[p]] * w[p]
            cv = np.zeros(P)
            for c in range(P):                      # packed symmetric product
                base = c * (c + 1) // 2
                for r in range(c):
                    s = K3[base + r]
                    cv[r] += s * ee[c]
                    cv[c] += s * ee[r]
                cv[c] += K3[base + c] * ee[c]
            for p in range(P):
                b = 0.0
                for l in range(m):
                    b += K2[p * m + l] * eta[l]
                val = 0.5 * b + cv[p] / 3.0
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

    _project, _reduced, _chain_body = project, reduced, chain_body

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
