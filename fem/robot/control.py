"""Controllers on motors: a motor's effort fed back from the robot's state.

Three kinds, each given to :meth:`fem.Robot.add_motor` as ``controller=``:

* :class:`PD` — a joint-space PD (PID with ``ki``) on the motor's own joint:
  ``u = u_ff(t) + k_p e + k_d ė (+ k_i ∫e)`` with the error ``e = θ_ref(t) − θ`` (an
  angle wrapped to ±π, or an offset).  Its derivatives in Newton's iteration matrix are
  analytic (``∂u/∂q = −k_p ∂θ/∂q − k_d ∂θ̇/∂q``, ``∂u/∂q̇ = −k_d ∂θ/∂q``).
* :class:`Controller` — any law ``u = law(t, θ, θ̇)`` over several motors at once (the
  same object given to each; ``θ``, ``θ̇`` and ``u`` in the order the motors were
  added).  Its derivatives ``∂u/∂θ``, ``∂u/∂θ̇`` are the user's ``jacobian`` or, by
  default, forward differences (``2n`` extra evaluations of the law per Newton
  iteration; declared in :attr:`Controller.derivatives`), chained with the joints'
  analytic ``∂θ/∂q``.
* :class:`ComputedTorque` — the computed-torque law on a model of the robot:
  ``u = τ̂(θ, θ̇, θ̈_ref + K_p e + K_d ė)`` with ``τ̂`` the inverse dynamics of a rigid
  model (:class:`InverseDynamics` of a rigid :class:`fem.Robot`, or any callable such as
  Pinocchio's ``rnea``).  With an exact model the joint error obeys
  ``ë + K_d ė + K_p e = 0``.

All are continuous, or sampled every ``period`` with zero-order hold (a 1 kHz loop is
``period=1e-3``; between samples the effort is a constant and costs no iterations), and
clipped to ``±limit`` and to a slew rate ``rate_limit``.  Their internal values
(reference, error, integral) are recorded with the run as sensors
``"<motor> <value>"`` (:meth:`fem.Robot.sensors`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..core.errors import ModelError
from ..core.validate import function, nonnegative, positive
from ..model.actuators import Feedback

__all__ = ["PD", "Controller", "ComputedTorque", "InverseDynamics", "RobotState",
           "JointFeedback", "LawFeedback"]


def _wrap(e, revolute):
    """Angle errors wrapped to ±π where the joint is revolute."""
    return np.where(revolute, (np.asarray(e) + np.pi) % (2 * np.pi) - np.pi, e)


def _optional_positive(value, what: str, unit: str):
    return None if value is None else positive(value, what, unit)


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
    rate_limit : float, optional
        The effort changes by at most this much per second [N·m/s or N/s].
    period : float, optional
        Sampling period [s] (zero-order hold: a 1 kHz loop is ``period=1e-3``); None:
        continuous.  Give a time step that divides it.
    """

    drives_motors: ClassVar[bool] = True
    """Declared: a law :meth:`fem.Robot.add_motor` takes as ``controller=``."""

    kp: float
    kd: float
    reference: Callable | None = None
    feedforward: Callable | float | None = None
    ki: float = 0.0
    limit: float | None = None
    period: float | None = None
    rate_limit: float | None = None

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
        self.limit = _optional_positive(self.limit, "PD: limit", "N·m")
        self.rate_limit = _optional_positive(self.rate_limit, "PD: rate_limit", "N·m/s")
        self.period = _optional_positive(self.period, "PD: period", "s")

    def bind(self, actuator, joint, robot=None) -> JointFeedback:
        """The feedback of one motor (:meth:`fem.Robot.add_motor` calls this)."""
        return JointFeedback(self, actuator, joint)


class JointFeedback(Feedback):
    """A :class:`PD` bound to a motor's joint actuator (its coordinate and ``B(q)``)."""

    def __init__(self, spec: PD, actuator, joint):
        self.spec, self.joint = spec, joint
        self.dofs = np.unique(np.asarray(joint.coordinate_map().dofs, np.int64))
        self.period, self.limit, self.rate_limit = spec.period, spec.limit, spec.rate_limit
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
        rate = self.joint.rate(q, v)
        e = float(ref[0]) - theta
        if self.revolute:
            e = (e + np.pi) % (2 * np.pi) - np.pi
        return e, float(ref[1]) - rate, float(ref[0])

    def effort(self, t, q, v):
        s = self.spec
        e, de, _ = self._errors(t, q, v)
        ff = 0.0 if s.feedforward is None else float(s.feedforward(t))
        return ff + s.kp * e + s.kd * de + s.ki * self._integral

    def gradient(self, t, q, v):
        # θ̇ = ∇θ·q̇, so ∂θ̇/∂q = (∂²θ/∂q²) q̇ (the joint's exact derivatives)
        s = self.spec
        d, g = self.joint.gradient(q)
        H = self.joint.hessian(q)[1]
        gq, gv = np.zeros(len(self.dofs)), np.zeros(len(self.dofs))
        pos = np.searchsorted(self.dofs, d)
        gq[pos] = -s.kp * g - s.kd * (H @ v[d])
        gv[pos] = -s.kd * g
        return gq, gv

    def states(self, t, q, v):
        e, de, ref = self._errors(t, q, v)
        u = "rad" if self.revolute else "m"
        out = {f"reference_{u}": ref, f"error_{u}": e}
        if self.spec.ki:
            out[f"integral_{u}_s"] = self._integral
        return out

    def sample(self, t, q, v):
        if self.spec.ki and self._last is not None and t > self._last[0]:
            e = self._errors(t, q, v)[0]
            self._integral += 0.5 * (e + self._last[1]) * (t - self._last[0])
            self._last = (t, e)
        super().sample(t, q, v)


class Controller:
    """A control law over several motors: ``u = law(t, θ, θ̇)``.

    Give the same object as ``controller=`` to each motor it drives; ``θ``, ``θ̇``
    (arrays [rad or m, and per second]) and the returned efforts ``u`` [N·m or N] are in
    the order the motors were added.

    Parameters
    ----------
    law : callable
        ``law(t, theta, rate) -> efforts`` (one per motor), or
        ``law(t, theta, rate, state)`` to read more of the robot: ``state.frame(link,
        frame) -> (p, R)``, ``state.deflection(link)``, ``state.q``, ``state.v``
        (:class:`RobotState`).  The derivatives follow the joints only (what the law
        reads through ``state`` is held within a Newton iteration): sample such a law
        (``period``), or keep its state feedback gentle.
    jacobian : callable, optional
        ``jacobian(t, theta, rate) -> (∂u/∂θ, ∂u/∂θ̇)``, two (n, n) arrays.  None: forward
        differences of ``law`` (step ``fd_step`` × max(1, |x|); ``2n`` extra evaluations
        per Newton iteration of a continuous loop, none for a sampled one).
    period : float, optional
        Sampling period [s] with zero-order hold; None: continuous.
    limit, rate_limit : float or sequence, optional
        Effort limit [N·m or N] and slew-rate limit [per second], for all motors or one
        per motor.
    fd_step : float
        Relative step of the forward differences.
    """

    drives_motors: ClassVar[bool] = True
    """Declared: a law :meth:`fem.Robot.add_motor` takes as ``controller=``."""

    def __init__(self, law: Callable, *, jacobian: Callable | None = None,
                 period: float | None = None, limit=None, rate_limit=None,
                 fd_step: float = 1e-7, name: str = "Controller"):
        self.name = name
        self.law = function(law, f"{name}: law (t, theta, rate -> efforts)")
        self.jacobian = None if jacobian is None else function(
            jacobian, f"{name}: jacobian (t, theta, rate -> (du_dtheta, du_drate))")
        self.period = _optional_positive(period, f"{name}: period", "s")
        self.limit, self.rate_limit = limit, rate_limit
        self.fd_step = positive(fd_step, f"{name}: fd_step")
        self.derivatives = "analytic (jacobian given)" if jacobian is not None else (
            f"forward differences of the law (relative step {fd_step:g})")
        self.members: list[LawFeedback] = []
        self.robot = None
        self._cache: dict = {}
        self._q = self._v = None
        try:
            import inspect

            self._reads_state = len(inspect.signature(self.law).parameters) >= 4
        except (TypeError, ValueError):
            self._reads_state = False

    # ---- binding to motors
    def bind(self, actuator, joint, robot=None) -> LawFeedback:
        if self.members and robot is not None and self.robot is not robot:
            raise ModelError(f"{self.name}: one controller drives the motors of one robot")
        self.robot = robot
        i = len(self.members)
        fb = LawFeedback(self, i, actuator, joint)
        self.members.append(fb)
        return fb

    def _per_motor(self, value, i: int, what: str, unit: str):
        if value is None:
            return None
        if isinstance(value, Sequence | np.ndarray) and not isinstance(value, str):
            if i >= len(value):
                raise ModelError(f"{self.name}: {what} gives {len(value)} values but motor "
                                 f"{i + 1} uses this controller; give one per motor or one "
                                 f"for all")
            value = value[i]
        return positive(value, f"{self.name}: {what}", unit)

    @property
    def revolute(self) -> np.ndarray:
        return np.array([m.revolute for m in self.members])

    # ---- evaluation at a state (shared by the motors, cached)
    def _joints(self, q, v):
        self._q, self._v = q, v
        th = np.array([m.joint.value(q) for m in self.members])
        rate = np.array([m.joint.rate(q, v) for m in self.members])
        return th, rate

    def _efforts(self, t, th, rate) -> np.ndarray:
        if self._reads_state:
            u = np.asarray(self.law(t, th, rate, RobotState(self.robot, self._q, self._v)),
                           float).ravel()
        else:
            u = np.asarray(self.law(t, th, rate), float).ravel()
        if u.shape != (len(self.members),):
            raise ModelError(f"{self.name}: the law returned {u.shape[0]} efforts at "
                             f"t = {t:g} s for {len(self.members)} motors; return one per "
                             f"motor, in the order the motors were added")
        if not np.all(np.isfinite(u)):
            raise ModelError(f"{self.name}: the law returned {u.tolist()} at t = {t:g} s "
                             f"(θ = {th.tolist()}, θ̇ = {rate.tolist()}); it must be finite")
        return u

    def _same(self, key, t, q, v) -> bool:
        c = self._cache.get(key)
        return (c is not None and c[0] == t and np.array_equal(c[1], q)
                and np.array_equal(c[2], v))

    def outputs(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The law's efforts at a state (all motors)."""
        if not self._same("u", t, q, v):
            th, rate = self._joints(q, v)
            self._cache["u"] = (t, q.copy(), v.copy(), self._efforts(t, th, rate))
        return self._cache["u"][3]

    def derivatives_at(self, t: float, q: np.ndarray, v: np.ndarray):
        """``(∂u/∂θ, ∂u/∂θ̇)`` (n, n) at a state."""
        if not self._same("J", t, q, v):
            th, rate = self._joints(q, v)
            if self.jacobian is not None:
                a, b = (np.asarray(x, float) for x in self.jacobian(t, th, rate))
                n = len(self.members)
                if a.shape != (n, n) or b.shape != (n, n):
                    raise ModelError(f"{self.name}: jacobian must return two ({n}, {n}) "
                                     f"arrays; got {a.shape} and {b.shape}")
            else:
                u0 = self.outputs(t, q, v)
                a, b = self._differences(t, th, rate, u0)
            self._cache["J"] = (t, q.copy(), v.copy(), (a, b))
        return self._cache["J"][3]

    def joint_derivatives(self, t: float, q: np.ndarray, v: np.ndarray) -> list:
        """``(dofs, ∂θ/∂q, ∂²θ/∂q²)`` of each motor's joint at a state, once for all the
        motors' gradients."""
        if not self._same("D", t, q, v):
            self._cache["D"] = (t, q.copy(), v.copy(),
                                [(*m.joint.gradient(q), m.joint.hessian(q)[1])
                                 for m in self.members])
        return self._cache["D"][3]

    def _differences(self, t, th, rate, u0):
        n = len(th)
        out = []
        for x, other, first in ((th, rate, True), (rate, th, False)):
            D = np.zeros((n, n))
            for j in range(n):
                h = self.fd_step * max(1.0, abs(x[j]))
                xp = x.copy()
                xp[j] += h
                up = self._efforts(t, xp, other) if first else self._efforts(t, other, xp)
                D[:, j] = (up - u0) / h
            out.append(D)
        return out[0], out[1]

    def states(self, t, q, v, i: int) -> dict[str, float]:
        """Named internal values of motor ``i``'s loop (none for a general law)."""
        return {}

    def start(self, t, q, v) -> None:
        """Reset the law's own state at a run's start (once for all its motors)."""
        self._cache.clear()


class RobotState:
    """What a :class:`Controller` law may read of the robot at the state it is evaluated
    at: coordinates ``q``, velocities ``v``, a frame's pose and a flexible link's tip
    deflection (relative to its rigid motion) [m]."""

    def __init__(self, robot, q: np.ndarray, v: np.ndarray):
        self.robot, self.q, self.v = robot, q, v

    def frame(self, link: str, frame: str) -> tuple[np.ndarray, np.ndarray]:
        return self.robot.frame_pose(link, frame, self.q)

    def deflection(self, link: str) -> np.ndarray:
        return self.robot.deflection(link, self.q)


class LawFeedback(Feedback):
    """Motor ``index`` of a :class:`Controller`: its effort and the chain rule from the
    law's ``∂u/∂θ``, ``∂u/∂θ̇`` to the coordinates of every joint the law reads."""

    def __init__(self, law: Controller, index: int, actuator, joint):
        self.law, self.index, self.joint = law, index, joint
        self.revolute = joint.kind == "revolute"
        self.period = law.period
        self.limit = law._per_motor(law.limit, index, "limit", "N·m")
        self.rate_limit = law._per_motor(law.rate_limit, index, "rate_limit", "N·m/s")

    @property
    def dofs(self) -> np.ndarray:
        return np.unique(np.concatenate([m.joint.coordinate_map().dofs
                                         for m in self.law.members])).astype(np.int64)

    def start(self, t, q, v):
        if self.index == 0:
            self.law.start(t, q, v)
        super().start(t, q, v)

    def effort(self, t, q, v):
        return float(self.law.outputs(t, q, v)[self.index])

    def gradient(self, t, q, v):
        a, b = self.law.derivatives_at(t, q, v)
        d = self.dofs
        gq, gv = np.zeros(len(d)), np.zeros(len(d))
        for j, (dj, g, H) in enumerate(self.law.joint_derivatives(t, q, v)):
            pos = np.searchsorted(d, dj)
            gq[pos] += a[self.index, j] * g + b[self.index, j] * (H @ v[dj])
            gv[pos] += b[self.index, j] * g
        return gq, gv

    def states(self, t, q, v):
        return self.law.states(t, q, v, self.index)


class ComputedTorque(Controller):
    """Computed torque on a rigid model of the robot:
    ``u = τ̂(θ, θ̇, θ̈_ref + K_p e + K_d ė)`` with ``e = θ_ref − θ`` (wrapped angles).

    With an exact model (``τ̂`` the robot's own inverse dynamics) the loop cancels the
    dynamics and each joint's error obeys ``ë + K_d ė + K_p e = 0`` (Spong, Hutchinson &
    Vidyasagar, *Robot Modeling and Control*, Wiley 2006, §8.3.1): ``K_p = ω²``,
    ``K_d = 2ζω`` for a loop at ``ω`` with damping ratio ``ζ``.  On a flexible robot the
    model is its rigid counterpart; what the links' flexibility adds is left to the
    gains.

    Parameters
    ----------
    model : fem.Robot or callable
        A rigid robot whose motors are all servos (wrapped in :class:`InverseDynamics`),
        or ``model(θ, θ̇, θ̈) -> τ`` (e.g. ``lambda q, v, a: pin.rnea(m, d, q, v, a)``).
    kp, kd : float or sequence
        Gains [1/s²] and [1/s] (scalars, or one per motor).
    references : sequence of callables
        One ``motion(t) -> (θ, θ̇, θ̈)`` per motor, in the order the motors are added.
    period, limit, rate_limit, jacobian, fd_step
        As :class:`Controller`.  Sample it (``period``) unless the model is cheap: a
        continuous loop evaluates the model ``2n + 1`` times per Newton iteration.
    """

    def __init__(self, model, kp, kd, references: Sequence[Callable], *,
                 period: float | None = None, limit=None, rate_limit=None,
                 jacobian: Callable | None = None, fd_step: float = 1e-6):
        from .robot import Robot

        if isinstance(model, Robot):
            model = InverseDynamics(model)
        self.model = function(model, "ComputedTorque: model (θ, θ̇, θ̈ -> τ) or a rigid "
                                     "fem.Robot")
        if isinstance(references, str) or not isinstance(references, Sequence):
            raise ModelError("ComputedTorque: references must be a list of motions "
                             "t -> (θ, θ̇, θ̈), one per motor")
        self.references = [function(r, f"ComputedTorque: references[{k}] "
                                       f"(t -> (θ, θ̇, θ̈))") for k, r in enumerate(references)]
        n = len(self.references)
        self.kp = self._gains(kp, n, "kp", "1/s²")
        self.kd = self._gains(kd, n, "kd", "1/s")
        super().__init__(self._law, jacobian=jacobian, period=period, limit=limit,
                         rate_limit=rate_limit, fd_step=fd_step, name="ComputedTorque")

    @staticmethod
    def _gains(value, n, what, unit):
        a = np.broadcast_to(np.asarray(value, float), (n,)).copy() if np.ndim(value) == 0 \
            else np.asarray(value, float)
        if a.shape != (n,) or not np.all(np.isfinite(a)) or np.any(a < 0):
            raise ModelError(f"ComputedTorque: {what} must be a non-negative number or "
                             f"{n} of them (one per reference) [{unit}]; got {value!r}")
        return a

    def bind(self, actuator, joint, robot=None):
        if len(self.members) >= len(self.references):
            raise ModelError(f"ComputedTorque: {len(self.references)} references for "
                             f"{len(self.members) + 1} motors; give one reference per motor")
        return super().bind(actuator, joint, robot)

    def _refs(self, t):
        return np.array([np.asarray(r(t), float)[:3] for r in self.references]).T

    def _law(self, t, th, rate):
        if len(self.members) != len(self.references):
            raise ModelError(f"ComputedTorque: {len(self.references)} references but "
                             f"{len(self.members)} motors use it")
        r, rd, rdd = self._refs(t)
        e = _wrap(r - th, self.revolute)
        return np.asarray(self.model(th, rate, rdd + self.kp * e + self.kd * (rd - rate)),
                          float)

    def states(self, t, q, v, i):
        th, rate = self._joints(q, v)
        r = self._refs(t)
        u = "rad" if self.members[i].revolute else "m"
        return {f"reference_{u}": float(r[0][i]),
                f"error_{u}": float(_wrap(r[0][i] - th[i], self.members[i].revolute))}


class InverseDynamics:
    """The joint-space inverse dynamics ``τ(θ, θ̇, θ̈)`` of a rigid robot, from the same
    equations the simulations solve.

    Every motor of ``robot`` must be a servo (its motion is taken over: the object is
    the robot's model from then on).  A call places the robot at ``θ`` (Gauss–Newton
    from the last pose, so serial and closed-loop robots alike), solves the velocity
    constraints for ``q̇`` and the saddle system ``[[M, Φ_qᵀ], [Φ_q, 0]]`` for the
    accelerations and multipliers, and returns the motors' efforts [N·m or N] in the
    order the motors were added.
    """

    def __init__(self, robot):
        motors = list(robot.motors.values())
        bad = [m.name for m in motors if m.mode != "servo"]
        if not motors or bad:
            raise ModelError(f"InverseDynamics: every motor of robot {robot.name!r} must "
                             f"be a servo (add_motor(..., servo=motion)); not: "
                             f"{bad or 'no motors'}")
        flex = [n for n, b in robot.links.items() if b.flexible]
        if flex:
            raise ModelError(f"InverseDynamics: links {flex} of robot {robot.name!r} are "
                             f"flexible; the joint-space model needs rigid links (use the "
                             f"links' rigid equivalents)")
        self.robot, self.motors = robot, motors
        self._target = np.zeros((len(motors), 3))
        for k, m in enumerate(motors):
            m.drive.motion = (lambda t, k=k: tuple(self._target[k]))
        self._revolute = np.array([m.joint.kind == "revolute" for m in motors])
        self.asm = robot.model.assemble()
        self._q = robot.place(0.0)
        self._J: np.ndarray | None = None       # Φ_q at the last pose

    def __call__(self, theta, rate, acceleration) -> np.ndarray:
        n = len(self.motors)
        th, w, a = (np.broadcast_to(np.asarray(x, float), (n,)) for x in
                    (theta, rate, acceleration))
        asm = self.asm
        # place at θ from the last pose, in joint steps of at most 0.25 rad: a drive row
        # c·e(θ) = 0 is also met at θ + π, which a long Gauss–Newton step can reach
        last = self._target[:, 0].copy()
        d = _wrap(th - last, self._revolute)
        steps = max(1, int(np.ceil(np.abs(d).max() / 0.25)))
        q = self._q.copy()
        J = self._J
        for k in range(1, steps + 1):
            # predictor: the pose's first-order change for the joints' change d/steps
            # is the velocity for "rates" d/steps (−Φ_q⁺ ∂Φ/∂θ Δθ); Gauss–Newton after
            self._target[:, 0] = last + d * (k - 1) / steps
            self._target[:, 1], self._target[:, 2] = d / steps, 0.0
            asm.refresh_motions()
            if J is None:
                J = _dense(asm.jacobian(q, 0.0))
            q = q + J.T @ np.linalg.solve(J @ J.T, -asm.phi_t(q, 0.0))
            self._target[:, 0] = last + d * k / steps
            self._target[:, 1] = 0.0
            asm.refresh_motions()
            q = self._project(q)
            J = None
        self._target[:] = np.column_stack([th, w, a])
        asm.refresh_motions()
        self._q = q
        # (small dense systems: a rigid robot has tens to hundreds of coordinates)
        J = self._J = _dense(asm.jacobian(q, 0.0))
        v = J.T @ np.linalg.solve(J @ J.T, -asm.phi_t(q, 0.0))
        f = asm.internal_forces(q, v)[0] + asm.damping_force(v)
        f = f + asm.inertia_forces(q, v, np.zeros(asm.n))[0]
        b = np.concatenate([asm.external_forces(0.0, q) - f, asm.gamma(q, v, 0.0)])
        jv = asm.jacobian_values(q, 0.0)
        S = _dense(asm.saddle(1.0, 0.0, *asm.zero_tangent(), jv, 1.0, q=q))
        lam = np.linalg.solve(S, b)[asm.n:]
        by_name = asm.efforts(lam)
        return np.array([by_name[m.name] for m in self.motors])

    def _project(self, q: np.ndarray, tol: float = 1e-13) -> np.ndarray:
        """Gauss–Newton onto ``Φ(q) = 0`` with minimum-norm corrections
        (:func:`fem.solvers.project_positions`), refused in robot words."""
        from ..core.errors import ConvergenceError
        from ..solvers import project_positions

        try:
            return project_positions(self.robot.model, q, 0.0, tol=tol)
        except ConvergenceError as err:
            raise ModelError(f"InverseDynamics: could not place robot {self.robot.name!r} at "
                             f"the joint angles {self._target[:, 0].tolist()} ({err}); are "
                             f"they reachable?") from None


def _dense(A) -> np.ndarray:
    return A.toarray() if hasattr(A, "toarray") else np.asarray(A)
