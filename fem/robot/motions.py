"""Joint motions for servo motors and controllers' references."""

from __future__ import annotations

from collections.abc import Callable

from ..core.validate import finite, positive

__all__ = ["rest_to_rest"]


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
