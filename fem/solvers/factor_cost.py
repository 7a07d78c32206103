"""A clock-free estimate of what a factorization costs, in Newton iterations.

Generalized-α's modified Newton (:class:`fem.solvers.dynamic.GeneralizedAlpha`) renews a
factorization when the iterations it still expects at the observed contraction cost more
than a new one.  It needs one number: the cost of a factorization in units of one
iteration.  Measuring it with the clock made two identical runs differ (the policy's
decisions, hence the iterates, depended on the machine's load), so by default the ratio is
*estimated* once, from counts that depend only on the model and its first iteration
matrix:

* a factorization: a fixed Python cost, the element tangent (per entry of the tangent
  values), the assembly of the iteration matrix (per tangent, Hessian and Jacobian
  entry) and the LU's floating-point operations (:meth:`fem.assembly.linalg.Factorization
  .operations`) at the rate LAPACK or SuperLU reach on one core;
* an iteration: a fixed Python cost, the element forces (per tangent entry: a measure of
  the elements' work), the constraint rows, reactions and actuator columns (per Jacobian
  entry), one solve's operations and, where the iterations run through Python (not in
  the compiled loop of :mod:`fem.solvers.constant_iteration`), a cost per body (its
  evaluation and the general rows on its points; 2026-11-29: the vehicle manipulator's
  reduced arm, nine bodies, estimated 19 with the compiled loop's costs it does not run,
  5.5 now, 5.9 by the clock).

The rates and per-entry costs below were calibrated on the project's 2-core machine
(2026-11-24, one BLAS thread) from timings of every piece on the cable (8–512 elements),
the ANCF beam and the flagship robot (hexagon_6/24/96), and the fixed cost of a
factorization from the clock-measured ratios inside the Newton loop
(``docs/performance.md``, "Factorization policy without the clock").  Only their ratios
matter: a machine uniformly faster or slower gives the same estimate.  Where the policy is
sensitive, they reproduce the clock: the flagship robot's 6-element platform through
Python (estimated 5.1, measured 4.8–5.0: a fresh factorization every step,
``KEEP_ACROSS_STEPS``) and in the compiled loop (10.5 and 10.3: kept across steps; with
its linear rows eliminated from the factorization, 6.2 and ≈ 7.9: kept too), its
24- and 96-element platforms (16 and 41, measured 12–28: kept across steps) and its
reduced platform (2.9, measured ≈ 3: renewed every step).  The cable's
run time is flat for ratios 2–15.

A :class:`fem.assembly.system.System` whose forces cost what the counts cannot see gives its own
ratio as the attribute ``factor_cost_iterations``: the minimal-coordinate chains of
:mod:`fem.model.chains` evaluate their Lagrange equations in Python (0.7).
"""

from __future__ import annotations

import numpy as np

__all__ = ["COST_MODEL", "estimate_factor_cost"]

COST_MODEL: dict[str, float | dict[str, float]] = {
    "iteration_fixed_us": 30.0,
    "iteration_fixed_us_compiled": 5.0,
    "factor_fixed_us": 80.0,
    "force_ns_per_tangent_entry": 1.5,
    "tangent_ns_per_entry": 8.0,
    "assembly_ns_per_entry": 5.0,
    "constraint_ns_per_jacobian_entry": 40.0,
    "constraint_ns_per_jacobian_entry_compiled": 15.0,
    "body_ns_per_data_entry": 0.3,
    "body_us_python": 12.0,
    "lu_gflops": {"dense": 16.0, "banded": 6.0, "sparse": 2.5},
    "solve_gflops": {"dense": 6.0, "banded": 2.8, "sparse": 2.4},
}
"""Calibrated costs of the estimate (µs, ns per entry, Gflop/s; see the module
docstring)."""


def estimate_factor_cost(system, factorization, n_jacobian: int,
                         compiled_iterations: bool = False,
                         operations: tuple[float, float] | None = None) -> float:
    """Cost of one factorization in modified-Newton iterations, from counts alone.

    Parameters
    ----------
    system : fem.assembly.system.System
        The assembled system (``zero_tangent`` gives the sizes of the tangent and Hessian
        values; a ``factor_cost_iterations`` that is not None is returned as it is).
    factorization : fem.assembly.linalg.Factorization
        The first factorization of the iteration matrix.
    n_jacobian : int
        Number of constraint Jacobian values.
    compiled_iterations : bool
        The iterations run in one compiled loop (:mod:`fem.solvers.constant_iteration`):
        their fixed cost is ``iteration_fixed_us_compiled``, measured 4–6 µs on the
        8- and 16-element cables against 30 µs through Python, and a constraint
        Jacobian entry costs ``constraint_ns_per_jacobian_entry_compiled`` (the flagship
        robot, hexagon_6, in the compiled loop: 83 µs an iteration and 857 µs a
        factorization, ratio 10.3 by the clock, 10.5 estimated; 40 ns an entry gave 6.0).
        Bodies with compiled kernels cost ``body_ns_per_data_entry`` per entry of their
        declared data in an iteration and again in a factorization (their tangent):
        the reduced hexagon_96 platform, 320 000 entries, ≈ 100 µs each (estimated
        2.6, measured ≈ 3; without it 6.7, which kept factorizations across steps and
        took 0.45 instead of 0.32 s over the circle).
    operations : tuple of float, optional
        ``(factorization, solve)`` operations of the factorizations the solver makes
        instead of ``factorization``'s (at the same rates): the compiled loop's, with
        the constant linear rows eliminated (:meth:`fem.solvers.elimination.Elimination
        .operations`; hexagon_6: 228 → 126 unknowns, estimated 6.2 instead of 10.5,
        by the clock ≈ 7.9: 450 µs a factorization, 57 µs an iteration).

    Returns
    -------
    float
        The ratio; the same for the same model on any machine and under any load.
    """
    given = getattr(system, "factor_cost_iterations", None)
    if given is not None:
        return float(given)
    c = COST_MODEL
    kvals, hvals = system.zero_tangent()
    nk, nh = float(np.size(kvals)), float(np.size(hvals))
    lu_flops, solve_flops = (factorization.operations() if operations is None
                             else operations)
    kind = factorization.kind
    # bodies nonlinear in their coordinates: their declared data streamed per evaluation
    # (the reduced platform's cubic modal force dominates: 0.3 ns an entry, measured)
    structure = system.constant_structure()
    bodies = (0.0 if structure is None or not structure.has_bodies
              else 1e-3 * c["body_ns_per_data_entry"] * structure.bodies.data.size)
    factor_us = (c["factor_fixed_us"] + bodies + 1e-3 * c["tangent_ns_per_entry"] * nk
                 + 1e-3 * c["assembly_ns_per_entry"] * (nk + nh + n_jacobian)
                 + 1e-3 * lu_flops / c["lu_gflops"][kind])
    tail = "_compiled" if compiled_iterations else ""
    # bodies evaluated through Python in every iteration (outside the compiled loop):
    # their calls and the general rows on their points, about 12 µs a body (the vehicle
    # manipulator's nine reduced links: 267 µs an iteration by the clock, 157 without)
    python_bodies = (0.0 if compiled_iterations
                     else c["body_us_python"] * len(getattr(system, "bodies", ()) or ()))
    iteration_us = (c["iteration_fixed_us" + tail] + bodies + python_bodies
                    + 1e-3 * c["force_ns_per_tangent_entry"] * nk
                    + 1e-3 * c["constraint_ns_per_jacobian_entry" + tail] * n_jacobian
                    + 1e-3 * solve_flops / c["solve_gflops"][kind])
    return factor_us / iteration_us
