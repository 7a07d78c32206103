"""Planar rigid double pendulums in minimal coordinates (independent ODE references).

Lagrange's equations in the two absolute link angles, integrated by SciPy's DOP853 at
tight tolerances: a general compound double pendulum (:func:`double_pendulum_angles`)
and the pendulum of two equal uniform rods, returning its second tip
(:func:`rod_double_pendulum_tip`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.integrate import solve_ivp

__all__ = ["double_pendulum_angles", "rod_double_pendulum_tip"]


def double_pendulum_angles(t: np.ndarray, m1: float, m2: float, L1: float, L2: float,
                           J1: float, J2: float, g: float,
                           theta0: Sequence[float] = (0.0, 0.0),
                           omega0: Sequence[float] = (0.0, 0.0),
                           c1: float | None = None, c2: float | None = None,
                           rtol: float = 1e-12, atol: float = 1e-12,
                           rates: bool = False) -> np.ndarray:
    """Absolute link angles θ₁(t), θ₂(t) of a planar compound double pendulum.

    Link 1 turns about a fixed pivot, link 2 about the end of link 1 (distance ``L1``);
    ``c1``, ``c2`` are the centre-of-mass distances from each link's joint, ``J1``, ``J2``
    the inertias about the axis through the centre of mass; θ is measured from the
    horizontal, positive against gravity.  Lagrange's equations (e.g. Meriam & Kraige,
    *Engineering Mechanics: Dynamics*; Goldstein, *Classical Mechanics*, §1.6)::

        M(θ) θ̈ + m₂L₁c₂ sin(θ₁−θ₂) [θ̇₂², −θ̇₁²] + g [(m₁c₁+m₂L₁) cos θ₁, m₂c₂ cos θ₂] = 0
        M = [[m₁c₁² + J₁ + m₂L₁², m₂L₁c₂ cos(θ₁−θ₂)], [·, m₂c₂² + J₂]]

    integrated with DOP853 (``rtol``, ``atol``).

    Parameters
    ----------
    t : ndarray (n,)
        Output times [s], ascending; the integration starts at ``t[0]``.
    m1, m2 : float
        Link masses [kg].
    L1, L2 : float
        Link lengths [m] (``L2`` only sets the default ``c2``).
    J1, J2 : float
        Inertias about the centre of mass, normal to the plane [kg·m²].
    g : float
        Gravity [m/s²].
    theta0, omega0 : (float, float)
        Initial angles [rad] and rates [rad/s].
    c1, c2 : float, optional
        Centre-of-mass distances; default ``L1/2``, ``L2/2`` (uniform links).
    rtol, atol : float
        Integrator tolerances.
    rates : bool
        Also return the rates θ̇₁, θ̇₂ (the integrator's state, as accurate as the angles).

    Returns
    -------
    ndarray (n, 2), or (n, 4) with ``rates``
        θ₁, θ₂ [rad] at ``t`` (then θ̇₁, θ̇₂ [rad/s]).
    """
    c1 = L1 / 2 if c1 is None else c1
    c2 = L2 / 2 if c2 is None else c2

    def rhs(_t, y):
        t1, t2, w1, w2 = y
        c, s = np.cos(t1 - t2), np.sin(t1 - t2)
        M = np.array([[m1 * c1**2 + J1 + m2 * L1**2, m2 * L1 * c2 * c],
                      [m2 * L1 * c2 * c, m2 * c2**2 + J2]])
        f = -np.array([m2 * L1 * c2 * s * w2**2 + (m1 * c1 + m2 * L1) * g * np.cos(t1),
                       -m2 * L1 * c2 * s * w1**2 + m2 * c2 * g * np.cos(t2)])
        return [w1, w2, *np.linalg.solve(M, f)]

    t = np.asarray(t, float)
    y0 = [theta0[0], theta0[1], omega0[0], omega0[1]]
    sol = solve_ivp(rhs, (float(t[0]), float(t[-1])), y0, method="DOP853", t_eval=t,
                    rtol=rtol, atol=atol)
    return sol.y.T.copy() if rates else sol.y[:2].T


def rod_double_pendulum_tip(t: np.ndarray, L: float, g: float,
                            phi0: Sequence[float] = (0.0, 0.0)) -> np.ndarray:
    """Second tip (x, y) of the double pendulum of two equal uniform rods, from rest.

    Absolute angles φ from +x, gravity along −y; Lagrange's equations divided by mL²
    (the mass cancels)::

        [4/3, ½c; ½c, 1/3] φ̈ = [−½ s φ̇₂² − 3/2 (g/L) cos φ₁,  ½ s φ̇₁² − ½ (g/L) cos φ₂]

    with ``c, s = cos, sin(φ₁ − φ₂)`` — :func:`double_pendulum_angles` with
    ``m₁ = m₂``, ``c = L/2``, ``J = mL²/12``; integrated with DOP853 at rtol = 1e-11,
    atol = 1e-12.  The reference of the falling two-link arm of Fan and Zhang 2016, made stiff.

    Parameters
    ----------
    t : ndarray (n,)
        Output times [s], ascending; the pendulum is at rest at ``t[0]``.
    L : float
        Rod length [m].
    g : float
        Gravity [m/s²].
    phi0 : (float, float)
        Initial absolute angles [rad].

    Returns
    -------
    ndarray (n, 2)
        ``L (cos φ₁ + cos φ₂), L (sin φ₁ + sin φ₂)`` [m].
    """
    def rhs(_, y):
        p1, p2, w1, w2 = y
        c, s = np.cos(p1 - p2), np.sin(p1 - p2)
        M = np.array([[4 / 3, 0.5 * c], [0.5 * c, 1 / 3]])
        b = np.array([-0.5 * s * w2**2 - 1.5 * g / L * np.cos(p1),
                      0.5 * s * w1**2 - 0.5 * g / L * np.cos(p2)])
        return [w1, w2, *np.linalg.solve(M, b)]

    t = np.asarray(t, float)
    sol = solve_ivp(rhs, (t[0], t[-1]), [phi0[0], phi0[1], 0.0, 0.0], t_eval=t,
                    rtol=1e-11, atol=1e-12, method="DOP853")
    p1, p2 = sol.y[0], sol.y[1]
    return np.column_stack([L * (np.cos(p1) + np.cos(p2)), L * (np.sin(p1) + np.sin(p2))])
