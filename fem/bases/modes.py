"""Assumed modes: the clamped–free modes of a rod and of a beam (Fan and Zhang 2016, eqs 4–10)."""

from __future__ import annotations

import numpy as np

from . import DeformationBasis, gauss_rule, register


def cantilever_eigenvalues(n: int) -> np.ndarray:
    """Roots ``βL`` of ``1 + cos βL cosh βL = 0`` (clamped–free Euler–Bernoulli beam)."""
    from scipy.optimize import brentq  # when needed: half a second to import

    f = lambda z: np.cos(z) * np.cosh(z) + 1.0
    # past cosh's range (βL > 700, n ≳ 220) the same roots of cos z + 1/cosh z: no
    # overflow (f would be ±inf there)
    g = lambda z: np.cos(z) + 2.0 * np.exp(-z) / (1.0 + np.exp(-2.0 * z))
    return np.array([brentq(f if (k - 0.5) * np.pi + 0.6 < 700.0 else g,
                            (k - 0.5) * np.pi - 0.6 if k > 1 else 1.0,
                            (k - 0.5) * np.pi + 0.6) for k in range(1, n + 1)])


@register("modes")
class CantileverModes(DeformationBasis):
    """``X_j = sin((2j − 1)πx/2L)`` (rod modes), ``Y_k`` the cantilever beam modes::

        Y_k = cosh βx − cos βx − σ_k (sinh βx − sin βx),
        σ_k = (cosh βL + cos βL)/(sinh βL + sin βL)

    with ``cosh βx − σ sinh βx`` formed as ``½[(1 − σ)e^{βx} + (1 + σ)e^{−βx}]`` and
    ``1 − σ`` free of cancellation, so that higher modes keep their digits.

    The functions are analytic, so the link's quadrature is one Gauss–Legendre rule of
    ``4n + 4`` points over the whole link (:meth:`quadrature`): the products of two modes
    oscillate with up to ≈ 2n half-waves, and the rule integrates the mass, stiffness and
    coupling integrals to ≤ 2e-10 relative for n = 1…24 (≈ 4e-14 from n = 12 on).  The
    running integrals (foreshortening, fourth-order terms) keep a rule per piece of
    ``breakpoints``."""

    gauss_points = 6           # per piece of the running integrals

    def quadrature(self) -> tuple[np.ndarray, np.ndarray]:
        """One Gauss–Legendre rule of ``4n + 4`` points over ``[0, L]``."""
        return gauss_rule(np.array([0.0, self.length]), 4 * self.n + 4)

    def quadrature_size(self) -> int:
        """``4n + 4`` (:meth:`quadrature`)."""
        return 4 * self.n + 4

    def __init__(self, length: float, n: int):
        super().__init__(length, n)
        self.beta = cantilever_eigenvalues(self.n) / self.length

    @property
    def breakpoints(self) -> np.ndarray:
        return np.linspace(0.0, self.length, self.n + 2)

    def axial(self, x):
        x = np.asarray(x, float).ravel()[:, None]
        k = (2 * np.arange(1, self.n + 1) - 1) * np.pi / (2 * self.length)
        return np.sin(k * x), k * np.cos(k * x)

    def bending(self, x):
        x = np.asarray(x, float).ravel()[:, None]
        b, L = self.beta, self.length
        bL = b * L
        # cosh βx − σ sinh βx = ½[(1 − σ) e^{βx} + (1 + σ) e^{−βx}], and the same with the
        # sign of the second term flipped for sinh βx − σ cosh βx.  1 − σ ≈ 2 e^{−βL} is
        # formed without cancellation, so (1 − σ) e^{βx} = 2 e^{β(x − L)}·(…)/D keeps its
        # digits where cosh and σ sinh nearly cancel (βL ≈ 49 at the 16th mode).
        r = np.exp(-bL)
        D = 1.0 - r * r + 2.0 * r * np.sin(bL)               # 2 e^{−βL}(sinh βL + sin βL)
        one_m = 2.0 * (np.sin(bL) - np.cos(bL) - r) / D    # (1 − σ) e^{βL}
        one_p = 2.0 - r * one_m                            # 1 + σ
        sig = one_p - 1.0
        z = b * x
        grow = 0.5 * one_m * np.exp(z - bL)                # ½ (1 − σ) e^{βx}
        decay = 0.5 * one_p * np.exp(-z)                   # ½ (1 + σ) e^{−βx}
        hyp0 = grow + decay                                # cosh βx − σ sinh βx
        hyp1 = grow - decay                                # sinh βx − σ cosh βx
        c, s = np.cos(z), np.sin(z)
        Y = hyp0 - c + sig * s
        dY = b * (hyp1 + s + sig * c)
        d2Y = b**2 * (hyp0 + c - sig * s)
        return Y, dY, d2Y
