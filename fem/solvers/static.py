"""Static equilibrium: Newton with load stepping and a backtracking line search.

Solves ``f_int(q) − s·f_ext + Φ_qᵀλ = 0``, ``Φ(q, t) = 0`` for load factors ``s`` rising
to 1.  The iteration matrix is the saddle-point matrix
``[[K + Σλᵢ Φᵢ,qq, c Φ_qᵀ], [c Φ_q, 0]]`` with ``c`` a stiffness scale so that both
blocks have similar magnitude.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._threads import blas_single_threaded
from ..assembly import Factorization
from ..errors import ConvergenceError, ModelError

__all__ = ["solve_static", "StaticResult", "project_positions"]


@dataclass
class StaticResult:
    """Equilibrium state and how it was reached."""

    q: np.ndarray
    lam: np.ndarray
    converged: bool
    iterations: int
    history: list[dict] = field(default_factory=list)   # per iteration: step, load, norms

    @property
    def residual(self) -> float:
        return self.history[-1]["residual"] if self.history else 0.0

    @property
    def constraint_residual(self) -> float:
        return self.history[-1]["constraint"] if self.history else 0.0


def _stiffness_scale(asm, kvals, hvals) -> float:
    K = asm.stiffness(kvals, hvals)
    d = np.abs(K.diagonal())
    d = d[d > 0]
    return float(np.sqrt(np.mean(d * d))) if d.size else 1.0


@blas_single_threaded
def solve_static(model, q0: np.ndarray | None = None, t: float = 0.0, load_steps: int = 1,
                 tol: float = 1e-9, constraint_tol: float = 1e-12, max_iter: int = 30,
                 line_search: bool = True, check_rank: bool = True) -> StaticResult:
    """Static equilibrium of a model under its loads at time ``t``.

    Parameters
    ----------
    q0 : start (reference coordinates by default).
    load_steps : int
        Loads are applied in this many equal increments.
    tol : float
        Relative force residual ``‖R‖ / max(‖f_ext‖, ‖f_int‖, ‖Φ_qᵀλ‖)``.  Stiff or thin
        structures have a round-off floor near ``EA·ε_machine/‖f_ext‖``; an iterate whose
        Newton correction is at round-off level (``‖Δq‖ ≤ 1e-13 ‖q‖``) is accepted when its
        residual is below 1e-6 or has stopped falling (and is below 1e-3).
    constraint_tol : float
        Absolute ``max |Φ|``.

    Raises
    ------
    ConvergenceError
        When Newton does not converge in ``max_iter`` iterations of a load step; the
        message names the step, the load factor and the residual history.
    """
    asm = model.assemble()
    q = (asm.q0 if q0 is None else np.asarray(q0, float)).copy()
    if check_rank:
        asm.check_rank(q, t)
    lam = np.zeros(asm.m)
    f_ext_full = asm.external_forces(t, q)
    history: list[dict] = []
    total = 0
    cJ = None
    for step in range(1, load_steps + 1):
        s = step / load_steps
        f_ext = s * f_ext_full
        res_hist = []
        dq_small = False
        for it in range(max_iter + 1):
            f_int, kv = asm.internal_forces(q, tangent=True)
            jv = asm.jacobian_values(q, t)
            JTl = asm.reaction(jv, lam, q)
            R = f_int - f_ext + JTl
            phi = asm.phi(q, t)
            fscale = max(np.linalg.norm(f_ext), np.linalg.norm(f_int), np.linalg.norm(JTl),
                         1e-300)
            rn = float(np.linalg.norm(R) / fscale)
            pn = float(np.abs(phi).max()) if phi.size else 0.0
            history.append({"step": step, "load": s, "iteration": it, "residual": rn,
                            "constraint": pn})
            res_hist.append(rn)
            if not np.isfinite(rn) or not np.isfinite(pn):
                raise ConvergenceError(
                    f"static solve: non-finite residual in load step {step}/{load_steps} "
                    f"(load factor {s:g}), iteration {it}; try more load_steps",
                    where=f"load step {step}", residuals=res_hist)
            stalled = (dq_small and len(res_hist) >= 3 and rn > 0.5 * res_hist[-3]
                       and rn <= 1e-3)
            if (rn <= tol or (dq_small and rn <= 1e-6) or stalled) and pn <= constraint_tol:
                # `stalled`: the residual stopped falling at its round-off floor (thin or
                # stiff elements, absolute coordinates) with round-off-sized corrections
                break
            if it == max_iter:
                raise ConvergenceError(
                    f"static solve did not converge in load step {step}/{load_steps} "
                    f"(load factor {s:g}) after {max_iter} iterations: relative force "
                    f"residuals {[f'{r:.2e}' for r in res_hist[-6:]]}, constraint residual "
                    f"{pn:.2e}. Try more load_steps, check supports (rigid-body motion) and "
                    "the load magnitude.", where=f"load step {step}", residuals=res_hist)
            hv = asm.hessian_values(lam, q)
            if cJ is None:
                cJ = _stiffness_scale(asm, kv, hv)
            S = asm.saddle(0.0, 1.0, kv, hv, jv, cJ, q=q)
            try:
                dx = Factorization(S, "static iteration matrix").solve(
                    -np.concatenate([R, cJ * phi]))
            except ModelError as err:
                raise ModelError(f"static solve, load step {step}, iteration {it}: {err}") \
                    from None
            dq, dlam = dx[: asm.n], cJ * dx[asm.n:]
            alpha = 1.0
            if line_search and it > 0:
                merit0 = rn**2 + float(phi @ phi)
                for _ in range(8):
                    qt, lt = q + alpha * dq, lam + alpha * dlam
                    ft, _ = asm.internal_forces(qt)
                    Rt = ft - f_ext + asm.reaction(asm.jacobian_values(qt, t), lt, qt)
                    pt = asm.phi(qt, t)
                    mt = (np.linalg.norm(Rt) / fscale) ** 2 + (pt @ pt if asm.m else 0.0)
                    if mt < merit0:
                        break
                    alpha *= 0.5
            dq_small = bool(np.abs(alpha * dq).max() <= 1e-13 * max(np.abs(q).max(), 1e-300))
            q += alpha * dq
            lam += alpha * dlam
            total += 1
    return StaticResult(q, lam, True, total, history)


def project_positions(model, q: np.ndarray, t: float = 0.0, tol: float = 1e-13,
                      max_iter: int = 30) -> np.ndarray:
    """Closest point (least-squares change) with ``Φ(q, t) = 0`` — Gauss–Newton with
    minimum-norm corrections ``Δq = −Φ_qᵀ (Φ_q Φ_qᵀ)⁻¹ Φ``."""
    asm = model.assemble()
    q = np.asarray(q, float).copy()
    if asm.m == 0:
        return q
    for _ in range(max_iter):
        phi = asm.phi(q, t)
        if np.abs(phi).max() <= tol:
            return q
        J = asm.jacobian(q, t)
        JJt = (J @ J.T).tocsc()
        y = Factorization(JJt.toarray() if asm.dense else JJt,
                          "constraint Gram matrix Φ_q Φ_qᵀ").solve(phi)
        q -= J.T @ y
    raise ConvergenceError(f"could not satisfy the constraints at t = {t}: max |Φ| = "
                           f"{np.abs(asm.phi(q, t)).max():.2e} after {max_iter} iterations; "
                           "the initial configuration may be far from an assembled one",
                           where="position projection")
