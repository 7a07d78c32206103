"""Generalized-α coefficients and the options of the time integrator.

Chung & Hulbert's parameters for a spectral radius ``ρ∞`` (:class:`AlphaParameters`), the
per-step Newton coefficients ``β′ = (1 − α_m)/(h² β (1 − α_f))`` and ``γ′ = γ/(h β)``
(:class:`StepCoefficients`, computed once per step), and the options shared by
:func:`fem.simulate` and :class:`fem.GeneralizedAlpha` (:class:`AlphaOptions`, checked
once, by the same rules as every solver's arguments).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..core.errors import ModelError
from ..core.validate import SOLVER_OPTIONS, in_range

__all__ = ["AlphaParameters", "StepCoefficients", "AlphaOptions", "alpha_parameters"]


@dataclass(frozen=True)
class StepCoefficients:
    """Newton's coefficients for one step ``h``: ``Δq̇ = γ′ Δq``, ``Δq̈ = β′ Δq``."""

    h: float
    beta_prime: float
    gamma_prime: float

    @property
    def rhs_scale(self) -> float:
        """Factor of the dynamics residual in the right-hand side (``−1/β′``: the
        equations of motion are divided by ``β′``)."""
        return -1.0 / self.beta_prime


@dataclass(frozen=True)
class AlphaParameters:
    """``α_m = (2ρ∞ − 1)/(ρ∞ + 1)``, ``α_f = ρ∞/(ρ∞ + 1)``, ``γ = ½ + α_f − α_m``,
    ``β = ¼ (γ + ½)²`` (Chung & Hulbert 1993; Arnold & Brüls 2007)."""

    alpha_m: float
    alpha_f: float
    gamma: float
    beta: float

    @classmethod
    def from_rho(cls, rho_inf: float) -> AlphaParameters:
        rho_inf = in_range(rho_inf, "spectral radius rho_inf", 0.0, 1.0)
        am = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
        af = rho_inf / (rho_inf + 1.0)
        gamma = 0.5 + af - am
        return cls(am, af, gamma, 0.25 * (gamma + 0.5) ** 2)

    def at(self, h: float) -> StepCoefficients:
        """The Newton coefficients of a step ``h``."""
        bp = (1.0 - self.alpha_m) / (h * h * self.beta * (1.0 - self.alpha_f))
        return StepCoefficients(h, bp, self.gamma / (h * self.beta))


def alpha_parameters(rho_inf: float) -> dict[str, float]:
    """Generalized-α parameters for spectral radius ``ρ∞ ∈ [0, 1]`` (a dict of
    :class:`AlphaParameters`' fields)."""
    return dataclasses.asdict(AlphaParameters.from_rho(rho_inf))


@dataclass(frozen=True)
class AlphaOptions:
    """How :class:`fem.GeneralizedAlpha` integrates; :func:`fem.simulate` passes its
    keyword arguments through this one object.

    Parameters
    ----------
    rho_inf : float
        Spectral radius at infinite frequency (1: no numerical damping, 0: most).
    tol : float
        Relative dynamics residual ``‖M q̈ + f_int − f_ext + Φ_qᵀλ‖ / scale`` (scale: the
        largest of the force terms' norms).
    constraint_tol : float
        Absolute ``max |Φ|``.
    max_iter : int
        Newton iterations per step before the step is retried in halves.
    reuse : bool, "step" or "auto"
        True: keep the factorization across iterations and steps while Newton contracts
        (modified Newton).  "step": renew it at the start of every step, keep it within.
        False: full Newton.  "auto": True when the model has elastic elements, whose
        tangent is costly; purely rigid models converge fastest with full Newton.
    contraction : float
        Contraction rate below which a kept factorization is good enough while its cost
        ratio is not known yet (:class:`fem.solvers.factor_policy.FactorizationPolicy`).
    correction : {"none", "projection", "rigid"}
        Kinematic correction (Liu et al. 2018 §3, ``docs/kinematic_correction.md``;
        :class:`fem.solvers.correction.KinematicCorrection`).
    perturbed_start : bool
        Start the algorithmic acceleration at ``q̈(t₀ + (α_m − α_f) h)`` (Arnold & Brüls
        2007) instead of ``q̈₀``.
    force_scale : float
        Smallest force scale [N] of the relative residual (default 0: none).  Motions
        that start from rest with zero forces (a smoothly driven hub) otherwise ask for a
        relative residual below the round-off of the stiff elastic forces.
    factor_cost : float, "estimated", "timed" or None
        Cost of one factorization in units of one modified-Newton iteration, used to
        decide when a stale factorization is renewed.  ``"estimated"`` (default; also
        None): from operation counts (:mod:`fem.solvers.factor_cost`), so the same inputs
        give bit-identical results on any machine and under any load.  A number fixes the
        ratio.  ``"timed"``: measured with the clock while running, for speed studies
        only (two runs can then differ at the level of the Newton tolerance).
    predictor : {"linear", "constant"}
        Newton's starting acceleration: extrapolated from the last two steps (default)
        or the last step's.
    corotate : bool
        Turn a factorization kept from an earlier step with each flexible body's
        best-fit rigid rotation since then (:mod:`fem.solvers.corotation`); ignored
        where there is no elastic group to turn or the compiled loop factorizes the
        system itself (small dense systems: a fresh factorization costs less).
    eliminate_beyond_dense : bool
        Also where the iteration matrix is above ``DENSE_LIMIT`` but dense once its
        constant linear rows are eliminated (:mod:`fem.solvers.elimination`): a robot of
        rigid links joined at frames, whose joints' point rows are linear, then
        factorizes densely and eliminated (:mod:`fem.solvers.reduced_factorization`).
        Off by default: measured only on the 3-RRRU robot built in robot words.
    """

    rho_inf: float = 0.8
    tol: float = 1e-8
    constraint_tol: float = 1e-11
    max_iter: int = 25
    reuse: bool | str = "auto"
    contraction: float = 0.25
    correction: str = "none"
    perturbed_start: bool = False
    force_scale: float = 0.0
    factor_cost: float | str | None = "estimated"
    predictor: str = "linear"
    corotate: bool = False
    eliminate_beyond_dense: bool = False

    @classmethod
    def checked(cls, where: str, project_velocities: bool = False,
                **settings) -> AlphaOptions:
        """Options from keyword ``settings``, each checked by the rule every solver uses
        for that name (:data:`fem.core.validate.SOLVER_OPTIONS`); messages start with
        ``where``.  ``project_velocities=True`` is shorthand for
        ``correction="projection"``."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(settings) - names)
        if unknown:
            raise ModelError(f"{where}: unknown option(s) {unknown}; the options are "
                             f"{sorted(names)}")
        if SOLVER_OPTIONS["project_velocities"](project_velocities,
                                                f"{where}: project_velocities"):
            if settings.get("correction", "none") == "none":
                settings["correction"] = "projection"
        for name, value in settings.items():
            rule = SOLVER_OPTIONS.get(name)
            if rule is not None:
                settings[name] = rule(value, f"{where}: {name}")
        if settings.get("factor_cost", "estimated") is None:
            settings["factor_cost"] = "estimated"
        return cls(**settings)

    def replace(self, **changes) -> AlphaOptions:
        """A copy with ``changes`` (checked)."""
        return AlphaOptions.checked("AlphaOptions.replace",
                                    **{**dataclasses.asdict(self), **changes})
