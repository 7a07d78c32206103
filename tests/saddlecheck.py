"""The iteration matrix a compiled loop forms itself against the system's saddle."""

from __future__ import annotations

import numpy as np

from fem.solvers.dynamic import GeneralizedAlpha


def compiled_and_saddle(model, q, v, a, lam, t: float = 0.01, h: float = 1e-3):
    """``(S, ref)``: the iteration matrix :class:`ConstantIteration` forms in its
    compiled loop at ``(q, q̇, q̈, λ, t)`` and :meth:`System.saddle` from the general
    methods (dense), with the step coefficients of ``h`` at ρ∞ = 0.8."""
    asm = model.assemble()
    ga = GeneralizedAlpha(model, 0.8)
    fast = ga._constant
    assert fast is not None and fast.factorizes
    k = ga.alpha.at(h)
    S = fast.iteration_matrix(q, v, a, lam, t, k)
    bp = k.beta_prime
    ref = asm.saddle(1.0, 1.0 / bp, asm.internal_forces(q, v, tangent=True)[1],
                     asm.hessian_values(lam, q), asm.jacobian_values(q, t), 1.0, q=q,
                     cC=k.gamma_prime / bp, inertia=asm.inertia_forces(q, v, a, True)[1])
    ref = ref.toarray() if hasattr(ref, "toarray") else np.asarray(ref)
    assert S.shape == ref.shape
    return S, ref
