"""One compiled pass for the Newton residual of systems with constant structure (issue 23).

Where mass and damping are constant and the constraints linear,
``Φ(q, t) = Φ_q q + c(t)`` (:class:`fem.system.ConstantStructure`: ANCF cables and beams
clamped or coupled, plates on fixed supports), generalized-α's residual

    r = M q̈ + f_int − f_ext + Φ_qᵀλ (+ C q̇),     Φ = Φ_q q + c(t)

and its right-hand side, scale and constraint maximum need nothing but the constant CSR
matrices: here they are formed in one compiled loop per iteration instead of five calls
through the general methods (mass product, constraint state, reaction, damping, fused
residual).  On the 8-element cable the per-iteration Python that decides the run time
against a compiled peer (issue 23) falls by ≈ 10 µs.  The NumPy form below is the
reference; both give the same results to round-off (the order of the sums in the CSR
products).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core.jit import compiled

__all__ = ["ConstantIteration"]


def _csr(A: sp.spmatrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    A = sp.csr_matrix(A)
    A.sum_duplicates()
    return (np.ascontiguousarray(A.data, dtype=float), A.indices.astype(np.int64),
            A.indptr.astype(np.int64))


CONVERGED, ROUNDOFF, FACTORIZE, EXHAUSTED = 0, 1, 2, 3
"""What ends a run of compiled iterations (:meth:`ConstantIteration.iterate`)."""

# compiled functions the loop calls, globals set by _kernels and ConstantIteration
_group_forces = _substitute_dense = _substitute_banded = _apply_correction = None


@compiled
def _kernels(numba):
    global _substitute_dense, _substitute_banded, _apply_correction
    from ..assembly.linalg import substitution_kernels
    from .fused import compiled_forms

    _substitute_dense, _substitute_banded = substitution_kernels()
    _apply_correction = compiled_forms()[1]

    @numba.njit(cache=True)
    def residual(q, v, qdd, lam, f_int, f_ext, c_t, Md, Mi, Mp, Td, Ti, Tp, Jd, Ji, Jp,
                 Cd, Ci, Cp, floor2, c_rhs, res, rhs, phi):   # pragma: no cover - jit
        n = q.size
        damped = Cp.size > 1
        a = b = c = r2 = 0.0
        for i in range(n):
            mq = 0.0
            for k in range(Mp[i], Mp[i + 1]):
                mq += Md[k] * qdd[Mi[k]]
            jl = 0.0
            for k in range(Tp[i], Tp[i + 1]):
                jl += Td[k] * lam[Ti[k]]
            x = mq + f_int[i] - f_ext[i] + jl
            if damped:
                cv = 0.0
                for k in range(Cp[i], Cp[i + 1]):
                    cv += Cd[k] * v[Ci[k]]
                x += cv
            res[i] = x
            rhs[i] = x * c_rhs
            a += mq * mq
            b += f_int[i] * f_int[i]
            c += jl * jl
            r2 += x * x
        pmax = 0.0
        for r in range(c_t.size):
            p = c_t[r]
            for k in range(Jp[r], Jp[r + 1]):
                p += Jd[k] * q[Ji[k]]
            phi[r] = p
            rhs[n + r] = -p
            p = abs(p)
            if p > pmax or p != p:      # a NaN propagates, as with max()
                pmax = p
        return r2, max(a, b, c, floor2), pmax

    @numba.njit(cache=True)
    def velocity_residual(v, rate, Jd, Ji, Jp):   # pragma: no cover - jit
        vmax = 0.0
        for r in range(rate.size):
            s = rate[r]
            for k in range(Jp[r], Jp[r + 1]):
                s += Jd[k] * v[Ji[k]]
            s = abs(s)
            if s > vmax or s != s:
                vmax = s
        return vmax

    @numba.njit(cache=True)
    def iterate(it, refactor, err_prev, nh, q, v, qdd, lam, f_ext, c_t, Md, Mi, Mp, Td, Ti,
                Tp, Jd, Ji, Jp, Cd, Ci, Cp, floor2, c_rhs, gp, bp, tol, ctol, max_iter,
                ratio, contraction, kind, dofs, arrays3, arrays2, K, f_int, lu_kind, lu,
                piv, kl, ku, perm, res, rhs, phi, dx, hist_r, hist_p,
                have_dq):   # pragma: no cover - jit
        """Modified-Newton iterations from iteration ``it`` with a kept factorization,
        until converged (CONVERGED, ROUNDOFF), out of iterations (EXHAUSTED) or a fresh
        factorization is due (FACTORIZE: the residual of iteration ``it`` is in ``rhs``).
        The same decisions as :meth:`GeneralizedAlpha._newton` and
        :meth:`FactorizationPolicy.renew`.  Returns
        ``(status, it, nh, err, err_prev, refactor, scale, evaluations)``."""
        n = q.size
        n_eval = 0
        while True:
            for i in range(n):
                f_int[i] = 0.0
            _group_forces(kind, q, dofs, arrays3, arrays2, f_int, K, False)
            n_eval += 1
            r2, scale2, pn = residual(q, v, qdd, lam, f_int, f_ext, c_t, Md, Mi, Mp, Td,
                                      Ti, Tp, Jd, Ji, Jp, Cd, Ci, Cp, floor2, c_rhs, res,
                                      rhs, phi)
            scale = np.sqrt(scale2)
            rn = np.sqrt(r2) / scale
            hist_r[nh] = rn
            hist_p[nh] = pn
            nh += 1
            err = max(rn / tol, pn / ctol)
            if not np.isfinite(err) or err <= 1.0:
                return CONVERGED, it, nh, err, err_prev, refactor, scale, n_eval
            if have_dq and rn <= 1e-4 and pn <= ctol and nh >= 3 \
                    and rn > 0.5 * hist_r[nh - 3]:
                dmax = 0.0
                qmax = 0.0
                for i in range(n):
                    dmax = max(dmax, abs(dx[i]))
                    qmax = max(qmax, abs(q[i]))
                if dmax <= 1e-13 * max(qmax, 1e-300):
                    return ROUNDOFF, it, nh, err, err_prev, refactor, scale, n_eval
            if it == max_iter:
                return EXHAUSTED, it, nh, err, err_prev, refactor, scale, n_eval
            if refactor:
                return FACTORIZE, it, nh, err, err_prev, refactor, scale, n_eval
            if it > 0:                     # FactorizationPolicy.renew
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
            else:
                _substitute_banded(lu, kl, ku, piv, perm, rhs, dx)
            _apply_correction(q, v, qdd, lam, dx, gp, bp)
            have_dq = True
            it += 1

    return residual, velocity_residual, iterate


class ConstantIteration:
    """The fused residual of a system with constant structure.

    Parameters
    ----------
    structure : fem.system.ConstantStructure
        The system's constant matrices (``System.constant_structure()``).
    """

    def __init__(self, structure):
        self.structure = structure
        self.n = structure.mass.shape[0]
        self.m = structure.jacobian.shape[0]
        self._M = _csr(structure.mass)
        self._J = _csr(structure.jacobian)
        self._T = _csr(structure.jacobian.T)
        self._C = (_csr(structure.damping) if structure.damping is not None
                   else (np.zeros(0), np.zeros(0, np.int64), np.zeros(1, np.int64)))
        self._matrices = (*self._M, *self._T, *self._J, *self._C)
        self.phi = np.empty(self.m)
        self._t = None
        self._c_t = np.zeros(self.m)
        self._rate = None
        self._kernels = _kernels()
        self.forces = structure.forces[1:] if (self._kernels is not None and
                                                structure.forces is not None) else None
        self.compiled = self.forces is not None
        if self.compiled:
            # the element kernels' entry point, a global of the compiled loop (numba
            # takes no functions as arguments without losing its disk cache)
            global _group_forces
            _group_forces = structure.forces[0]
        """Whether :meth:`iterate` can run (a compiled force kernel and numba)."""
        if self.compiled:
            self.f_int = np.empty(self.n)
            self.dx = np.zeros(self.n + self.m)
            self.res = np.empty(self.n)             # work arrays of the Newton loop
            self.rhs = np.empty(self.n + self.m)
            self._no_tangent = np.empty((0, 1, 1))
        self.hist_r = self.hist_p = np.empty(0)
        self._factorization = self._lu = None      # the last factorization's arrays

    def history(self, size: int) -> None:
        """Room for ``size`` entries of the iteration history (:attr:`hist_r`,
        :attr:`hist_p`: relative residual and max |Φ| per evaluation)."""
        if self.hist_r.size < size:
            self.hist_r, self.hist_p = np.empty(size), np.empty(size)

    def iterate(self, it: int, refactor: bool, err_prev: float, nh: int, q, v, qdd, lam,
                f_ext, t: float, floor2: float, k, tol: float, ctol: float, max_iter: int,
                ratio: float, contraction: float, factorization, res, rhs,
                have_dq: bool) -> tuple:
        """Compiled modified-Newton iterations with a kept factorization (see the kernel
        ``iterate``); ``k`` the step's :class:`~fem.solvers.alpha.StepCoefficients`.
        Returns ``(status, it, nh, err, err_prev, refactor, scale, evaluations)``."""
        if factorization is not self._factorization:
            self._factorization = factorization
            self._lu = factorization.substitution_data()
        lu_kind, lu, piv, kl, ku, perm = self._lu
        kind, dofs, arrays3, arrays2 = self.forces
        return self._kernels[2](
            it, refactor, err_prev, nh, q, v, qdd, lam, f_ext, self._offset(t),
            *self._matrices, floor2, k.rhs_scale, k.gamma_prime, k.beta_prime, tol, ctol,
            max_iter, ratio, contraction, kind, dofs, arrays3, arrays2, self._no_tangent,
            self.f_int, lu_kind, lu, piv, kl, ku, perm, res, rhs, self.phi, self.dx,
            self.hist_r, self.hist_p, have_dq)

    def _offset(self, t: float) -> np.ndarray:
        if t != self._t and (self._t is None or self.structure.timed):
            self._c_t = np.asarray(self.structure.offset(t), dtype=float)
            self._t = t
        return self._c_t

    def residual(self, q, v, qdd, lam, f_int, f_ext, t: float, floor2: float,
                 c_rhs: float, res: np.ndarray, rhs: np.ndarray) -> tuple[float, float, float]:
        """Write ``res = M q̈ + f_int − f_ext + Φ_qᵀλ (+ C q̇)``, ``rhs = [c_rhs·res; −Φ]``
        and :attr:`phi` ``= Φ(q, t)``; return ``(‖res‖², scale², max|Φ|)`` with
        ``scale² = max(‖M q̈‖², ‖f_int‖², ‖Φ_qᵀλ‖², floor2)`` (the contract of
        :func:`fem.solvers.fused.residual_and_rhs`)."""
        c_t = self._offset(t)
        if self._kernels is not None:
            return self._kernels[0](q, v, qdd, lam, f_int, f_ext, c_t, *self._M, *self._T,
                                    *self._J, *self._C, float(floor2), float(c_rhs), res,
                                    rhs, self.phi)
        s = self.structure
        Mq = s.mass @ qdd
        JTl = self.structure.jacobian.T @ lam
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

    def velocity_residual(self, v: np.ndarray, t: float) -> float:
        """``max |Φ_q q̇ + Φ_t|`` (0 without constraints)."""
        if not self.m:
            return 0.0
        if self._rate is None or self.structure.timed:
            self._rate = np.asarray(self.structure.rate(t), dtype=float)
        rate = self._rate
        if self._kernels is not None:
            return float(self._kernels[1](v, rate, *self._J))
        return float(np.abs(self.structure.jacobian @ v + rate).max())
