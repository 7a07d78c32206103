"""One compiled pass for the Newton residual of systems of declared structure (issue 23).

Where the system declares its structure (:class:`fem.assembly.system.ConstantStructure`: constant
mass and damping, constraint rows linear or bilinear, bodies whose mass depends on ``q``
by compiled kernels — ANCF cables clamped or coupled, natural-coordinate frames and the
joints on them, reduced-order bodies), generalized-α's residual

    r = M(q) q̈ + f − f_ext + Φ_qᵀλ (+ C q̇),     Φ = G q + c(t) + Σ (A q + α)·(B q + β(t))

and its right-hand side, scale and constraint maximum are formed in one compiled loop per
iteration instead of five calls through the general methods (mass product, constraint
state, reaction, damping, fused residual).  On the 8-element cable the per-iteration
Python that decides the run time against a compiled peer (issue 23) falls by ≈ 10 µs;
on a reduced body on a spherical hinge (issue 19, item 7) a whole iteration is compiled.
The NumPy form below (constant mass and Jacobian only) and the general methods are the
references; they give the same results to round-off (the order of the sums).

Small dense systems whose every tangent is compiled (``ConstantStructure.tangents``) are
also factorized here: :func:`form` builds the iteration matrix of
:meth:`fem.assembly.Assembly.saddle` densely and a partial-pivoting LU in LAPACK's layout
(:func:`fem.assembly.linalg.dense_lu_kernel`) factorizes it, so a factorization costs a
few microseconds instead of ≈ 170 µs of calls (the reduced rod of issue 19, item 7:
tangents, saddle assembly, ``Factorization``) and a step that renews it stays compiled.
Systems the assembly stores banded (cables and beams from 12 elements on) are formed in
the same band (:func:`form_into`: the saddle's ordering, ``kl``, ``ku``) and factorized
by a band LU in LAPACK ``gbtrf``'s layout (:func:`fem.assembly.linalg.band_lu_kernel`):
≈ 0.9 ms instead of ≈ 2 ms of calls on the 512-element cable (3084 unknowns).
Where a dense matrix has many constant linear rows (clamps, couplings: the flagship's 51
of 69), they are eliminated from what the LU factorizes by a null-space basis chosen once
(:mod:`fem.solvers.elimination`, :func:`factor_eliminated`): the same solve to
round-off, 228 → 126 unknowns on the flagship.

Two more kinds of rows are declared data (the flagship robot's): *product rows*
``Σ X_a(q)·X_b(q)`` of maps quadratic in ``q`` (joints on reduced bodies' points and
directions; ``ConstantStructure.products``, evaluated by the declared kernels of
:func:`fem.constraints.compiled.product_kernels`), and *servo rows* of inverse dynamics,
whose reaction is their actuators' ``−B(q) λ`` with ``B`` affine
(``ConstantStructure.servo``; in the iteration matrix their columns are ``−B`` and their
tangent ``−λ ∂B/∂q``).  Both are formed densely only.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..assembly.linalg import DENSE_LIMIT, BandedMatrix, Factorization
from ..core.jit import compiled
from .elimination import MIN_UNKNOWNS, EliminatedFactorization, Elimination, linear_rows

__all__ = ["ConstantIteration"]


def _csr(A: sp.spmatrix, drop_zeros: bool = False) -> tuple[np.ndarray, np.ndarray,
                                                           np.ndarray]:
    A = sp.csr_matrix(A, copy=drop_zeros)
    A.sum_duplicates()
    if drop_zeros:      # a pattern's explicit zeros (mass blocks m ⊗ I₃: two thirds)
        A.eliminate_zeros()
    return (np.ascontiguousarray(A.data, dtype=float), A.indices.astype(np.int64),
            A.indptr.astype(np.int64))


CONVERGED, ROUNDOFF, FACTORIZE, EXHAUSTED, SINGULAR = 0, 1, 2, 3, 4
"""What ends a run of compiled iterations (:meth:`ConstantIteration.iterate`); SINGULAR:
the compiled factorization failed its pivot test (the caller factorizes as FACTORIZE
asks, with the general methods and their diagnosis)."""

# compiled functions the loop calls, globals set by _kernels and ConstantIteration
_group_forces = _constraint_state = _body_terms = _body_tangents = _dense_lu = None
_band_lu = None
_substitute_dense = _substitute_banded = _apply_correction = _predict = _acceleration = None
# this module's kernels call each other through globals, not closure cells: numba keys
# a closure's disk cache on its cells, and a cell holding a dispatcher differs in every
# process (the cache would never be hit).  The cache is keyed on this file alone: the
# compiled code of the kernels called through those globals (body_terms and the chain
# kernels of fem.bodies, the element kernels) is kept in it, so after a change there
# delete this package's __pycache__/*.nbi (issue 23: a stale chain layout diverged)
_residual = _velocity_residual = _iterate = _factor = _form = _state = None
_product_state = _product_hessian = _servo_reaction = _servo_columns = None
_servo_parts = _scatter_csr = None
_factor_banded = _form_into = None
_reduce_eliminated = _substitute_eliminated = _factor_eliminated = None
_step = _bilinear_rate = None


@compiled
def _kernels(numba):
    global _substitute_dense, _substitute_banded, _apply_correction, _predict, _acceleration
    global _residual, _velocity_residual, _iterate, _factor, _form, _dense_lu, _state
    global _servo_reaction, _servo_columns, _band_lu, _factor_banded, _form_into
    global _servo_parts, _scatter_csr, _reduce_eliminated, _substitute_eliminated
    global _factor_eliminated, _step, _bilinear_rate
    from ..assembly.linalg import band_lu_kernel, dense_lu_kernel, substitution_kernels
    from .elimination import elimination_kernels
    from .fused import compiled_forms

    _substitute_dense, _substitute_banded = substitution_kernels()
    _dense_lu = dense_lu_kernel()
    _band_lu = band_lu_kernel()
    _reduce_eliminated, _substitute_eliminated = elimination_kernels()
    U = np.uint64
    _, _apply_correction, _predict, _acceleration = compiled_forms()

    @numba.njit(cache=True)
    def state(q, c_t, beta_t, G, A, alpha, B, bil_row, P, phi, jv):   # pragma: no cover
        """``Φ`` and the Jacobian values: the linear and bilinear rows, then the rows of
        products of quadratic maps (``P``, their entries after the others')."""
        _constraint_state(q, G[2], G[1], G[0], c_t, A[2], A[1], A[0], alpha, B[2], B[1],
                          B[0], beta_t, bil_row, phi, jv)
        if P[0][8] > P[0][7]:          # product rows (their terms: part 7 of P)
            _product_state(q, P[0], P[1], phi, jv, A[0].size + B[0].size + G[0].size)

    @numba.njit(cache=True)
    def servo_parts(S):   # pragma: no cover - jit
        """``(rows, offsets, dofs, D offsets, D, b)`` of the packed servo declaration."""
        si, sf = S[1], S[2]
        return (si[si[0]:si[1]], si[si[1]:si[2]], si[si[2]:si[3]], si[si[3]:si[4]],
                sf[si[5]:si[6]], sf[si[6]:si[7]])

    @numba.njit(cache=True)
    def servo_columns(q, S, lam, cK, lu, n):   # pragma: no cover - jit
        """For every actuator ``k`` on a servo row (``S``): its column ``−B_k(q)`` at
        ``lu[dofs_k, n + row_k]`` and its tangent ``−cK λ_k D_k``."""
        rows, off, dofs, Doff, D, b = _servo_parts(S)
        for a in range(rows.size):
            u = cK * lam[rows[a]]
            p0 = off[a]
            k = off[a + 1] - p0
            d0 = Doff[a]
            for i in range(k):
                x = b[p0 + i]
                di = dofs[p0 + i]
                for j in range(k):
                    x += D[d0 + i * k + j] * q[dofs[p0 + j]]
                    lu[di, dofs[p0 + j]] -= u * D[d0 + i * k + j]
                lu[di, n + rows[a]] -= x

    @numba.njit(cache=True)
    def servo_reaction(q, S, lam, out):   # pragma: no cover - jit
        """The servo rows' reaction ``−Σ_k λ_k B_k(q)`` added to ``out``."""
        rows, off, dofs, Doff, D, b = _servo_parts(S)
        for a in range(rows.size):
            u = lam[rows[a]]
            p0 = off[a]
            k = off[a + 1] - p0
            d0 = Doff[a]
            for i in range(k):
                x = b[p0 + i]
                for j in range(k):
                    x += D[d0 + i * k + j] * q[dofs[p0 + j]]
                out[dofs[p0 + i]] -= u * x

    @numba.njit(cache=True)
    def residual(q, v, qdd, lam, f_int, f_ext, c_t, beta_t, G, A, alpha, B, bil_row, jrows,
                 jcols, P, S, M, C, mq, jl, jv, floor2, c_rhs, res, rhs,
                 phi):   # pragma: no cover - jit
        """``res``, ``rhs``, ``phi`` (see :meth:`ConstantIteration.residual`); ``f_int``
        and ``mq`` hold the forces and the inertia of the bodies (zero without),
        ``jl``, ``jv`` are work arrays (reaction, Jacobian values); servo rows (``S``)
        take their reaction from their actuators."""
        n = q.size
        Md, Mi, Mp = M
        Cd, Ci, Cp = C
        _constraint_state(q, G[2], G[1], G[0], c_t, A[2], A[1], A[0], alpha, B[2], B[1],
                          B[0], beta_t, bil_row, phi, jv)
        if P[0][8] > P[0][7]:          # product rows (their terms: part 7 of P)
            _product_state(q, P[0], P[1], phi, jv, A[0].size + B[0].size + G[0].size)
        for i in range(n):
            jl[i] = 0.0
        if S[1][1] > S[1][0]:          # servo rows: their reaction from the actuators
            keep = S[0]
            for k in range(jv.size):
                r = jrows[k]
                jl[jcols[k]] += jv[k] * (lam[r] * keep[r])
            _servo_reaction(q, S, lam, jl)
        else:
            for k in range(jv.size):
                jl[jcols[k]] += jv[k] * lam[jrows[k]]
        damped = Cp.size > 1
        a = b = c = r2 = 0.0
        for i in range(n):
            m = mq[i]
            for k in range(Mp[i], Mp[i + 1]):
                m += Md[k] * qdd[Mi[k]]
            x = m + f_int[i] - f_ext[i] + jl[i]
            if damped:
                cv = 0.0
                for k in range(Cp[i], Cp[i + 1]):
                    cv += Cd[k] * v[Ci[k]]
                x += cv
            res[i] = x
            rhs[i] = x * c_rhs
            a += m * m
            b += f_int[i] * f_int[i]
            c += jl[i] * jl[i]
            r2 += x * x
        pmax = 0.0
        for r in range(c_t.size):
            p = phi[r]
            rhs[n + r] = -p
            p = abs(p)
            if p > pmax or p != p:      # a NaN propagates, as with max()
                pmax = p
        return r2, max(a, b, c, floor2), pmax

    @numba.njit(cache=True)
    def velocity_residual(q, v, rate, c_t, beta_t, G, A, alpha, B, bil_row, jrows, jcols,
                          P, S, phi, jv):   # pragma: no cover - jit
        _state(q, c_t, beta_t, G, A, alpha, B, bil_row, P, phi, jv)
        s = rate.copy()
        for k in range(jv.size):
            s[jrows[k]] += jv[k] * v[jcols[k]]
        vmax = 0.0
        for r in range(s.size):
            x = abs(s[r])
            if x > vmax or x != x:
                vmax = x
        return vmax

    @numba.njit(cache=True)
    def bilinear_rate(q, cdot, bdot, A, alpha, bil_row):   # pragma: no cover - jit
        """``∂Φ/∂t = ċ + Σ (A q + α)·β̇`` (``ConstantStructure.rate_terms``)."""
        out = cdot.copy()
        Ad, Ai, Ap = A
        for k in range(bil_row.size):
            s = 0.0
            for j in range(3):
                i = 3 * k + j
                a = alpha[i]
                for p in range(Ap[i], Ap[i + 1]):
                    a += Ad[p] * q[Ai[p]]
                s += a * bdot[i]
            out[bil_row[k]] += s
        return out

    @numba.njit(cache=True)
    def factor(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows, jcols, P, S, jv, bodies,
               kind, dofs, arrays3, arrays2, K, f_work, cK, cC, lu,
               piv):   # pragma: no cover - jit
        """:func:`form` the iteration matrix in ``lu`` and factorize it there; returns
        the pivot test."""
        _form(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows, jcols, P, S, jv, bodies,
              kind, dofs, arrays3, arrays2, K, f_work, cK, cC, lu)
        return _dense_lu(lu, piv)

    @numba.njit(cache=True)
    def factor_banded(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows, jcols, P, S, jv,
                      bodies, kind, dofs, arrays3, arrays2, K, f_work, cK, cC, ab, piv, kl,
                      ku, perm):   # pragma: no cover - jit
        """:func:`factor` in band storage: the iteration matrix in the symmetric order
        ``perm`` with ``kl`` sub- and ``ku`` superdiagonals, as
        :meth:`fem.assembly.Assembly.saddle` stores it (:class:`BandedMatrix`), formed in
        ``ab`` and factorized there (``gbtrf``'s layout); False where an entry falls
        outside the band or the pivot test fails."""
        inv = np.empty(perm.size, np.int64)
        for i in range(perm.size):
            inv[perm[i]] = i
        if not _form_into(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows, jcols, P, S,
                          jv, bodies, kind, dofs, arrays3, arrays2, K, f_work, cK, cC, ab,
                          kl + ku, 1, inv):
            return False
        return _band_lu(ab, kl, ku, piv)

    @numba.njit(cache=True)
    def factor_eliminated(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows, jcols, P, S,
                          jv, bodies, kind, dofs, arrays3, arrays2, K, f_work, cK, cC, el,
                          lu, piv):   # pragma: no cover - jit
        """:func:`factor` with the constant linear rows eliminated
        (:mod:`fem.solvers.elimination`): the full matrix formed in ``el``'s work
        matrix, its reduced saddle in ``lu`` factorized there; the pivot test."""
        _form(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows, jcols, P, S, jv, bodies,
              kind, dofs, arrays3, arrays2, K, f_work, cK, cC, el[2])
        _reduce_eliminated(el, lu)
        return _dense_lu(lu, piv)

    @numba.njit(cache=True)
    def form(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows, jcols, P, S, jv, bodies,
             kind, dofs, arrays3, arrays2, K, f_work, cK, cC, lu):   # pragma: no cover
        """The iteration matrix ``[[M(q) + cC (C + ∂f/∂q̇) + cK (K + Σλ Φ_qq + ∂f/∂q),
        Wᵀ], [Φ_q, 0]]`` (:meth:`fem.assembly.Assembly.saddle` with ``cM = cJ = 1``;
        ``W = Φ_q`` but on servo rows, whose columns are their actuators' ``−B(q)``,
        with ``−cK λ ∂B/∂q`` in the tangent) formed densely in ``lu``; ``jv`` the
        Jacobian values at ``q`` (the residual's); ``f_work`` is overwritten."""
        _form_into(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows, jcols, P, S, jv,
                   bodies, kind, dofs, arrays3, arrays2, K, f_work, cK, cC, lu, 0, 0,
                   np.arange(lu.shape[0]))

    @numba.njit(cache=True)
    def scatter_csr(A, w, n, off, s, inv, lo, hi, lu):   # pragma: no cover - jit
        """``w A`` (CSR triple, ``n`` rows) into ``lu`` as :func:`form_into` places its
        entries; False where one falls outside rows ``lo … hi − 1``."""
        Ad, Ai, Ap = A
        ok = True
        for i in range(n):
            ii = off + inv[i]
            for k in range(Ap[i], Ap[i + 1]):
                j = inv[Ai[k]]
                r = ii - s * j
                ok &= lo <= r < hi
                lu[U(r), U(j)] += w * Ad[k]
        return ok

    @numba.njit(cache=True)
    def form_into(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows, jcols, P, S, jv,
                  bodies, kind, dofs, arrays3, arrays2, K, f_work, cK, cC, lu, off, s,
                  inv):   # pragma: no cover - jit
        """:func:`form` into ``lu`` dense (``off = s = 0``, ``inv`` the identity) or in
        band storage (``off = kl + ku``, ``s = 1``, ``inv`` the inverse of the band's
        ordering): entry ``(r, c)`` goes to ``lu[off + inv[r] − s·inv[c], inv[c]]``, in
        the same order either way.  False where an entry falls outside ``lu``'s rows
        ``lu.shape[0] − 1 − off …`` (nothing in the band's fill space); the bodies'
        tangents, the product rows' Hessian and the servo columns are formed densely
        only (False in a band)."""
        n = q.size
        for c in range(lu.shape[1]):
            for r in range(lu.shape[0]):
                lu[r, c] = 0.0
        lo = lu.shape[0] - 1 - off if s else 0
        hi = lu.shape[0]
        ok = _scatter_csr(M, 1.0, n, off, s, inv, lo, hi, lu)
        if C[2].size > 1:
            ok &= _scatter_csr(C, cC, n, off, s, inv, lo, hi, lu)
        if dofs.shape[0] > 0:
            _group_forces(kind, q, dofs, arrays3, arrays2, f_work, K, True)
            nd = dofs.shape[1]
            for e in range(dofs.shape[0]):
                for a in range(nd):
                    ia = off + inv[dofs[e, a]]
                    for b in range(nd):
                        j = inv[dofs[e, b]]
                        r = ia - s * j
                        ok &= lo <= r < hi
                        lu[U(r), U(j)] += cK * K[e, a, b]
        dense_only = bodies[0].shape[0] > 0 or P[0][8] > P[0][7] or S[1][1] > S[1][0]
        if s and dense_only:
            return False
        if bodies[0].shape[0]:
            _body_tangents(bodies[0], bodies[1], bodies[2], bodies[3], q, v, qdd, cK, cC,
                           lu)
        keep = S[0]
        Ad, Ai, Ap = A                  # Σ λ (A_rᵀ B_r + B_rᵀ A_r) of the bilinear rows
        Bd, Bi, Bp = B
        for r in range(alpha.size):
            lr = cK * (lam[bil_row[r // 3]] * keep[bil_row[r // 3]])
            if lr != 0.0:
                for ka in range(Ap[r], Ap[r + 1]):
                    x = lr * Ad[ka]
                    ia = inv[Ai[ka]]
                    for kb in range(Bp[r], Bp[r + 1]):
                        y = x * Bd[kb]
                        ib = inv[Bi[kb]]
                        rab = off + ia - s * ib
                        rba = off + ib - s * ia
                        ok &= lo <= rab < hi and lo <= rba < hi
                        lu[U(rab), U(ib)] += y
                        lu[U(rba), U(ia)] += y
        if P[0][8] > P[0][7]:
            _product_hessian(q, P[0], P[1], lam, keep, cK, lu)
        for k in range(jv.size):
            r = jrows[k]
            ir = inv[n + r]
            c = inv[jcols[k]]
            rrc = off + ir - s * c
            ok &= lo <= rrc < hi
            lu[U(rrc), U(c)] += jv[k]
            if keep[r] != 0.0:
                rcr = off + c - s * ir
                ok &= lo <= rcr < hi
                lu[U(rcr), U(ir)] += jv[k]
        if S[1][1] > S[1][0]:
            _servo_columns(q, S, lam, cK, lu, n)
        return ok

    @numba.njit(cache=True)
    def iterate(it, refactor, err_prev, nh, q, v, qdd, lam, f_ext, c_t, beta_t, M, C, G,
                A, alpha, B, bil_row, jrows, jcols, P, S, bodies, mq, jl, jv, floor2, c_rhs, gp,
                bp, tol, ctol, max_iter, ratio, contraction, kind, dofs, arrays3, arrays2,
                K, f_int, lu_kind, lu, piv, kl, ku, perm, el, res, rhs, phi, dx, hist_r,
                hist_p, have_dq, fac):   # pragma: no cover - jit
        """Modified-Newton iterations from iteration ``it`` with a kept factorization,
        until converged (CONVERGED, ROUNDOFF), out of iterations (EXHAUSTED) or a fresh
        factorization is due (FACTORIZE: the residual of iteration ``it`` is in ``rhs``).
        The same decisions as :meth:`GeneralizedAlpha._newton` and
        :meth:`FactorizationPolicy.renew`.  With ``fac`` (a dense factorization and
        every tangent compiled) a due factorization is made here (:func:`factor`, into
        ``lu``, ``piv``; ``lu_kind`` 2: :func:`factor_eliminated` with the linear rows'
        elimination ``el``) and the iterations go on.  Returns ``(status, it, nh, err,
        err_prev, refactor, scale, evaluations, factorizations)``."""
        n = q.size
        n_eval = 0
        n_fact = 0
        while True:
            for i in range(n):
                f_int[i] = 0.0
                mq[i] = 0.0
            _group_forces(kind, q, dofs, arrays3, arrays2, f_int, K, False)
            if bodies[0].shape[0]:
                _body_terms(bodies[0], bodies[1], bodies[2], bodies[3], q, v, qdd, mq,
                            f_int)
            n_eval += 1
            r2, scale2, pn = _residual(q, v, qdd, lam, f_int, f_ext, c_t, beta_t, G, A,
                                       alpha, B, bil_row, jrows, jcols, P, S, M, C, mq, jl,
                                       jv, floor2, c_rhs, res, rhs, phi)
            scale = np.sqrt(scale2)
            rn = np.sqrt(r2) / scale
            hist_r[nh] = rn
            hist_p[nh] = pn
            nh += 1
            err = max(rn / tol, pn / ctol)
            if not np.isfinite(err) or err <= 1.0:
                return CONVERGED, it, nh, err, err_prev, refactor, scale, n_eval, n_fact
            if have_dq and rn <= 1e-4 and pn <= ctol and nh >= 3 \
                    and rn > 0.5 * hist_r[nh - 3]:
                dmax = 0.0
                qmax = 0.0
                for i in range(n):
                    dmax = max(dmax, abs(dx[i]))
                    qmax = max(qmax, abs(q[i]))
                if dmax <= 1e-13 * max(qmax, 1e-300):
                    return ROUNDOFF, it, nh, err, err_prev, refactor, scale, n_eval, n_fact
            if it == max_iter:
                return EXHAUSTED, it, nh, err, err_prev, refactor, scale, n_eval, n_fact
            if refactor:
                if not fac:
                    return FACTORIZE, it, nh, err, err_prev, refactor, scale, n_eval, n_fact
                bpi = 1.0 / bp
                if lu_kind == 0:
                    ok = _factor(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows, jcols,
                                 P, S, jv, bodies, kind, dofs, arrays3, arrays2, K, f_int,
                                 bpi, gp * bpi, lu, piv)
                elif lu_kind == 2:
                    ok = _factor_eliminated(q, v, qdd, lam, M, C, A, alpha, B, bil_row,
                                            jrows, jcols, P, S, jv, bodies, kind, dofs,
                                            arrays3, arrays2, K, f_int, bpi, gp * bpi, el,
                                            lu, piv)
                else:
                    ok = _factor_banded(q, v, qdd, lam, M, C, A, alpha, B, bil_row, jrows,
                                        jcols, P, S, jv, bodies, kind, dofs, arrays3,
                                        arrays2, K, f_int, bpi, gp * bpi, lu, piv, kl, ku,
                                        perm)
                if not ok:
                    return SINGULAR, it, nh, err, err_prev, refactor, scale, n_eval, n_fact
                n_fact += 1
                refactor = False
            elif it > 0:                   # FactorizationPolicy.renew
                rate = err / err_prev
                if ratio == 0.0:
                    refactor = rate > contraction or it >= 2
                elif rate > max(contraction, 0.7):
                    refactor = True
                else:
                    needed = np.log(err) / max(-np.log(max(rate, 1e-300)), 1e-12)
                    refactor = needed > ratio + 1.5 or it + needed > 0.6 * max_iter
            err_prev = err
            if lu_kind == 0:
                for i in range(rhs.size):
                    dx[i] = rhs[i]
                _substitute_dense(lu, piv, dx)
            elif lu_kind == 2:
                _substitute_eliminated(lu, piv, el, rhs, dx)
            else:
                _substitute_banded(lu, kl, ku, piv, perm, rhs, dx)
            _apply_correction(q, v, qdd, lam, dx, gp, bp)
            have_dq = True
            it += 1

    @numba.njit(cache=True)
    def step(q0, v0, qdd0, a0, prev, c, h, af, am, gam, beta, lam0, rate, f_ext, c_t, beta_t,
             G, A, alpha, B, bil_row, jrows, jcols, P, S, M, C, bodies, mq, jl, jv, floor2, c_rhs,
             gp, bp, tol, ctol, max_iter, ratio, contraction, kind, dofs, arrays3, arrays2,
             K, f_int, lu_kind, lu, piv, kl, ku, perm, el, res, rhs, phi, dx, hist_r,
             hist_p, phi_v, refactor, fac):   # pragma: no cover - jit
        """A whole generalized-α step from a kept factorization: the predictor
        (:func:`fem.solvers.fused.predict`), :func:`iterate` from iteration 0, and when
        it converges the algorithmic acceleration and, with ``rate`` given (m values),
        ``max |Φ_q q̇ + Φ_t|``.  Returns ``(iterate's tuple, q, q̇, q̈, λ, a₁, velocity
        residual or −1)``; ``a₁`` is empty unless converged."""
        q, v, qdd = _predict(q0, v0, qdd0, a0, prev, c, h, af, am, gam, beta)
        lam = lam0.copy()
        out = _iterate(0, refactor, np.inf, 0, q, v, qdd, lam, f_ext, c_t, beta_t, M, C,
                       G, A, alpha, B, bil_row, jrows, jcols, P, S, bodies, mq, jl, jv, floor2,
                       c_rhs, gp, bp, tol, ctol, max_iter, ratio, contraction, kind, dofs,
                       arrays3, arrays2, K, f_int, lu_kind, lu, piv, kl, ku, perm, el, res,
                       rhs, phi, dx, hist_r, hist_p, False, fac)
        a1 = np.empty(0)
        vres = -1.0
        if out[0] == CONVERGED or out[0] == ROUNDOFF:
            a1 = _acceleration(qdd0, qdd, a0, af, am)
            if rate.size == c_t.size:
                vres = _velocity_residual(q, v, rate, c_t, beta_t, G, A, alpha, B,
                                          bil_row, jrows, jcols, P, S, phi_v, jv)
        return out, q, v, qdd, lam, a1, vres

    @numba.njit(cache=True)
    def march(count, q0, v0, qdd0, a0, prev, c, linear, h, af, am, gam, beta, lam0, rates,
              f_ext, c_ts, beta_ts, G, A, alpha, B, bil_row, jrows, jcols, P, S, M, C,
              bodies, mq, jl, jv, floor2, c_rhs, gp, bp, tol, ctol, max_iter, ratio,
              contraction, kind, dofs, arrays3, arrays2, K, f_int, lu_kind, lu, piv, kl,
              ku, perm, el, res, rhs, phi, dx, hist_r, hist_p, phi_v, have_lu,
              renew_each, fac, cdots, bdots, jw, Q, V, QDD, L, AA,
              stats):   # pragma: no cover - jit
        """Up to ``count`` steps of ``h``, each exactly :func:`step` with the decisions
        generalized-α makes between steps (:meth:`FactorizationPolicy.begin_step`: a
        fresh factorization where none is kept or ``renew_each``; the linear
        predictor's last two accelerations), the converged states in rows of ``Q``,
        ``V``, ``QDD``, ``L`` and ``AA`` (the algorithmic accelerations) and per step
        ``stats`` = (iterations, relative residual, its scale, max |Φ|, velocity
        residual or −1, evaluations, round-off acceptance, factorizations).  Row ``s``
        of ``c_ts``, ``beta_ts``, ``rates`` holds step ``s``'s time terms (one row:
        the same for all); where ``∂Φ/∂t`` depends on ``q``, ``rates`` has no columns
        and rows of ``cdots``, ``bdots`` (m and 3 n_bil columns) hold its terms
        (:func:`bilinear_rate`), ``jw`` work for the Jacobian values.  Stops at the
        first step that does not converge.  Returns
        ``(steps converged, the stopping step's iterate tuple, q, q̇, q̈, λ, whether it
        started from a kept factorization)``; the tuple and state are the last step's
        when all converged."""
        n, m = q0.size, lam0.size
        many_c = c_ts.shape[0] > 1
        many_b = beta_ts.shape[0] > 1
        many_r = rates.shape[0] > 1
        by_terms = cdots.shape[1] == m and m > 0
        many_d = cdots.shape[0] > 1
        for s in range(count):
            refactor = renew_each or not have_lu
            rate = rates[s] if many_r else rates[0]
            c_t = c_ts[s] if many_c else c_ts[0]
            beta_t = beta_ts[s] if many_b else beta_ts[0]
            out, q, v, qdd, lam, a1, vres = _step(
                q0, v0, qdd0, a0, prev, c, h, af, am, gam, beta, lam0, rate, f_ext, c_t,
                beta_t, G, A, alpha, B, bil_row, jrows,
                jcols, P, S, M, C, bodies, mq, jl, jv, floor2, c_rhs, gp, bp, tol, ctol,
                max_iter, ratio, contraction, kind, dofs, arrays3, arrays2, K, f_int,
                lu_kind, lu, piv, kl, ku, perm, el, res, rhs, phi, dx, hist_r, hist_p,
                phi_v, refactor, fac)
            if out[8] > 0:
                have_lu = True
            if out[0] != CONVERGED and out[0] != ROUNDOFF:
                return s, out, q, v, qdd, lam, not refactor
            if by_terms:
                d = s if many_d else 0
                vres = _velocity_residual(q, v, _bilinear_rate(q, cdots[d], bdots[d], A,
                                                               alpha, bil_row),
                                          c_t, beta_t, G, A, alpha, B, bil_row, jrows,
                                          jcols, P, S, phi_v, jw)
            nh = out[2]
            rn = hist_r[nh - 1]
            stats[s, 0] = nh - 1
            stats[s, 1] = rn
            stats[s, 2] = rn * out[6]
            stats[s, 3] = hist_p[nh - 1]
            stats[s, 4] = vres
            stats[s, 5] = out[7]
            stats[s, 6] = 1.0 if out[0] == ROUNDOFF else 0.0
            stats[s, 7] = out[8]
            for i in range(n):
                Q[s, i] = q[i]
                V[s, i] = v[i]
                QDD[s, i] = qdd[i]
                AA[s, i] = a1[i]
            for i in range(m):
                L[s, i] = lam[i]
            # the next step's start: this one's end; the linear predictor extrapolates
            # from the last two accelerations at the same step (h / h_prev = 1)
            prev = qdd0 if linear else QDD[s]
            c = 1.0 if linear else 0.0
            q0, v0, qdd0, lam0, a0 = Q[s], V[s], QDD[s], L[s], AA[s]
        return count, out, q, v, qdd, lam, not refactor

    _residual, _velocity_residual, _iterate, _factor, _form, _state = (
        residual, velocity_residual, iterate, factor, form, state)
    _servo_reaction, _servo_columns, _servo_parts = servo_reaction, servo_columns, servo_parts
    _scatter_csr = scatter_csr
    _factor_banded, _form_into = factor_banded, form_into
    _factor_eliminated = factor_eliminated
    _step, _bilinear_rate = step, bilinear_rate
    return (residual, velocity_residual, iterate, step, form, state, form_into,
            factor_eliminated, march, bilinear_rate)


class ConstantIteration:
    """The fused residual of a system of declared structure.

    Parameters
    ----------
    structure : fem.assembly.system.ConstantStructure
        The system's constant matrices and compiled parts
        (``System.constant_structure()``).
    """

    def __init__(self, structure):
        self.structure = s = structure
        self.n = n = structure.mass.shape[0]
        self.m = m = structure.jacobian.shape[0]
        # the mass without its stored zeros: the same sums (+0.0 changes nothing), a
        # third of the work in every residual (3084-unknown cable: 73 → 35 µs)
        self._M = _csr(structure.mass, drop_zeros=True)
        self._G = _csr(structure.jacobian)
        self._C = (_csr(structure.damping) if structure.damping is not None
                   else (np.zeros(0), np.zeros(0, np.int64), np.zeros(1, np.int64)))
        self.phi = np.empty(m)
        self._t = None
        self._c_t = np.zeros(m)
        self._beta_t = np.zeros(0)
        self._rate = None
        self._directions = None
        self.hist_r = self.hist_p = np.empty(0)
        self._factorization = self._lu = None      # the last factorization's arrays
        kernels = _kernels()
        bil, bodies, prod = s.bilinear, s.bodies, s.products
        have_state = (kernels is not None and bil is not None and bil.state is not None
                      and prod is not None and prod.state is not None)
        # the compiled parts the declaration brings (the solvers import no element,
        # body or constraint module: the entry points come with the declaration)
        self.compiled = (have_state and s.forces is not None and bodies is not None
                         and bodies.terms is not None)
        """Whether :meth:`iterate` can run (compiled kernels for every part)."""
        # Φ_t depends on q where the structure is timed and not plain: the step leaves
        # the velocity residual to Python (evaluated once here: the step asks each time)
        self._rate_left = s.timed and not s.plain
        # ... from its terms in t (ConstantStructure.rate_terms) where declared
        self._rate_terms = s.rate_terms if self._rate_left else None
        self.fused = (self.compiled and not s.has_bodies) or s.plain
        """Whether :meth:`residual` takes the system's internal forces (compiled without
        bodies, or the NumPy form of a plain structure) and :meth:`velocity_residual`
        runs; with bodies only the compiled loop evaluates them."""
        self._kernels = kernels if have_state and (self.compiled or s.plain) else None
        self.eliminable = None
        """The constant linear rows' elimination (:class:`fem.solvers.elimination
        .Elimination`) where the matrix is dense and it pays
        (:meth:`~fem.solvers.elimination.Elimination.pays`), decided from the structure
        alone (the factorization policy's estimate reads it with or without numba);
        None otherwise."""
        if self.dense and n + m >= MIN_UNKNOWNS:
            rows = linear_rows(s, m)
            if rows.size:
                try:
                    el = Elimination(sp.csr_matrix(s.jacobian)[rows].toarray(), rows, n, m)
                except ValueError:       # dependent rows: the full matrix (and its
                    el = None            # singular diagnosis)
                self.eliminable = el if el is not None and el.pays() else None
        if self._kernels is None:
            return
        global _group_forces, _constraint_state, _body_terms, _product_state
        global _product_hessian
        if bil is not None:
            # the kernels take the parts as plain tuples of arrays (the types they are
            # compiled for), gathered here by name
            _constraint_state = bil.state
            _product_state, _product_hessian = prod.state, prod.hessian
            self._P = (prod.pi, prod.pf)
            self._directions = prod.directions
            servo = s.servo
            self._S = ((servo.keep, servo.si, servo.sf) if servo is not None else (
                np.ones(m), np.array([8, 8, 8, 8, 8, 0, 0, 0], np.int64),  # no servo rows
                np.zeros(0)))                                               # (packed, empty)
            A, B = sp.csr_matrix(bil.A), sp.csr_matrix(bil.B)
            A.sum_duplicates()
            B.sum_duplicates()
            self._A, self._B = _csr(A), _csr(B)
            self._alpha = np.ascontiguousarray(bil.alpha, dtype=float)
            self._bil_row = np.ascontiguousarray(bil.row, dtype=np.int64)
            Ac, Bc, Gc = A.tocoo(), B.tocoo(), sp.csr_matrix(s.jacobian).tocoo()
            self._jrows = np.concatenate([self._bil_row[Ac.row // 3],
                                          self._bil_row[Bc.row // 3], Gc.row,
                                          prod.jrows]).astype(np.int64)
            self._jcols = np.concatenate([Ac.col, Bc.col, Gc.col, prod.jcols]).astype(np.int64)
        if bodies is not None and bodies.terms is not None:
            _body_terms = bodies.terms
            self._bodies = (bodies.header, bodies.dofs, bodies.data, bodies.index)
        else:
            self._bodies = (np.zeros((0, 8), np.int64), np.zeros(0, np.int64), np.zeros(0),
                            np.zeros(0, np.int64))
        if s.forces is not None:
            # the element kernels' entry point, a global of the compiled loop (numba
            # takes no functions as arguments without losing its disk cache)
            _group_forces = s.forces.kernel
            self.forces = (s.forces.kind, s.forces.dofs, s.forces.arrays3, s.forces.arrays2)
        global _body_tangents
        if s.tangents is not None:
            _body_tangents = s.tangents
        self.factorizes = (self.compiled and n + m <= DENSE_LIMIT
                           and (s.tangents is not None or not s.has_bodies))
        """Whether the compiled loop can form and factorize the iteration matrix itself
        (every tangent compiled, a dense factorization; :meth:`workspace`)."""
        P, S = self._P[0], self._S[1]
        self.factorizes_banded = (self.compiled and not s.has_bodies
                                  and P[8] == P[7] and S[1] == S[0])
        """Whether it can where the matrix is stored banded (:meth:`layout`): the bodies'
        tangents, the product rows' Hessian and the servo columns are formed densely
        only."""
        dofs = s.forces.dofs if s.forces is not None else np.zeros((0, 0), np.int64)
        nd = dofs.shape[1] if dofs.ndim == 2 else 0
        # the element tangents of a compiled factorization (the kernels' work array)
        self._K = (np.empty((dofs.shape[0], nd, nd))
                   if (self.factorizes or self.factorizes_banded) and dofs.size
                   else np.empty((0, 1, 1)))
        self.elimination = self.eliminable if self.factorizes else None
        """The constant linear rows eliminated from the matrix the compiled loop
        factorizes densely (:attr:`eliminable` where it :attr:`factorizes`)."""
        self._no_elimination = Elimination.empty_data()
        self._work = None
        self._band = None       # (kl, ku, perm) of a banded layout (:meth:`layout`)
        self.f_int = np.empty(n)
        self.mq = np.empty(n)                       # work arrays of the residual
        self.jl = np.empty(n)
        self.jv = np.empty(self._jrows.size) if bil is not None else np.empty(0)
        self.dx = np.zeros(n + m)
        self.res = np.empty(n)                      # work arrays of the Newton loop
        self.rhs = np.empty(n + m)
        self._phi_v = np.empty(m)
        self._no_rate = np.empty(0)       # Φ_t depends on q: the step leaves it to Python
        self._step_tail = None      # the step kernel's arguments fixed per factorization
        self._tail_of = None
        self._cons, self._cons_t = (), None

    @property
    def dense(self) -> bool:
        """Whether the iteration matrix is small enough for a dense factorization
        (n + m ≤ ``DENSE_LIMIT``), which the compiled loop makes itself where its kernels
        are there (:attr:`factorizes`); a property of the structure alone."""
        return self.n + self.m <= DENSE_LIMIT

    def _constraints(self, t: float) -> tuple:
        """The constraint arguments of the compiled kernels at ``t``."""
        if t == self._cons_t:
            return self._cons
        c_t, beta_t = self._terms(t)
        self._cons_t = t
        self._cons = (c_t, beta_t, self._G, self._A, self._alpha, self._B, self._bil_row,
                      self._jrows, self._jcols, self._P, self._S)
        return self._cons

    def history(self, size: int) -> None:
        """Room for ``size`` entries of the iteration history (:attr:`hist_r`,
        :attr:`hist_p`: relative residual and max |Φ| per evaluation)."""
        if self.hist_r.size < size:
            self.hist_r, self.hist_p = np.empty(size), np.empty(size)
            self._step_tail = None

    def iterate(self, it: int, refactor: bool, err_prev: float, nh: int, q, v, qdd, lam,
                f_ext, t: float, floor2: float, k, tol: float, ctol: float, max_iter: int,
                ratio: float, contraction: float, factorization, res, rhs,
                have_dq: bool, fac: bool = False) -> tuple:
        """Compiled modified-Newton iterations with a kept factorization (see the kernel
        ``iterate``); ``k`` the step's :class:`~fem.solvers.alpha.StepCoefficients`;
        ``fac``: renew the factorization in place when due (:attr:`factorizes`).
        Returns ``(status, it, nh, err, err_prev, refactor, scale, evaluations,
        factorizations)``."""
        lu_kind, lu, piv, kl, ku, perm, el = self._lu_of(factorization)
        kind, dofs, arrays3, arrays2 = self.forces
        c_t, beta_t, G, A, alpha, B, bil_row, jrows, jcols, P, S = self._constraints(t)
        return self._kernels[2](
            it, refactor, err_prev, nh, q, v, qdd, lam, f_ext, c_t, beta_t, self._M,
            self._C, G, A, alpha, B, bil_row, jrows, jcols, P, S, self._bodies, self.mq,
            self.jl,
            self.jv, floor2, k.rhs_scale, k.gamma_prime, k.beta_prime, tol, ctol, max_iter,
            ratio, contraction, kind, dofs, arrays3, arrays2, self._K, self.f_int,
            lu_kind, lu, piv, kl, ku, perm, el, res, rhs, self.phi, self.dx, self.hist_r,
            self.hist_p, have_dq, fac)

    def step(self, q0, v0, qdd0, a0, prev, c: float, h: float, par, lam0, f_ext, t: float,
             floor2: float, k, tol: float, ctol: float, max_iter: int, ratio: float,
             contraction: float, factorization, refactor: bool = False,
             fac: bool = False) -> tuple:
        """A whole step in one compiled call (the kernel ``step``), from the kept
        ``factorization`` or, with ``refactor`` (and ``fac``, see :meth:`iterate`), one
        made at its first iteration into ``factorization``'s arrays; ``par`` the
        :class:`~fem.solvers.alpha.AlphaParameters`, ``prev`` the acceleration before
        ``q̈₀`` (or ``q̈₀`` itself with ``c = 0``).  Returns ``(iterate's tuple, q, q̇, q̈,
        λ, a₁, velocity residual or −1)``."""
        if factorization is not self._tail_of or self._step_tail is None:
            self._tail_of = factorization
            self._step_tail = (*self.forces, self._K, self.f_int,
                               *self._lu_of(factorization), self.res, self.rhs, self.phi,
                               self.dx, self.hist_r, self.hist_p, self._phi_v)
        # Φ_t known before the step (it does not depend on q): checked inside the kernel
        rate = self._no_rate if self._rate_left else self._rate_at(t, q0)
        return self._kernels[3](
            q0, v0, qdd0, a0, prev, c, h, par.alpha_f, par.alpha_m, par.gamma, par.beta,
            lam0, rate, f_ext, *self._constraints(t), self._M, self._C, self._bodies,
            self.mq, self.jl, self.jv, floor2, k.rhs_scale, k.gamma_prime, k.beta_prime,
            tol, ctol, max_iter, ratio, contraction, *self._step_tail, refactor, fac)

    @property
    def marches(self) -> bool:
        """Whether :meth:`march` can run: the compiled loop is there and every time term
        of a step can be evaluated before it (no prescribed directions written in place
        at each time, ``ConstantStructure.products``)."""
        return self._kernels is not None and self.compiled and self._directions is None

    def march(self, count: int, q0, v0, qdd0, a0, prev, c: float, linear: bool, h: float,
              par, lam0, f_ext, times: np.ndarray, floor2: float, k, tol: float,
              ctol: float, max_iter: int, ratio: float, contraction: float,
              factorization, have_lu: bool, renew_each: bool) -> tuple:
        """Up to ``count`` whole steps of ``h`` in one compiled call (the kernel
        ``march``: :meth:`step` after :meth:`step`, with the decisions generalized-α
        makes between them), ending at ``times``; the loop renews ``factorization``
        in place where due.  ``prev``, ``c``: the first step's predictor (as for
        :meth:`step`), ``linear``: the linear predictor on the steps after it.  The
        time terms of every step are evaluated here first (:attr:`marches`).

        Returns ``(done, iterate's tuple, q, q̇, q̈, λ, kept, rows)``: the steps
        converged, the iterate and state where it stopped (see the kernel), and
        ``rows = (Q, V, QDD, L, AA, stats)`` with the converged steps' states,
        algorithmic accelerations and statistics in their first ``done`` rows."""
        n, m = self.n, self.m
        if self.structure.timed:
            c_ts = beta_ts = None
            for i, t in enumerate(times):       # copied: a term may be a kept buffer
                c_t, beta_t = self._terms(float(t))
                if c_ts is None:
                    c_ts = np.empty((len(times), m))
                    beta_ts = np.empty((len(times), beta_t.size))
                c_ts[i], beta_ts[i] = c_t, beta_t
        else:
            c_t, beta_t = self._terms(float(times[0]))
            c_ts, beta_ts = c_t.reshape(1, m), beta_t.reshape(1, -1)
        cdots = bdots = np.empty((1, 0))
        by_terms = self._rate_terms is not None
        if self._rate_left:
            rates = np.empty((1, 0))
            if by_terms:                 # at the times just evaluated (kept motions)
                cdots = np.empty((len(times), m))
                for i, t in enumerate(times):
                    cd, bd = self._rate_terms(float(t))
                    if i == 0:
                        bdots = np.empty((len(times), np.size(bd)))
                    cdots[i], bdots[i] = cd, bd
        elif self.structure.timed:
            rates = np.empty((len(times), m))
            for i, t in enumerate(times):
                rates[i] = self._rate_at(float(t), q0)
        else:
            rates = self._rate_at(float(times[0]), q0).reshape(1, m)
        kind, dofs, arrays3, arrays2 = self.forces
        rows = (np.empty((count, n)), np.empty((count, n)), np.empty((count, n)),
                np.empty((count, m)), np.empty((count, n)), np.empty((count, 8)))
        out = self._kernels[8](
            count, q0, v0, qdd0, a0, prev, c, linear, h, par.alpha_f, par.alpha_m,
            par.gamma, par.beta, lam0, rates, f_ext, c_ts, beta_ts, self._G, self._A,
            self._alpha, self._B, self._bil_row, self._jrows, self._jcols, self._P,
            self._S, self._M, self._C, self._bodies, self.mq, self.jl, self.jv, floor2,
            k.rhs_scale, k.gamma_prime, k.beta_prime, tol, ctol, max_iter, ratio,
            contraction, kind, dofs, arrays3, arrays2, self._K, self.f_int,
            *self._lu_of(factorization), self.res, self.rhs, self.phi, self.dx,
            self.hist_r, self.hist_p, self._phi_v, have_lu, renew_each, True, cdots,
            bdots, np.empty(self.jv.size), *rows)
        return (*out, rows)

    def iteration_matrix(self, q, v, qdd, lam, t: float, k,
                         band: tuple | None = None) -> np.ndarray | BandedMatrix:
        """The iteration matrix the compiled loop factorizes at ``(q, q̇, q̈, λ, t)`` for
        the step coefficients ``k``: dense (:attr:`factorizes`), or with ``band = (kl,
        ku, perm)`` a :class:`~fem.assembly.linalg.BandedMatrix` in that layout
        (:attr:`factorizes_banded`).  The reference is
        :meth:`fem.assembly.Assembly.saddle` (the tests compare them)."""
        if not (self.factorizes if band is None else self.factorizes_banded):
            raise ValueError("ConstantIteration: this structure is not factorized in the "
                             "compiled loop (see `factorizes`)")
        c_t, beta_t, G, A, alpha, B, bil_row, jrows, jcols, P, S = self._constraints(t)
        self._kernels[5](q, c_t, beta_t, G, A, alpha, B, bil_row, P, self.phi, self.jv)
        kind, dofs, arrays3, arrays2 = self.forces
        N = self.n + self.m
        bpi = 1.0 / k.beta_prime
        args = (q, v, qdd, lam, self._M, self._C, A, alpha, B, bil_row, jrows, jcols, P, S,
                self.jv, self._bodies, kind, dofs, arrays3, arrays2, self._K,
                np.zeros(self.n), bpi, k.gamma_prime * bpi)
        if band is None:
            out = np.empty((N, N), order="F")
            self._kernels[4](*args, out)
            return np.ascontiguousarray(out)
        kl, ku, perm = band
        ab = np.empty((2 * kl + ku + 1, N), order="F")
        inv = np.empty_like(perm)
        inv[perm] = np.arange(N)
        if not self._kernels[6](*args, ab, kl + ku, 1, inv):
            raise ValueError("ConstantIteration: the iteration matrix does not fit the band")
        return BandedMatrix(ab, kl, ku, perm)

    def layout(self, factorization: Factorization) -> None:
        """Factorize in the compiled loop in ``factorization``'s storage (dense or
        banded, its ordering and band) from now on: :meth:`workspace` takes it."""
        band = None
        if factorization.kind == "banded":
            A = factorization.A
            band = (A.kl, A.ku, A.perm)
        old = self._band
        if (band is None) != (old is None) or (
                band is not None and (band[:2] != old[:2]
                                      or not np.array_equal(band[2], old[2]))):
            self._band, self._work = band, None

    def workspace(self) -> Factorization:
        """A factorization's arrays for the compiled loop to factorize into when no
        factorization is kept, in the storage of :meth:`layout` (dense by default:
        ``getrf``'s layout, or ``gbtrf``'s; dense with the linear rows eliminated where
        :attr:`elimination` is set); the same arrays every time."""
        if self._work is None:
            N = self.n + self.m
            if self._band is None and self.elimination is not None:
                self._work = EliminatedFactorization(self.elimination)
            elif self._band is None:
                self._work = Factorization.of_dense(np.zeros((N, N), order="F"),
                                                    np.zeros(N, np.int32))
            else:
                kl, ku, perm = self._band
                self._work = Factorization.of_banded(
                    np.zeros((2 * kl + ku + 1, N), order="F"), np.zeros(N, np.int32), kl,
                    ku, perm)
        return self._work

    def _lu_of(self, factorization) -> tuple:
        """The substitution arrays of ``factorization`` and its elimination's data (an
        empty one but for :class:`EliminatedFactorization`), kept while it is the
        same."""
        if factorization is not self._factorization:
            self._factorization = factorization
            el = (factorization.elimination.data
                  if isinstance(factorization, EliminatedFactorization)
                  else self._no_elimination)
            self._lu = (*factorization.substitution_data(), el)
        return self._lu

    def factorize(self, q, v, qdd, lam, t: float, k) -> Factorization | None:
        """The iteration matrix at ``(q, q̇, q̈, λ, t)`` for the step coefficients ``k``
        formed and factorized by the compiled loop's kernels with the linear rows
        eliminated, in :meth:`workspace`; None without :attr:`elimination` or where the
        pivot test fails (the caller keeps the general factorization)."""
        if self.elimination is None or self._band is not None:
            return None
        work = self.workspace()
        _, lu, piv, _, _, _, el = self._lu_of(work)
        c_t, beta_t, G, A, alpha, B, bil_row, jrows, jcols, P, S = self._constraints(t)
        jv = np.empty(self.jv.size)
        self._kernels[5](q, c_t, beta_t, G, A, alpha, B, bil_row, P, np.empty(self.m), jv)
        kind, dofs, arrays3, arrays2 = self.forces
        bpi = 1.0 / k.beta_prime
        ok = self._kernels[7](q, v, qdd, lam, self._M, self._C, A, alpha, B, bil_row, jrows,
                              jcols, P, S, jv, self._bodies, kind, dofs, arrays3, arrays2,
                              self._K, np.zeros(self.n), bpi, k.gamma_prime * bpi, el, lu,
                              piv)
        return work if ok else None

    def _rate_at(self, t: float, q) -> np.ndarray:
        """``∂Φ/∂t`` at ``(t, q)``, evaluated once for an untimed structure (zero)."""
        if self._rate is None or self.structure.timed:
            self._rate = np.asarray(self.structure.rate(t, q), dtype=float)
        return self._rate

    def _terms(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``(c(t), β(t))``, evaluated once for an untimed structure."""
        if t != self._t and (self._t is None or self.structure.timed):
            s = self.structure
            self._c_t = np.asarray(s.offset(t), dtype=float)
            if s.bilinear is not None:
                self._beta_t = np.asarray(s.bilinear.beta(t), dtype=float)
            if self._directions is not None:
                self._directions(t)
            self._t = t
        return self._c_t, self._beta_t

    def residual(self, q, v, qdd, lam, f_int, f_ext, t: float, floor2: float,
                 c_rhs: float, res: np.ndarray, rhs: np.ndarray) -> tuple[float, float, float]:
        """Write ``res = M(q) q̈ + f − f_ext + Φ_qᵀλ (+ C q̇)``, ``rhs = [c_rhs·res; −Φ]``
        and :attr:`phi` ``= Φ(q, t)``; return ``(‖res‖², scale², max|Φ|)`` with
        ``scale² = max(‖M q̈‖², ‖f‖², ‖Φ_qᵀλ‖², floor2)`` (the contract of
        :func:`fem.solvers.fused.residual_and_rhs`).  ``f_int`` holds the element
        groups' forces (:meth:`fem.assembly.system.System.internal_forces` without bodies; with
        bodies the compiled pass adds theirs, in place)."""
        if self._kernels is not None:
            self.mq.fill(0.0)
            return self._kernels[0](q, v, qdd, lam, f_int, f_ext, *self._constraints(t),
                                    self._M, self._C, self.mq, self.jl, self.jv,
                                    float(floor2), float(c_rhs), res, rhs, self.phi)
        c_t = self._terms(t)[0]
        s = self.structure
        Mq = s.mass @ qdd
        JTl = s.jacobian.T @ lam
        np.add(Mq, f_int, out=res)
        res -= f_ext
        res += JTl
        if s.damping is not None:
            res += s.damping @ v
        n = self.n
        np.multiply(res, c_rhs, out=rhs[:n])
        self.phi[:] = s.jacobian @ q + c_t
        np.negative(self.phi, out=rhs[n:])
        scale2 = max(float(Mq @ Mq), float(f_int @ f_int), float(JTl @ JTl), floor2)
        pmax = float(np.abs(self.phi).max()) if self.m else 0.0
        return float(res @ res), scale2, pmax

    def velocity_residual(self, q: np.ndarray, v: np.ndarray, t: float) -> float:
        """``max |Φ_q q̇ + Φ_t|`` (0 without constraints)."""
        if not self.m:
            return 0.0
        if self._kernels is not None:
            if self._rate_terms is not None:     # compiled, as march does
                cdot, bdot = self._rate_terms(t)
                rate = self._kernels[9](q, np.asarray(cdot, dtype=float),
                                        np.asarray(bdot, dtype=float), self._A,
                                        self._alpha, self._bil_row)
            else:
                rate = self._rate_at(t, q)
            return float(self._kernels[1](q, v, rate, *self._constraints(t),
                                          np.empty(self.m), np.empty(self.jv.size)))
        rate = self._rate_at(t, q)
        return float(np.abs(self.structure.jacobian @ v + rate).max())
