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

__all__ = ["state_kernel", "reaction_kernel", "product_kernels", "no_products",
           "declare_products"]


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


N_INT = 15
"""Integer parts of the product rows' data (:func:`product_kernels`)."""
# the kernels call each other through globals, not closure cells (numba keys a closure's
# disk cache on its cells)
_i = _f = _maps = _other = None


def segments(ints, floats) -> tuple[np.ndarray, np.ndarray]:
    """``(pi, pf)``: integer and float arrays packed into one array each.  ``pi`` starts
    with the bounds of the integer parts (absolute positions in ``pi``), then those of
    the float parts (positions in ``pf``), then the integer data; part ``k`` is
    ``pi[pi[k]:pi[k+1]]``, float part ``k`` ``pf[pi[n_int+1+k]:pi[n_int+2+k]]``."""
    ni, nf = len(ints), len(floats)
    head = ni + nf + 2
    isz = np.array([np.size(x) for x in ints], np.int64)
    fsz = np.array([np.size(x) for x in floats], np.int64)
    ib = head + np.concatenate([[0], np.cumsum(isz)])
    fb = np.concatenate([[0], np.cumsum(fsz)])
    pi = np.concatenate([ib, fb, *(np.asarray(x, np.int64).ravel() for x in ints)])
    pf = (np.concatenate([np.asarray(x, float).ravel() for x in floats]) if floats
          else np.zeros(0))
    return np.ascontiguousarray(pi, dtype=np.int64), np.ascontiguousarray(pf, dtype=float)


@compiled
def product_kernels(numba):
    """The compiled ``(state, hessian)`` of constraint rows that are sums of products of
    two maps quadratic in ``q`` (the general rows of :mod:`fem.constraints.general` whose
    maps have constant second derivatives: points and directions of reduced bodies, and
    the linear maps they meet), or None without numba.

    Every map ``i`` is its Taylor form about a reference ``q_r`` on its own ``dofs``,
    exact for a quadratic map (``d = q[dofs] − q_r``)::

        X_i = x_r + J_r d + ½ dᵀ H d        J_i = J_r + H d

    and a term ``(row, a, b)`` adds ``X_a·X_b`` to ``Φ[row]`` (``b`` a map, or a
    prescribed direction ``β(t)``) and ``J_aᵀ X_b + J_bᵀ X_a`` to its Jacobian entries
    (the pattern ``row × (dofs of a ∪ dofs of b)``, sorted, term after term).  Data, two
    arrays packed by :func:`segments` (two arrays, not thirty, so a call unboxes little):
    the integer parts ``(dofs, map offsets, J offsets, H offsets per map, H component,
    H row, H column, term row, term a, term b (−1 − k: the k-th direction), term's first
    Jacobian entry, a's positions in the term's dofs, their offsets, b's, theirs)`` and
    the float parts ``(q_r, x_r, J_r, H values, directions (3 per β term), work: X, J,
    d)`` (:meth:`fem.constraints.general.GeneralRows.compiled_form`).

    ``state(q, pi, pf, phi, jv, j0)`` adds the rows' values to ``phi`` and writes
    their Jacobian values from ``jv[j0]`` on; ``hessian(q, pi, pf, lam, keep, w,
    S)`` adds ``w Σ λ_r keep_r Φ_r,qq`` to the dense matrix ``S`` (``Σ_c (X_b,c H_a,c +
    X_a,c H_b,c) + J_aᵀ J_b + J_bᵀ J_a`` per term).  The NumPy evaluation of
    :class:`~fem.constraints.general.GeneralRows` is the reference.
    """
    @numba.njit(cache=True)
    def ipart(pi, k):   # pragma: no cover - jit
        return pi[pi[k]:pi[k + 1]]

    @numba.njit(cache=True)
    def fpart(pi, pf, k):   # pragma: no cover - jit
        return pf[pi[N_INT + 1 + k]:pi[N_INT + 2 + k]]

    global _i, _f
    _i, _f = ipart, fpart

    @numba.njit(cache=True)
    def maps(q, pi, pf):   # pragma: no cover - jit
        dofs, mo, oJ, ho = _i(pi, 0), _i(pi, 1), _i(pi, 2), _i(pi, 3)
        hc, ha, hb = _i(pi, 4), _i(pi, 5), _i(pi, 6)
        qr, xr, Jr, hv = _f(pi, pf, 0), _f(pi, pf, 1), _f(pi, pf, 2), _f(pi, pf, 3)
        X, J, d = _f(pi, pf, 5), _f(pi, pf, 6), _f(pi, pf, 7)
        for i in range(mo.size - 1):
            p0 = mo[i]
            k = mo[i + 1] - p0
            for p in range(p0, p0 + k):
                d[p] = q[dofs[p]] - qr[p]
            o = oJ[i]
            for c in range(3):
                acc = xr[3 * i + c]
                for a in range(k):
                    x = Jr[o + c * k + a]
                    J[o + c * k + a] = x
                    acc += x * d[p0 + a]
                X[3 * i + c] = acc
            for e in range(ho[i], ho[i + 1]):
                c = hc[e]
                db = hv[e] * d[p0 + hb[e]]
                J[o + c * k + ha[e]] += db
                X[3 * i + c] += 0.5 * db * d[p0 + ha[e]]

    @numba.njit(cache=True)
    def other(ib, ia, X, beta):   # pragma: no cover - jit
        """The offset of the other factor's three values, and the array holding them."""
        if ib >= 0:
            return 3 * ib, X
        return 3 * (-1 - ib), beta

    global _maps, _other
    _maps, _other = maps, other

    @numba.njit(cache=True)
    def state(q, pi, pf, phi, jv, j0):   # pragma: no cover - jit
        _maps(q, pi, pf)
        mo, oJ = _i(pi, 1), _i(pi, 2)
        t_row, t_a, t_b, t_o = _i(pi, 7), _i(pi, 8), _i(pi, 9), _i(pi, 10)
        ca, cao, cb, cbo = _i(pi, 11), _i(pi, 12), _i(pi, 13), _i(pi, 14)
        beta, X, J = _f(pi, pf, 4), _f(pi, pf, 5), _f(pi, pf, 6)
        for t in range(t_row.size):
            ia, ib = t_a[t], t_b[t]
            ob, Y = _other(ib, ia, X, beta)
            phi[t_row[t]] += (X[3 * ia] * Y[ob] + X[3 * ia + 1] * Y[ob + 1]
                              + X[3 * ia + 2] * Y[ob + 2])
            base = j0 + t_o[t]
            for p in range(base, j0 + t_o[t + 1]):
                jv[p] = 0.0
            k = mo[ia + 1] - mo[ia]
            o = oJ[ia]
            for a in range(k):
                jv[base + ca[cao[t] + a]] += (J[o + a] * Y[ob] + J[o + k + a] * Y[ob + 1]
                                              + J[o + 2 * k + a] * Y[ob + 2])
            if ib >= 0:
                k = mo[ib + 1] - mo[ib]
                o = oJ[ib]
                xa = 3 * ia
                for b in range(k):
                    jv[base + cb[cbo[t] + b]] += (J[o + b] * X[xa] + J[o + k + b] * X[xa + 1]
                                                  + J[o + 2 * k + b] * X[xa + 2])

    @numba.njit(cache=True)
    def hessian(q, pi, pf, lam, keep, w, S):   # pragma: no cover - jit
        _maps(q, pi, pf)
        dofs, mo, oJ, ho = _i(pi, 0), _i(pi, 1), _i(pi, 2), _i(pi, 3)
        hc, ha, hb = _i(pi, 4), _i(pi, 5), _i(pi, 6)
        t_row, t_a, t_b = _i(pi, 7), _i(pi, 8), _i(pi, 9)
        hv, beta, X, J = _f(pi, pf, 3), _f(pi, pf, 4), _f(pi, pf, 5), _f(pi, pf, 6)
        for t in range(t_row.size):
            r = t_row[t]
            wr = w * lam[r] * keep[r]
            if wr == 0.0:
                continue
            ia, ib = t_a[t], t_b[t]
            ob, Y = _other(ib, ia, X, beta)
            p0 = mo[ia]
            for e in range(ho[ia], ho[ia + 1]):
                S[dofs[p0 + ha[e]], dofs[p0 + hb[e]]] += wr * hv[e] * Y[ob + hc[e]]
            if ib < 0:
                continue
            p1 = mo[ib]
            for e in range(ho[ib], ho[ib + 1]):
                S[dofs[p1 + ha[e]], dofs[p1 + hb[e]]] += wr * hv[e] * X[3 * ia + hc[e]]
            ka, kb = mo[ia + 1] - p0, mo[ib + 1] - p1
            for c in range(3):
                for a in range(ka):
                    x = wr * J[oJ[ia] + c * ka + a]
                    if x == 0.0:
                        continue
                    da = dofs[p0 + a]
                    for b in range(kb):
                        y = x * J[oJ[ib] + c * kb + b]
                        db = dofs[p1 + b]
                        S[da, db] += y
                        S[db, da] += y

    return state, hessian


def no_products() -> tuple:
    """``(pi, pf)`` of :func:`product_kernels` without any row."""
    zi = np.zeros(1, np.int64)
    e = np.zeros(0, np.int64)
    return segments((e, zi, zi, zi, e, e, e, e, e, e, zi, e, zi, e, zi),
                    tuple(np.zeros(0) for _ in range(8)))


def declare_products(rows=None, q: np.ndarray | None = None) -> tuple | None:
    """The ``products`` declaration of :class:`fem.assembly.system.ConstantStructure` (the
    fields of :class:`fem.assembly.system.ProductRows`, in order): for the general rows
    ``rows`` (:class:`~fem.constraints.general.GeneralRows`, their maps' Taylor forms
    about ``q``), or empty (``rows`` None); None when a map's second derivatives change
    with ``q``."""
    kernels = product_kernels() or (None, None)
    if rows is None:
        empty = np.zeros(0, np.int64)
        return (*kernels, empty, empty, *no_products(), None)
    form = rows.compiled_form(q)
    if form is None:
        return None
    ints, floats, directions = form
    pi, pf = segments(ints, floats)
    if directions is not None:
        beta = pf[pi[N_INT + 5]:pi[N_INT + 6]]      # float part 4, written in place
        write = directions
        directions = lambda t: write(t, beta)       # noqa: E731
    return (*kernels, rows.jrows, rows.jcols, pi, pf, directions)
