"""Deformation bases of a floating-frame link (Fan and Zhang 2016, eqs 4–33).

A basis describes the elastic displacement field of a straight link of length ``L``
clamped to its floating frame at ``x = 0``, in one uniform form::

    u_x(x) = Σ a_j X_j(x) − ½ Σ_kl (b_k b_l + c_k c_l) H_kl(x)      (eqs 2–3)
    u_y(x) = Σ b_k Y_k(x),   u_z(x) = Σ c_k Y_k(x),   φ(x) = Σ d_j X_j(x)

with ``H_kl(x) = ∫₀ˣ Y_k′ Y_l′ dξ`` the foreshortening integrals.  The axial and torsion
fields share the functions ``X`` (value zero at the clamp), both transverse fields share
``Y`` (value and slope zero at the clamp).  A family is a subclass of
:class:`DeformationBasis` registered by name::

    @register("bezier")
    class Bezier(DeformationBasis):
        def axial(self, x): ...      # (X, X′)     each (n_pts, n_axial)
        def bending(self, x): ...    # (Y, Y′, Y″) each (n_pts, n_bending)

``n`` (the constructor argument) is the number of functions per transverse field; each
family chooses the matching axial count.  ``breakpoints`` are the abscissae where the
functions lose smoothness; the link's quadrature is a Gauss rule per piece.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..core.lazy import lazy_exports
from ..core.registry import Registry

__all__ = ["DeformationBasis", "register", "get", "available", "gauss_rule",
           "foreshortening"]

_REGISTRY: Registry = Registry("deformation basis", "bases", lambda: _load_builtin())


# the registry's bound methods: register(name), get(name), available()
register = _REGISTRY.register
get = _REGISTRY.get
available = _REGISTRY.available


def _load_builtin() -> None:
    from . import hermite, modes, splines  # noqa: F401


class DeformationBasis:
    """Shape functions of one link (see module docstring).

    Parameters
    ----------
    length : float
        Link length ``L`` [m].
    n : int
        Number of functions per transverse field.
    """

    name: ClassVar[str] = "?"
    min_n: ClassVar[int] = 1
    gauss_points: ClassVar[int] = 6      # per piece of the quadrature

    def __init__(self, length: float, n: int):
        from ..core.validate import integer, positive

        self.length = positive(length, f"basis {self.name!r}: length", "m")
        self.n = integer(n, f"basis {self.name!r}: number of functions n",
                         minimum=self.min_n)

    @property
    def breakpoints(self) -> np.ndarray:
        return np.array([0.0, self.length])

    def axial(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Axial/torsion functions ``X`` and ``X′`` at ``x``: each (n_pts, n_axial)."""
        raise NotImplementedError

    def bending(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Transverse functions ``Y, Y′, Y″`` at ``x``: each (n_pts, n)."""
        raise NotImplementedError

    @property
    def n_axial(self) -> int:
        return self.axial(np.zeros(1))[0].shape[1]

    def quadrature(self) -> tuple[np.ndarray, np.ndarray]:
        """Composite Gauss points and weights over ``[0, L]``, one rule per piece."""
        return gauss_rule(self.breakpoints, self.gauss_points)

    def quadrature_size(self) -> int:
        """The number of points :meth:`quadrature` gives, known before it is computed
        (a link's memory is estimated from it: :class:`fem.elements.floating_frame.
        FloatingFrameLink`)."""
        return (len(self.breakpoints) - 1) * self.gauss_points


def gauss_rule(breaks: np.ndarray, n_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre rule of ``n_points`` on every interval of ``breaks``."""
    s, w = np.polynomial.legendre.leggauss(n_points)
    a, b = breaks[:-1, None], breaks[1:, None]
    x = 0.5 * (a + b) + 0.5 * (b - a) * s
    return x.ravel(), (0.5 * (b - a) * w).ravel()


def foreshortening(basis: DeformationBasis, x: np.ndarray) -> np.ndarray:
    """``H_kl(x) = ∫₀ˣ Y_k′ Y_l′ dξ`` (eq 3) at the points ``x``: (n_pts, n, n).

    The integral runs piecewise over the basis' breakpoints, each piece (whole or cut
    at ``x``) with the basis' Gauss rule — exact for the polynomial bases.  Symmetric to
    the bit."""
    x = np.asarray(x, float).ravel()
    br = basis.breakpoints
    s, w = np.polynomial.legendre.leggauss(basis.gauss_points + 2)
    # integration limits of every (point, piece) pair: [a, min(b, x)] where a < x
    a = br[None, :-1]
    b = np.minimum(br[None, 1:], x[:, None])
    span = np.clip(b - a, 0.0, None)                           # (n_pts, n_pieces)
    xi = 0.5 * (a + a + span)[..., None] + 0.5 * span[..., None] * s   # (p, k, g)
    _, d1, _ = basis.bending(xi.ravel())
    d1 = d1.reshape(*xi.shape, -1)
    wt = 0.5 * span[..., None] * w                             # (p, k, g)
    H = np.einsum("pkg,pkgi,pkgj->pij", wt, d1, d1)
    # symmetric to the bit (the kernels take H's rows for its columns)
    return 0.5 * (H + np.swapaxes(H, 1, 2))

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
