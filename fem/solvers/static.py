"""Static equilibrium: Newton with load stepping and a backtracking line search.

Solves ``f_int(q) − s·f_ext + Φ_qᵀλ = 0``, ``Φ(q, t) = 0`` for load factors ``s`` rising
to 1.  The iteration matrix is the saddle-point matrix
``[[K + Σλᵢ Φᵢ,qq, c Φ_qᵀ], [c Φ_q, 0]]`` with ``c`` a stiffness scale so that both
blocks have similar magnitude.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..assembly.linalg import Factorization
from ..core.errors import ConvergenceError, ModelError, SingularMatrixError
from ..core.threads import blas_single_threaded
from ..core.validate import absolute_tolerance, coordinates, solver_options
from .diagnosis import check_finite_start, newton_failure, singular_structure

__all__ = ["solve_static", "StaticResult", "project_positions"]


@dataclass
class StaticResult:
    """Equilibrium state and how it was reached."""

    q: np.ndarray
    lam: np.ndarray
    converged: bool
    iterations: int
    history: list[dict] = field(default_factory=list)   # per iteration: step, load, norms
    info: dict = field(default_factory=dict)            # increments, increment cuts

    @property
    def residual(self) -> float:
        return self.history[-1]["residual"] if self.history else 0.0

    @property
    def constraint_residual(self) -> float:
        return self.history[-1]["constraint"] if self.history else 0.0

    def _overview(self) -> list[tuple[str, str]]:
        lines = [("status", "converged" if self.converged else "NOT converged"),
                 ("iterations", str(self.iterations)),
                 ("residual", f"{self.residual:.3g} (relative force), constraints "
                              f"{self.constraint_residual:.3g}"),
                 ("coordinates", str(np.size(self.q))),
                 ("multipliers", str(np.size(self.lam)))]
        if self.info:
            lines.append(("info", ", ".join(f"{k} {v}" for k, v in self.info.items()
                                            if isinstance(v, int | float | str))))
        return lines

    def __repr__(self) -> str:
        from ..core.display import text

        return text("fem StaticResult", self._overview())

    def _repr_html_(self) -> str:
        from ..core.display import html

        return html("fem StaticResult", self._overview())


def _stiffness_scale(asm, kvals, hvals) -> float:
    K = asm.stiffness(kvals, hvals)
    d = np.abs(K.diagonal())
    d = d[d > 0]
    return float(np.sqrt(np.mean(d * d))) if d.size else 1.0


class _IncrementFailed(Exception):
    """A load increment's Newton iteration failed; carries the evidence."""

    def __init__(self, evidence: dict):
        super().__init__(evidence.get("singular") or "no convergence")
        self.evidence = evidence


def _newton_increment(asm, q, lam, t, f_ext, tol, constraint_tol, max_iter, line_search,
                      history, step_info, cJ, f_full):
    """Newton iterations for one load level from ``(q, lam)``; returns the converged
    ``(q, lam, iterations, cJ)`` or raises :class:`_IncrementFailed`."""
    q, lam = q.copy(), lam.copy()
    q_start = q.copy()
    res_hist: list[float] = []
    dq_small = False
    R = phi = None
    for it in range(max_iter + 1):
        f_int, kv = asm.internal_forces(q, tangent=True)
        jv = asm.jacobian_values(q, t)
        JTl = asm.reaction(jv, lam, q)
        R = f_int - f_ext + JTl
        phi = asm.phi(q, t)
        # the full load's norm is a floor of the scale: a part increment is solved to the
        # accuracy that matters for the whole load (not below its round-off floor)
        fscale = max(f_full, np.linalg.norm(f_int), np.linalg.norm(JTl), 1e-300)
        rn = float(np.linalg.norm(R) / fscale)
        pn = float(np.abs(phi).max()) if phi.size else 0.0
        history.append({**step_info, "iteration": it, "residual": rn, "constraint": pn})
        res_hist.append(rn)
        evidence = {"history": res_hist, "residual": R, "phi": phi, "q": q,
                    "q_start": q_start}
        if not np.isfinite(rn) or not np.isfinite(pn):
            raise _IncrementFailed(evidence)
        flat = len(res_hist) >= 3 and rn > 0.5 * res_hist[-3]
        stalled = flat and ((dq_small and rn <= 1e-3) or rn <= 1e-9)
        if (rn <= tol or (dq_small and rn <= 1e-6) or stalled) and pn <= constraint_tol:
            # `stalled`: the residual stopped falling at its round-off floor (thin or
            # stiff elements, absolute coordinates, fine meshes): with round-off-sized
            # corrections, or anywhere below 1e-9
            step_info["roundoff"] = rn > tol
            return q, lam, it, cJ
        if (it == max_iter or (it >= 4 and rn > 1e3 * min(res_hist))
                or (it >= 8 and rn > 1e-6 and rn > 0.5 * res_hist[-5])):
            # out of iterations, diverging, or no progress over four iterations
            raise _IncrementFailed(evidence)
        hv = asm.hessian_values(lam, q)
        if cJ is None:
            cJ = _stiffness_scale(asm, kv, hv)
        S = asm.saddle(0.0, 1.0, kv, hv, jv, cJ, q=q)
        try:
            dx = Factorization(S, "static iteration matrix", hint=None).solve(
                -np.concatenate([R, cJ * phi]))
        except SingularMatrixError as err:
            raise _IncrementFailed({**evidence, "singular": str(err), "S": S}) from None
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
    raise AssertionError("unreachable")  # pragma: no cover


def _unloaded(asm, q, t: float) -> bool:
    """Internal forces at ``q`` are round-off of the stiffness scale (bodies carry their
    weight, dead loads and prestress among their forces, so a body can load a model
    without external forces).  Forces under that scale that would still move the model
    (a light load on a body whose reduced basis holds very stiff modes: the scale is
    theirs) count as a load: the displacement they cause in one linear solve must be
    round-off of ``q`` too."""
    f, kv = asm.internal_forces(q, tangent=True)
    fmax = float(np.abs(f).max()) if f.size else 0.0
    if fmax == 0.0:
        return True
    qmax = max(1.0, float(np.abs(q).max()))
    scale = (float(np.abs(kv).max()) if kv is not None and kv.size else 0.0) * qmax
    if fmax > 1e-10 * scale:
        return False
    try:
        S = asm.saddle(0.0, 1.0, kv, asm.hessian_values(np.zeros(asm.m), q),
                       asm.jacobian_values(q, t), 1.0, q=q)
        dx = Factorization(S, hint=None).solve(np.concatenate([-f, np.zeros(asm.m)]))
    except SingularMatrixError:
        return True          # a mechanism: nothing to judge the forces by but their size
    return float(np.abs(dx[:asm.n]).max()) <= 1e-12 * qmax


@solver_options
@blas_single_threaded
def solve_static(model, q0: np.ndarray | None = None, t: float = 0.0, load_steps: int = 1,
                 tol: float = 1e-9, constraint_tol: float = 1e-12, max_iter: int = 30,
                 line_search: bool = True, check_rank: bool = True, adaptive: bool = True,
                 min_increment: float = 1e-4) -> StaticResult:
    """Static equilibrium of a model under its loads at time ``t``.

    The load factor ``s`` rises from 0 to 1 in increments; each increment is solved by
    Newton's method (with a backtracking line search) from the last converged state,
    ``f_int(q) − s f_ext + Φ_qᵀλ = 0``, ``Φ(q, t) = 0``.

    Parameters
    ----------
    q0 : start (reference coordinates by default).
    load_steps : int ≥ 1
        The first increment is ``1/load_steps`` of the load.
    tol : float
        Relative force residual ``‖R‖ / max(‖f_ext‖, ‖f_int‖, ‖Φ_qᵀλ‖)``.  Stiff or thin
        structures have a round-off floor near ``EA·ε_machine/‖f_ext‖``; an iterate whose
        Newton correction is at round-off level (``‖Δq‖ ≤ 1e-13 ‖q‖``) is accepted when its
        residual is below 1e-6 or has stopped falling (and is below 1e-3).
    constraint_tol : float
        Absolute ``max |Φ|``.
    adaptive : bool
        Continuation: an increment whose Newton iteration fails (no convergence in
        ``max_iter``, divergence, or a singular iteration matrix away from the start) is
        retried at a quarter of its size, from the last converged state, down to
        ``min_increment``; after increments that converge in few iterations the size
        doubles again.  So a large load, a soft material or a fine mesh gets an answer
        without the user choosing load steps.  ``result.info`` counts the cuts.

    Raises
    ------
    ConvergenceError
        When an increment of ``min_increment`` (or, without ``adaptive``, any increment)
        fails; the message is a diagnosis (:mod:`fem.solvers.diagnosis`) naming the load
        factor, the residual history, the worst coordinate and constraint.
    ModelError
        For bad arguments, and for a model that is singular at the given state (loose
        parts, free translations, redundant constraints).
    """
    asm = model.assemble()
    q = asm.q0.copy() if q0 is None else coordinates(q0, asm.n, "solve_static: q0")
    check_finite_start(asm, q, t, "static solve")
    if check_rank:
        asm.check_rank(q, t)
    lam = np.zeros(asm.m)
    f_ext_full = asm.external_forces(t, q)
    if q0 is None and not np.any(f_ext_full) and (
            asm.m == 0 or float(np.abs(asm.phi(q, t)).max()) <= constraint_tol) \
            and _unloaded(asm, q, t):
        # no load on the stress-free reference (element families are unstrained there;
        # bodies carry their weight, loads and prestress in their forces, checked): it is
        # the equilibrium; a relative residual has no scale to judge by
        result = StaticResult(q, lam, True, 0, [])
        result.info = {"increments": 0, "increment_cuts": 0, "roundoff_accepts": 0,
                       "no_load": True}
        return result
    history: list[dict] = []
    total = 0
    cJ = None
    s, ds = 0.0, 1.0 / load_steps
    n_inc, cuts, roundoff = 0, 0, 0
    while s < 1.0:
        s_try = 1.0 if s + ds >= 1.0 - 1e-12 else s + ds
        info = {"step": n_inc + 1, "load": s_try}
        try:
            q_new, lam_new, its, cJ = _newton_increment(
                asm, q, lam, t, s_try * f_ext_full, tol, constraint_tol, max_iter,
                line_search, history, info, cJ, float(np.linalg.norm(f_ext_full)))
        except _IncrementFailed as fail:
            ev = fail.evidence
            at_start = (s == 0.0 and len(ev["history"]) == 1 and "singular" in ev)
            if at_start:
                # singular before Newton moved: the model, not the iteration
                notes = singular_structure(asm, ev["S"], q, t)
                raise ModelError(
                    "static solve: the stiffness/constraint matrix is singular at the "
                    "start state" + (": " + "; ".join(notes) if notes else
                                      f" ({ev['singular']})") + ".") from None
            if adaptive and ds > min_increment and np.all(np.isfinite(q)):
                ds = max(ds / 4.0, min_increment)
                cuts += 1
                continue
            where = (f"load increment {n_inc + 1} (load factor {s:.4g} → {s_try:.4g}, "
                     f"increment {s_try - s:.3g})")
            advice = ("The load could not be followed further even with increments of "
                      f"{min_increment:g}: the structure may have reached a limit point "
                      "(buckling, snap-through) or the load exceeds what it carries; check "
                      "supports and load magnitude." if adaptive else
                      "Try adaptive=True or more load_steps, and check supports and the "
                      "load magnitude.")
            raise ConvergenceError(
                newton_failure(asm, solver="static solve", where=where,
                               history=ev["history"], residual=ev["residual"],
                               phi=ev["phi"], q=ev["q"], q_start=ev["q_start"],
                               singular=ev.get("singular"), advice=advice),
                where=where, residuals=ev["history"]) from None
        q, lam, s = q_new, lam_new, s_try
        n_inc += 1
        roundoff += bool(info.get("roundoff"))
        total += its
        if its <= 4 and cuts:
            ds = min(2.0 * ds, 1.0 / load_steps)
    result = StaticResult(q, lam, True, total, history)
    result.info = {"increments": n_inc, "increment_cuts": cuts, "roundoff_accepts": roundoff}
    return result


@solver_options(tol=absolute_tolerance)
def project_positions(model, q: np.ndarray, t: float = 0.0, tol: float = 1e-13,
                      max_iter: int = 30) -> np.ndarray:
    """Closest point (least-squares change) with ``Φ(q, t) = 0`` — Gauss–Newton with
    minimum-norm corrections ``Δq = −Φ_qᵀ (Φ_q Φ_qᵀ)⁻¹ Φ``; ``tol`` is absolute (max |Φ|)."""
    asm = model.assemble()
    q = coordinates(q, asm.n, "project_positions: q")
    if asm.m == 0:
        return q
    for _ in range(max_iter):
        phi = asm.phi(q, t)
        if np.abs(phi).max() <= tol:
            return q
        J = asm.jacobian(q, t)
        y = Factorization(J @ J.T, "constraint Gram matrix Φ_q Φ_qᵀ").solve(phi)
        q -= J.T @ y
    raise ConvergenceError(f"could not satisfy the constraints at t = {t}: max |Φ| = "
                           f"{np.abs(asm.phi(q, t)).max():.2e} after {max_iter} iterations; "
                           "the initial configuration may be far from an assembled one",
                           where="position projection")
