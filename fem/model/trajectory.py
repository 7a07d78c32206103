"""Point-to-point motion profiles and Cartesian paths for prescribed-motion problems.

A **motion profile** ``s(t)`` takes a point from rest at ``s = 0`` (``t = 0``) to rest at
``s = distance`` (``t = duration``) in three phases: acceleration over ``t_a``, cruise at
constant speed ``v``, deceleration over ``t_a`` (the time mirror of the acceleration). Every
profile here has the form

    s̈(t) = (v / t_a) g(t / t_a)          0 ≤ t ≤ t_a          (acceleration)
    ṡ(t) = v                             t_a ≤ t ≤ T − t_a    (cruise)
    s̈(t) = −(v / t_a) g((T − t) / t_a)   T − t_a ≤ t ≤ T      (deceleration)

with a normalized acceleration shape ``g(u)`` on ``u ∈ [0, 1]``, symmetric
(``g(u) = g(1 − u)``) and of unit area, so that ``ṡ(t_a) = v`` and the acceleration phase
covers ``v t_a / 2``. The distance therefore fixes the cruise speed:
``distance = v (T − t_a)``. A shape is given by ``g`` and its integrals
``G1(u) = ∫₀ᵘ g`` and ``G2(u) = ∫₀ᵘ G1`` (``G2(1) = 1/2``), in closed form, so positions,
velocities and accelerations are exact (no quadrature).

Shapes:

* :class:`CosineAccelerationProfile` — Liu et al. 2023 eq 45, ``a(t) = H ω² (1 − cos ωt)``
  (the OCR's ``H(ω² sin(ωt − π/2) + ω²)`` is the same function): one full cosine period
  per phase, ``ω = 2π / t_a``, so the acceleration starts and ends at zero (velocity and
  acceleration continuous, jerk finite). Then ``v = 2π H ω`` and
  ``distance = 2π H ω (T − t_a)``: **H, ω, T and the 40 % phases determine the distance**.
* :class:`SineAccelerationProfile` — half-sine acceleration ``g = (π/2) sin πu``.
* :class:`SCurveProfile` — trapezoidal acceleration with linear jerk ramps (classic S-curve).

A **path** maps the profile onto a curve in space: :func:`line_path`, :func:`circle_path`.
The path uses only the *shape* of the profile in time — the fraction ``σ = s / distance`` —
and covers exactly its own length, so a profile built from the paper's rounded ``H`` is
rescaled to the path (documented in ``docs/rrru3_robot.md``). Every callable accepts a
scalar time (returns ``(3,)`` arrays) or an array of times (returns ``(n, 3)`` arrays).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "MotionProfile",
    "CosineAccelerationProfile",
    "SineAccelerationProfile",
    "SCurveProfile",
    "LinePath",
    "CirclePath",
    "line_path",
    "circle_path",
]

FloatArray = NDArray[np.float64]


class MotionProfile(Protocol):
    """What a path needs from a profile: duration, distance and ``s, ṡ, s̈`` at times t."""

    duration: float
    distance: float

    def __call__(self, t: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]: ...


@dataclass(frozen=True)
class _SymmetricProfile:
    """Rest-to-rest profile with a symmetric acceleration shape (see the module docstring).

    Parameters
    ----------
    duration : float
        Total time T of the move [s].
    distance : float
        Distance covered [m] (or [rad], any unit of the path parameter).
    accel_fraction : float
        ``t_a / T``, the share of the acceleration phase (= deceleration phase); Liu et al. 2023
        §5.2 uses 0.4. Must lie in (0, 0.5].
    """

    duration: float
    distance: float
    accel_fraction: float = 0.4

    def __post_init__(self) -> None:
        from ..core.validate import finite, in_range, positive

        what = type(self).__name__
        object.__setattr__(self, "duration", positive(self.duration, f"{what}: duration", "s"))
        object.__setattr__(self, "distance", finite(self.distance, f"{what}: distance"))
        object.__setattr__(self, "accel_fraction", in_range(
            self.accel_fraction, f"{what}: accel_fraction", 0.0, 0.5, low_open=True))

    # --- shape: overridden by each profile --------------------------------------------
    def _g(self, u: FloatArray) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _g1(self, u: FloatArray) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _g2(self, u: FloatArray) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    # --- derived quantities ---------------------------------------------------------
    @property
    def accel_time(self) -> float:
        """Duration ``t_a`` of the acceleration (and of the deceleration) phase [s]."""
        return self.accel_fraction * self.duration

    @property
    def cruise_speed(self) -> float:
        """Cruise speed ``v = distance / (T − t_a)``."""
        return self.distance / (self.duration - self.accel_time)

    @property
    def peak_acceleration(self) -> float:
        """Largest ``|s̈|``: ``(v / t_a) max g``."""
        u = np.linspace(0.0, 1.0, 2001)
        return float(self.cruise_speed / self.accel_time * np.max(self._g(u)))

    vector_exact = False
    """Whether the profile at many times (an array ``t``) gives, time by time, the same
    values to the bit as at each time alone (:meth:`_at`): the paths' ``at_times`` is
    there only then.  Not the S-curve's: its powers of ``u`` differ in the last bit."""

    def _shape_breaks(self) -> tuple[float, ...]:
        """Interior points ``u`` where the shape ``g`` has a kink (none for smooth shapes)."""
        return ()

    def breakpoints(self) -> FloatArray:
        """Times where the profile changes formula: ``0, t_a, T − t_a, T`` and any kinks of
        the acceleration shape (the S-curve's jerk switches); between two consecutive
        breakpoints ``s(t)`` is analytic."""
        ta, T = self.accel_time, self.duration
        inner = [ta * u for u in self._shape_breaks()]
        return np.unique(np.array([0.0, ta, T - ta, T, *inner, *(T - x for x in inner)]))

    def __call__(self, t: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Path parameter, rate and acceleration ``(s, ṡ, s̈)`` at times ``t``.

        Before 0 the point rests at 0, after T at ``distance``. Output has the shape of t.
        """
        if np.ndim(t) == 0:
            return self._at(float(t))
        t = np.asarray(t, dtype=float)
        T, ta, v = self.duration, self.accel_time, self.cruise_speed
        tc = np.clip(t, 0.0, T)
        s = np.empty_like(tc)
        sd = np.empty_like(tc)
        sdd = np.empty_like(tc)

        acc = tc <= ta
        dec = tc >= T - ta
        cru = ~(acc | dec)
        if self.accel_fraction == 0.5:
            dec = dec & ~acc  # the peak time t = T/2 belongs to the acceleration branch

        u = tc[acc] / ta
        s[acc] = v * ta * self._g2(u)
        sd[acc] = v * self._g1(u)
        sdd[acc] = v / ta * self._g(u)

        u = (T - tc[dec]) / ta
        s[dec] = self.distance - v * ta * self._g2(u)
        sd[dec] = v * self._g1(u)
        sdd[dec] = -v / ta * self._g(u)

        s[cru] = 0.5 * v * ta + v * (tc[cru] - ta)
        sd[cru] = v
        sdd[cru] = 0.0

        outside = (t < 0.0) | (t > T)
        sd[outside] = 0.0
        sdd[outside] = 0.0
        return s, sd, sdd


    def _at(self, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """:meth:`__call__` at one time (the same formulas without the masks: a solver
        asks once per step)."""
        T, ta, v = self.duration, self.accel_time, self.cruise_speed
        tc = min(max(t, 0.0), T)
        if tc <= ta:
            u = np.array(tc / ta)
            s, sd, sdd = v * ta * self._g2(u), v * self._g1(u), v / ta * self._g(u)
        elif tc >= T - ta:
            u = np.array((T - tc) / ta)
            s, sd, sdd = (self.distance - v * ta * self._g2(u), v * self._g1(u),
                          -v / ta * self._g(u))
        else:
            s, sd, sdd = 0.5 * v * ta + v * (tc - ta), v, 0.0
        if t < 0.0 or t > T:
            sd = sdd = 0.0
        return np.array(s, float), np.array(sd, float), np.array(sdd, float)


@dataclass(frozen=True)
class CosineAccelerationProfile(_SymmetricProfile):
    """Liu et al. 2023 eq 45: ``a(t) = H ω² (1 − cos ωt)`` in the acceleration phase, mirrored.

    One cosine period per phase, ``ω = 2π / t_a``, so ``a`` is continuous and vanishes at
    the phase ends. Integrating: ``v(t) = H ω² t − H ω sin ωt``, cruise ``v = 2π H ω``,
    acceleration-phase distance ``v t_a / 2``, total ``distance = 2π H ω (T − t_a)``.

    Liu et al. 2023 §5.2–5.3 numbers, checked (``t_a = 0.4 T``):

    * line, T = 0.8 s: ``ω = 2π/0.32 = 19.635`` (liu2023: 19.6), ``H = 0.003`` gives
      ``v = 0.3701`` m/s (liu2023: 0.37) and a distance of 0.17765 m.
    * circle, T = 1.6 s: ``ω = 2π/0.64 = 9.8175`` (liu2023: 9.82), ``H = 0.011`` gives
      ``v = 0.6786`` (liu2023: 0.68) but a distance of 0.6514 m, 3.7 % more than the
      circumference 0.6283 m; closing the circle needs ``H = 0.01061`` (``v = 0.6545``),
      which rounds to the paper's 0.011.

    Build it from the distance (the default) or from the amplitude with
    :meth:`from_amplitude`.
    """

    vector_exact = True
    """Its values at many times are its values at each to the bit (the paths'
    ``at_times``; ``tests/test_constraints.py``)."""

    @classmethod
    def from_amplitude(cls, duration: float, amplitude: float,
                       accel_fraction: float = 0.4) -> CosineAccelerationProfile:
        """Profile with eq 45's amplitude ``H`` [m]: distance ``2π H ω (T − t_a)``."""
        ta = accel_fraction * duration
        omega = 2.0 * np.pi / ta
        distance = 2.0 * np.pi * amplitude * omega * (duration - ta)
        return cls(duration=duration, distance=float(distance), accel_fraction=accel_fraction)

    @property
    def omega(self) -> float:
        """Angular frequency ``ω = 2π / t_a`` of eq 45 [rad/s]."""
        return 2.0 * np.pi / self.accel_time

    @property
    def amplitude(self) -> float:
        """Amplitude ``H = v / (2π ω)`` of eq 45 (the paper's unit label m/s² is an OCR slip;
        ``H ω²`` is an acceleration, so H is a length)."""
        return self.cruise_speed / (2.0 * np.pi * self.omega)

    def _g(self, u: FloatArray) -> FloatArray:
        return 1.0 - np.cos(2.0 * np.pi * u)

    def _g1(self, u: FloatArray) -> FloatArray:
        return u - np.sin(2.0 * np.pi * u) / (2.0 * np.pi)

    def _g2(self, u: FloatArray) -> FloatArray:
        return 0.5 * u**2 + (np.cos(2.0 * np.pi * u) - 1.0) / (4.0 * np.pi**2)


@dataclass(frozen=True)
class SineAccelerationProfile(_SymmetricProfile):
    """Half-sine acceleration ``a = (π v / 2 t_a) sin(π t / t_a)``: the acceleration is
    continuous (zero at the phase ends); the jerk jumps at the phase ends."""

    vector_exact = True
    """As :attr:`CosineAccelerationProfile.vector_exact`."""

    def _g(self, u: FloatArray) -> FloatArray:
        return 0.5 * np.pi * np.sin(np.pi * u)

    def _g1(self, u: FloatArray) -> FloatArray:
        return 0.5 * (1.0 - np.cos(np.pi * u))

    def _g2(self, u: FloatArray) -> FloatArray:
        return 0.5 * u - np.sin(np.pi * u) / (2.0 * np.pi)


@dataclass(frozen=True)
class SCurveProfile(_SymmetricProfile):
    """S-curve: trapezoidal acceleration, constant jerk on ramps of ``jerk_fraction t_a``.

    ``jerk_fraction = 0.5`` gives a triangular acceleration; small values approach the
    trapezoidal-velocity (bang-coast-bang) profile. Must lie in (0, 0.5].
    """

    jerk_fraction: float = 0.25

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 < self.jerk_fraction <= 0.5:
            raise ValueError(f"jerk_fraction must lie in (0, 0.5], got {self.jerk_fraction}")

    def _shape_breaks(self) -> tuple[float, ...]:
        return (self.jerk_fraction, 1.0 - self.jerk_fraction)

    @property
    def _peak(self) -> float:
        return 1.0 / (1.0 - self.jerk_fraction)  # unit area of the trapezoid

    def _g(self, u: FloatArray) -> FloatArray:
        j, a = self.jerk_fraction, self._peak
        return a * np.minimum(1.0, np.minimum(u, 1.0 - u) / j)

    def _g1_half(self, u: FloatArray) -> FloatArray:
        """``G1`` for ``u ≤ 1 − j`` (ramp up, then plateau)."""
        j, a = self.jerk_fraction, self._peak
        return np.where(u <= j, a * u**2 / (2 * j), a * (j / 2 + (u - j)))

    def _g2_half(self, u: FloatArray) -> FloatArray:
        j, a = self.jerk_fraction, self._peak
        return np.where(u <= j, a * u**3 / (6 * j),
                        a * (j**2 / 6 + j / 2 * (u - j) + 0.5 * (u - j) ** 2))

    def _g1(self, u: FloatArray) -> FloatArray:
        # symmetric shape: G1(u) = 1 − G1(1 − u)
        w = 1.0 - u
        return np.where(u <= 0.5, self._g1_half(u), 1.0 - self._g1_half(w))

    def _g2(self, u: FloatArray) -> FloatArray:
        # symmetric shape: G2(u) = u − 1/2 + G2(1 − u)
        w = 1.0 - u
        return np.where(u <= 0.5, self._g2_half(u), u - 0.5 + self._g2_half(w))


def _as_profile_fraction(profile: MotionProfile, t: ArrayLike
                         ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Normalized path fraction ``σ = s / distance`` and its rates."""
    s, sd, sdd = profile(t)
    L = profile.distance
    return s / L, sd / L, sdd / L


def _stack(t: ArrayLike, *arrays: FloatArray) -> tuple[FloatArray, ...]:
    """Return (3,) arrays for a scalar time, (n, 3) arrays for a vector of times."""
    if np.ndim(t) == 0:
        return tuple(a.reshape(3) for a in arrays)
    return arrays


@dataclass(frozen=True)
class LinePath:
    """Straight line from ``p0`` to ``p1`` timed by a profile: ``x = p0 + σ(t)(p1 − p0)``."""

    p0: FloatArray
    p1: FloatArray
    profile: MotionProfile

    @property
    def duration(self) -> float:
        return self.profile.duration

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.p1 - self.p0))

    def __call__(self, t: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Position, velocity, acceleration at t: ``(3,)`` each, or ``(n, 3)`` for n times."""
        sig, sigd, sigdd = (np.atleast_1d(a)[:, None] for a in _as_profile_fraction(
            self.profile, t))
        d = (self.p1 - self.p0)[None, :]
        return _stack(t, self.p0[None, :] + sig * d, sigd * d, sigdd * d)

    def at_times(self, times: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(n, 3)`` position, velocity, acceleration at every time of ``times`` (n,),
        row ``i`` the same to the bit as the call at ``times[i]`` (the same formulas,
        elementwise), or None where the profile's are not
        (:attr:`_SymmetricProfile.vector_exact`): a solver evaluates a block of steps'
        motions at once."""
        if not getattr(self.profile, "vector_exact", False):
            return None
        return self(np.asarray(times, dtype=float).reshape(-1))


@dataclass(frozen=True)
class CirclePath:
    """Circle (or arc) about ``center`` of radius ``radius`` in the plane normal to ``normal``.

    ``x = c + ρ (cos φ e1 + sin φ e2)``, ``φ = start_angle + sweep σ(t)``, counter-clockwise
    about ``normal`` (right hand). In-plane basis: ``e1`` is the global X axis projected on
    the plane (global Y if the normal is along X), ``e2 = normal × e1``.
    """

    center: FloatArray
    radius: float
    normal: FloatArray
    start_angle: float
    profile: MotionProfile
    sweep: float = 2.0 * np.pi

    @property
    def duration(self) -> float:
        return self.profile.duration

    @property
    def length(self) -> float:
        return float(abs(self.sweep) * self.radius)

    @functools.cached_property
    def basis(self) -> tuple[FloatArray, FloatArray]:
        """In-plane unit vectors ``(e1, e2)`` (computed once: the path is evaluated at
        every time step)."""
        n = self.normal
        ref = np.array([1.0, 0.0, 0.0])
        if abs(n @ ref) > 0.9:
            ref = np.array([0.0, 1.0, 0.0])
        e1 = ref - (ref @ n) * n
        e1 = e1 / np.linalg.norm(e1)
        return e1, np.cross(n, e1)

    def __call__(self, t: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Position, velocity, acceleration at t: ``(3,)`` each, or ``(n, 3)`` for n times."""
        if np.ndim(t) == 0:
            return self._at(t)
        sig, sigd, sigdd = (np.atleast_1d(a)[:, None] for a in _as_profile_fraction(
            self.profile, t))
        phi = self.start_angle + self.sweep * sig
        phid = self.sweep * sigd
        phidd = self.sweep * sigdd
        e1, e2 = (e[None, :] for e in self.basis)
        radial = np.cos(phi) * e1 + np.sin(phi) * e2
        tangent = -np.sin(phi) * e1 + np.cos(phi) * e2
        rho = self.radius
        x = self.center[None, :] + rho * radial
        xd = rho * phid * tangent
        xdd = rho * (phidd * tangent - phid**2 * radial)
        return _stack(t, x, xd, xdd)

    def at_times(self, times: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(n, 3)`` position, velocity, acceleration at every time of ``times`` (n,),
        row ``i`` the same to the bit as :meth:`_at` at ``times[i]``: the same
        operations elementwise (NumPy's elementwise functions give an element the same
        value whatever the array's length; ``tests/test_trajectory_batch.py`` checks
        it), so a solver evaluates a block of steps' motions at once (the flagship's
        circle: 320 calls of ≈ 0.1 ms through Python before); None where the profile's
        values are not the same so (:attr:`_SymmetricProfile.vector_exact`)."""
        if not getattr(self.profile, "vector_exact", False):
            return None
        return self(np.asarray(times, dtype=float).reshape(-1))

    def _at(self, t) -> tuple[FloatArray, FloatArray, FloatArray]:
        """:meth:`__call__` at one time, without the (n, 3) arrays."""
        sig, sigd, sigdd = (float(a) for a in _as_profile_fraction(self.profile, t))
        phi = self.start_angle + self.sweep * sig
        phid = self.sweep * sigd
        phidd = self.sweep * sigdd
        e1, e2 = self.basis
        c, s = np.cos(phi), np.sin(phi)
        radial = c * e1 + s * e2
        tangent = -s * e1 + c * e2
        rho = self.radius
        return (self.center + rho * radial, rho * phid * tangent,
                rho * (phidd * tangent - phid**2 * radial))


def line_path(p0: ArrayLike, p1: ArrayLike, profile: MotionProfile) -> LinePath:
    """Straight-line path from ``p0`` to ``p1``, timed by ``profile`` (scaled to the length).

    Parameters
    ----------
    p0, p1 : array_like, shape (3,)
        Start and end points [m].
    profile : MotionProfile
        Timing; only ``σ = s / profile.distance`` is used, so the path covers exactly
        ``|p1 − p0|``.

    Returns
    -------
    LinePath
        Callable ``f(t) -> (x, ẋ, ẍ)``.
    """
    from ..core.errors import ModelError
    from ..core.validate import vector3

    p0 = vector3(p0, "line_path: p0")
    p1 = vector3(p1, "line_path: p1")
    if np.linalg.norm(p1 - p0) == 0.0:
        raise ModelError("line_path: p0 and p1 coincide")
    _check_profile(profile, "line_path")
    return LinePath(p0, p1, profile)


def _check_profile(profile, what: str) -> None:
    from ..core.errors import ModelError

    if not callable(profile) or not hasattr(profile, "duration") \
            or not hasattr(profile, "distance"):
        raise ModelError(f"{what}: profile must be a motion profile (e.g. fem.model."
                         f"trajectory.CosineAccelerationProfile(duration, distance)); got "
                         f"{profile!r:.80}")


def circle_path(center: ArrayLike, radius: float, normal: ArrayLike, start_angle: float,
                profile: MotionProfile, sweep: float = 2.0 * np.pi) -> CirclePath:
    """Circular path, counter-clockwise about ``normal``, timed by ``profile``.

    Parameters
    ----------
    center : array_like, shape (3,)
        Centre of the circle [m].
    radius : float
        Radius [m].
    normal : array_like, shape (3,)
        Plane normal; the motion is counter-clockwise seen from its tip.
    start_angle : float
        Angle of the start point from the in-plane axis ``e1`` [rad] (see :class:`CirclePath`).
    profile : MotionProfile
        Timing; only ``σ = s / profile.distance`` is used, so the path sweeps exactly
        ``sweep`` (a full circle by default, which closes).
    sweep : float
        Swept angle [rad], default 2π.

    Returns
    -------
    CirclePath
        Callable ``f(t) -> (x, ẋ, ẍ)``.
    """
    from ..core.validate import direction, finite, positive, vector3

    n = direction(normal, "circle_path: normal")
    radius = positive(radius, "circle_path: radius", "m")
    _check_profile(profile, "circle_path")
    return CirclePath(vector3(center, "circle_path: center"), radius, n,
                      finite(start_angle, "circle_path: start_angle [rad]"), profile,
                      finite(sweep, "circle_path: sweep [rad]"))
