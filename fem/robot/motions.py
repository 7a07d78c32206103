"""Joint motions for servo motors and controllers' references."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.errors import ModelError
from ..core.validate import finite, positive

__all__ = ["rest_to_rest", "tabulated", "table"]


def rest_to_rest(amplitude: float, duration: float, start: float = 0.0
                 ) -> Callable[[float], tuple[float, float, float]]:
    """``motion(t) -> (x, ẋ, ẍ)`` from ``start`` to ``start + amplitude`` in
    ``duration`` [s], at rest before and after: ``x = start + A s(τ)``, ``τ = t/T``,
    ``s = 35τ⁴ − 84τ⁵ + 70τ⁶ − 20τ⁷`` (the septic whose rate, acceleration and jerk
    vanish at both ends, so a flexible link is not jerked into ringing)."""
    A = finite(amplitude, "rest_to_rest: amplitude")
    T = positive(duration, "rest_to_rest: duration", "s")
    x0 = finite(start, "rest_to_rest: start")

    def motion(t: float) -> tuple[float, float, float]:
        s = min(max(t / T, 0.0), 1.0)
        return (x0 + A * (35 * s**4 - 84 * s**5 + 70 * s**6 - 20 * s**7),
                A * (140 * s**3 - 420 * s**4 + 420 * s**5 - 140 * s**6) / T,
                A * (420 * s**2 - 1680 * s**3 + 2100 * s**4 - 840 * s**5) / T**2)
    return motion


def _samples(times, values, what: str) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(times, float).ravel()
    x = np.asarray(values, float).ravel()
    if t.size < 2 or x.shape != t.shape or not (np.all(np.isfinite(t))
                                                 and np.all(np.isfinite(x))):
        raise ModelError(f"{what}: times and values must be finite and of one length ≥ 2; "
                         f"got {t.size} times and {x.size} values")
    keep = np.r_[True, np.diff(t) > 0]              # repeated times (a run's restarts)
    t, x = t[keep], x[keep]
    if np.any(np.diff(t) <= 0):
        raise ModelError(f"{what}: times must increase")
    return t, x


def tabulated(times, values) -> Callable[[float], tuple[float, float, float]]:
    """``motion(t) -> (x, ẋ, ẍ)`` through recorded values (a cubic spline with natural
    ends; held at the end values outside the table): a joint trajectory of an
    inverse-dynamics run as a controller's reference."""
    from scipy.interpolate import CubicSpline

    t, x = _samples(times, values, "tabulated")
    spline = CubicSpline(t, x, bc_type="natural")
    d1, d2 = spline.derivative(1), spline.derivative(2)

    def motion(time: float) -> tuple[float, float, float]:
        if time <= t[0] or time >= t[-1]:
            return float(x[0] if time <= t[0] else x[-1]), 0.0, 0.0
        return float(spline(time)), float(d1(time)), float(d2(time))
    return motion


def table(times, values) -> Callable[[float], float]:
    """``f(t)`` interpolating recorded values linearly (held at the ends): an effort
    history of an inverse-dynamics run as a controller's feedforward."""
    t, x = _samples(times, values, "table")
    return lambda time: float(np.interp(time, t, x))
