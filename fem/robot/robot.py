"""A robot in robot words: links, joints, motors — one :class:`fem.Model` underneath.

::

    robot = fem.Robot("arm", gravity=(0, 0, -9.81))
    robot.add_link("upper arm", fem.robot.Rigid(mass=2.0, com=(0.2, 0, 0), inertia=I),
                   frames={"shoulder": fem.robot.pose((0, 0, 0), z="y"),
                           "elbow": fem.robot.pose((0.4, 0, 0), z="y")})
    robot.add_link("forearm", fem.robot.AncfBeam(steel, radius=0.01, elements=4),
                   frames={"elbow": fem.robot.pose((0.4, 0, 0), z="y"),
                           "tool": fem.robot.pose((0.8, 0, 0), z="y")})
    robot.add_joint("shoulder", "revolute", "ground", ("upper arm", "shoulder"))
    robot.add_joint("elbow", "revolute", ("upper arm", "elbow"), ("forearm", "elbow"))
    robot.add_motor("shoulder motor", "shoulder", servo=motion)

The robot builds its model as it goes (``robot.model``); every solver of the framework
runs on it.  The robot keeps the names: :meth:`joint_value`, :meth:`sensors` and
:meth:`efforts` read a state in joint, motor and link terms.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from ..core.errors import ConvergenceError, ModelError
from ..core.validate import choice, function, nonnegative, positive, text
from ..model.core import Model
from .frames import Frame, Pose, ground_frame
from .joints import DRIVEN_KINDS, JOINT_KINDS, Joint, JointActuator, JointDrive
from .links import BuiltLink, LinkModel

__all__ = ["Robot", "Motor"]


class Motor:
    """A motor on a revolute or prismatic joint (made by :meth:`Robot.add_motor`).

    ``mode`` "servo" (the joint follows ``motion``; the effort is computed: inverse
    dynamics) or "effort" (the effort is a given function of time: forward dynamics).
    The drive side: ``gear`` ratio ``n`` (motor angle = n × joint angle),
    ``rotor_inertia`` ``J_r`` [kg·m²], ``viscous`` friction ``b`` [N·m·s/rad] and
    ``coulomb`` friction ``τ_c`` [N·m], the latter smoothed as ``τ_c tanh(ω_m / ω_s)``
    with ``ω_s`` = ``coulomb_smoothing`` [rad/s] (so that it has a derivative at rest).
    The motor's torque is then ``τ_m = τ_j / n + J_r ω̇_m + b ω_m + τ_c tanh(ω_m/ω_s)``
    with ``ω_m = n θ̇`` and ``τ_j`` the joint's effort.
    """

    def __init__(self, name: str, joint: Joint, mode: str, motion=None, effort=None,
                 gear: float = 1.0, rotor_inertia: float = 0.0, viscous: float = 0.0,
                 coulomb: float = 0.0, coulomb_smoothing: float = 0.01):
        self.name, self.joint, self.mode = name, joint, mode
        self.motion, self.effort = motion, effort
        self.gear = positive(gear, f"motor {name!r}: gear", "")
        self.rotor_inertia = nonnegative(rotor_inertia, f"motor {name!r}: rotor_inertia",
                                         "kg·m²")
        self.viscous = nonnegative(viscous, f"motor {name!r}: viscous", "N·m·s/rad")
        self.coulomb = nonnegative(coulomb, f"motor {name!r}: coulomb", "N·m")
        self.coulomb_smoothing = positive(coulomb_smoothing,
                                          f"motor {name!r}: coulomb_smoothing", "rad/s")
        self.drive: JointDrive | None = None
        self.actuator: JointActuator | None = None

    @property
    def unit(self) -> str:
        return "N" if self.joint.kind == "prismatic" else "N·m"

    def motor_torque(self, joint_effort: float, rate: float, acceleration: float) -> float:
        """The motor's torque (force) for a joint effort and the joint's rate and
        acceleration (see the class docstring)."""
        n = self.gear
        w = n * rate
        return (joint_effort / n + self.rotor_inertia * n * acceleration + self.viscous * w
                + self.coulomb * np.tanh(w / self.coulomb_smoothing))

    def __repr__(self) -> str:
        return f"Motor({self.name!r}, {self.mode} on {self.joint.name!r})"


class Placement:
    """What :meth:`Robot.place` found (``report=True``): the coordinates ``q``, the
    largest constraint residual [m or rad], and ``joints``: name → (coordinate as the
    links were placed, as closed, unit) for every revolute and prismatic joint — the
    branch of the loop, nearest the placement."""

    def __init__(self, q: np.ndarray, residual: float, joints: dict):
        self.q, self.residual, self.joints = q, residual, joints

    def __str__(self) -> str:
        lines = [f"closed: largest residual {self.residual:.2g} (m or rad); joints as "
                 f"placed → as closed (the branch nearest the placement):"]
        for jn, (a, b, unit) in self.joints.items():
            if unit == "rad":
                lines.append(f"  {jn}: {np.degrees(a):.3f}° → {np.degrees(b):.3f}°")
            else:
                lines.append(f"  {jn}: {1e3 * a:.3f} mm → {1e3 * b:.3f} mm")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Placement(residual={self.residual:.2g}, joints={len(self.joints)})"


class Robot:
    """Links, joints and motors over one :class:`fem.Model` (see the module docstring).

    Parameters
    ----------
    name : str
    gravity : array_like (3,)
        [m/s²].
    """

    def __init__(self, name: str = "robot", gravity=(0.0, 0.0, 0.0)):
        self.name = text(name, "Robot: name")
        self.model = Model(name, gravity)
        self.links: dict[str, BuiltLink] = {}
        self.joints: dict[str, Joint] = {}
        self.motors: dict[str, Motor] = {}
        self.paths: dict[str, object] = {}
        self.urdf = None         # what fem.robot.from_urdf read (fem.robot.urdf.UrdfRobot)
        self._ground: dict[str, Frame] = {}

    def __repr__(self) -> str:
        return (f"Robot({self.name!r}: {len(self.links)} links, {len(self.joints)} joints, "
                f"{len(self.motors)} motors)")

    # ------------------------------------------------------------------ links
    def add_link(self, name: str, model: LinkModel, frames: Mapping[str, Pose]) -> BuiltLink:
        """A link made of ``model`` (:class:`~fem.robot.Rigid`, :class:`~fem.robot.Bar`,
        :class:`~fem.robot.AncfBeam`, :class:`~fem.robot.AncfCable`,
        :class:`~fem.robot.FloatingFrame`, …) with named ``frames`` (poses at build,
        :func:`fem.robot.pose`).  A flexible model and a bar span their first frame to
        their last."""
        name = text(name, "add_link: name")
        if name == "ground" or name in self.links:
            raise ModelError(f"add_link: there is already a link named {name!r}"
                             if name != "ground" else "add_link: 'ground' is the fixed world")
        if not isinstance(model, LinkModel):
            raise ModelError(f"link {name!r}: model must be a link model (fem.robot.Rigid, "
                             f"Bar, AncfBeam, AncfCable, FloatingFrame, Reduced, Plate); got "
                             f"{type(model).__name__}")
        if not isinstance(frames, Mapping) or not frames:
            raise ModelError(f"link {name!r}: frames must be a dict of frame name → "
                             f"fem.robot.pose(...), at least one")
        for k, p in frames.items():
            text(k, f"link {name!r}: frame name")
            if not isinstance(p, Pose):
                raise ModelError(f"link {name!r}: frame {k!r} must be a fem.robot.pose(...); "
                                 f"got {type(p).__name__}")
        built = model.build(self.model, name, dict(frames))
        built.spec = model
        self.links[name] = built
        return built

    def frame(self, link: str, frame: str) -> Frame:
        """A link's frame by names."""
        if link == "ground":
            if frame not in self._ground:
                raise ModelError(f"no ground frame {frame!r}; ground frames: "
                                 f"{sorted(self._ground)}")
            return self._ground[frame]
        if link not in self.links:
            raise ModelError(f"no link {link!r}; the robot has {sorted(self.links)}")
        frames = self.links[link].frames
        if frame not in frames:
            raise ModelError(f"link {link!r} has no frame {frame!r}; it has {sorted(frames)}")
        return frames[frame]

    def add_ground_frame(self, name: str, p: Pose) -> Frame:
        """A fixed frame of the world."""
        name = text(name, "add_ground_frame: name")
        if not isinstance(p, Pose):
            raise ModelError(f"ground frame {name!r}: give a fem.robot.pose(...)")
        self._ground[name] = ground_frame(name, p)
        return self._ground[name]

    def resolve_frame(self, spec, other: Frame | None, what: str) -> Frame:
        """The frame ``spec`` names: a :class:`Frame`, ``(link, frame)``, or ``"ground"``
        (a fixed frame where ``other`` is at build); ``what`` names it in errors."""
        if isinstance(spec, Frame):
            return spec
        if spec == "ground":
            if other is None:
                raise ModelError(f"{what}: 'ground' takes its place from the other frame; "
                                 f"give the other as (link, frame)")
            name = f"at {other.label}"
            return self._ground.get(name) or self.add_ground_frame(name, other.pose)
        if isinstance(spec, tuple) and len(spec) == 2 and all(isinstance(s, str) for s in spec):
            return self.frame(*spec)
        raise ModelError(f"{what}: a frame is (link name, frame name), 'ground' or a "
                         f"ground frame; got {spec!r:.80}")

    def joint_frames(self, parent, child, what: str) -> tuple[Frame, Frame]:
        """The parent and child frames of a joint (:meth:`resolve_frame`: ``"ground"`` is
        a fixed frame where the other is), on two different links; ``what`` names the
        joint in errors (``"joint 'j1'"``)."""
        if parent == "ground" and child == "ground":
            raise ModelError(f"{what}: parent and child are both the ground")
        if parent == "ground":
            c = self.resolve_frame(child, None, f"{what}: child")
            p = self.resolve_frame(parent, c, f"{what}: parent")
        else:
            p = self.resolve_frame(parent, None, f"{what}: parent")
            c = self.resolve_frame(child, p, f"{what}: child")
        if p.link == c.link:
            raise ModelError(f"{what}: parent and child are both on {p.link!r}")
        return p, c

    # ------------------------------------------------------------------ joints
    def add_joint(self, name: str, kind: str, parent, child, axis="z", axis2="x") -> Joint:
        """A joint of ``kind`` (``"revolute"``, ``"prismatic"``, ``"cylindrical"``,
        ``"spherical"``, ``"universal"``, ``"planar"``, ``"fixed"``) between a parent
        and a child frame, each ``(link, frame)``; ``"ground"`` is a fixed frame where the
        other frame is at build.  ``axis`` in the frames' axes (``"x"``, ``"y"``,
        ``"z"`` or a 3-vector); ``axis2`` a universal joint's second axis, in the child
        frame."""
        name = text(name, "add_joint: name")
        if name in self.joints:
            raise ModelError(f"add_joint: there is already a joint named {name!r}")
        kind = choice(kind, JOINT_KINDS, f"joint {name!r}: kind")
        p, c = self.joint_frames(parent, child, f"joint {name!r}")
        joint = Joint(name, kind, p, c, axis, axis2)
        for con in joint.build_rows(self.model.q0):
            self.model.add_constraint(con)
        self.joints[name] = joint
        return joint

    # ------------------------------------------------------------------ motors
    def add_motor(self, name: str, joint: str, servo: Callable | None = None,
                  effort: Callable | float | None = None, controller=None,
                  **drive) -> Motor:
        """A motor on a revolute or prismatic joint.

        ``servo=motion`` with ``motion(t) -> (x, ẋ, ẍ)`` of the joint coordinate [rad or
        m]: the joint follows it and the motor's effort is an output (inverse dynamics;
        ``fem.Robot.efforts``).  ``effort=f(t)`` [N·m or N at the joint] (or a number):
        the effort is given (forward dynamics).  ``controller=PD(kp, kd, reference=…)``
        (:class:`fem.robot.PD`): the effort is fed back from the joint's coordinate and
        rate (forward dynamics; continuous or sampled, with feedforward and limits);
        ``controller=`` a :class:`fem.robot.Controller` or
        :class:`fem.robot.ComputedTorque` (the same object on each motor it drives): a
        law of all its motors' joints.
        None of them: an effort unknown of inverse dynamics whose equation comes from a
        task-space path (:meth:`add_path`).
        ``drive``: ``gear``, ``rotor_inertia``, ``viscous``, ``coulomb``,
        ``coulomb_smoothing`` (:class:`Motor`; on the motor's torque of a servo)."""
        name = text(name, "add_motor: name")
        if name in self.motors:
            raise ModelError(f"add_motor: there is already a motor named {name!r}")
        if joint not in self.joints:
            raise ModelError(f"motor {name!r}: no joint {joint!r}; joints: "
                             f"{sorted(self.joints)}")
        j = self.joints[joint]
        if j.kind not in DRIVEN_KINDS:
            raise ModelError(f"motor {name!r}: joint {joint!r} is {j.kind}; a motor drives "
                             f"a revolute or prismatic joint")
        if any(m.joint is j for m in self.motors.values()):
            raise ModelError(f"motor {name!r}: joint {joint!r} already has a motor")
        given = [k for k, x in (("servo", servo), ("effort", effort),
                                ("controller", controller)) if x is not None]
        if len(given) > 1:
            raise ModelError(f"motor {name!r}: give one of servo= (the joint's motion), "
                             f"effort= (a function of time) or controller= (feedback); got "
                             f"{' and '.join(given)}")
        mode = given[0] if given else "task"
        if mode == "controller":
            mode = "feedback"
        if isinstance(effort, int | float) and not isinstance(effort, bool):
            value = float(effort)
            effort = lambda t: value   # noqa: E731
        elif effort is not None:
            effort = function(effort, f"motor {name!r}: effort (a function of time)")
        motor = Motor(name, j, mode, servo, effort, **drive)
        if mode in ("effort", "feedback") and (motor.rotor_inertia or motor.viscous
                                                or motor.coulomb):
            raise ModelError(f"motor {name!r}: rotor inertia and friction are applied to "
                             f"servo motors (inverse dynamics) only; on an effort motor "
                             f"model the rotor as a rigid link on the joint")
        if mode == "servo":
            motor.drive = JointDrive(j, servo, f"{name} drive", servo=True)
            self.model.add_constraint(motor.drive)
        act_effort = None
        if mode == "effort":
            n = motor.gear
            f = effort
            act_effort = (lambda t: n * f(t)) if n != 1.0 else f
        # a task motor's torque on the link's tangent: a moment on an ANCF beam's section
        # reaches its centre line only through shear, so the path (at the tip) would have
        # no instantaneous response to it
        motor.actuator = JointActuator(j, name, act_effort,
                                       on="tangent" if mode == "task" else "section")
        if mode == "feedback":
            if not getattr(controller, "drives_motors", False):    # declared by the laws
                raise ModelError(f"motor {name!r}: controller must be a fem.robot.PD, "
                                 f"fem.robot.Controller or fem.robot.ComputedTorque; got "
                                 f"{type(controller).__name__}")
            motor.actuator.feedback = controller.bind(motor.actuator, j, self)
            motor.controller = controller
        self.model.add_actuator(motor.actuator)
        self.motors[name] = motor
        return motor

    def add_path(self, name: str, frame, motion: Callable, components=(0, 1, 2)):
        """A task-space drive: the origin of ``frame`` ``(link, frame)`` follows
        ``motion(t) -> (x, ẋ, ẍ)`` (3 values each) in the given components; its rows are
        the equations of the motors added without ``servo`` or ``effort``.

        This is the *non-collocated* inverse problem: with flexible links the motors'
        motion is then whatever keeps the point on its path, and the internal (zero)
        dynamics of a flexible arm driven at its tip is often unstable — a run that
        diverges at any step is the sign.  The collocated drive (servo motors) is stable.
        """
        from ..constraints import PrescribedPoint

        f = self.resolve_frame(frame, None, f"path {name!r}")
        con = PrescribedPoint(f.origin, motion, components, name=name, servo=True)
        self.model.add_constraint(con)
        self.paths[name] = con
        return con

    # ------------------------------------------------------------------ reading
    def joint_value(self, joint: str, q: np.ndarray) -> float:
        """A joint's coordinate at ``q`` [rad or m]."""
        return self._joint(joint).value(np.asarray(q, float))

    def joint_rate(self, joint: str, q: np.ndarray, v: np.ndarray) -> float:
        """A joint's rate at ``(q, q̇)`` [rad/s or m/s]."""
        return self._joint(joint).rate(np.asarray(q, float), np.asarray(v, float))

    def _joint(self, name: str) -> Joint:
        if name not in self.joints:
            raise ModelError(f"no joint {name!r}; the robot has {sorted(self.joints)}")
        return self.joints[name]

    def frame_pose(self, link: str, frame: str, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(position, rotation)`` of a frame at ``q`` (the rotation is the nearest
        rotation to the frame's deformed triad)."""
        f = self.frame(link, frame)
        q = np.asarray(q, float)
        R = _frame_rotation(f, q)
        return np.asarray(f.origin(q), float), R

    def deflection(self, link: str, q: np.ndarray) -> np.ndarray:
        """The tip of a flexible link relative to its rigid motion [m]: the tip frame's
        origin minus where it would be if the link moved rigidly with its root frame."""
        b = self._link(link)
        names = list(b.frames)
        root, tip = b.frames[names[0]], b.frames[names[-1]]
        q = np.asarray(q, float)
        R = _frame_rotation(root, q)
        R0 = root.pose.rotation
        rigid = root.origin(q) + R @ R0.T @ (tip.pose.position - root.pose.position)
        return np.asarray(tip.origin(q), float) - rigid

    def _link(self, name: str) -> BuiltLink:
        if name not in self.links:
            raise ModelError(f"no link {name!r}; the robot has {sorted(self.links)}")
        return self.links[name]

    def efforts(self, q: np.ndarray, lam: np.ndarray, v: np.ndarray | None = None,
                a: np.ndarray | None = None) -> dict[str, float]:
        """Each motor's joint effort [N·m or N] from the multipliers of an inverse-dynamics
        state (servo and task motors), and, with ``v`` and ``a`` given, its motor torque
        (gear, rotor inertia, friction) under ``"<motor> motor"``."""
        asm = self.model.assemble()
        by_name = asm.efforts(np.asarray(lam, float))
        out = {}
        for name, m in self.motors.items():
            if m.mode in ("effort", "feedback"):
                continue
            out[name] = by_name[name]
            if v is not None and a is not None:
                dofs, g = m.joint.gradient(np.asarray(q, float))
                rate = float(g @ np.asarray(v)[dofs])
                acc = _joint_acceleration(m.joint, q, v, a)
                out[f"{name} motor"] = m.motor_torque(out[name], rate, acc)
        return out

    def joint_history(self, result, joint: str) -> dict[str, np.ndarray]:
        """A joint's history from a run's result (:class:`fem.Result`, in memory or
        loaded with ``fem.Result.load``): its coordinate and rate (``angle_rad``,
        ``rate_rad_s``, or ``offset_m``, ``rate_m_s``) and, when a servo or task motor
        drives it, the motor's effort (``effort_Nm`` or ``effort_N``, from the
        multipliers) — one value per recorded step."""
        j = self._joint(joint)
        q, v = np.asarray(result.q), np.asarray(result.v)
        u = j.unit
        key = "angle" if u == "rad" else "offset"
        out = {f"{key}_{u}": np.array([j.value(x) for x in q]),
               f"rate_{u}_s": np.array([j.rate(x, y) for x, y in zip(q, v, strict=True)])}
        motor = next((m for m in self.motors.values() if m.joint is j), None)
        if motor is not None and motor.mode != "effort":
            asm = self.model.assemble()
            unit = "N" if motor.unit == "N" else "Nm"
            out[f"effort_{unit}"] = np.array([asm.efforts(lam)[motor.name]
                                              for lam in np.asarray(result.lam)])
        return out

    def feedforward(self, result) -> dict[str, dict]:
        """Each motor's effort and joint trajectory from an inverse-dynamics run of this
        robot (servo or task motors), ready for a controller on a robot built the same
        way: ``{motor: {"feedforward": t -> effort, "reference": t -> (θ, θ̇, θ̈)}}``,
        so ``PD(kp, kd, **robot.feedforward(result)[name])``.  Efforts are interpolated
        linearly between the recorded steps, angles by a cubic spline (unwrapped)."""
        from .motions import table, tabulated

        t = np.asarray(result.t, float)
        out = {}
        for name, m in self.motors.items():
            if m.mode not in ("servo", "task"):
                continue
            h = self.joint_history(result, m.joint.name)
            key = "angle_rad" if "angle_rad" in h else "offset_m"
            x = np.unwrap(h[key]) if key == "angle_rad" else h[key]
            effort = h["effort_Nm" if "effort_Nm" in h else "effort_N"]
            out[name] = {"feedforward": table(t, effort), "reference": tabulated(t, x)}
        if not out:
            raise ModelError(f"Robot.feedforward: robot {self.name!r} has no servo or task "
                             f"motors, so a run of it has no efforts to feed forward")
        return out

    def frame_history(self, result, link: str, frame: str) -> tuple[np.ndarray, np.ndarray]:
        """A frame's positions (n, 3) [m] and rotations (n, 3, 3) over a run's result
        (the rotations nearest to the frame's deformed triad)."""
        poses = [self.frame_pose(link, frame, x) for x in np.asarray(result.q)]
        return np.array([p for p, _ in poses]), np.array([R for _, R in poses])

    def sensors(self, deflections: bool = True) -> dict[str, Callable]:
        """Sensors for :func:`fem.simulate` and friends, named in robot terms: each
        driven joint's angle/offset and rate, each motor's joint effort (from the
        multipliers: servo and task motors; the given or fed-back effort otherwise), each
        controller's internal values (``"<motor> reference_rad"``, ``error_rad`` …) and each
        flexible link's tip deflection relative to its rigid motion (norm, [m])."""
        out: dict[str, Callable] = {}
        for jn, j in self.joints.items():
            if j.kind not in DRIVEN_KINDS:
                continue
            u = "rad" if j.kind == "revolute" else "m"
            out[f"{jn} {'angle' if u == 'rad' else 'offset'}_{u}"] = (
                lambda t, q, v, a, lam, j=j: j.value(q))
            out[f"{jn} rate_{u}_s"] = lambda t, q, v, a, lam, j=j: j.rate(q, v)
        asm_cache: list = []

        def efforts(lam):
            if not asm_cache:
                asm_cache.append(self.model.assemble())
            return asm_cache[0].efforts(lam)

        for mn, m in self.motors.items():
            key = f"{mn} effort_{'N' if m.unit == 'N' else 'Nm'}"
            if m.mode == "effort":
                n, f = m.gear, m.effort
                out[key] = lambda t, q, v, a, lam, n=n, f=f: n * float(f(t))
            elif m.mode == "feedback":
                fb = m.actuator.feedback
                out[key] = lambda t, q, v, a, lam, fb=fb: float(fb.value(t, q, v)[0])
                for sn in fb.states(0.0, self.model.assemble().q0,
                                    np.zeros(self.model.assemble().n)):
                    out[f"{mn} {sn}"] = (lambda t, q, v, a, lam, fb=fb, sn=sn:
                                         float(fb.states(t, q, v)[sn]))
            else:
                out[key] = lambda t, q, v, a, lam, mn=mn: efforts(lam)[mn]
        if deflections:
            for ln, b in self.links.items():
                if b.flexible:
                    out[f"{ln} deflection_m"] = (
                        lambda t, q, v, a, lam, ln=ln: float(np.linalg.norm(
                            self.deflection(ln, q))))
        return out

    # ------------------------------------------------------------------ placing
    def place(self, t: float = 0.0, q=None, tol: float = 1e-12, report: bool = False):
        """Close every loop: the coordinates nearest to the build configuration (or
        ``q``) with every joint and servo drive satisfied at time ``t`` (Gauss–Newton
        on the constraints).  Links may be placed roughly; each joint's coordinate is
        then what the closure gives (the branch nearest the placement): check it with
        :meth:`joint_value`, or ask for ``report=True``.  A loop that does not close is
        refused, naming the joints whose rows are left unsatisfied.

        Returns the coordinates, or with ``report=True`` a :class:`Placement` (the
        coordinates ``q``, the largest residual, and each revolute and prismatic joint's
        coordinate as placed and as closed: the branch found); ``print`` it."""
        from ..solvers import project_positions

        asm = self.model.assemble()
        q0 = asm.q0.copy() if q is None else np.asarray(q, float).copy()
        try:
            q1 = self._rigid_closure(q0, t, tol)
            closed = project_positions(self.model, q1, t, tol=tol, max_iter=50)
        except (ConvergenceError, ModelError) as err:
            phi = self._least_squares_closure(q0, t)
            worst = self._rows_by_joint(phi)
            names = ", ".join(f"{k} ({v:.3g})" for k, v in worst[:4])
            raise ModelError(f"robot {self.name!r}: the joints do not close at t = {t:g} s "
                             f"(largest residuals by joint, m or rad: {names}); check those "
                             f"joints' frames and the links' lengths, or place the links "
                             f"nearer to an assembled pose ({err})") from None
        if not report:
            return closed
        joints = {jn: (j.value(q0), j.value(closed), j.unit)
                  for jn, j in self.joints.items() if j.kind in DRIVEN_KINDS}
        residual = float(np.abs(asm.phi(closed, t)).max()) if asm.m else 0.0
        return Placement(closed, residual, joints)

    def _rigid_closure(self, q: np.ndarray, t: float, tol: float) -> np.ndarray:
        """Gauss–Newton on the constraints over the links' rigid motions (each link's
        ``(v, ω)``, applied as a finite rotation to its vectors): links are turned and
        moved whole, so a flexible link keeps its shape however far its joints turn
        (a least change of all coordinates would strain it).  Returns the coordinates
        where this stops improving; :func:`fem.solvers.project_positions` finishes."""
        asm = self.model.assemble()
        links = list(self.links.values())
        if not links or not asm.m:
            return q
        q = q.copy()
        phi = asm.phi(q, t)
        for _ in range(50):
            if np.abs(phi).max() <= tol:
                break
            cols = []
            Tg = np.zeros((asm.n, 6 * len(links)))
            for k, b in enumerate(links):
                d, T = b.rigid_velocity(q)
                Tg[d, 6 * k:6 * k + 6] = T
                cols.append(b)
            J = asm.jacobian(q, t)
            J = J.toarray() if hasattr(J, "toarray") else np.asarray(J)
            dp = np.linalg.lstsq(J @ Tg, -phi, rcond=1e-10)[0]
            trial = q.copy()
            for k, b in enumerate(links):
                v, w = dp[6 * k:6 * k + 3], dp[6 * k + 3:6 * k + 6]
                R = _rotation_vector(w)
                for start, is_pos in b.fields:
                    x = trial[start:start + 3]
                    trial[start:start + 3] = R @ x + (v if is_pos else 0.0)
            phi_trial = asm.phi(trial, t)
            if np.abs(phi_trial).max() >= np.abs(phi).max():
                break
            q, phi = trial, phi_trial
        return q

    def _least_squares_closure(self, q: np.ndarray, t: float) -> np.ndarray:
        """The constraint residual nearest to closing (damped Gauss–Newton on ‖Φ‖²),
        to say which joints cannot close."""
        asm = self.model.assemble()
        q = q.copy()
        phi = asm.phi(q, t)
        mu = 1e-6
        for _ in range(60):
            J = asm.jacobian(q, t)
            J = J.toarray() if hasattr(J, "toarray") else np.asarray(J)
            A = J.T @ J
            g = J.T @ phi
            while mu < 1e12:
                dq = -np.linalg.solve(A + mu * (np.trace(A) / A.shape[0] + 1e-30)
                                      * np.eye(A.shape[0]), g)
                trial = asm.phi(q + dq, t)
                if trial @ trial < phi @ phi:
                    q, phi, mu = q + dq, trial, mu / 3
                    break
                mu *= 10
            else:
                break
        return phi

    def _rows_by_joint(self, phi: np.ndarray) -> list[tuple[str, float]]:
        asm = self.model.assemble()
        worst: dict[str, float] = {}
        owners = {id(c): jn for jn, j in self.joints.items() for c in j.constraints}
        owners.update({id(m.drive): f"motor {mn}" for mn, m in self.motors.items() if m.drive})
        for i, con in enumerate(asm.owner):
            key = owners.get(id(con), con.name)
            worst[key] = max(worst.get(key, 0.0), abs(float(phi[i])))
        return sorted(worst.items(), key=lambda kv: -kv[1])

    def start_velocity(self, q: np.ndarray, t: float = 0.0) -> tuple[np.ndarray, float]:
        """Initial velocities in which every link moves on its rigid velocity field,
        from the drives' rates at ``t``: ``q̇ = T p`` with ``p`` the links' rigid
        velocities (``v, ω`` each) solving ``Φ_q T p = −Φ_t`` in least squares.
        Returns ``(q̇, residual)``; the residual [m/s or rad/s] is the part of the
        constraints' rates no rigid motion meets (zero for a rigid robot; small where
        links are deflected)."""
        asm = self.model.assemble()
        q = np.asarray(q, float)
        cols, rows = [], []
        for b in self.links.values():
            d, T = b.rigid_velocity(q)
            rows.append(d)
            cols.append(T)
        n_p = 6 * len(cols)
        Tg = np.zeros((asm.n, n_p))
        for k, (d, T) in enumerate(zip(rows, cols, strict=True)):
            Tg[d, 6 * k:6 * k + 6] = T
        J = asm.jacobian(q, t)
        J = J.toarray() if hasattr(J, "toarray") else np.asarray(J)
        rhs = -asm.phi_t(q, t)
        A = J @ Tg
        p = np.linalg.lstsq(A, rhs, rcond=None)[0]
        v = Tg @ p
        return v, float(np.abs(A @ p - rhs).max()) if rhs.size else 0.0

    def rest(self, t: float = 0.0, **options):
        """Static equilibrium under gravity with the drives held at time ``t``
        (:func:`fem.solve_static` from :meth:`place`)."""
        from ..solvers import solve_static
        from ..solvers.static import StaticResult

        q = self.place(t)
        m = self.model
        if not (np.any(m.gravity) or m.forces or m.distributed or m.point_masses
                or any(b.carries_loads and getattr(b, "loads", None)
                       for b in m.nonlinear_bodies)):
            # nothing loads it: the placed pose is the equilibrium (a relative residual
            # would have no scale to judge the links' round-off forces by)
            result = StaticResult(q, np.zeros(m.assemble().m), True, 0, [])
            result.info = {"increments": 0, "no_load": True}
            return result
        return solve_static(self.model, q0=q, t=t, **options)

    def simulate(self, t_end: float, dt: float, start: str = "rest", t0: float = 0.0,
                 q0=None, **settings):
        """Forward dynamics (:func:`fem.simulate`) with the robot's :meth:`sensors`.

        ``start``: ``"rest"`` — at rest in static equilibrium with the drives at ``t0``
        (the solver warns if a drive moves then and a link is flexible); ``"motion"`` —
        at static equilibrium (or
        ``q0``) with every link on its rigid velocity field from the drives' rates
        (:meth:`start_velocity`); ``"placed"`` — at the placed configuration, at rest."""
        from ..solvers import simulate

        start = choice(start, ("rest", "motion", "placed"), "Robot.simulate: start")
        if q0 is None:
            if start == "placed":
                q0 = self.place(t0)
            else:
                q0 = self.rest(t0).q
        q0 = np.asarray(q0, float)
        # starting at rest while a drive moves is warned about by the solver
        v0 = self.start_velocity(q0, t0)[0] if start == "motion" else None
        sensors = {**self.sensors(), **settings.pop("sensors", {})}
        return simulate(self.model, t_end, dt, q0=q0, v0=v0, t0=t0, sensors=sensors,
                        **settings)


def _frame_rotation(f: Frame, q: np.ndarray) -> np.ndarray:
    """The rotation nearest to the frame's current triad (polar decomposition), as the
    frame's axes in world axes."""
    B = np.zeros((3, 3))
    for j, m in enumerate(f.basis):
        if m is not None:
            B[:, j] = m(q)
    missing = [j for j, m in enumerate(f.basis) if m is None]
    if missing:                       # a tangent-only frame: the least rotation of it
        t0 = f.basis0[:, 0] / np.linalg.norm(f.basis0[:, 0])
        t = B[:, 0] / np.linalg.norm(B[:, 0])
        R = _rotation_between(t0, t)
        return R @ f.pose.rotation
    U, _, Vt = np.linalg.svd(B @ f._inv)           # inv(basis0), made with the frame
    R = U @ Vt
    if np.linalg.det(R) < 0:
        U[:, -1] *= -1
        R = U @ Vt
    return R @ f.pose.rotation


def _rotation_vector(w: np.ndarray) -> np.ndarray:
    """The rotation by the angle ``|w|`` about ``w`` (Rodrigues)."""
    a = float(np.linalg.norm(w))
    if a < 1e-300:
        return np.eye(3)
    k = w / a
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(a) * K + (1.0 - np.cos(a)) * K @ K


def _rotation_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    v = np.cross(a, b)
    c = float(a @ b)
    if np.linalg.norm(v) < 1e-15:
        return np.eye(3) if c > 0 else -np.eye(3) + 2 * np.outer(_perp(a), _perp(a))
    K = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + K + K @ K / (1 + c)


def _perp(a):
    e = np.eye(3)[int(np.argmin(np.abs(a)))]
    e = e - (e @ a) * a
    return e / np.linalg.norm(e)


def _joint_acceleration(joint: Joint, q, v, a) -> float:
    """θ̈ = ∇θ·q̈ + q̇ᵀ ∇²θ q̇ (the second term by a central difference of ∇θ along q̇)."""
    q, v, a = (np.asarray(x, float) for x in (q, v, a))
    dofs, g = joint.gradient(q)
    h = 1e-7 / max(1.0, float(np.abs(v[dofs]).max()))
    _, gp = joint.gradient(q + h * v)
    _, gm = joint.gradient(q - h * v)
    return float(g @ a[dofs] + (gp - gm) @ v[dofs] / (2 * h))
