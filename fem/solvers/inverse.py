"""Inverse dynamics of kinematically driven systems.

When drives and trajectory constraints fix every degree of freedom (``Φ_q`` square and
regular), the motion follows from the constraints alone and the DAE
``M q̈ + Φ_qᵀλ = f``, ``Φ = 0`` is solved *exactly at each instant* — no time
integration error:

    Φ(q, t) = 0                      Newton, started from the previous instant
    Φ_q q̇ = −Φ_t                    velocities
    [[M, Φ_qᵀ], [Φ_q, 0]] [q̈; λ] = [f − f_int; γ]      accelerations and multipliers

The drive multipliers are the actuator efforts (for :class:`~fem.AngleDrive`,
``τ = −λ l``).  For systems with elastic degrees of freedom that are not driven, use the
generalized-α integrator with the trajectory as constraints instead.
"""

from __future__ import annotations

import numpy as np

from ..assembly.linalg import Factorization
from ..core.errors import ConvergenceError, ModelError
from ..core.threads import blas_single_threaded
from ..core.validate import absolute_tolerance, coordinates, solver_options
from .results import Result

__all__ = ["driven_inverse_dynamics"]


@solver_options(tol=absolute_tolerance)
@blas_single_threaded
def driven_inverse_dynamics(model, times, q0=None, tol: float = 1e-13, max_iter: int = 20,
                            sensors=None) -> Result:
    """Positions, velocities, accelerations and multipliers of a fully driven model at
    the given ``times`` (see module docstring).  Raises a ModelError when free degrees of
    freedom remain."""
    asm = model.assemble()
    times = _times(times)
    if asm.m != asm.n:
        raise ModelError(f"driven_inverse_dynamics needs as many independent constraint rows "
                         f"as coordinates; the model has {asm.n} coordinates and {asm.m} "
                         f"rows ({asm.n - asm.m} free degrees of freedom to drive)")
    q = asm.q0.copy() if q0 is None else coordinates(q0, asm.n, "driven_inverse_dynamics: q0")
    from .diagnosis import check_finite_start

    check_finite_start(asm, q, float(times[0]), "driven inverse dynamics")
    asm.check_rank(q, float(times[0]))
    res = Result(sensors, info={"solver": "driven inverse dynamics"})
    zk, zh = asm.zero_tangent()
    lu, v, a, t_prev = None, None, None, None
    for t in times:
        if t_prev is not None:             # the last instant's motion carried on
            dt = t - t_prev
            q = q + dt * v + 0.5 * dt * dt * a
        err_prev = np.inf
        for it in range(max_iter + 1):
            phi = asm.phi(q, t)
            err = float(np.abs(phi).max())
            if err <= tol:
                break
            if it == max_iter:
                raise ConvergenceError(f"driven inverse dynamics: positions do not close at "
                                       f"t = {t:.6g} s (max |Φ| = {err:.2e}); the drive may "
                                       "reach a singular or unreachable configuration",
                                       where=f"t = {t:.6g} s")
            # the last instant's factorization while it contracts fast (the Jacobian
            # moves little in a step), a fresh one where it does not
            if err > 0.1 * err_prev:
                lu = None
            if lu is None:
                lu = Factorization(asm.jacobian(q, t), f"constraint Jacobian at t = {t:.6g} s")
            q = q - lu.solve(phi)
            err_prev = err
        t_prev = t
        J = asm.jacobian(q, t)
        lu = Factorization(J, f"constraint Jacobian at t = {t:.6g} s")
        v = lu.solve(-asm.phi_t(q, t))
        f_qv = asm.inertia_forces(q, v, np.zeros(asm.n))[0]     # quadratic-velocity forces
        f_int = asm.internal_forces(q, v)[0] + asm.damping_force(v) + f_qv
        a, lam = _accelerations(asm, lu, q, v, t, zk, zh, f_int)
        Ma, fe = asm.inertia_forces(q, v, a)[0] - f_qv, asm.external_forces(t, q)
        reac = asm.reaction(asm.jacobian_values(q, t), lam, q)
        r = Ma + f_int - fe + reac
        scale = max(np.linalg.norm(Ma), np.linalg.norm(fe), np.linalg.norm(f_int),
                    np.linalg.norm(reac), 1e-300)
        res.record(t, q, v, a, lam, residual_dynamics=float(np.linalg.norm(r) / scale),
                   residual_dynamics_N=float(np.linalg.norm(r)),
                   residual_constraints=float(np.abs(asm.phi(q, t)).max()),
                   residual_velocity=float(np.abs(J @ v + asm.phi_t(q, t)).max()),
                   iterations=it)
    return res.finish()


def _accelerations(asm, lu: Factorization, q, v, t: float, zk, zh, f_int):
    """``(q̈, λ)`` of ``[[M, Wᵀ], [Φ_q, 0]] [q̈; λ] = [f − f_int; γ]`` with the square
    ``Φ_q`` factorized in ``lu``: ``q̈ = Φ_q⁻¹ γ``, then ``λ = W⁻ᵀ (f − f_int − M q̈)``
    (``W`` is ``Φ_q`` but on servo rows, whose columns are the actuators' ``−B``): two
    LUs of n unknowns instead of one of 2n, a quarter of its operations."""
    n = asm.n
    S = asm.saddle(1.0, 0.0, zk, zh, asm.jacobian_values(q, t), 1.0, q=q)
    M, Wt = S[:n, :n], S[:n, n:]
    a = lu.solve(asm.gamma(q, v, t))
    rhs = asm.external_forces(t, q) - f_int - M @ a
    lam = Factorization(Wt, f"[[M, Φ_qᵀ], [Φ_q, 0]] at t = {t:.6g} s (its columns "
                        f"Φ_qᵀ)").solve(rhs)
    return a, lam


def _times(times) -> np.ndarray:
    """The instants: finite, at least one, strictly increasing."""
    what = "driven_inverse_dynamics: times"
    try:
        t = np.asarray(times, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be numbers [s]; got {times!r:.80}") from None
    if t.size == 0:
        raise ModelError(f"{what} is empty: give at least one instant [s]")
    if not np.all(np.isfinite(t)):
        raise ModelError(f"{what} must be finite; got {times!r:.80}")
    if np.any(np.diff(t) <= 0):
        raise ModelError(f"{what} must increase strictly (each instant starts Newton from "
                         f"the previous one); got {times!r:.80}")
    return t
