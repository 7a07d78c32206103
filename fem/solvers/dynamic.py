"""Generalized-α time integration of index-3 constrained systems.

Chung & Hulbert's generalized-α scheme applied to ``M(q) q̈ + f(q, q̇) + Φ_qᵀλ = f_ext``
through the solver contract (:class:`fem.system.System`: ``inertia_forces`` supply
``M(q) q̈`` plus the quadratic-velocity forces and their tangents, which enter the
iteration matrix as ``M + (γ′/β′) C_v + K_q/β′``; constant mass is the implementation's
fast path),
``Φ(q, t) = 0`` as in Arnold & Brüls (2007), which is also the scheme of Liu et al. 2023
(eqs 39–44).  With the algorithmic acceleration ``a``::

    (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) q̈_{n+1} + α_f q̈_n
    q_{n+1} = q_n + h q̇_n + h² (½ − β) a_n + h² β a_{n+1}
    q̇_{n+1} = q̇_n + h (1 − γ) a_n + h γ a_{n+1}

and ``α_m = (2ρ∞ − 1)/(ρ∞ + 1)``, ``α_f = ρ∞/(ρ∞ + 1)``, ``γ = ½ + α_f − α_m``,
``β = ¼ (γ + ½)²``.  Newton iterates on ``q_{n+1}`` and ``λ_{n+1}`` with
``Δq̇ = γ′ Δq``, ``Δq̈ = β′ Δq`` (``β′ = (1 − α_m)/(h² β (1 − α_f))``, ``γ′ = γ/(h β)``).
The equations of motion are divided by ``β′`` and the multipliers scaled by ``β′`` so the
iteration matrix ``[[M + K_t/β′, Φ_qᵀ], [Φ_q, 0]]`` is well conditioned for any ``h``.
The factorization is kept while Newton contracts fast (modified Newton) and renewed when
the iterations it still needs cost more than a new one, weighed with a cost ratio that is
estimated from operation counts (:mod:`fem.solvers.factor_cost`), never from the clock:
the same inputs give bit-identical results on any machine load.  A step whose Newton fails
is retried in halves.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from time import perf_counter

import numpy as np

from .._threads import blas_single_threaded
from ..errors import ConvergenceError, ModelError, SingularMatrixError
from ..linalg import Factorization
from ..results import Result
from ..validate import coordinates, in_range, positive, solver_options, warn
from .corotation import CoRotation
from .diagnosis import check_finite_start, newton_failure
from .factor_cost import estimate_factor_cost
from .fused import algorithmic_acceleration, apply_correction, predict, residual_and_rhs
from .static import project_positions

__all__ = ["alpha_parameters", "GeneralizedAlpha", "consistent_initial_state", "simulate"]


def alpha_parameters(rho_inf: float) -> dict[str, float]:
    """Generalized-α parameters for spectral radius ``ρ∞ ∈ [0, 1]``."""
    rho_inf = in_range(rho_inf, "spectral radius rho_inf", 0.0, 1.0)
    am = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
    af = rho_inf / (rho_inf + 1.0)
    gamma = 0.5 + af - am
    beta = 0.25 * (gamma + 0.5) ** 2
    return {"alpha_m": am, "alpha_f": af, "gamma": gamma, "beta": beta}


@solver_options
def consistent_initial_state(model, q0=None, v0=None, t0: float = 0.0, info: dict | None = None):
    """Positions, velocities, accelerations and multipliers consistent with the
    constraints at ``t0``: ``Φ = 0``, ``Φ_q q̇ + Φ_t = 0``, and
    ``[[M, Φ_qᵀ], [Φ_q, 0]] [q̈; λ] = [f_ext − f_int; γ]``.

    A given ``q0``/``v0`` that violates the position/velocity constraints is projected
    onto them (least change); the user is told by how much (a :class:`fem.FemWarning`,
    and ``info["initial_position_correction_m"]`` / ``["initial_velocity_correction_mps"]``
    when ``info`` is given).
    """
    asm = model.assemble()
    q = asm.q0.copy() if q0 is None else coordinates(q0, asm.n, "initial positions q0")
    v = np.zeros(asm.n) if v0 is None else coordinates(v0, asm.n, "initial velocities v0")
    check_finite_start(asm, q, t0, "initial state", v)
    info = {} if info is None else info
    if asm.m:
        phi0 = np.abs(asm.phi(q, t0))
        if phi0.max() > 1e-12:
            q_in = q
            q = project_positions(model, q, t0)
            dq = float(np.abs(q - q_in).max())
            info["initial_position_correction_m"] = dq
            if q0 is not None and dq > 1e-10:
                i = int(np.argmax(phi0))
                warn(f"initial positions q0 violate the constraints (max |Φ| = "
                     f"{phi0[i]:.3g} in {asm.labels[i]!r}); projected onto them, moving "
                     f"coordinates by up to {dq:.3g}")
        jv = asm.jacobian_values(q, t0)
        J = asm.jacobian(q, t0)
        r = asm.j_dot(jv, v) + asm.phi_t(q, t0)
        if np.abs(r).max() > 0:
            JJt = (J @ J.T)
            y = Factorization(JJt, "constraint Gram matrix").solve(r)
            dv = J.T @ y
            v = v - dv
            dvm = float(np.abs(dv).max())
            info["initial_velocity_correction_mps"] = dvm
            if v0 is not None and dvm > 1e-10 * max(1.0, float(np.abs(v).max())):
                i = int(np.argmax(np.abs(r)))
                warn(f"initial velocities v0 violate the velocity constraints (max "
                     f"|Φ_q q̇ + Φ_t| = {abs(r[i]):.3g} in {asm.labels[i]!r}); projected "
                     f"onto them, changing velocities by up to {dvm:.3g}")
    f_int = asm.internal_forces(q, v)[0] + asm.damping_force(v)
    # quadratic-velocity forces (zero for constant mass)
    f_int = f_int + asm.inertia_forces(q, v, np.zeros(asm.n))[0]
    rhs = np.concatenate([asm.external_forces(t0, q) - f_int, asm.gamma(q, v, t0)])
    jv = asm.jacobian_values(q, t0)
    S = asm.saddle(1.0, 0.0, *asm.zero_tangent(), jv, 1.0, q=q)
    x = Factorization(S, "initial-acceleration matrix [[M, Φ_qᵀ], [Φ_q, 0]] "
                         "(is every coordinate given mass or constrained?)").solve(rhs)
    return q, v, x[: asm.n], x[asm.n:]


class GeneralizedAlpha:
    """Stepper state and one-step Newton solve (see module docstring).

    Parameters
    ----------
    model : fem.Model
    rho_inf : float
        Spectral radius at infinite frequency (1: no numerical damping).
    tol : float
        Relative dynamics residual ``‖M q̈ + f_int − f_ext + Φ_qᵀλ‖ / scale`` (scale: the
        largest of the force terms' norms).
    constraint_tol : float
        Absolute ``max |Φ|``.
    reuse : bool, "step" or "auto"
        True: keep the factorization across iterations and steps while Newton contracts
        (modified Newton).  "step": renew it at the start of every step, keep it within.
        False: full Newton.  "auto": True when the model has elastic elements, whose
        tangent is costly; purely rigid models converge fastest with full Newton.
    project_velocities : bool
        Shorthand for ``correction="projection"``.
    correction : {"none", "projection", "rigid"}
        Kinematic correction (Liu et al. 2018 §3, ``docs/kinematic_correction.md``).  Index-3
        generalized-α satisfies the position constraints to the Newton tolerance but the
        velocity constraints only to O(h²) (undamped with ``ρ∞ = 1``).
        ``"projection"``: after each step ``q̇`` is replaced by its M-orthogonal projection
        onto ``Φ_q q̇ + Φ_t = 0`` (projected generalized-α).  ``"rigid"``: the paper's
        *transient rigid-body correction* made general — corrections are taken in the
        metric ``W = M + κ K_ref`` (``K_ref`` the elastic tangent in the reference state,
        ``κ`` large), which freezes the deformation and moves the bodies rigidly; applied
        to the positions whenever the constraint residual rises during a Newton iteration,
        and to the velocities after each step.  Counted in ``n_corrections``.
    force_scale : float
        Smallest force scale [N] of the relative residual (default 0: none).  Motions
        that start from rest with zero forces (a smoothly driven hub) otherwise ask for a
        relative residual below the round-off of the stiff elastic forces.
    factor_cost : float, "estimated" or "timed"
        Cost of one factorization in units of one modified-Newton iteration, used to
        decide when a stale factorization is renewed (see :meth:`_renew`).
        ``"estimated"`` (default; also ``None``): estimated once from operation counts of
        the model and its first iteration matrix (:mod:`fem.solvers.factor_cost`), so the
        same inputs give bit-identical results on any machine and under any load.  A
        number fixes the ratio.  ``"timed"``: measured with the clock while running
        (running averages, reported in ``info["factorization_cost_s"]`` and
        ``["iteration_cost_s"]``), for speed studies only: the policy then adapts to the
        machine's load and two runs can differ at the level of the Newton tolerance.
    corotate : bool
        Turn a factorization kept from an earlier step with each flexible body's
        best-fit rigid rotation since then (:mod:`fem.solvers.corotation`): for flexible
        bodies that move far, it keeps a factorization useful for many more steps
        (flagship robot with the 96-element platform: 74 instead of 227 factorizations,
        2.1× faster, measured 2026-11-23).  Off by default.
    predictor : {"linear", "constant"}
        Newton's starting acceleration: extrapolated from the last two steps (default)
        or the last step's.
    """

    KEEP_ACROSS_STEPS = 6.0
    """With ``reuse="step"``, a factorization costing more than this many iterations
    (the cost ratio, see ``factor_cost``) is kept across steps while it contracts, instead
    of renewed each step."""

    @solver_options
    def __init__(self, model, rho_inf: float = 0.8, q0=None, v0=None, t0: float = 0.0,
                 tol: float = 1e-8, constraint_tol: float = 1e-11, max_iter: int = 25,
                 reuse: bool | str = "auto", contraction: float = 0.25,
                 project_velocities: bool = False, perturbed_start: bool = False,
                 correction: str = "none", force_scale: float = 0.0,
                 factor_cost: float | str | None = "estimated", predictor: str = "linear",
                 corotate: bool = False):
        self.model = model
        self.force_scale2 = float(force_scale) ** 2
        self.asm = model.assemble()
        self.p = alpha_parameters(rho_inf)
        self.rho_inf = rho_inf
        self.tol, self.ctol, self.max_iter = tol, constraint_tol, max_iter
        if reuse == "auto":
            reuse = bool(self.asm.has_elastic)
        self.reuse_mode = reuse
        self.reuse, self.contraction = bool(reuse), contraction
        self.correction = "projection" if project_velocities and correction == "none" \
            else correction
        self.project_velocities = self.correction != "none"
        self.n_corrections = 0
        self._metric = None
        self.t = float(t0)
        self.initial_corrections: dict = {}
        self.q, self.v, self.qdd, self.lam = consistent_initial_state(
            model, q0, v0, t0, info=self.initial_corrections)
        self.a = self.qdd.copy()
        self._started = not perturbed_start
        self._lu = None
        self._lu_h = None
        self.n_factorizations = 0
        self.n_roundoff_accepts = 0
        self.n_force_evals = 0
        # with factor_cost="timed" only: measured costs [s] of one factorization (tangent +
        # assembly + LU) and of one iteration without it
        self.cost_factor = 0.0
        self.cost_iteration = 0.0
        self._qdd_prev = None
        self._h_prev = 1.0
        self.predictor = predictor
        self._corot = CoRotation(self.asm) if corotate else None
        self._inertia = None      # tangent of the inertia forces for the next factor
        self._lu_ref = None       # the bodies' positions when the factorization was made
        self._lu_step = -1        # and the step it was made in
        self.n_steps = 0
        self.n_fresh_retries = 0
        self._kept = False
        if factor_cost is None:
            factor_cost = "estimated"
        self._timed = factor_cost == "timed"
        if isinstance(factor_cost, str):
            if factor_cost not in ("estimated", "timed"):
                raise ModelError(f"GeneralizedAlpha: factor_cost must be a number of "
                                 f"iterations, 'estimated' or 'timed'; got {factor_cost!r}")
            self.factor_cost = None     # estimated at the first factorization, or timed
        else:
            self.factor_cost = positive(factor_cost, "GeneralizedAlpha: factor_cost",
                                        "iterations")

    def _factor(self, q, v, lam, t, h, kv, bp):
        asm = self.asm
        hv = asm.hessian_values(lam, q)
        jv = asm.jacobian_values(q, t)
        gp = self.p["gamma"] / (h * self.p["beta"])
        S = asm.saddle(1.0, 1.0 / bp, kv, hv, jv, 1.0, q=q, cC=gp / bp,
                       inertia=self._inertia)
        self._lu = Factorization(S, f"iteration matrix at t = {t:.6g} s", hint=None)
        if self.factor_cost is None and self.reuse and not self._timed:
            # once, from counts of the model and this matrix: no clock (module docstring);
            # full Newton (reuse=False) needs no ratio
            self.factor_cost = estimate_factor_cost(asm, self._lu, np.size(jv))
        self._lu_h = h
        self.n_factorizations += 1
        self._lu_step = self.n_steps
        if self._corot:
            self._lu_ref = self._corot.snapshot(q)

    def _start(self, h: float) -> None:
        """Perturbed starting value of the algorithmic acceleration (Arnold & Brüls 2007):
        ``a₀ = q̈(t₀ + Δα h)`` with ``Δα = α_m − α_f``.  Starting from ``a₀ = q̈₀`` instead
        leaves an O(h) oscillating error in the accelerations and multipliers (actuator
        efforts) that decays only with ρ∞ < 1.  ``q̈(t₀ + Δα h)`` is the consistent
        acceleration at the Taylor-predicted state, accurate to O(h²) for smooth motions —
        but not for stiff structures (plates' thickness modes), whose consistent
        accelerations are not smooth: hence optional (``perturbed_start=True``)."""
        self._started = True
        tau = (self.p["alpha_m"] - self.p["alpha_f"]) * h
        if tau == 0.0:
            return
        q = self.q + tau * self.v + 0.5 * tau * tau * self.qdd
        v = self.v + tau * self.qdd
        _, _, qdd, _ = consistent_initial_state(self.model, q, v, self.t + tau)
        self.a = qdd

    def step(self, h: float) -> dict:
        """Advance by ``h``; returns the step's statistics.  On failure the state is
        unchanged and a :class:`ConvergenceError` is raised."""
        if not h > 0 or not math.isfinite(h):
            raise ModelError(f"GeneralizedAlpha.step: the step h must be a finite number > 0 "
                             f"s; got {h!r}")
        if not self._started:
            self._start(h)
        asm, p = self.asm, self.p
        am, af, gam, beta = p["alpha_m"], p["alpha_f"], p["gamma"], p["beta"]
        bp = (1.0 - am) / (h * h * beta * (1.0 - af))
        gp = gam / (h * beta)
        t1 = self.t + h
        # the Newton start (fem.solvers.fused.predict): with predictor "linear" the
        # acceleration extrapolated from the last two steps (18 % fewer iterations on the
        # flagship circle, none more on the cable benchmark), else the last step's
        linear = self.predictor == "linear" and self._qdd_prev is not None
        q, v, qdd = predict(self.q, self.v, self.qdd, self.a,
                            self._qdd_prev if linear else None,
                            h / self._h_prev if linear else 0.0, h, af, am, gam, beta)
        lam = self.lam.copy()
        if self._lu_h != h or (self.reuse_mode == "step"
                               and self._cost_ratio() < self.KEEP_ACROSS_STEPS):
            # "step": a fresh tangent at the start of every step, kept within the step —
            # best for mechanisms whose large motion rotates the constraint Jacobian
            # (flagship robot: 2.4 instead of 4.1 iterations per step, 25 % less time) —
            # unless a factorization costs more than KEEP_ACROSS_STEPS iterations
            # (hexagon_6: 3–5, hexagon_24: 9–13, hexagon_96: 24–28), where keeping it
            # across steps while it contracts is cheaper, the more so co-rotated
            # (hexagon_96: 74 instead of 227 factorizations, 2.1× faster)
            self._lu = None
        refactor = self._lu is None or not self.reuse
        self._kept = not refactor      # started from a factorization of an earlier step
        err_prev = np.inf
        dq = None             # the last correction (round-off acceptance looks at it)
        rhs = np.empty(asm.n + asm.m)
        hist = []
        f_ext = asm.external_forces(t1, q)
        floor2 = max(float(f_ext @ f_ext), self.force_scale2, 1e-300)
        res = np.empty(asm.n)
        no_damping = np.zeros(0)
        timed = self._timed
        for it in range(self.max_iter + 1):
            if timed:
                t_iter = perf_counter()
            # the tangent only when a factorization will use it: with the first iteration
            # of a step that starts with a fresh factorization (it never converges there),
            # otherwise only once the iteration is known not to have converged (the cable
            # benchmark computed 735 tangents for 256 factorizations before)
            f_int, kv = asm.internal_forces(q, v, tangent=refactor and it == 0)
            self.n_force_evals += 1
            phi, jv = asm.constraint_state(q, t1)
            JTl = asm.reaction(jv, lam, q)
            # M(q) q̈ + quadratic-velocity forces, tangents for the next factorization
            Mq, inertia = asm.inertia_forces(q, v, qdd, tangent=refactor)
            if refactor:
                self._inertia = inertia
            # residual, its scale, max |Φ| and the right-hand side in one compiled pass
            damp = asm.damping_force(v) if asm.has_damping else no_damping
            r2, scale2, pn = residual_and_rhs(Mq, f_int, f_ext, JTl, damp, phi, floor2,
                                              -1.0 / bp, res, rhs)
            scale = math.sqrt(scale2)
            rn = math.sqrt(r2) / scale
            if (self.correction == "rigid" and it >= 1 and pn > self.ctol
                    and pn > hist[-1][1]):
                # the constraint residual rises: move the bodies rigidly (deformation
                # frozen) back onto Φ = 0 and continue from there (Liu et al. 2018 §3.1)
                dq = self.correction_step(q, t1, -phi)
                q += dq
                v += gp * dq
                qdd += bp * dq
                self.n_corrections += 1
                refactor = True
                continue
            hist.append((rn, pn))
            res_abs = rn * scale
            err = max(rn / self.tol, pn / self.ctol)
            if not math.isfinite(err):
                break
            if err <= 1.0:
                break
            if (dq is not None and rn <= 1e-4 and pn <= self.ctol and len(hist) >= 3
                    and rn > 0.5 * hist[-3][0]
                    and np.abs(dq).max() <= 1e-13 * max(np.abs(q).max(), 1e-300)):
                # the force residual stalls at its round-off floor (stiff elements with
                # absolute coordinates: EA·ε_machine) while the corrections are at the
                # round-off level of q: accept, and count it
                self.n_roundoff_accepts += 1
                err = 1.0
                break
            if it == self.max_iter:
                break
            fresh = refactor
            if refactor:
                if timed:
                    t_fac = perf_counter()
                try:
                    if kv is None:
                        kv = asm.internal_forces(q, v, tangent=True)[1]
                    self._factor(q, v, lam, t1, h, kv, bp)
                    if timed:
                        t_iter += self._measured("cost_factor", perf_counter() - t_fac)
                except SingularMatrixError as err:   # a diverging iterate: let the step retry
                    self._lu = None
                    raise ConvergenceError(
                        self._diagnosis(t1, h, [r for r, _ in hist], res, phi, q,
                                        singular=str(err)),
                        where=f"t = {t1:.6g} s", residuals=[r for r, _ in hist]) from None
                refactor = not self.reuse
            elif it > 0 and self._renew(err, err_prev, it):
                refactor = True       # the next iteration renews the tangent
            err_prev = err
            if self._corot and self._lu_step != self.n_steps:
                dx = self._corot.solve(self._lu, rhs, self._lu_ref, q)
            else:
                dx = self._lu.solve(rhs)
            dq = dx[: asm.n]
            apply_correction(q, v, qdd, lam, dx, gp, bp)
            if timed and not fresh:
                self._measured("cost_iteration", perf_counter() - t_iter)
        if not (np.isfinite(err) and err <= 1.0):
            self._lu = None
            raise ConvergenceError(
                self._diagnosis(t1, h, [r for r, _ in hist], res, phi, q,
                                constraints=[c for _, c in hist]),
                where=f"t = {t1:.6g} s", residuals=[r for r, _ in hist])
        self.a = algorithmic_acceleration(self.qdd, qdd, self.a, af, am)
        if self.project_velocities and asm.m:
            v = self._project_velocity(q, v, t1)
        self._qdd_prev, self._h_prev = self.qdd, h
        self.n_steps += 1
        self.q, self.v, self.qdd, self.lam, self.t = q, v, qdd, lam, t1
        vel = asm.j_dot(asm.jacobian_values(q, t1), v) + asm.phi_t(q, t1) if asm.m else [0.0]
        return {"iterations": len(hist) - 1, "residual_dynamics": hist[-1][0],
                "residual_dynamics_N": float(res_abs),
                "residual_constraints": hist[-1][1],
                "residual_velocity": float(np.abs(vel).max()) if len(vel) else 0.0,
                "step_size": h}

    def _measured(self, name: str, seconds: float) -> float:
        """Fold a measured cost into its running estimate; returns ``−seconds``."""
        old = getattr(self, name)
        setattr(self, name, seconds if old == 0.0 else 0.8 * old + 0.2 * seconds)
        return -seconds

    def _cost_ratio(self) -> float:
        """Factorization cost in iterations: given or estimated, else measured (timed
        policy); 0 before it is known (before the first factorization)."""
        if self.factor_cost is not None:
            return self.factor_cost
        if not self._timed:
            return 0.0
        if self.cost_factor == 0.0 or self.cost_iteration == 0.0:
            return 0.0
        return self.cost_factor / self.cost_iteration

    def _renew(self, err: float, err_prev: float, it: int) -> bool:
        """Whether to renew the factorization after a modified-Newton iteration that
        reduced the normalized error (1 = converged) from ``err_prev`` to ``err``.

        The factorization policy, by cost: the iterations still needed at the observed
        rate, ``log(err)/log(err_prev/err)``, are weighed against one factorization (the
        cost ratio, :meth:`_cost_ratio`) plus the one or two iterations a fresh tangent
        needs; a rate worse than 0.7 renews at once.  While the ratio is unknown (timed
        policy, before its first measurements), a rate worse than ``contraction`` or a
        third correction renews.  Small systems
        (factorization about as costly as an iteration) renew after the second stale
        correction, as before; large ones (hexagon_96: factorization ≈ 10 iterations) keep
        a factorization across steps while it contracts.
        """
        rate = err / err_prev
        ratio = self._cost_ratio()
        if ratio == 0.0:      # costs not measured yet
            return rate > self.contraction or it >= 2
        if rate > max(self.contraction, 0.7):
            return True
        needed = np.log(err) / max(-np.log(max(rate, 1e-300)), 1e-12)
        # never let a kept factorization run the step out of iterations
        return needed > ratio + 1.5 or it + needed > 0.6 * self.max_iter

    def _diagnosis(self, t1, h, history, res, phi, q, singular=None, constraints=None):
        extra = ""
        if constraints:
            extra = (" Constraint residuals " + str([f"{c:.1e}" for c in constraints[-5:]])
                     + ".")
        return newton_failure(
            self.asm, solver="generalized-α Newton", where=f"t = {t1:.6g} s (h = {h:.3g} s)",
            history=history, residual=res, phi=phi, q=q, q_start=self.q,
            singular=singular) + extra

    def _metric_matrix(self, q, t):
        """``[[W, Φ_qᵀ], [Φ_q, 0]]`` with the correction metric ``W`` (M, or M + κ K_ref).

        The plain Jacobian on both sides, servo rows included: a correction is a
        projection onto the constraint manifold, not a motion the actuators make."""
        import scipy.sparse as sp

        asm = self.asm
        W = sp.csr_matrix(asm.mass_matrix(q))
        if self.correction == "rigid" and asm.has_elastic:
            if self._metric is None:
                _, kref = asm.internal_forces(asm.q0, tangent=True)
                K = sp.csr_matrix(asm.stiffness(kref))
                kappa = 1e6 * np.abs(W.diagonal()).mean() / max(np.abs(K.diagonal()).mean(),
                                                                1e-300)
                self._metric = W + kappa * K
            W = self._metric
        J = asm.jacobian(q, t)
        return sp.bmat([[W, J.T], [J, None]], format="csc")

    def correction_step(self, q: np.ndarray, t: float, rhs: np.ndarray) -> np.ndarray:
        """The smallest change ``Δq`` in the correction metric (see ``correction``) with
        ``Φ_q Δq = rhs``: with ``rhs = −Φ(q, t)`` one Gauss–Newton step back onto the
        constraints, rigid for ``correction="rigid"``."""
        x = Factorization(self._metric_matrix(q, t), "kinematic correction matrix").solve(
            np.concatenate([np.zeros(self.asm.n), rhs]))
        return x[: self.asm.n]

    def _project_velocity(self, q, v, t):
        asm = self.asm
        return v + self.correction_step(
            q, t, -(asm.j_dot(asm.jacobian_values(q, t), v) + asm.phi_t(q, t)))

    def advance(self, h: float, max_halvings: int = 6) -> dict:
        """Step by ``h``, retrying in halves (recursively) when Newton fails.

        A step that failed from a factorization kept from earlier steps is first retried
        with a fresh one: a kept factorization must never change the time steps (halving
        perturbs index-3 multipliers, hence actuator efforts)."""
        try:
            return self.step(h)
        except ConvergenceError as err:
            failure = err
        if self._kept:
            self.n_fresh_retries += 1
            try:
                return self.step(h)    # the failure dropped the kept factorization
            except ConvergenceError as err:
                failure = err
        if max_halvings == 0:
            raise ConvergenceError(
                f"{failure} Still failing after halving the step {6} times, down to "
                f"{h:.3g} s: the motion is not smooth there (impact, singular pose of a "
                "mechanism, an element turned inside out) or the model is unstable. "
                "Try a smaller dt, more numerical damping (smaller rho_inf), or look at "
                "the state just before this time.", where=failure.where,
                residuals=failure.residuals) from None
        s1 = self.advance(h / 2, max_halvings - 1)
        s2 = self.advance(h / 2, max_halvings - 1)
        return {**s2, "iterations": s1["iterations"] + s2["iterations"],
                "residual_dynamics": max(s1["residual_dynamics"], s2["residual_dynamics"]),
                "residual_dynamics_N": max(s1["residual_dynamics_N"],
                                           s2["residual_dynamics_N"]),
                "residual_constraints": max(s1["residual_constraints"],
                                            s2["residual_constraints"]),
                "step_size": h / 2}

    def stats_now(self) -> dict:
        return {"iterations": 0, "residual_dynamics": 0.0, "residual_dynamics_N": 0.0,
                "residual_constraints": float(np.abs(self.asm.phi(self.q, self.t)).max())
                if self.asm.m else 0.0, "residual_velocity": 0.0, "step_size": 0.0}


@solver_options
@blas_single_threaded
def simulate(model, t_end: float, dt: float, rho_inf: float = 0.8, q0=None, v0=None,
             t0: float = 0.0, tol: float = 1e-8, constraint_tol: float = 1e-11,
             max_iter: int = 25, reuse: bool | str = "auto", project_velocities: bool = False,
             correction: str = "none", record_every: int = 1,
             sensors: dict[str, Callable] | None = None, result: Result | None = None,
             progress: bool = False, on_step: Callable | None = None,
             force_scale: float = 0.0, factor_cost: float | str | None = "estimated",
             predictor: str = "linear", corotate: bool = False) -> Result:
    """Forward dynamics from ``t0`` to ``t_end`` with fixed step ``dt`` (halved locally
    when Newton fails).  Returns a :class:`~fem.results.Result` with the initial state
    and every ``record_every``-th step.

    ``sensors`` maps names to functions ``f(t, q, v, a, lam)`` recorded at each output.
    ``force_scale`` [N]: smallest scale of the relative force residual (for motions that
    start from rest with zero forces; see :class:`GeneralizedAlpha`).  ``factor_cost``:
    the factorization policy's cost ratio in iterations (``"estimated"`` from operation
    counts, the default and reproducible to the last bit; a number; or ``"timed"``, by the
    clock, for speed studies), ``predictor`` Newton's start,
    ``corotate`` the co-rotated reuse of factorizations (see :class:`GeneralizedAlpha`).
    """
    if result is not None and not isinstance(result, Result):
        raise ModelError(f"simulate: result must be a fem.Result (fem.output.stream) or None; "
                         f"got {type(result).__name__}")
    if not t_end > t0:
        raise ModelError(f"simulate: t_end must be later than t0; got t0 = {t0:g} s, "
                         f"t_end = {t_end:g} s")
    span = t_end - t0
    # whole steps of dt, the last one shortened to end exactly at t_end
    n_steps = max(1, int(np.ceil(span / dt - 1e-9)))
    if n_steps > 50_000_000:
        raise ModelError(f"simulate: {n_steps:.3g} steps of {dt:g} s to reach {t_end:g} s; "
                         "choose a larger dt or a shorter span")
    if dt > span:
        warn(f"simulate: dt = {dt:g} s is longer than the span {span:g} s; one step of "
             f"{span:g} s is taken")
    ga = GeneralizedAlpha(model, rho_inf, q0, v0, t0, tol, constraint_tol, max_iter, reuse,
                          project_velocities=project_velocities, correction=correction,
                          force_scale=force_scale, factor_cost=factor_cost,
                          predictor=predictor, corotate=corotate)
    res = result if result is not None else Result(sensors)
    res.info.update({"rho_inf": rho_inf, "dt_s": dt, "solver": "generalized-alpha",
                     **ga.initial_corrections})
    res.expected_records = (len(res) + 1 + n_steps // record_every
                            + (1 if n_steps % record_every else 0))
    res.record(ga.t, ga.q, ga.v, ga.qdd, ga.lam, **ga.stats_now())
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=n_steps, desc=f"{model.name}", unit="step", leave=False,
                   dynamic_ncols=True, disable=None)     # None: not on a pipe or a file
    try:
        for k in range(1, n_steps + 1):
            h = dt
            if k == n_steps:
                h_last = t_end - ga.t
                h = dt if abs(h_last - dt) <= 1e-6 * dt else h_last
            st = ga.advance(h)
            if k % record_every == 0 or k == n_steps:
                res.record(ga.t, ga.q, ga.v, ga.qdd, ga.lam, **st)
            if on_step is not None:
                on_step(ga, st)
            if bar is not None:
                bar.update(1)
    except BaseException:
        # keep what was computed, even on failure; a flush that fails too (the disk is
        # full) must not hide the first error, and the .part file keeps the records
        if res.directory is not None:
            with contextlib.suppress(OSError):
                res.flush()
        raise
    finally:
        if bar is not None:
            bar.close()
    if res.directory is not None:
        res.flush()
    res.info.update({"factorizations": ga.n_factorizations, "correction": ga.correction,
                     "kinematic_corrections": ga.n_corrections,
                     "roundoff_accepts": ga.n_roundoff_accepts,
                     "force_evaluations": ga.n_force_evals,
                     "fresh_retries": ga.n_fresh_retries,
                     "factor_cost_iterations": ga._cost_ratio()})
    if ga._timed:
        res.info.update({"factorization_cost_s": ga.cost_factor,
                         "iteration_cost_s": ga.cost_iteration})
    return res.finish()
