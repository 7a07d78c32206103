"""Closed forms for straight beams and rods: cantilevers and the spinning clamped beam.

Linear Euler–Bernoulli (optionally Timoshenko) cantilever deflections and clamped–free
frequencies, clamped–free rod (axial / torsion) frequencies, the axial stretch of a rod
spinning about its clamped end, and the first in-plane eigenfrequency of a clamped beam
spinning at Ω (an exact Frobenius power series).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import ModelError
from ..core.validate import checked, integer, nonnegative, positive

__all__ = ["BETA_L", "clamped_free_beta_l", "beam_beta_l", "BOUNDARIES",
           "cantilever_tip_deflection", "cantilever_frequencies", "fixed_free_rod_frequencies",
           "cantilever_elastica", "rotating_rod_stretch", "rotating_beam_frequency"]

BETA_L = np.array([1.875104068711961, 4.694091132974175, 7.854757438237613])
"""The first three roots βₙL of ``1 + cos(βL) cosh(βL) = 0`` (clamped–free beam;
e.g. Blevins, *Formulas for Natural Frequency and Mode Shape*, 1979, Table 8-1)."""


def clamped_free_beta_l(n_modes: int) -> np.ndarray:
    """The first ``n_modes`` roots βₙL of the clamped–free frequency equation.

    ``1 + cos(βL) cosh(βL) = 0``, solved as ``cos x + 1/cosh x = 0`` (the same roots,
    bounded for large x) by Brent's method on ``[(n − ½)π − ½, (n − ½)π + ½]``; the roots
    approach ``(2n − 1)π/2`` (Blevins 1979, Table 8-1).

    Parameters
    ----------
    n_modes : int
        How many roots.

    Returns
    -------
    ndarray (n_modes,)
        βₙL, ascending (1.87510, 4.69409, 7.85476, 10.99554, ...).
    """
    from scipy.optimize import brentq  # when needed: half a second to import

    def f(x: float) -> float:
        return float(np.cos(x) + 1.0 / np.cosh(x))

    centres = (np.arange(1, n_modes + 1) - 0.5) * np.pi
    return np.array([brentq(f, c - 0.5, c + 0.5, xtol=1e-15) for c in centres])


BOUNDARIES = ("clamped-free", "free-free", "clamped-clamped", "pinned-pinned",
              "pinned-clamped")
"""End conditions of :func:`beam_beta_l`."""

_FREQUENCY_EQUATIONS = {
    # (frequency equation f(x) = 0 in x = βL, bounded for large x, and the asymptotic
    # root of mode n); Blevins (1979), Table 8-1
    "clamped-free": (lambda x: np.cos(x) + 1.0 / np.cosh(x), lambda n: (n - 0.5) * np.pi),
    "free-free": (lambda x: np.cos(x) - 1.0 / np.cosh(x), lambda n: (n + 0.5) * np.pi),
    "clamped-clamped": (lambda x: np.cos(x) - 1.0 / np.cosh(x), lambda n: (n + 0.5) * np.pi),
    "pinned-pinned": (np.sin, lambda n: n * np.pi),
    "pinned-clamped": (lambda x: np.sin(x) - np.cos(x) * np.tanh(x),
                       lambda n: (n + 0.25) * np.pi),
}


def beam_beta_l(boundary: str, n_modes: int) -> np.ndarray:
    """The first ``n_modes`` roots βₙL of a uniform Euler–Bernoulli beam's frequency
    equation for the end conditions ``boundary``.

    ``fₙ = (βₙL)² √(EI / ρA L⁴) / 2π`` for every case (Blevins 1979, Table 8-1):

    * ``"clamped-free"``: ``1 + cos βL cosh βL = 0`` (1.87510, 4.69409, 7.85476, …);
    * ``"free-free"`` and ``"clamped-clamped"``: ``cos βL cosh βL = 1`` (4.73004, 7.85320,
      10.99561, …; the free–free beam has two rigid modes besides);
    * ``"pinned-pinned"``: ``sin βL = 0`` (nπ);
    * ``"pinned-clamped"``: ``tan βL = tanh βL`` (3.92660, 7.06858, 10.21018, …).

    Each equation is written bounded for large βL (divided by ``cosh βL``) and solved by
    Brent's method within ±0.5 of its asymptotic root.

    Parameters
    ----------
    boundary : str
        One of :data:`BOUNDARIES`.
    n_modes : int
        How many roots.

    Returns
    -------
    ndarray (n_modes,)
        βₙL, ascending.
    """
    from scipy.optimize import brentq  # when needed: half a second to import

    if boundary not in _FREQUENCY_EQUATIONS:
        raise ValueError(f"beam_beta_l: boundary must be one of {BOUNDARIES}, "
                         f"got {boundary!r}")
    n_modes = integer(n_modes, "n_modes", minimum=1)
    f, guess = _FREQUENCY_EQUATIONS[boundary]
    return np.array([brentq(lambda x: float(f(x)), guess(n) - 0.5, guess(n) + 0.5,
                            xtol=1e-15) for n in range(1, n_modes + 1)])


def cantilever_elastica(load: float, n_points: int = 0,
                        method: str = "RK45") -> tuple[float, float] | np.ndarray:
    """Tip of the inextensible, unshearable cantilever elastica under a dead tip load
    perpendicular to the undeformed axis.

    ``θ″(s) = −k cos θ`` on ``s = x/L ∈ [0, 1]`` with ``k = PL²/EI``, clamped
    ``θ(0) = 0``, moment-free tip ``θ′(1) = 0``; ``x′ = cos θ``, ``w′ = sin θ``.  Solved
    by shooting on ``θ′(0) ∈ [0, k]`` (Brent) with ``solve_ivp`` at rtol = atol = 1e-12.
    Mattiasson (1981, Int. J. Numer. Meth. Eng. 17: 145–153) tabulates the tip
    (w/L, u/L = 1 − x/L) = (0.30172, 0.05643), (0.49346, 0.16064), (0.71379, 0.38763) for
    k = 1, 2, 5, which this reproduces to 2e-5.

    Parameters
    ----------
    load : float
        ``k = PL²/EI`` (≥ 0).
    n_points : int
        0: the tip only; otherwise the deformed centre line at ``n_points`` equally
        spaced arc lengths.
    method : str
        ``solve_ivp``'s method at the same tolerances: "DOP853" takes a third of the
        time of the default and differs from it by ~1e-13 (a curve to draw).

    Returns
    -------
    (float, float) or ndarray (n_points, 2)
        Tip (x/L, w/L), or the centre line's (x/L, w/L).
    """
    from scipy.integrate import solve_ivp
    from scipy.optimize import brentq  # when needed: half a second to import

    k = float(nonnegative(load, "load"))
    if k == 0.0:
        return (1.0, 0.0) if not n_points else np.column_stack(
            [np.linspace(0.0, 1.0, n_points), np.zeros(n_points)])

    def rhs(_s, y):
        return [y[1], -k * np.cos(y[0]), np.cos(y[0]), np.sin(y[0])]

    def shoot(c, s_eval=None):
        return solve_ivp(rhs, (0.0, 1.0), [0.0, c, 0.0, 0.0], rtol=1e-12, atol=1e-12,
                         t_eval=s_eval, method=method)

    c = brentq(lambda c: shoot(c).y[1, -1], 0.0, k * (1 + 1e-9))
    if n_points:
        y = shoot(c, np.linspace(0.0, 1.0, n_points)).y
        return np.column_stack([y[2], y[3]])
    y = shoot(c).y[:, -1]
    return float(y[2]), float(y[3])


@checked(L=positive, EI=positive)
def cantilever_tip_deflection(L: float, EI: float, q: float = 0.0, F: float = 0.0,
                              kGA: float = np.inf) -> float:
    """Tip deflection of a cantilever under a uniform load and a tip force.

    Euler–Bernoulli, with the Timoshenko shear terms when ``kGA`` is finite::

        w(L) = q L⁴ / 8EI + F L³ / 3EI + q L² / 2kGA + F L / kGA

    (Timoshenko & Gere, *Mechanics of Materials*, Appendix G; the shear terms from
    Timoshenko & Goodier, *Theory of Elasticity*, §21).

    Parameters
    ----------
    L : float
        Length [m].
    EI : float
        Bending stiffness [N·m²].
    q : float
        Distributed load per length [N/m], positive along the deflection.
    F : float
        Tip force [N], positive along the deflection.
    kGA : float
        Shear stiffness (shear factor × G × A) [N]; ``inf`` (default): Euler–Bernoulli.

    Returns
    -------
    float
        Tip deflection [m], positive along the loads.
    """
    w = q * L**4 / (8 * EI) + F * L**3 / (3 * EI)
    if np.isfinite(kGA):
        w += q * L**2 / (2 * kGA) + F * L / kGA
    return w


@checked(L=positive, EI=positive, rho_A=positive,
         n_modes=lambda v, w: integer(v, w, minimum=1))
def cantilever_frequencies(L: float, EI: float, rho_A: float,
                           n_modes: int = 3) -> np.ndarray:
    """Clamped–free Euler–Bernoulli bending frequencies [Hz].

    ``fₙ = (βₙL)² √(EI / ρA L⁴) / 2π`` with βₙL of :data:`BETA_L` (further roots from
    :func:`clamped_free_beta_l`); Blevins (1979), Table 8-1.  Ratios to the first:
    6.267, 17.55, 34.39.

    Parameters
    ----------
    L, EI, rho_A : float
        Length [m], bending stiffness [N·m²], mass per length [kg/m].
    n_modes : int
        How many frequencies.

    Returns
    -------
    ndarray (n_modes,)
        Frequencies [Hz], ascending.
    """
    beta = BETA_L[:n_modes] if n_modes <= BETA_L.size else clamped_free_beta_l(n_modes)
    return beta**2 * np.sqrt(EI / (rho_A * L**4)) / (2 * np.pi)


@checked(L=positive, wave_speed=positive, n_modes=lambda v, w: integer(v, w, minimum=1))
def fixed_free_rod_frequencies(L: float, wave_speed: float, n_modes: int = 3) -> np.ndarray:
    """Clamped–free rod frequencies [Hz] (axial or torsional waves).

    ``fₙ = (2n − 1) / (4L) · c`` with ``c = √(E/ρ)`` for axial and ``c = √(GJ / ρI_p)``
    for torsional vibration (Blevins 1979, Tables 8-16 and 8-19).

    Parameters
    ----------
    L : float
        Length [m].
    wave_speed : float
        ``c`` [m/s] (axial) or the torsional analogue.
    n_modes : int
        How many frequencies, the lowest first.

    Returns
    -------
    ndarray (n_modes,)
        Frequencies [Hz], ascending.
    """
    n = np.arange(1, n_modes + 1)
    return (2 * n - 1) / (4 * L) * wave_speed


@checked(L=positive, E=positive, rho=nonnegative)
def rotating_rod_stretch(omega: float, L: float, E: float, rho: float) -> float:
    """Axial tip displacement [m] of a rod spinning at Ω about its clamped end.

    The centrifugal stress ``σ(x) = ρΩ²(L² − x²)/2`` integrates to
    ``u(L) = ∫σ/E dx = ρΩ²L³ / 3E`` (linear elasticity, small strain; Fan and Zhang 2016,
    Kane's spin-up beam).

    Parameters
    ----------
    omega, L : float
        Spin rate Ω [rad/s], length [m].
    E, rho : float
        Young's modulus [Pa], density [kg/m³].
    """
    return rho * omega**2 * L**3 / (3 * E)


def _boundary_determinant(w: np.ndarray, omega: float, L: float, EI: float, rho_A: float,
                          n_terms: int) -> np.ndarray:
    """The free-end determinant of the rotating-beam power series at the frequencies w.

    ``v(ξ) = Σ cₙ ξⁿ`` on ξ = x/L ∈ [0, 1] solves the equation of
    :func:`rotating_beam_frequency` when, for k ≥ 0,

        c_{k+4} = (a ((k+2)(k+1) c_{k+2} − k(k+1) c_k) + b c_k) / ((k+1)(k+2)(k+3)(k+4))

    with ``a = ρAΩ²L⁴/2EI``, ``b = ρA(Ω² + ω²)L⁴/EI``; the clamp gives c₀ = c₁ = 0 and two
    independent columns (c₂, c₃) = (1, 0), (0, 1).  The free end needs v″(1) = v‴(1) = 0:
    the determinant of ``[Σ n(n−1)cₙ, Σ n(n−1)(n−2)cₙ]`` over both columns.  The
    recursion runs once for every frequency and both columns at a time.

    Parameters
    ----------
    w : ndarray (G,)
        Trial frequencies ω [rad/s].
    omega, L, EI, rho_A : float
        As in :func:`rotating_beam_frequency`.
    n_terms : int
        Recursion steps (series terms beyond c₃).

    Returns
    -------
    ndarray (G,)
    """
    w = np.asarray(w, dtype=float)
    a = rho_A * omega**2 * L**4 / (2 * EI)
    b = rho_A * (omega**2 + w * w) * L**4 / EI                     # (G,)
    c = np.zeros((n_terms + 4, 2, w.size))
    c[2, 0] = 1.0
    c[3, 1] = 1.0
    for k in range(n_terms):
        c[k + 4] = (a * ((k + 2) * (k + 1) * c[k + 2] - k * (k + 1) * c[k])
                    + b * c[k]) / ((k + 1) * (k + 2) * (k + 3) * (k + 4))
    # the sums cancel strongly for large Ω: sum each series along a contiguous last axis
    # (NumPy's pairwise summation, the rounding of a 1-D np.sum over the coefficients)
    c = np.ascontiguousarray(np.moveaxis(c, 0, -1))                # (2, G, n_terms + 4)
    n = np.arange(n_terms + 4)
    d2 = np.sum(n * (n - 1) * c, axis=-1)                          # v″(1): (2, G)
    d3 = np.sum(n * (n - 1) * (n - 2) * c, axis=-1)                # v‴(1)
    return d2[0] * d3[1] - d3[0] * d2[1]


def rotating_beam_frequency(omega: float, L: float, EI: float, rho_A: float,
                            n_terms: int = 400) -> float:
    """First in-plane bending eigenfrequency [rad/s] of a clamped beam spinning at Ω.

    The exact Frobenius power series of the in-plane equation

        EI v'''' − (T v′)′ − ρAΩ² v = ρAω² v,     T(x) = ρAΩ²(L² − x²)/2

    (centrifugal tension stiffens, the −ρAΩ²v term softens; Fan and Zhang 2016, Kane's spin-up
    beam; e.g. Wright, Smith, Thresher & Wang, J. Appl. Mech. 49 (1982) 197–202 for the
    Frobenius method), clamped at x = 0 (v = v′ = 0), free at L (v″ = v‴ = 0, T(L) = 0).
    ω is the first root of the 2 × 2 boundary determinant: sampled on 600 frequencies
    up to ``3 ω₁(0) + 2Ω`` (the series recursion vectorized over the grid), the first
    sign change refined by Brent's method to ``xtol = 1e-12``.  At Ω = 0 it is the
    clamped–free ``(1.8751)² √(EI / ρAL⁴) = 3.516 √(EI / ρAL⁴)``.

    Parameters
    ----------
    omega : float
        Spin rate Ω [rad/s].
    L : float
        Length [m].
    EI : float
        In-plane bending stiffness [N·m²].
    rho_A : float
        Mass per length [kg/m].
    n_terms : int
        Series terms (400 converge well beyond Ω ≈ 3 ω₁(0)).

    Returns
    -------
    float
        ω₁ [rad/s].
    """
    from scipy.optimize import brentq  # when needed: half a second to import

    def det(w: float) -> float:
        return float(_boundary_determinant(np.array([w]), omega, L, EI, rho_A, n_terms)[0])

    w1 = 3.516 * np.sqrt(EI / (rho_A * L**4))
    grid = np.linspace(1e-3, 3.0 * w1 + 2.0 * omega, 600)
    with np.errstate(over="ignore", invalid="ignore"):
        d = _boundary_determinant(grid, omega, L, EI, rho_A, n_terms)
    if not np.all(np.isfinite(d)):
        raise ModelError(f"rotating_beam_frequency: Ω = {omega:g} rad/s is past the power "
                         f"series' range for this beam (its terms overflow; ω₁(0) = "
                         f"{w1:.4g} rad/s, the series holds to a few ω₁(0)); no reference "
                         "frequency there")
    change = np.flatnonzero(np.sign(d[:-1]) != np.sign(d[1:]))
    if change.size == 0:
        raise ValueError(f"rotating_beam_frequency: no root of the boundary determinant "
                         f"below {grid[-1]:.4g} rad/s (Ω = {omega:g}); raise n_terms?")
    i = int(change[0])
    return float(brentq(det, grid[i], grid[i + 1], xtol=1e-12))
