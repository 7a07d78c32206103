"""The compiled kernels of :class:`fem.solvers.constant_iteration.ConstantIteration`: the
residual of a system of declared structure, modified-Newton iterations with a kept
factorization, whole steps and runs of steps of generalized-α, and the iteration matrix
formed and factorized in place (issue 23).

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

from ..core.jit import compiled

__all__ = ["CONVERGED", "ROUNDOFF", "FACTORIZE", "EXHAUSTED", "SINGULAR", "loop_kernels"]


CONVERGED, ROUNDOFF, FACTORIZE, EXHAUSTED, SINGULAR = 0, 1, 2, 3, 4
"""What ends a run of compiled iterations (:meth:`ConstantIteration.iterate`); SINGULAR:
the compiled factorization failed its pivot test (the caller factorizes as FACTORIZE
asks, with the general methods and their diagnosis)."""

# compiled functions the loop calls, globals set by loop_kernels and ConstantIteration
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
def loop_kernels(numba):
    """The compiled Newton loop (:class:`~fem.solvers.constant_iteration.ConstantIteration`):
    ``(residual, velocity_residual, iterate, step, form, state, form_into,
    factor_eliminated, march, bilinear_rate)``; None on the NumPy path."""
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
