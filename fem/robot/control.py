"""Controllers on motors: a motor's effort fed back from the robot's state.

``robot.add_motor(name, joint, controller=PD(kp, kd, reference=motion))`` gives the
joint the effort ``u = u_ff(t) + k_p e + k_d ė (+ k_i ∫e)`` with the error
``e = θ_ref(t) − θ`` of the joint coordinate (an angle wrapped to ±π, or an offset) —
continuous, or sampled every ``period`` with zero-order hold, and clipped to ``±limit``.
The Newton iteration of forward dynamics carries the loop's analytic derivatives
(``∂u/∂q = −k_p ∂θ/∂q − k_d ∂θ̇/∂q``, ``∂u/∂q̇ = −k_d ∂θ/∂q``), so a controlled run
converges at the open-loop step; between samples a sampled controller's effort is a
constant and costs nothing.  The integral of a PID is advanced at each accepted step
(trapezoidal rule; explicit, so it lags the state by one step).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError
from ..core.validate import function, nonnegative, positive
from ..model.actuators import Feedback

__all__ = ["PD", "JointFeedback"]


@dataclass
class PD:
    """A joint-space PD (PID with ``ki``) controller for :meth:`fem.Robot.add_motor`.

    Parameters
    ----------
    kp : float
        Proportional gain [N·m/rad or N/m].
    kd : float
        Derivative gain [N·m·s/rad or N·s/m].
    reference : callable, optional
        ``reference(t) -> (θ, θ̇, θ̈)`` of the joint coordinate [rad or m] (a servo's
        motion); default: hold zero (the build pose).
    feedforward : callable or float, optional
        ``feedforward(t)`` [N·m or N] added to the feedback (e.g. inverse-dynamics
        torques interpolated from a table).
    ki : float
        Integral gain [N·m/(rad·s)]; 0: a PD.
    limit : float, optional
        The effort is clipped to ±limit [N·m or N].
    period : float, optional
        Sampling period [s] (zero-order hold: a 1 kHz loop is ``period=1e-3``); None:
        continuous.  Give a time step that divides it.
    """

    kp: float
    kd: float
    reference: Callable | None = None
    feedforward: Callable | float | None = None
    ki: float = 0.0
    limit: float | None = None
    period: float | None = None

    def __post_init__(self):
        self.kp = nonnegative(self.kp, "PD: kp", "N·m/rad")
        self.kd = nonnegative(self.kd, "PD: kd", "N·m·s/rad")
        self.ki = nonnegative(self.ki, "PD: ki", "N·m/(rad·s)")
        if self.reference is not None:
            self.reference = function(self.reference, "PD: reference (t -> (θ, θ̇, θ̈))")
        if isinstance(self.feedforward, int | float) and not isinstance(self.feedforward,
                                                                         bool):
            value = float(self.feedforward)
            self.feedforward = lambda t: value   # noqa: E731
        elif self.feedforward is not None:
            self.feedforward = function(self.feedforward, "PD: feedforward (t -> effort)")
        if self.limit is not None:
            self.limit = positive(self.limit, "PD: limit", "N·m")
        if self.period is not None:
            self.period = positive(self.period, "PD: period", "s")


class JointFeedback(Feedback):
    """A :class:`PD` bound to a motor's joint actuator (its coordinate and ``B(q)``)."""

    def __init__(self, spec: PD, actuator, joint):
        if not isinstance(spec, PD):
            raise ModelError(f"motor {actuator.name!r}: controller must be a "
                             f"fem.robot.PD(kp, kd, ...); got {type(spec).__name__}")
        self.spec, self.act, self.joint = spec, actuator, joint
        self.dofs = np.asarray(actuator.dofs, np.int64)
        self.period, self.limit = spec.period, spec.limit
        self.revolute = joint.kind == "revolute"
        self._integral = 0.0
        self._last = None

    def start(self, t, q, v):
        self._integral = 0.0
        self._last = (t, self._errors(t, q, v)[0])
        super().start(t, q, v)

    def _errors(self, t, q, v):
        s = self.spec
        ref = (0.0, 0.0, 0.0) if s.reference is None else s.reference(t)
        theta = self.joint.value(q)
        B = self.act.B(q)
        rate = float(B @ v[self.dofs])
        e = float(ref[0]) - theta
        if self.revolute:
            e = (e + np.pi) % (2 * np.pi) - np.pi
        return e, float(ref[1]) - rate, B

    def effort(self, t, q, v):
        s = self.spec
        e, de, _ = self._errors(t, q, v)
        ff = 0.0 if s.feedforward is None else float(s.feedforward(t))
        return ff + s.kp * e + s.kd * de + s.ki * self._integral

    def gradient(self, t, q, v):
        s = self.spec
        B = self.act.B(q)
        dB = self.act.dB(q)
        return -s.kp * B - s.kd * (dB @ v[self.dofs]), -s.kd * B

    def sample(self, t, q, v):
        if self.spec.ki and self._last is not None and t > self._last[0]:
            e = self._errors(t, q, v)[0]
            self._integral += 0.5 * (e + self._last[1]) * (t - self._last[0])
            self._last = (t, e)
        super().sample(t, q, v)
