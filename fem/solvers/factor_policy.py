"""When generalized-α's Newton iteration renews its factorization (modified Newton).

The factorization of the iteration matrix ``[[M + (γ′/β′) C_v + K_t/β′, Φ_qᵀ], [Φ_q, 0]]``
is kept while Newton contracts fast and renewed when the iterations it still needs cost
more than a new one.  The cost of one factorization in iterations (the *cost ratio*) is
estimated once from operation counts (:mod:`fem.solvers.factor_cost`), never from the
clock unless asked (``factor_cost="timed"``, for speed studies): the same inputs give
bit-identical results on any machine load.
"""

from __future__ import annotations

import math

import numpy as np

from ..assembly.linalg import Factorization
from .alpha import StepCoefficients
from .corotation import CoRotation
from .factor_cost import estimate_factor_cost

__all__ = ["FactorizationPolicy"]


class FactorizationPolicy:
    """The kept factorization of the iteration matrix and the rule that renews it.

    Parameters
    ----------
    system : fem.assembly.system.System
        What is solved.
    reuse : bool or "step"
        True: keep across iterations and steps while Newton contracts; "step": renew at
        the start of every step (unless costlier than :attr:`KEEP_ACROSS_STEPS`
        iterations); False: full Newton.
    contraction : float
        Rate below which a kept factorization is good enough while the cost ratio is
        unknown.
    factor_cost : float, "estimated" or "timed"
        The cost ratio given, estimated from counts at the first factorization, or
        measured by the clock (running averages).
    max_iter : int
        The step's iteration budget (a kept factorization must not exhaust it).
    corotate : bool
        Solve with a kept factorization turned by the flexible bodies' rigid rotations
        since it was made (:class:`fem.solvers.corotation.CoRotation`).
    compiled_iterations : bool
        The system has constant structure and its iterations with a kept factorization
        run fused (:mod:`fem.solvers.constant_iteration`; compiled where numba is
        present): cheaper, so the estimated cost ratio is higher.
    """

    KEEP_ACROSS_STEPS = 6.0
    """With ``reuse="step"``, a factorization costing more than this many iterations is
    kept across steps while it contracts, instead of renewed each step (hexagon_6: 3–5,
    hexagon_24: 9–13, hexagon_96: 24–28)."""

    def __init__(self, system, reuse: bool | str, contraction: float,
                 factor_cost: float | str, max_iter: int, corotate: bool = False,
                 compiled_iterations: bool = False):
        self.system = system
        self.mode = reuse
        self.reuse = bool(reuse)
        self.contraction = contraction
        self.max_iter = max_iter
        self.timed = factor_cost == "timed"
        # None until estimated at the first factorization (or while timed)
        self.factor_cost = None if isinstance(factor_cost, str) else float(factor_cost)
        self.lu = None
        self.h = None             # the step the factorization was made for
        self.step_made = -1       # and the step number it was made in
        self.n_factorizations = 0
        self.compiled_iterations = compiled_iterations
        self.inertia = None       # tangent of the inertia forces for the next factorization
        self.feedback = None      # tangent of the controllers' forces (fed-back actuators)
        # with factor_cost="timed" only: measured costs [s] of one factorization (tangent
        # + assembly + LU) and of one iteration without it
        self.cost_factor = 0.0
        self.cost_iteration = 0.0
        self._corot = CoRotation(system) if corotate else None
        self._ref = None          # the bodies' positions when the factorization was made
        # (factorization, solve) operations of the factorizations made after the first
        # where they differ from it (the compiled loop's elimination), for the estimate
        self.operations: tuple[float, float] | None = None
        # the constant linear rows' elimination of a matrix above DENSE_LIMIT that is
        # dense without them: every factorization eliminates them (ReducedFactorization)
        self.elimination = None

    def begin_step(self, h: float) -> bool:
        """Drop the factorization where a step ``h`` should not start from it; returns
        whether the step must factorize at its first iteration.

        "step": a fresh tangent at the start of every step, kept within the step — best
        for mechanisms whose large motion rotates the constraint Jacobian (flagship robot:
        2.4 instead of 4.1 iterations per step, 25 % less time) — unless a factorization
        costs more than :attr:`KEEP_ACROSS_STEPS` iterations, where keeping it across
        steps while it contracts is cheaper, the more so co-rotated (hexagon_96: 74
        instead of 227 factorizations, 2.1× faster)."""
        if self.h != h or self.renews_each_step():
            self.lu = None
        return self.lu is None or not self.reuse

    def renews_each_step(self) -> bool:
        """Whether every step starts with a fresh factorization (``reuse="step"`` and a
        factorization cheaper than :attr:`KEEP_ACROSS_STEPS` iterations)."""
        return self.mode == "step" and self.cost_ratio() < self.KEEP_ACROSS_STEPS

    def drop(self) -> None:
        """Forget the factorization (a failed step must not reuse it)."""
        self.lu = None

    def factor(self, q, lam, t: float, k: StepCoefficients, kv, step: int) -> None:
        """Factorize the iteration matrix at ``(q, λ, t)`` for the step coefficients
        ``k`` with the elastic tangent values ``kv`` (and the inertia tangent kept in
        :attr:`inertia`)."""
        sys_ = self.system
        hv = sys_.hessian_values(lam, q)
        jv = sys_.jacobian_values(q, t)
        bp = k.beta_prime
        # (systems without controllers need not take a feedback tangent)
        fb = {} if self.feedback is None else {"feedback": self.feedback}
        S = sys_.saddle(1.0, 1.0 / bp, kv, hv, jv, 1.0, q=q, cC=k.gamma_prime / bp,
                        inertia=self.inertia, **fb)
        what = f"iteration matrix at t = {t:.6g} s"
        if self.elimination is not None:      # dense only once its linear rows are out
            from .reduced_factorization import ReducedFactorization

            self.lu = ReducedFactorization(S, self.elimination, what)
        else:
            self.lu = Factorization(S, what, hint=None)
        if self.factor_cost is None and self.reuse and not self.timed:
            # once, from counts of the model and this matrix: no clock (module docstring);
            # full Newton (reuse=False) needs no ratio
            self.factor_cost = estimate_factor_cost(sys_, self.lu, np.size(jv),
                                                    self.compiled_iterations,
                                                    self.operations)
        self.made(self.lu, k.h, step)
        if self._corot:
            self._ref = self._corot.snapshot(q)

    def made(self, lu: Factorization, h: float, step: int, count: int = 1) -> None:
        """Keep ``lu``, made for the step ``h`` in step number ``step``, and count
        ``count`` factorizations (several when a compiled loop renewed it in place)."""
        self.lu = lu
        self.h = h
        self.n_factorizations += count
        self.step_made = step

    def solve(self, rhs: np.ndarray, q: np.ndarray, step: int) -> np.ndarray:
        """The Newton correction from the kept factorization (co-rotated when it was
        made in an earlier step and ``corotate`` is on)."""
        if self._corot and self.step_made != step:
            return self._corot.solve(self.lu, rhs, self._ref, q)
        return self.lu.solve(rhs)

    def measured(self, name: str, seconds: float) -> float:
        """Fold a measured cost (``"cost_factor"`` or ``"cost_iteration"``) into its
        running estimate; returns ``−seconds``."""
        old = getattr(self, name)
        setattr(self, name, seconds if old == 0.0 else 0.8 * old + 0.2 * seconds)
        return -seconds

    def cost_ratio(self) -> float:
        """Factorization cost in iterations: given or estimated, else measured (timed
        policy); 0 before it is known (before the first factorization)."""
        if self.factor_cost is not None:
            return self.factor_cost
        if not self.timed or self.cost_factor == 0.0 or self.cost_iteration == 0.0:
            return 0.0
        return self.cost_factor / self.cost_iteration

    def renew(self, err: float, err_prev: float, it: int) -> bool:
        """Whether to renew the factorization after a modified-Newton iteration that
        reduced the normalized error (1 = converged) from ``err_prev`` to ``err``.

        The iterations still needed at the observed rate, ``log(err)/log(err_prev/err)``,
        are weighed against one factorization (the cost ratio) plus the one or two
        iterations a fresh tangent needs; a rate worse than 0.7 renews at once.  While
        the ratio is unknown (timed policy, before its first measurements), a rate worse
        than ``contraction`` or a third correction renews.  Small systems (factorization
        about as costly as an iteration) renew after the second stale correction; large
        ones (hexagon_96: factorization ≈ 10 iterations) keep a factorization across
        steps while it contracts.
        """
        rate = err / err_prev
        ratio = self.cost_ratio()
        if ratio == 0.0:      # costs not measured yet
            return rate > self.contraction or it >= 2
        if rate > max(self.contraction, 0.7):
            return True
        needed = math.log(err) / max(-math.log(max(rate, 1e-300)), 1e-12)
        # never let a kept factorization run the step out of iterations
        return needed > ratio + 1.5 or it + needed > 0.6 * self.max_iter
