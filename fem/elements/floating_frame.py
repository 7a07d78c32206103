"""Floating-frame flexible link: the elastic body of seed 002 (eqs 2–3).

A straight link of length ``L`` along the x axis of its floating frame, clamped to the frame
at ``x = 0``.  Its elastic coordinates ``e = [a, b, c, d]`` weight the functions of a
:mod:`fem.bases` basis: axial ``a``, transverse-y ``b``, transverse-z ``c``, torsion ``d``.
The centre line in the frame is

    p(x; e) = (x + X·a − ½ κ (bᵀH(x)b + cᵀH(x)c),  Y·b,  Y·c)

with ``κ = 1`` with the foreshortening coupling and ``κ = 0`` without it; ``p`` is
quadratic in ``e``, so its Jacobian ``P_e`` is linear and its second derivative
``P_ee`` constant (x component only).  The strain energy is the linear one of the
stretch, the two curvatures and the twist (the coupling lives in the kinematics, where it
produces the geometric stiffening through the inertia forces)::

    U = ½ eᵀ K e,  K = diag(EA ∫X′X′ᵀ, EI_z ∫Y″Y″ᵀ, EI_y ∫Y″Y″ᵀ, GJ ∫X′X′ᵀ).

Unlike the families registered in :mod:`fem.elements`, the link's positions are not linear
in its coordinates once it sits on a moving frame: its mass depends on the configuration
(``constant_mass = False``).  :mod:`fem.chains` places links on frames and supplies
``M(q)``, the quadratic-velocity forces and their tangents to the solvers.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .. import bases
from ..errors import ModelError
from ..validate import finite, positive

__all__ = ["FloatingFrameLink"]


class FloatingFrameLink:
    """Section data, basis samples and the local kinematics of one link.

    Parameters
    ----------
    length : float
        ``L`` [m].
    basis : str
        A registered :mod:`fem.bases` name ('modes', 'fe', 'bezier', 'bspline').
    n : int
        Functions per transverse field.
    mass_per_length : float
        ``ρA`` [kg/m].
    EA, EI_y, EI_z, GJ : float
        Axial [N], bending about the frame's y and z axes [N·m²], torsional [N·m²]
        stiffness; ``EI_z`` governs the y deflection ``b`` (in the x–y plane).
    polar_inertia_per_length : float
        ``ρI_p`` [kg·m] of the twist.
    coupling : bool
        Keep the foreshortening term (eq 2).
    """

    constant_mass: ClassVar[bool] = False

    def __init__(self, length: float, basis: str, n: int, mass_per_length: float,
                 EA: float, EI_y: float, EI_z: float, GJ: float = 0.0,
                 polar_inertia_per_length: float = 0.0, coupling: bool = True):
        self.length = positive(length, "floating-frame link: length", "m")
        self.rho_A = positive(mass_per_length, "floating-frame link: mass per length", "kg/m")
        self.EA = positive(EA, "floating-frame link: EA", "N")
        self.EI_y = positive(EI_y, "floating-frame link: EI_y", "N·m²")
        self.EI_z = positive(EI_z, "floating-frame link: EI_z", "N·m²")
        self.GJ = finite(GJ, "floating-frame link: GJ [N·m²]")
        self.rho_Ip = finite(polar_inertia_per_length,
                             "floating-frame link: polar inertia per length [kg·m]")
        if self.GJ < 0 or self.rho_Ip < 0:
            raise ModelError("floating-frame link: GJ and the polar inertia must be >= 0")
        self.coupling = bool(coupling)
        self.basis = bases.get(basis)(self.length, n)
        B = self.basis
        x, w = B.quadrature()
        self.x, self.w = x, w
        X, dX = B.axial(x)
        Y, dY, d2Y = B.bending(x)
        H = bases.foreshortening(B, x)
        na, nb = X.shape[1], Y.shape[1]
        self.na, self.nb = na, nb
        self.slices = {"axial": slice(0, na), "y": slice(na, na + nb),
                       "z": slice(na + nb, na + 2 * nb),
                       "torsion": slice(na + 2 * nb, 2 * na + 2 * nb)}
        ne = self.n_coordinates = 2 * na + 2 * nb
        s = self.slices
        # shape samples for output: X, Y at the quadrature points
        self.X, self.Y = X, Y
        # stiffness (constant)
        K = np.zeros((ne, ne))
        Kaa = np.einsum("p,pi,pj->ij", w, dX, dX)
        Kbb = np.einsum("p,pi,pj->ij", w, d2Y, d2Y)
        K[s["axial"], s["axial"]] = self.EA * Kaa
        K[s["y"], s["y"]] = self.EI_z * Kbb
        K[s["z"], s["z"]] = self.EI_y * Kbb
        K[s["torsion"], s["torsion"]] = self.GJ * Kaa
        self.K = K
        # constant mass of the twist (rotary inertia of the section about the axis)
        Mt = np.zeros((ne, ne))
        Mt[s["torsion"], s["torsion"]] = self.rho_Ip * np.einsum("p,pi,pj->ij", w, X, X)
        self.M_twist = Mt
        # p = p0 + L1 e − ½ x̂ (eᵀ Q e):  Q (P, ne, ne) the coupling block, L1 (P, 3, ne)
        L1 = np.zeros((x.size, 3, ne))
        L1[:, 0, s["axial"]] = X
        L1[:, 1, s["y"]] = Y
        L1[:, 2, s["z"]] = Y
        self.L1 = L1
        Q = np.zeros((x.size, ne, ne))
        if self.coupling:
            Q[:, s["y"], s["y"]] = H
            Q[:, s["z"], s["z"]] = H
        self.Q = Q
        self.p0 = np.column_stack([x, np.zeros_like(x), np.zeros_like(x)])

    # ------------------------------------------------------------- kinematics
    def local(self, e: np.ndarray, x: np.ndarray | None = None):
        """Centre line in the frame at the quadrature points (or at ``x``).

        Returns ``p`` (P, 3), ``P_e = ∂p/∂e`` (P, 3, ne) and ``Q`` with
        ``∂²p/∂e∂e = −x̂ ⊗ Q`` (P, ne, ne)."""
        if x is None:
            L1, Q, p0 = self.L1, self.Q, self.p0
        else:
            L1, Q, p0 = self.samples(x)
        Qe = Q @ e                                            # (P, ne)
        p = p0 + L1 @ e
        p[:, 0] -= 0.5 * Qe @ e
        Pe = L1.copy()
        Pe[:, 0, :] -= Qe
        return p, Pe, Q

    def samples(self, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``L1, Q, p0`` (see :meth:`local`) at arbitrary points ``x`` along the link."""
        x = np.asarray(x, float).ravel()
        if np.any(x < 0) or np.any(x > self.length * (1 + 1e-12)):
            raise ModelError(f"floating-frame link: points must lie in [0, {self.length:g}] m;"
                             f" got {x.tolist()}")
        X, _ = self.basis.axial(x)
        Y, _, _ = self.basis.bending(x)
        s = self.slices
        L1 = np.zeros((x.size, 3, self.n_coordinates))
        L1[:, 0, s["axial"]] = X
        L1[:, 1, s["y"]] = Y
        L1[:, 2, s["z"]] = Y
        Q = np.zeros((x.size, self.n_coordinates, self.n_coordinates))
        if self.coupling:
            H = bases.foreshortening(self.basis, x)
            Q[:, s["y"], s["y"]] = H
            Q[:, s["z"], s["z"]] = H
        p0 = np.column_stack([x, np.zeros_like(x), np.zeros_like(x)])
        return L1, Q, p0

    def twist(self, e: np.ndarray, x) -> np.ndarray:
        """Twist angle ``φ(x)`` [rad]."""
        X, _ = self.basis.axial(np.asarray(x, float).ravel())
        return X @ e[self.slices["torsion"]]

    def strain_energy(self, e: np.ndarray) -> float:
        return 0.5 * float(e @ self.K @ e)
