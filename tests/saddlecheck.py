"""The iteration matrix a compiled loop forms itself against the system's saddle."""

from __future__ import annotations

import numpy as np

from fem.assembly.linalg import BandedMatrix
from fem.solvers.dynamic import GeneralizedAlpha


def compiled_and_saddle(model, q, v, a, lam, t: float = 0.01, h: float = 1e-3,
                        banded: bool = False):
    """``(S, ref)``: the iteration matrix :class:`ConstantIteration` forms in its
    compiled loop at ``(q, q̇, q̈, λ, t)`` and :meth:`System.saddle` from the general
    methods (dense), with the step coefficients of ``h`` at ρ∞ = 0.8.  With ``banded``
    both are :class:`BandedMatrix` in the saddle's band layout (ordering, ``kl``,
    ``ku``), the compiled one formed in band storage."""
    asm = model.assemble()
    ga = GeneralizedAlpha(model, 0.8)
    fast = ga._constant
    assert fast is not None and (fast.factorizes_banded if banded else fast.factorizes)
    k = ga.alpha.at(h)
    bp = k.beta_prime
    ref = asm.saddle(1.0, 1.0 / bp, asm.internal_forces(q, v, tangent=True)[1],
                     asm.hessian_values(lam, q), asm.jacobian_values(q, t), 1.0, q=q,
                     cC=k.gamma_prime / bp, inertia=asm.inertia_forces(q, v, a, True)[1])
    if banded:
        assert isinstance(ref, BandedMatrix)
        S = fast.iteration_matrix(q, v, a, lam, t, k, band=(ref.kl, ref.ku, ref.perm))
        assert S.ab.shape == ref.ab.shape
        return S, ref
    S = fast.iteration_matrix(q, v, a, lam, t, k)
    ref = ref.toarray() if hasattr(ref, "toarray") else np.asarray(ref)
    assert S.shape == ref.shape
    return S, ref
