"""Fused vector algebra of one Newton iteration of the time integrators (issue 12).

A modified-Newton iteration on a small model (the 16-element cable: 108 unknowns) does
little arithmetic but many NumPy calls: forming the dynamics residual, its three scale
norms, the constraint maximum, the right-hand side and the four state updates took
≈ 11 µs in a dozen calls, about a fifth of the iteration.  The compiled (numba) loops
here do the same arithmetic in one pass each (≈ 1.5 µs), in the same order of
operations, so the residual and the updates are the same to the last bit; only the
norms' summation order differs (round-off).  Without numba (or with ``FEM_NO_JIT=1``)
the NumPy forms below run instead and give the same results to round-off.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import compiled
from .alpha import AlphaParameters, StepCoefficients

__all__ = ["residual_and_rhs", "apply_correction", "predict", "algorithmic_acceleration",
           "compiled_forms"]


def _residual_numpy(Mq, f_int, f_ext, JTl, extra, phi, floor2, c_rhs, res, rhs):
    np.add(Mq, f_int, out=res)
    res -= f_ext
    res += JTl
    if extra.size:
        res += extra
    n = res.size
    np.multiply(res, c_rhs, out=rhs[:n])
    np.negative(phi, out=rhs[n:])
    scale2 = max(float(Mq @ Mq), float(f_int @ f_int), float(JTl @ JTl), floor2)
    pmax = float(np.abs(phi).max()) if phi.size else 0.0
    return float(res @ res), scale2, pmax


def _update_numpy(q, v, qdd, lam, dx, gp, bp):
    n = q.size
    dq = dx[:n]
    q += dq
    v += gp * dq
    qdd += bp * dq
    lam += bp * dx[n:]


def _predict_numpy(q0, v0, qdd0, a0, prev, c, h, af, am, gam, beta):
    qdd = qdd0.copy()
    if c != 0.0:
        qdd += c * (qdd0 - prev)
    a1 = (af * qdd0 + (1.0 - af) * qdd - am * a0) / (1.0 - am)
    v = v0 + h * ((1.0 - gam) * a0 + gam * a1)
    q = q0 + h * v0 + h * h * ((0.5 - beta) * a0 + beta * a1)
    return q, v, qdd


def _acceleration_numpy(qdd0, qdd, a0, af, am):
    return (af * qdd0 + (1.0 - af) * qdd - am * a0) / (1.0 - am)


@compiled
def _compiled_kernels(numba):
    """The compiled forms (numba), built on first use."""
    @numba.njit(cache=True)
    def residual(Mq, f_int, f_ext, JTl, extra, phi, floor2, c_rhs, res,
                 rhs):   # pragma: no cover - jit
        n = Mq.size
        a = b = c = r2 = 0.0
        damped = extra.size > 0
        for i in range(n):
            x = Mq[i] + f_int[i] - f_ext[i] + JTl[i]
            if damped:
                x += extra[i]
            res[i] = x
            rhs[i] = x * c_rhs
            a += Mq[i] * Mq[i]
            b += f_int[i] * f_int[i]
            c += JTl[i] * JTl[i]
            r2 += x * x
        pmax = 0.0
        for k in range(phi.size):
            rhs[n + k] = -phi[k]
            p = abs(phi[k])
            if p > pmax or p != p:      # a NaN propagates, as with max()
                pmax = p
        return r2, max(a, b, c, floor2), pmax

    @numba.njit(cache=True)
    def update(q, v, qdd, lam, dx, gp, bp):   # pragma: no cover - jit
        n = q.size
        for i in range(n):
            d = dx[i]
            q[i] += d
            v[i] += gp * d
            qdd[i] += bp * d
        for k in range(lam.size):
            lam[k] += bp * dx[n + k]

    @numba.njit(cache=True)
    def predict(q0, v0, qdd0, a0, prev, c, h, af, am, gam, beta):  # pragma: no cover
        n = q0.size
        q = np.empty(n)
        v = np.empty(n)
        qdd = np.empty(n)
        b_af, b_gam, b_beta, hh = 1.0 - af, 1.0 - gam, 0.5 - beta, h * h
        d_am = 1.0 - am
        for i in range(n):
            x = qdd0[i]
            if c != 0.0:
                x = x + c * (qdd0[i] - prev[i])
            qdd[i] = x
            a1 = (af * qdd0[i] + b_af * x - am * a0[i]) / d_am
            v[i] = v0[i] + h * (b_gam * a0[i] + gam * a1)
            q[i] = (q0[i] + h * v0[i]) + hh * (b_beta * a0[i] + beta * a1)
        return q, v, qdd

    @numba.njit(cache=True)
    def acceleration(qdd0, qdd, a0, af, am):   # pragma: no cover - jit
        n = qdd0.size
        out = np.empty(n)
        b_af, d_am = 1.0 - af, 1.0 - am
        for i in range(n):
            out[i] = (af * qdd0[i] + b_af * qdd[i] - am * a0[i]) / d_am
        return out

    return (residual, update, predict, acceleration)


def compiled_forms() -> tuple | None:
    """The compiled ``(residual, update, predict, acceleration)`` for other compiled
    loops to call (:mod:`fem.solvers.constant_iteration`), or None without numba."""
    return _compiled_kernels()


def _kernels():
    """The compiled pair, or the NumPy pair without numba."""
    return _compiled_kernels() or (_residual_numpy, _update_numpy, _predict_numpy,
                                   _acceleration_numpy)


def residual_and_rhs(Mq: np.ndarray, f_int: np.ndarray, f_ext: np.ndarray,
                     JTl: np.ndarray, extra: np.ndarray, phi: np.ndarray,
                     floor2: float, c_rhs: float, res: np.ndarray,
                     rhs: np.ndarray) -> tuple[float, float, float]:
    """Write the dynamics residual ``res = M q̈ + f_int − f_ext + Φ_qᵀλ (+ extra)`` and the
    Newton right-hand side ``rhs = [c_rhs·res; −Φ]``; return ``(‖res‖², scale², max|Φ|)``
    with ``scale² = max(‖M q̈‖², ‖f_int‖², ‖Φ_qᵀλ‖², floor2)`` (``floor2``: the
    squared external force and any user floor) (``extra``: damping
    forces, part of the residual but not of the scale; empty for none)."""
    return _kernels()[0](Mq, f_int, f_ext, JTl, extra, phi, float(floor2),
                         float(c_rhs), res, rhs)


def apply_correction(q: np.ndarray, v: np.ndarray, qdd: np.ndarray, lam: np.ndarray,
                     dx: np.ndarray, k: StepCoefficients) -> None:
    """In place: ``q += Δq``, ``q̇ += γ′Δq``, ``q̈ += β′Δq``, ``λ += β′Δμ`` with
    ``dx = [Δq; Δμ]`` (generalized-α's Newton update with the step's coefficients)."""
    _kernels()[1](q, v, qdd, lam, dx, float(k.gamma_prime), float(k.beta_prime))


def predict(q0: np.ndarray, v0: np.ndarray, qdd0: np.ndarray, a0: np.ndarray,
            prev: np.ndarray | None, c: float, par: AlphaParameters,
            h: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Generalized-α's Newton start for a step ``h`` (new arrays ``q, q̇, q̈``)::

        q̈ = q̈₀ + c (q̈₀ − q̈_prev)          (c = 0: q̈ = q̈₀)
        a₁ = (α_f q̈₀ + (1 − α_f) q̈ − α_m a₀) / (1 − α_m)
        q̇ = q̇₀ + h ((1 − γ) a₀ + γ a₁)
        q = q₀ + h q̇₀ + h² ((½ − β) a₀ + β a₁)
    """
    if prev is None:
        prev, c = qdd0, 0.0
    return _kernels()[2](q0, v0, qdd0, a0, prev, float(c), float(h), float(par.alpha_f),
                         float(par.alpha_m), float(par.gamma), float(par.beta))


def algorithmic_acceleration(qdd0: np.ndarray, qdd: np.ndarray, a0: np.ndarray,
                             par: AlphaParameters) -> np.ndarray:
    """``a₁ = (α_f q̈₀ + (1 − α_f) q̈₁ − α_m a₀) / (1 − α_m)`` (a new array)."""
    return _kernels()[3](qdd0, qdd, a0, float(par.alpha_f), float(par.alpha_m))
