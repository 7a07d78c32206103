"""Actuators: generalized forces ``B(q) u`` with an effort ``u`` (torque or force).

In forward dynamics the effort is a given function of time.  In inverse dynamics it is
an unknown paired with a *servo* constraint row (a trajectory equation, e.g. one
component of the end-effector path): the servo rows carry no reaction of their own, the
actuators supply it, so the multiplier slot of servo row ``k`` holds the effort of
actuator ``k`` (Liu et al. 2023 eq 38: ``M q̈ + Φ_qᵀλ = F``, ``Φ = 0``, ``Φ_c = 0``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.errors import ModelError
from ..maps.linear_map import LinearMap

__all__ = ["Actuator", "RevoluteActuator", "LinearActuator", "Feedback"]


class Feedback:
    """An actuator's effort from the state: ``u(t, q, q̇)`` (a controller closing a loop
    around the robot in forward dynamics).

    Subclasses give :meth:`effort` and :meth:`gradient` (``∂u/∂q`` and ``∂u/∂q̇`` on
    :attr:`dofs`): Newton's iteration matrix then carries the loop's stiffness and
    damping, so a controlled run converges at the open-loop step.  ``period`` [s]: a
    controller sampled at that period with zero-order hold (the effort of the sample at
    ``t_k`` acts until ``t_k + period``; between samples it is a constant, which costs
    no iterations); None: continuous.  ``limit``: the effort is clipped to ``±limit``;
    ``rate_limit`` [effort/s]: it changes by at most ``rate_limit × Δt`` from the effort
    applied at the last accepted step (continuous) or the last sample (sampled).  A
    clipped effort has no gradient."""

    dofs: np.ndarray = np.zeros(0, np.int64)
    period: float | None = None
    limit: float | None = None
    rate_limit: float | None = None

    def effort(self, t: float, q: np.ndarray, v: np.ndarray) -> float:
        raise NotImplementedError

    def gradient(self, t: float, q: np.ndarray, v: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def states(self, t: float, q: np.ndarray, v: np.ndarray) -> dict[str, float]:
        """The controller's named internal values at a state (reference, error, integral
        …), recorded beside the effort; none by default."""
        return {}

    def start(self, t: float, q: np.ndarray, v: np.ndarray) -> None:
        """Reset the controller's own state (held sample, integral) at the run's start."""
        self._held = None
        self._next = None
        self._applied = None
        self.sample(t, q, v)

    def sample(self, t: float, q: np.ndarray, v: np.ndarray) -> None:
        """After an accepted step: a sampled controller takes its sample when ``t``
        reaches the next sampling instant; a rate-limited continuous one remembers the
        effort it applied."""
        if self.period is None:
            if self.rate_limit is not None:
                self._applied = (t, self.value(t, q, v)[0])
            return
        if getattr(self, "_next", None) is None or t >= self._next - 1e-9 * self.period:
            u = self._rate_clip(t, self._clip(self.effort(t, q, v)))[0]
            self._held = u
            self._applied = (t, u)
            k = np.floor(t / self.period + 1e-9)
            self._next = (k + 1) * self.period

    def _clip(self, u: float) -> float:
        return u if self.limit is None else float(np.clip(u, -self.limit, self.limit))

    def _rate_clip(self, t: float, u: float) -> tuple[float, bool]:
        last = getattr(self, "_applied", None)
        if self.rate_limit is None or last is None:
            return u, False
        step = self.rate_limit * max(t - last[0], 0.0)
        c = float(np.clip(u, last[1] - step, last[1] + step))
        return c, c != u

    def value(self, t: float, q: np.ndarray, v: np.ndarray, tangent: bool = False):
        """``(u, ∂u/∂q, ∂u/∂q̇)`` as applied: the held sample (no gradient) or the
        continuous effort, clipped."""
        zero = np.zeros(len(self.dofs))
        if self.period is not None:
            if getattr(self, "_held", None) is None:
                self.start(t, q, v)
            return self._held, zero, zero
        u = self.effort(t, q, v)
        if self.limit is not None and abs(u) > self.limit:
            return self._clip(u), zero, zero
        u, clipped = self._rate_clip(t, u)
        if clipped:
            return u, zero, zero
        if not tangent:
            return u, None, None
        du_dq, du_dv = self.gradient(t, q, v)
        return u, du_dq, du_dv


class Actuator:
    """Base class.  ``B(q)`` (len(dofs),) is the generalized force of a unit effort on
    ``dofs``; ``dB(q)`` its Jacobian (len(dofs), len(dofs))."""

    units = "N"

    feedback: Feedback | None = None
    """A controller giving the effort from the state (forward dynamics), or None."""

    def __init__(self, name: str, effort: Callable[[float], float] | None = None):
        from ..core.validate import function, text

        self.name = text(name, f"{type(self).__name__}: name")
        self.effort = None if effort is None else function(
            effort, f"actuator {name!r}: effort (a function of time, or None for inverse "
            "dynamics)")

    @property
    def unknown(self) -> bool:
        """An effort unknown of inverse dynamics (neither given nor fed back)."""
        return self.effort is None and self.feedback is None

    dofs: np.ndarray

    def B(self, q: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def dB(self, q: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def affine(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(D, b)`` with ``B(q) = D q[dofs] + b`` for all ``q`` when ``B`` is affine in
        the coordinates (compiled solvers then evaluate it from these), None otherwise
        (the default)."""
        return None


class RevoluteActuator(Actuator):
    """A torque ``τ`` about ``axis`` on the arm from ``center`` to ``tip`` (a motor in a
    revolute joint whose axis passes through ``center``).

    For a rigid arm ``d = tip − center`` turning about ``k`` (d ⊥ k), the virtual work is
    ``τ k·δφ = τ (k × d)·δd / |d|²``; with the joint keeping ``|d| = L`` constant,
    ``B(q) = Dᵀ (k × d(q)) / L²`` is linear in q.  If ``center`` moves (a joint between two
    moving bodies), the reaction torque on the centre body is included through ``D``
    (only the arm's own body is loaded when ``center`` is fixed).
    """

    units = "N·m"

    def __init__(self, center: LinearMap, tip: LinearMap, axis, name: str | None = None,
                 effort=None, length: float | None = None):
        from ..core.validate import direction, optional, positive
        from ..maps.point_maps import point_map

        point_map(center, "RevoluteActuator: center")
        point_map(tip, "RevoluteActuator: tip")
        super().__init__(name or f"motor({tip.label})", effort)
        self.k = direction(axis, f"actuator {self.name!r}: axis")
        length = optional(positive)(length, f"actuator {self.name!r}: length")
        self.arm = tip - center
        self.dofs = self.arm.dofs
        self._K = np.array([[0, -self.k[2], self.k[1]], [self.k[2], 0, -self.k[0]],
                            [-self.k[1], self.k[0], 0]])
        self.length = length

    def bind(self, q0: np.ndarray) -> None:
        d = self.arm(q0)
        if self.length is None:
            self.length = float(np.linalg.norm(d))
        if self.length <= 0 or abs(d @ self.k) > 1e-9 * self.length:
            raise ModelError(f"actuator {self.name!r}: the arm must be perpendicular to the "
                             f"axis and of non-zero length (arm {d}, axis {self.k})")

    def B(self, q):
        return self.arm.coef.T @ (self._K @ self.arm(q)) / self.length**2

    def dB(self, q):
        C = self.arm.coef
        return C.T @ self._K @ C / self.length**2

    def affine(self):
        C = self.arm.coef
        return self.dB(None), C.T @ (self._K @ self.arm.offset) / self.length**2


class LinearActuator(Actuator):
    """A force along a fixed direction on a point (a linear drive)."""

    units = "N"

    def __init__(self, point: LinearMap, direction, name: str | None = None, effort=None):
        from ..core.validate import direction as unit_direction
        from ..maps.point_maps import point_map

        point_map(point, "LinearActuator: point")
        super().__init__(name or f"force({point.label})", effort)
        self.e = unit_direction(direction, f"actuator {self.name!r}: direction")
        self.point = point
        self.dofs = point.dofs

    def bind(self, q0: np.ndarray) -> None:
        pass

    def B(self, q):
        return self.point.coef.T @ self.e

    def dB(self, q):
        return np.zeros((len(self.dofs), len(self.dofs)))

    def affine(self):
        return self.dB(None), self.B(None)
