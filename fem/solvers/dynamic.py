"""Generalized-α time integration of index-3 constrained systems.

Chung & Hulbert's generalized-α scheme applied to ``M(q) q̈ + f(q, q̇) + Φ_qᵀλ = f_ext``
through the solver contract (:class:`fem.assembly.system.System`: ``inertia_forces`` supply
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
import dataclasses
import math
from collections.abc import Callable
from time import perf_counter
from typing import NamedTuple

import numpy as np

from ..assembly.linalg import Factorization
from ..core.errors import ConvergenceError, ModelError, SingularMatrixError
from ..core.jit import bar_while_compiling
from ..core.threads import blas_single_threaded
from ..core.validate import affordable, coordinates, solver_options, warn
from .alpha import AlphaOptions, AlphaParameters, StepCoefficients, alpha_parameters
from .constant_iteration import ConstantIteration
from .constant_kernels import CONVERGED, EXHAUSTED, FACTORIZE, ROUNDOFF, SINGULAR
from .corotation import CoRotation
from .correction import KinematicCorrection
from .diagnosis import check_finite_start, newton_failure
from .factor_policy import FactorizationPolicy
from .fused import algorithmic_acceleration, apply_correction, predict, residual_and_rhs
from .results import Result
from .static import project_positions

__all__ = ["alpha_parameters", "AlphaOptions", "GeneralizedAlpha", "consistent_initial_state",
           "simulate"]

_NO_DAMPING = np.zeros(0)


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
        if v0 is None and asm.has_elastic and np.abs(r).max() > 1e-12:
            i = int(np.argmax(np.abs(r)))
            warn(f"drives move at t = {t0:g} s ({asm.labels[i]!r} at rate {-r[i]:.3g}) but "
                 f"no initial velocity v0 was given: the start projects one onto the "
                 f"constraints, which moves only the coordinates the drives touch (a "
                 f"flexible link's root, not the rest of it) and sets the links ringing. "
                 f"Give v0 with every link on its rigid velocity field "
                 f"(fem.Robot.start_velocity, or Robot.simulate(start='motion'))")
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
    f_ext = asm.external_forces(t0, q)
    if asm.has_feedback:            # the controllers' efforts at the start
        asm.start_feedback(t0, q, v)
        f_ext = f_ext + asm.feedback_forces(t0, q, v)[0]
    rhs = np.concatenate([f_ext - f_int, asm.gamma(q, v, t0)])
    jv = asm.jacobian_values(q, t0)
    S = asm.saddle(1.0, 0.0, *asm.zero_tangent(), jv, 1.0, q=q)
    x = Factorization(S, "initial-acceleration matrix [[M, Φ_qᵀ], [Φ_q, 0]] "
                         "(is every coordinate given mass or constrained?)").solve(rhs)
    return q, v, x[: asm.n], x[asm.n:]


MAX_HALVINGS = 6
"""Times a failing step of :meth:`GeneralizedAlpha.advance` is halved at most."""


class StepBlock(NamedTuple):
    """Steps taken in one call (:meth:`GeneralizedAlpha.advance_steps`): one row per
    step of the times [s], coordinates, velocities, accelerations and multipliers, and
    each step's statistics (lists, as :meth:`GeneralizedAlpha.advance` gives them)."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    qdd: np.ndarray
    lam: np.ndarray
    stats: dict


class GeneralizedAlpha:
    """Stepper state and one-step Newton solve (see module docstring).

    Parameters
    ----------
    model : fem.Model
        What is integrated (anything whose ``assemble()`` gives a
        :class:`fem.assembly.system.System`).
    rho_inf : float, optional
        Spectral radius at infinite frequency (also an option, see below).
    q0, v0 : array, optional
        Initial positions and velocities (projected onto the constraints if they violate
        them); default the model's reference state at rest.
    t0 : float
        Initial time [s].
    options : AlphaOptions, optional
        How to integrate (:class:`fem.solvers.alpha.AlphaOptions`: tolerances, the
        factorization policy, the kinematic correction, the predictor …).
    **settings
        Any field of :class:`~fem.solvers.alpha.AlphaOptions` by name (``tol=1e-6``,
        ``correction="rigid"``, …), over ``options``; ``project_velocities=True`` is
        shorthand for ``correction="projection"``.

    The step is a short sequence of units: the predictor
    (:func:`fem.solvers.fused.predict`), Newton's iterations (:meth:`_newton`) with the
    residual (:meth:`_residual`), the factorization policy
    (:class:`fem.solvers.factor_policy.FactorizationPolicy`) and the kinematic
    correction (:class:`fem.solvers.correction.KinematicCorrection`), and the update of
    the state (:meth:`_accept`).
    """

    @solver_options
    def __init__(self, model, rho_inf: float | None = None, q0=None, v0=None,
                 t0: float = 0.0, *, options: AlphaOptions | None = None,
                 project_velocities: bool = False, **settings):
        if options is not None and not isinstance(options, AlphaOptions):
            raise ModelError(f"GeneralizedAlpha: options must be a "
                             f"fem.solvers.AlphaOptions or None; got "
                             f"{type(options).__name__}")
        opts = options if options is not None else AlphaOptions()
        if rho_inf is not None:
            settings["rho_inf"] = rho_inf
        if settings or project_velocities:
            opts = AlphaOptions.checked("GeneralizedAlpha", project_velocities,
                                        **{**dataclasses.asdict(opts), **settings})
        self.model = model
        self.options = opts
        self.asm = model.assemble()
        self.alpha = AlphaParameters.from_rho(opts.rho_inf)
        self._coefficients = self.alpha.at(1.0)      # the last step's, kept while h is
        self.force_scale2 = float(opts.force_scale) ** 2
        self.corrector = KinematicCorrection(self.asm, opts.correction)
        # constant mass and linear constraints: the residual in one compiled pass
        structure = self.asm.constant_structure()
        # (a model above DENSE_LIMIT only by its constant linear rows may have them
        # eliminated, options.eliminate_beyond_dense: opt-in while the other models in
        # that window — the flagship's hexagon_24 robot of bars, the links robot with 4
        # elements per link — keep their sparse, co-rotated path)
        self._constant = None if structure is None else ConstantIteration(
            structure, getattr(self.asm, "storage", None), opts.eliminate_beyond_dense)
        # whole iterations compiled: a compiled force kernel, a dense or banded
        # factorization (known after the first one), no clock, no rotations
        # co-rotation turns kept factorizations of elastic groups (none: nothing to turn);
        # where the compiled loop forms and factorizes the (small, dense) iteration matrix
        # itself a fresh factorization costs less than the Python round trips co-rotation
        # needs (flagship, hexagon_6: 0.33 against 0.44 s over the circle)
        fusible = (self._constant is not None and not self.corrector.on_positions
                   and opts.factor_cost != "timed")
        # (decided from the structure alone, so the NumPy forms decide the same)
        corotate = (opts.corotate and bool(CoRotation(self.asm))
                    and not (fusible and self._constant.dense))
        fused = fusible and not corotate
        # the compiled loop where it pays (ConstantIteration.loops, from the structure)
        self._compiled_newton = fused and self._constant.loops
        # the policy's cost estimate depends on the structure, not on whether numba is
        # there: the same decisions with the compiled kernels and their NumPy forms
        self.policy = FactorizationPolicy(
            self.asm, bool(self.asm.has_elastic) if opts.reuse == "auto" else opts.reuse,
            opts.contraction, opts.factor_cost, opts.max_iter, corotate,
            # iterations cost what the compiled loop's cost only where it may run them
            # (ConstantIteration.loop_size, the same on both kernel paths): a system
            # declared without every compiled part, or above LOOP_LIMIT, iterates
            # through Python (the vehicle manipulator's reduced arm: estimated 19
            # iterations a factorization with the loop's costs against 5.9 by the clock,
            # it kept its factorizations over a hundred steps and took 4.6 iterations a
            # step instead of 4.2, 3.5 instead of 2.7 CPU s over its swing)
            compiled_iterations=fused and self._constant.loop_size)
        if fused and self._constant.eliminable is not None:
            # its factorizations with the linear rows eliminated (fem.solvers.elimination;
            # from the structure alone: the same estimate without numba)
            self.policy.operations = self._constant.eliminable.operations()
            if self._constant.eliminated_beyond_dense:
                # (sparse with them: the factorizations made here eliminate them too)
                self.policy.elimination = self._constant.eliminable
        self._substitution = False
        # the compiled loop renews dense and banded factorizations itself (set at the
        # first one)
        self._factor_inside = False
        self._floor: tuple = (None, 0.0)
        self._tolerances = (float(opts.tol), float(opts.constraint_tol), int(opts.max_iter))
        if self._compiled_newton:
            self._constant.history(opts.max_iter + 2)
        self.t = float(t0)
        self.initial_corrections: dict = {}
        self.q, self.v, self.qdd, self.lam = consistent_initial_state(
            model, q0, v0, t0, info=self.initial_corrections)
        self.a = self.qdd.copy()
        self._started = not opts.perturbed_start
        self._qdd_prev = None
        self._h_prev = 1.0
        self._kept = False        # the last step started from an earlier factorization
        self.n_steps = 0
        self.n_roundoff_accepts = 0
        self.n_force_evals = 0
        self.n_fresh_retries = 0

    # counters and settings read by reports --------------------------------------------
    @property
    def correction(self) -> str:
        """The kinematic correction (``options.correction``)."""
        return self.corrector.mode

    @property
    def n_corrections(self) -> int:
        """Rigid position corrections made so far."""
        return self.corrector.n_corrections

    @property
    def n_factorizations(self) -> int:
        """Factorizations of the iteration matrix made so far."""
        return self.policy.n_factorizations

    # the step ------------------------------------------------------------------------
    def _start(self, h: float) -> None:
        """Perturbed starting value of the algorithmic acceleration (Arnold & Brüls 2007):
        ``a₀ = q̈(t₀ + Δα h)`` with ``Δα = α_m − α_f``.  Starting from ``a₀ = q̈₀`` instead
        leaves an O(h) oscillating error in the accelerations and multipliers (actuator
        efforts) that decays only with ρ∞ < 1.  ``q̈(t₀ + Δα h)`` is the consistent
        acceleration at the Taylor-predicted state, accurate to O(h²) for smooth motions —
        but not for stiff structures (plates' thickness modes), whose consistent
        accelerations are not smooth: hence optional (``perturbed_start=True``)."""
        self._started = True
        tau = (self.alpha.alpha_m - self.alpha.alpha_f) * h
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
        k = self._coefficients if self._coefficients.h == h else self.alpha.at(h)
        self._coefficients = k
        t1 = self.t + h
        # the Newton start: with predictor "linear" the acceleration extrapolated from
        # the last two steps (18 % fewer iterations on the flagship circle, none more on
        # the cable benchmark), else the last step's
        linear = self.options.predictor == "linear" and self._qdd_prev is not None
        refactor = self.policy.begin_step(h)
        self._kept = not refactor
        if (self._compiled_newton and self._substitution
                and (not refactor or self._factor_inside)
                and not self.corrector.on_velocities):
            return self._step_compiled(h, k, t1, linear, refactor)
        q, v, qdd = predict(self.q, self.v, self.qdd, self.a,
                            self._qdd_prev if linear else None,
                            h / self._h_prev if linear else 0.0, self.alpha, h)
        lam = self.lam.copy()
        hist, res_abs = self._newton(q, v, qdd, lam, t1, k, refactor)
        return self._accepted(q, v, qdd, lam, t1, h, hist, res_abs)

    def _accepted(self, q, v, qdd, lam, t1: float, h: float, hist: list,
                  res_abs: float) -> dict:
        """Accept the converged iterate of a step; its statistics."""
        self._accept(q, v, qdd, lam, t1, h)
        return {"iterations": len(hist) - 1, "residual_dynamics": hist[-1][0],
                "residual_dynamics_N": float(res_abs),
                "residual_constraints": hist[-1][1],
                "residual_velocity": self._velocity_residual(q, self.v, t1),
                "step_size": h}

    def _step_compiled(self, h: float, k: StepCoefficients, t1: float, linear: bool,
                       refactor: bool = False) -> dict:
        """:meth:`step` predictor to acceptance in one compiled call
        (:meth:`ConstantIteration.step`), from a kept factorization or, where the loop
        renews factorizations itself (``_factor_inside``), from one it makes; a fresh
        factorization it cannot make continues in :meth:`_newton_compiled`.  The same
        decisions as the general step, the same values to round-off."""
        fast, pol = self._constant, self.policy
        f_ext, floor2 = self._loads(t1, self.q)
        tol, ctol, max_iter = self._tolerances
        target = pol.lu if pol.lu is not None else fast.workspace()
        out, q, v, qdd, lam, a1, vres = fast.step(
            self.q, self.v, self.qdd, self.a, self._qdd_prev if linear else self.qdd,
            h / self._h_prev if linear else 0.0, h, self.alpha, self.lam, f_ext, t1,
            floor2, k, tol, ctol, max_iter, pol.cost_ratio(), pol.contraction, target,
            refactor, self._factor_inside)
        return self._finish_compiled(out, q, v, qdd, lam, a1, vres, t1, h, k, target)

    def _finish_compiled(self, out: tuple, q, v, qdd, lam, a1, vres: float, t1: float,
                         h: float, k: StepCoefficients, target) -> dict:
        """Accept a compiled step's converged iterate, or continue its iterations where
        the compiled loop stopped (:meth:`_newton_compiled`); its statistics."""
        fast, pol = self._constant, self.policy
        if out[8]:                        # factorizations the compiled loop made
            pol.made(target, k.h, self.n_steps, out[8])
        if out[0] in (CONVERGED, ROUNDOFF):
            status, _it, nh, _err, _ep, _rf, scale, evals, _nf = out
            self.n_force_evals += evals
            if status == ROUNDOFF:
                self.n_roundoff_accepts += 1
            self._accept(q, v, qdd, lam, t1, h, a=a1)
            rn = float(fast.hist_r[nh - 1])
            return {"iterations": nh - 1, "residual_dynamics": rn,
                    "residual_dynamics_N": rn * scale,
                    "residual_constraints": float(fast.hist_p[nh - 1]),
                    "residual_velocity": (vres if vres >= 0.0 else
                                          self._velocity_residual(q, v, t1)),
                    "step_size": h}
        hist, res_abs = self._newton_compiled(q, v, qdd, lam, t1, k, False, start=out)
        return self._accepted(q, v, qdd, lam, t1, h, hist, res_abs)

    def _loads(self, t1: float, q) -> tuple[np.ndarray, float]:
        """``(f_ext, floor²)`` at ``t1``: the squared force floor of the residual's scale,
        kept while the loads are the same array (constant loads)."""
        f_ext = self.asm.external_forces(t1, q)
        if f_ext is not self._floor[0]:
            self._floor = (f_ext, max(float(f_ext @ f_ext), self.force_scale2, 1e-300))
        return f_ext, self._floor[1]

    def _velocity_residual(self, q, v, t: float) -> float:
        """``max |Φ_q q̇ + Φ_t|`` at the end of a step (the velocities as corrected)."""
        asm = self.asm
        if not asm.m:
            return 0.0
        fast = self._constant
        if fast is not None and (fast.loops or fast.fused):
            return fast.velocity_residual(q, v, t)
        vel = asm.j_dot(asm.jacobian_values(q, t), v) + asm.phi_t(q, t)
        return float(np.abs(vel).max())

    def _newton(self, q, v, qdd, lam, t1: float, k: StepCoefficients,
                refactor: bool) -> tuple[list, float]:
        """Newton's iterations of one step, in place on ``q, q̇, q̈, λ``; returns the
        history ``[(relative residual, max |Φ|), …]`` and the last absolute residual [N].
        Raises :class:`ConvergenceError` (with a diagnosis) when it does not converge."""
        if self._compiled_newton and self._substitution:
            return self._newton_compiled(q, v, qdd, lam, t1, k, refactor)
        # an iterate that runs away overflows on its way: the non-finite residual ends the
        # iterations and the step is retried (advance), so NumPy's own warnings about it
        # would only alarm — the error says where if no retry helps
        with np.errstate(over="ignore", invalid="ignore"):
            return self._newton_numpy(q, v, qdd, lam, t1, k, refactor)

    def _newton_numpy(self, q, v, qdd, lam, t1: float, k: StepCoefficients,
                      refactor: bool) -> tuple[list, float]:
        """:meth:`_newton` on the general path."""
        asm, pol, opts = self.asm, self.policy, self.options
        rhs = np.empty(asm.n + asm.m)
        res = np.empty(asm.n)
        f_ext = asm.external_forces(t1, q)
        floor2 = max(float(f_ext @ f_ext), self.force_scale2, 1e-300)
        hist: list = []
        err = err_prev = np.inf
        res_abs = 0.0
        dq = None             # the last correction (round-off acceptance looks at it)
        for it in range(opts.max_iter + 1):
            t_iter = perf_counter() if pol.timed else 0.0
            # the tangent only when a factorization will use it: with the first iteration
            # of a step that starts with a fresh factorization (it never converges there),
            # otherwise only once the iteration is known not to have converged
            kv, phi, rn, pn, scale = self._residual(q, v, qdd, lam, t1, f_ext, floor2, k,
                                                    refactor, refactor and it == 0, res, rhs)
            if (self.corrector.on_positions and it >= 1 and pn > opts.constraint_tol
                    and pn > hist[-1][1]):
                # the constraint residual rises: move the bodies rigidly (deformation
                # frozen) back onto Φ = 0 and continue from there (Liu et al. 2018 §3.1)
                dq = self.corrector.positions(q, t1, phi)
                q += dq
                v += k.gamma_prime * dq
                qdd += k.beta_prime * dq
                refactor = True
                continue
            hist.append((rn, pn))
            res_abs = rn * scale
            err = max(rn / opts.tol, pn / opts.constraint_tol)
            if not math.isfinite(err) or err <= 1.0:
                break
            if self._at_roundoff_floor(dq, rn, pn, hist, q):
                self.n_roundoff_accepts += 1
                err = 1.0
                break
            if it == opts.max_iter:
                break
            fresh = refactor
            if refactor:
                t_iter += self._factorize(q, v, qdd, lam, t1, k, kv, hist, res, phi)
                refactor = not pol.reuse
            elif it > 0 and pol.renew(err, err_prev, it):
                refactor = True       # the next iteration renews the tangent
            err_prev = err
            dx = pol.solve(rhs, q, self.n_steps)
            dq = dx[: asm.n]
            apply_correction(q, v, qdd, lam, dx, k)
            if pol.timed and not fresh:
                pol.measured("cost_iteration", perf_counter() - t_iter)
        if not (np.isfinite(err) and err <= 1.0):
            pol.drop()
            raise self._not_converged(t1, k, hist, res, phi, q)
        return hist, res_abs

    def _newton_compiled(self, q, v, qdd, lam, t1: float, k: StepCoefficients,
                         refactor: bool, start: tuple | None = None) -> tuple[list, float]:
        """:meth:`_newton` for systems of constant structure with a compiled force kernel
        (:class:`fem.solvers.constant_iteration.ConstantIteration`): the iterations with
        a kept factorization run in one compiled loop; Python factorizes.  The same
        decisions in the same order, so the same iterates to round-off.  ``start``: the
        compiled loop's return where a compiled step (:meth:`_step_compiled`) left off."""
        asm, pol, fast = self.asm, self.policy, self._constant
        rhs, res = fast.rhs, fast.res
        f_ext, floor2 = self._loads(t1, q)
        tol, ctol, max_iter = self._tolerances
        it = nh = 0
        err = err_prev = np.inf
        scale = 1.0
        have_dq = False
        while True:
            kv = None
            if start is not None:         # where the compiled step stopped
                status, it, nh, err, err_prev, refactor, scale, evals, _nf = start
                self.n_force_evals += evals
                have_dq = it > 0
                start = None
            elif refactor and it == 0:    # a fresh factorization's first residual
                kv, phi, rn, pn, scale = self._residual(q, v, qdd, lam, t1, f_ext, floor2, k,
                                                        True, True, res, rhs)
                fast.phi[:] = phi
                fast.hist_r[nh], fast.hist_p[nh] = rn, pn
                nh += 1
                err = max(rn / tol, pn / ctol)
                status = (CONVERGED if not math.isfinite(err) or err <= 1.0
                          else EXHAUSTED if it == max_iter else FACTORIZE)
            else:
                fac = self._factor_inside and pol.lu is not None
                status, it, nh, err, err_prev, refactor, scale, evals, nf = fast.iterate(
                    it, refactor, err_prev, nh, q, v, qdd, lam, f_ext, t1, floor2, k, tol,
                    ctol, max_iter, pol.cost_ratio(), pol.contraction, pol.lu, res, rhs,
                    have_dq, fac)
                self.n_force_evals += evals
                if nf:
                    pol.made(pol.lu, k.h, self.n_steps, nf)
            if status == SINGULAR:        # the general methods factorize and diagnose
                status = FACTORIZE
            if status != FACTORIZE:
                break
            hist = list(zip(fast.hist_r[:nh].tolist(), fast.hist_p[:nh].tolist(),
                            strict=True))
            if kv is None and fast.structure.has_bodies:
                # the compiled residual left out the bodies' inertia tangent
                pol.inertia = asm.inertia_forces(q, v, qdd, tangent=True)[1]
            self._factorize(q, v, qdd, lam, t1, k, kv, hist, res, fast.phi)
            refactor = not pol.reuse
            err_prev = err
            dx = pol.solve(rhs, q, self.n_steps)
            fast.dx[:] = dx
            have_dq = True
            apply_correction(q, v, qdd, lam, dx, k)
            it += 1
        hist = list(zip(fast.hist_r[:nh].tolist(), fast.hist_p[:nh].tolist(), strict=True))
        if status == ROUNDOFF:
            self.n_roundoff_accepts += 1
        elif not (math.isfinite(err) and err <= 1.0):
            pol.drop()
            raise self._not_converged(t1, k, hist, res, fast.phi, q)
        return hist, hist[-1][0] * scale

    def _residual(self, q, v, qdd, lam, t1, f_ext, floor2, k: StepCoefficients,
                  inertia_tangent: bool, elastic_tangent: bool, res, rhs):
        """The dynamics residual ``M(q) q̈ + f − f_ext + Φ_qᵀλ`` into ``res`` and Newton's
        right-hand side into ``rhs`` in one compiled pass; returns the elastic tangent
        values (or None), ``Φ``, the relative residual, ``max |Φ|`` and the force scale."""
        asm = self.asm
        f_int, kv = asm.internal_forces(q, v, tangent=elastic_tangent)
        self.n_force_evals += 1
        fast = self._constant
        if fast is not None and fast.fused:     # declared structure: one compiled pass
            r2, scale2, pn = fast.residual(q, v, qdd, lam, f_int, f_ext, t1, floor2,
                                           k.rhs_scale, res, rhs)
            scale = math.sqrt(scale2)
            return kv, fast.phi, math.sqrt(r2) / scale, pn, scale
        phi, jv = asm.constraint_state(q, t1)
        JTl = asm.reaction(jv, lam, q)
        # M(q) q̈ + quadratic-velocity forces, tangents for the next factorization
        Mq, inertia = asm.inertia_forces(q, v, qdd, tangent=inertia_tangent)
        if inertia_tangent:
            self.policy.inertia = inertia
        if asm.has_feedback:        # controllers: efforts of this iterate's state
            f_fb, fb_tangent = asm.feedback_forces(t1, q, v, tangent=inertia_tangent)
            f_ext = f_ext + f_fb
            if inertia_tangent:
                self.policy.feedback = fb_tangent
        damp = asm.damping_force(v) if asm.has_damping else _NO_DAMPING
        r2, scale2, pn = residual_and_rhs(Mq, f_int, f_ext, JTl, damp, phi, floor2,
                                          k.rhs_scale, res, rhs)
        scale = math.sqrt(scale2)
        return kv, phi, math.sqrt(r2) / scale, pn, scale

    def _at_roundoff_floor(self, dq, rn: float, pn: float, hist: list, q) -> bool:
        """The force residual stalls at its round-off floor (stiff elements with absolute
        coordinates: EA·ε_machine) while the corrections are at the round-off level of
        ``q``: the step is accepted, and counted."""
        return (dq is not None and rn <= 1e-4 and pn <= self.options.constraint_tol
                and len(hist) >= 3 and rn > 0.5 * hist[-3][0]
                and np.abs(dq).max() <= 1e-13 * max(np.abs(q).max(), 1e-300))

    def _factorize(self, q, v, qdd, lam, t1, k: StepCoefficients, kv, hist, res,
                   phi) -> float:
        """A fresh factorization (the policy's); a singular matrix (a diverging iterate)
        becomes a :class:`ConvergenceError` so the step is retried.  Returns minus its
        measured cost with the timed policy (0 otherwise)."""
        pol = self.policy
        t_fac = perf_counter() if pol.timed else 0.0
        try:
            if kv is None:
                kv = self.asm.internal_forces(q, v, tangent=True)[1]
            pol.factor(q, lam, t1, k, kv, self.n_steps)
            self._substitution = pol.lu.substitution_data() is not None
            fast = self._constant
            self._factor_inside = self._compiled_newton and pol.reuse and (
                fast.factorizes if pol.lu.kind == "dense"
                else pol.lu.kind == "banded" and fast.factorizes_banded)
            if self._factor_inside:       # its factorizations in this storage
                fast.layout(pol.lu)
                # with the linear rows eliminated from now on (fem.solvers.elimination):
                # the same matrix factorized again, the same solve to round-off
                lu = fast.factorize(q, v, qdd, lam, t1, k)
                if lu is not None:
                    pol.made(lu, k.h, self.n_steps, 0)
        except SingularMatrixError as err:
            pol.drop()
            raise ConvergenceError(
                self._diagnosis(t1, k.h, [r for r, _ in hist], res, phi, q,
                                singular=str(err)),
                where=f"t = {t1:.6g} s", residuals=[r for r, _ in hist]) from None
        return pol.measured("cost_factor", perf_counter() - t_fac) if pol.timed else 0.0

    def _accept(self, q, v, qdd, lam, t1: float, h: float, a=None) -> None:
        """The converged step becomes the state (velocities corrected if asked); ``a``
        the algorithmic acceleration when already computed."""
        self.a = algorithmic_acceleration(self.qdd, qdd, self.a, self.alpha) if a is None \
            else a
        if self.corrector.on_velocities:
            v = self.corrector.velocities(q, v, t1)
        self._qdd_prev, self._h_prev = self.qdd, h
        self.n_steps += 1
        self.q, self.v, self.qdd, self.lam, self.t = q, v, qdd, lam, t1
        if self.asm.has_feedback:   # sampled controllers take their samples here
            self.asm.sample_feedback(t1, q, v)

    def _not_converged(self, t1: float, k: StepCoefficients, hist: list, res, phi,
                       q) -> ConvergenceError:
        """The error of a step whose Newton iterations did not converge, with the
        diagnosis of their history ``[(relative residual, max |Φ|), …]``."""
        return ConvergenceError(
            self._diagnosis(t1, k.h, [r for r, _ in hist], res, phi, q,
                            constraints=[c for _, c in hist]),
            where=f"t = {t1:.6g} s", residuals=[r for r, _ in hist])

    def _diagnosis(self, t1, h, history, res, phi, q, singular=None, constraints=None):
        extra = ""
        if constraints:
            extra = (" Constraint residuals " + str([f"{c:.1e}" for c in constraints[-5:]])
                     + ".")
        return newton_failure(
            self.asm, solver="generalized-α Newton", where=f"t = {t1:.6g} s (h = {h:.3g} s)",
            history=history, residual=res, phi=phi, q=q, q_start=self.q,
            singular=singular) + extra

    def correction_step(self, q: np.ndarray, t: float, rhs: np.ndarray) -> np.ndarray:
        """The smallest change ``Δq`` in the correction metric with ``Φ_q Δq = rhs``
        (:meth:`fem.solvers.correction.KinematicCorrection.step`)."""
        return self.corrector.step(q, t, rhs)

    def advance(self, h: float, max_halvings: int = MAX_HALVINGS) -> dict:
        """Step by ``h``, retrying in halves (recursively) when Newton fails.

        A step that failed from a factorization kept from earlier steps is first retried
        with a fresh one: a kept factorization must never change the time steps (halving
        perturbs index-3 multipliers, hence actuator efforts)."""
        try:
            return self.step(h)
        except ConvergenceError as err:
            return self._recover(h, err, max_halvings)

    def _recover(self, h: float, failure: ConvergenceError, max_halvings: int) -> dict:
        """:meth:`advance` after the step ``h`` failed with ``failure``: once more with
        a fresh factorization if it started from a kept one, then in halves."""
        if self._kept:
            self.n_fresh_retries += 1
            try:
                return self.step(h)    # the failure dropped the kept factorization
            except ConvergenceError as err:
                failure = err
        if max_halvings == 0:
            from .modal import internal_instability

            unstable = internal_instability(self.asm, self.q, self.lam, self.t)
            if unstable:        # the cause, not the step (nor the units): say it alone
                evidence = "; ".join(str(failure).split("; ")[:2])
                raise ConvergenceError(
                    f"{evidence}.  At t = {self.t:.6g} s, the last converged state, "
                    f"{unstable}; a smaller step only fails sooner.", where=failure.where,
                    residuals=failure.residuals) from None
            raise ConvergenceError(
                f"{failure} Still failing after halving the step {MAX_HALVINGS} times, down to "
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

    def advance_steps(self, h: float, count: int) -> StepBlock | None:
        """Up to ``count`` steps of ``h`` in one compiled call, the same as ``count``
        calls of :meth:`advance` to the bit (the same kernel per step, the same decisions
        between steps); None where the system does not allow it (:meth:`can_march`),
        and nothing is done then.  A step that does not converge there
        continues as in :meth:`advance` (its iterations, a fresh factorization, halves)
        and ends the block.  Returns the steps' states and statistics."""
        if count < 1 or not self.can_march():
            return None
        fast, pol = self._constant, self.policy
        refactor = pol.begin_step(h)
        # as _step_compiled: renewed in place, kept across the block (begin_step drops it
        # only where h changes or every step renews, and then it is the workspace)
        target = pol.lu if pol.lu is not None else fast.workspace()
        k = self._coefficients if self._coefficients.h == h else self.alpha.at(h)
        self._coefficients = k
        times = np.empty(count)
        t = self.t
        for i in range(count):           # the times the steps reach, summed as they are
            t = t + h
            times[i] = t
        predictor = self.options.predictor == "linear"
        linear = predictor and self._qdd_prev is not None
        f_ext, floor2 = self._loads(times[0], self.q)
        tol, ctol, max_iter = self._tolerances
        done, out, q, v, qdd, lam, kept, rows = fast.march(
            count, self.q, self.v, self.qdd, self.a,
            self._qdd_prev if linear else self.qdd, h / self._h_prev if linear else 0.0,
            predictor, h, self.alpha, self.lam, f_ext, times, floor2, k, tol, ctol,
            max_iter, pol.cost_ratio(), pol.contraction, target, not refactor,
            pol.renews_each_step())
        Q, V, QDD, L, AA, st = rows
        n0 = self.n_steps
        made = np.flatnonzero(st[:done, 7])
        if made.size:
            pol.made(target, k.h, n0 + int(made[-1]), int(st[:done, 7].sum()))
        self.n_force_evals += int(st[:done, 5].sum())
        self.n_roundoff_accepts += int(st[:done, 6].sum())
        vres = st[:done, 4].tolist()
        for i in range(done):
            if vres[i] < 0.0:            # Φ_t depends on q: as in _step_compiled
                vres[i] = self._velocity_residual(Q[i], V[i], float(times[i]))
        stats = {"iterations": st[:done, 0].astype(int).tolist(),
                 "residual_dynamics": st[:done, 1].tolist(),
                 "residual_dynamics_N": st[:done, 2].tolist(),
                 "residual_constraints": st[:done, 3].tolist(),
                 "residual_velocity": vres, "step_size": [h] * done}
        if done:
            self._qdd_prev = QDD[done - 2].copy() if done >= 2 else self.qdd
            self._h_prev = h
            self.n_steps += done
            self.q, self.v, self.qdd = Q[done - 1].copy(), V[done - 1].copy(), \
                QDD[done - 1].copy()
            self.lam, self.a = L[done - 1].copy(), AA[done - 1].copy()
            self.t = float(times[done - 1])
        if done < count:                 # where it stopped: as advance goes on
            self._kept = kept
            try:
                one = self._finish_compiled(out, q, v, qdd, lam, None, -1.0,
                                            float(times[done]), h, k, target)
            except ConvergenceError as err:
                one = self._recover(h, err, MAX_HALVINGS)
            Q[done], V[done], QDD[done], L[done] = self.q, self.v, self.qdd, self.lam
            times[done] = self.t
            for name, val in one.items():
                stats[name].append(val)
            done += 1
        return StepBlock(times[:done], Q[:done], V[:done], QDD[:done], L[:done], stats)

    def can_march(self) -> bool:
        """Whether :meth:`advance_steps` runs steps in one compiled call: the compiled
        loop makes its own factorizations (known after the first), the loads do not
        change (``System.constant_loads``), the time terms can be evaluated ahead, no
        velocity correction."""
        return (self._compiled_newton and self._substitution and self._factor_inside
                and self._started and not self.corrector.on_velocities
                and bool(self.asm.constant_loads)
                and self._constant.marches)

    def stats_now(self) -> dict:
        return {"iterations": 0, "residual_dynamics": 0.0, "residual_dynamics_N": 0.0,
                "residual_constraints": float(np.abs(self.asm.phi(self.q, self.t)).max())
                if self.asm.m else 0.0, "residual_velocity": 0.0, "step_size": 0.0}

    def report(self) -> dict:
        """Counters of the run so far (for :attr:`fem.Result.info`)."""
        info = {"factorizations": self.n_factorizations, "correction": self.correction,
                "kinematic_corrections": self.n_corrections,
                "roundoff_accepts": self.n_roundoff_accepts,
                "force_evaluations": self.n_force_evals,
                "fresh_retries": self.n_fresh_retries,
                "factor_cost_iterations": self.policy.cost_ratio()}
        if self.policy.timed:
            info.update({"factorization_cost_s": self.policy.cost_factor,
                         "iteration_cost_s": self.policy.cost_iteration})
        return info


@solver_options
@blas_single_threaded
def simulate(model, t_end: float, dt: float, q0=None, v0=None, t0: float = 0.0, *,
             record_every: int = 1, sensors: dict[str, Callable] | None = None,
             result: Result | None = None, progress: bool = False,
             on_step: Callable | None = None, options: AlphaOptions | None = None,
             project_velocities: bool = False, **settings) -> Result:
    """Forward dynamics from ``t0`` to ``t_end`` with fixed step ``dt`` (halved locally
    when Newton fails).  Returns a :class:`~fem.solvers.results.Result` with the initial state
    and every ``record_every``-th step.

    How to integrate is :class:`fem.solvers.alpha.AlphaOptions`: pass one as ``options``
    or its fields by name (``rho_inf=0.8``, ``tol=1e-8``, ``constraint_tol``,
    ``max_iter``, ``reuse``, ``correction``, ``force_scale``, ``factor_cost``,
    ``predictor``, ``corotate``, …; ``project_velocities=True`` is shorthand for
    ``correction="projection"``).  The same object configures
    :class:`GeneralizedAlpha`.

    ``sensors`` maps names to functions ``f(t, q, v, a, lam)`` recorded at each output;
    ``result`` a :class:`~fem.solvers.results.Result` to stream into (:func:`fem.io.output.stream`);
    ``on_step(stepper, stats)`` is called after every step.
    """
    if result is not None and not isinstance(result, Result):
        raise ModelError(f"simulate: result must be a fem.Result (fem.io.output.stream) or None; "
                         f"got {type(result).__name__}")
    if options is not None and not isinstance(options, AlphaOptions):
        raise ModelError(f"simulate: options must be a fem.solvers.AlphaOptions or None; "
                         f"got {type(options).__name__}")
    opts = AlphaOptions.checked(
        "simulate", project_velocities,
        **{**(dataclasses.asdict(options) if options is not None else {}), **settings})
    n_steps = _step_count(t0, t_end, dt)
    ga = GeneralizedAlpha(model, q0=q0, v0=v0, t0=t0, options=opts)
    # the records stay in memory (and stream to disk): refused before the first step when
    # they could not fit (q, v, a, λ and about 100 bytes of statistics a record)
    n_records = 1 + n_steps // record_every + (1 if n_steps % record_every else 0)
    affordable(n_records * (8.0 * (3 * ga.q.size + ga.lam.size) + 800.0),
               "simulate: recorded steps ((t_end − t0) / dt / record_every)", n_records)
    res = result if result is not None else Result(sensors)
    res.info.update({"rho_inf": opts.rho_inf, "dt_s": dt, "solver": "generalized-alpha",
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
        with contextlib.nullcontext() if bar is None else bar_while_compiling(bar):
            _march(ga, res, n_steps, dt, t_end, record_every, on_step, bar)
    except BaseException as err:
        # keep what was computed, even on failure; a flush that fails too (the disk is
        # full) must not hide the first error, and the .part file keeps the records
        if res.directory is not None:
            with contextlib.suppress(OSError):
                res.flush()
        elif isinstance(err, ModelError) and len(res) and len(err.args) == 1:
            # in memory: the steps before the failure ride on the error (err.result)
            with contextlib.suppress(Exception):
                res.info.update(status="failed", finished=False, error=str(err))
                err.result = res.finish()
                err.args = (f"{err.args[0]} (the {len(res)} records before it are kept: "
                            f"this error's .result)",)
        raise
    finally:
        if bar is not None:
            bar.close()
    if res.directory is not None:
        res.flush()
    res.info.update(ga.report())
    res = res.finish()
    past = getattr(model, "past_kinematics_range", None)
    if callable(past):              # a chain of floating-frame links: still in its range?
        message = past(res.q)
        if message:
            res.info["past_kinematics_range"] = message
            warn(message)
    return res


MARCH_UNKNOWNS = 20_000
"""Steps × unknowns (n + m) of one compiled block of :func:`simulate` at most: about
0.1–0.5 s of work, so a Ctrl-C or a progress bar waits no longer than that."""


def march_block(unknowns: int) -> int:
    """The steps of one compiled block of :func:`simulate` for a system of ``unknowns``
    (n + m): at most 64, and 1 (step by step) above 10 000 unknowns."""
    return max(1, min(64, MARCH_UNKNOWNS // max(unknowns, 1)))


def _step_count(t0: float, t_end: float, dt: float) -> int:
    """Whole steps of ``dt`` from ``t0`` to ``t_end``, the last one shortened to end
    exactly at ``t_end``."""
    if not t_end > t0:
        raise ModelError(f"simulate: t_end must be later than t0; got t0 = {t0:g} s, "
                         f"t_end = {t_end:g} s")
    span = t_end - t0
    n_steps = max(1, int(np.ceil(span / dt - 1e-9)))
    if n_steps > 50_000_000:
        raise ModelError(f"simulate: {n_steps:.3g} steps of {dt:g} s to reach {t_end:g} s; "
                         "choose a larger dt or a shorter span")
    if dt > span:
        warn(f"simulate: dt = {dt:g} s is longer than the span {span:g} s; one step of "
             f"{span:g} s is taken")
    return n_steps


def _march(ga: GeneralizedAlpha, res: Result, n_steps: int, dt: float, t_end: float,
           record_every: int, on_step: Callable | None, bar) -> None:
    """The steps of :func:`simulate`, recorded every ``record_every``-th and at the end.

    Where the system allows (:meth:`GeneralizedAlpha.can_march`) and nothing is called
    back after each step, whole steps go in blocks of up to :func:`march_block` steps
    through one compiled call each (:meth:`GeneralizedAlpha.advance_steps`: the same
    steps to the bit); the last step, which may be shortened, alone."""
    block = march_block(ga.asm.n + ga.asm.m) if on_step is None else 0
    k = 0
    while k < n_steps:
        count = min(block, n_steps - 1 - k)
        steps = ga.advance_steps(dt, count) if count >= 2 else None
        if steps is not None:
            first, k = k + 1, k + len(steps.t)
            res.record_steps(*steps[:5], steps.stats,
                             [i for i in range(len(steps.t))
                              if (first + i) % record_every == 0])
            if bar is not None:
                bar.update(len(steps.t))
            continue
        k += 1
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
