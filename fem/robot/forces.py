"""Forces between two frames: a spring-damper and a length-driven cylinder.

A hydraulic cylinder, a gas strut or a linear motor acts along the line between two pins
— the origins of a frame on each of two links (or a frame of the ground):

* :func:`add_spring` — a spring-damper: the force ``k (L − L₀) + c L̇`` along the line
  (a cylinder held by its oil column as a stiff spring, a gas strut, a bumper);
* :func:`add_cylinder` — a cylinder whose length is prescribed: it follows a length law
  ``t -> (L, L̇, L̈)`` (or holds a length) and its force is the output, as a servo
  motor's torque is (inverse dynamics on the length).

::

    robot.add_ground_frame("P", fem.robot.pose((0.8, 0.0, 0.0)))
    lift = fem.robot.add_cylinder(robot, "lift cylinder", ("ground", "P"),
                                  ("rocker", "A"), length=law)
    spring = fem.robot.add_spring(robot, "strut", ("ground", "P"), ("rocker", "A"),
                                  stiffness=1e8, damping=2e3)

The spring is a massless body of the model (:class:`SpringDamper`, on the coordinates of
the two frames' origins): a model with one is evaluated on the Python path of the
solvers (it declares no compiled kernel).  The cylinder is one constraint row
(:class:`fem.constraints.DistanceDrive`, or :class:`fem.constraints.Distance` for a
held length).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..bodies.base import NonlinearBody
from ..constraints import Distance, DistanceDrive
from ..core.errors import ModelError
from ..core.validate import function, nonnegative, positive, text
from ..maps.point_maps import evaluate
from .frames import Frame

__all__ = ["SpringDamper", "Cylinder", "add_spring", "add_cylinder"]


class SpringDamper(NonlinearBody):
    """A massless spring-damper between two points ``a`` and ``b`` (maps of ``q``: a
    :class:`fem.LinearMap` or a point of a reduced or floating-frame body).

    With ``L = |b − a|`` and ``∂L/∂q = Jᵀ n`` (``n`` the unit vector from ``a`` to ``b``,
    ``J = J_b − J_a``) the generalized force is ``(k (L − L₀) + c L̇) ∂L/∂q`` — the
    elastic part from :meth:`forces` with its tangent, the damping part (a velocity-
    dependent force) from :meth:`inertia` with its tangents, the mass zero.

    Parameters
    ----------
    name : str
    a, b : point maps
    stiffness : float
        ``k`` [N/m], ≥ 0.
    damping : float
        ``c`` [N·s/m], ≥ 0.
    length : float
        ``L₀`` [m], > 0: the unstretched length.
    """

    elastic = True
    damping_matrix = None
    fe_model = None
    carries_loads = False

    def __init__(self, name: str, a, b, stiffness: float, damping: float, length: float):
        self.name = text(name, "spring: name")
        self.a, self.b = a, b
        self.k = nonnegative(stiffness, f"spring {name!r}: stiffness", "N/m")
        self.c = nonnegative(damping, f"spring {name!r}: damping", "N·s/m")
        self.length = positive(length, f"spring {name!r}: length", "m")
        self.dofs = np.unique(np.concatenate([np.asarray(m.dofs, np.int64) for m in (a, b)]
                                             + [np.zeros(0, np.int64)]))
        self._cols = [np.searchsorted(self.dofs, np.asarray(m.dofs, np.int64))
                      for m in (a, b)]

    def _line(self, q: np.ndarray, second: bool):
        """``L``, ``g = ∂L/∂q`` (k,) and, with ``second``, ``∂g/∂q`` (k, k)."""
        k = self.dofs.size
        xa, Ja, Ha = evaluate(self.a, q, second)
        xb, Jb, Hb = evaluate(self.b, q, second)
        d = xb - xa
        L = float(np.linalg.norm(d))
        if L <= 1e-12 * max(self.length, 1.0):
            raise ModelError(f"spring {self.name!r}: its two points meet (length 0); the "
                             f"force has no direction")
        n = d / L
        J = np.zeros((3, k))
        J[:, self._cols[1]] += Jb
        J[:, self._cols[0]] -= Ja
        g = J.T @ n
        if not second:
            return L, g, None
        G = (J.T @ J - np.outer(g, g)) / L
        for H, cols, sign in ((Hb, self._cols[1], 1.0), (Ha, self._cols[0], -1.0)):
            if H is not None:
                G[np.ix_(cols, cols)] += sign * np.einsum("i,ijk->jk", n, H)
        return L, g, G

    def mass(self, q: np.ndarray) -> np.ndarray:
        k = self.dofs.size
        return np.zeros((k, k))

    def inertia(self, q, v, a, tangent=False):
        k = self.dofs.size
        if self.c == 0.0:
            zero = np.zeros((k, k))
            return np.zeros(k), ((zero, zero, zero) if tangent else None)
        L, g, G = self._line(q, tangent)
        rate = float(g @ v[self.dofs])
        f = self.c * rate * g
        if not tangent:
            return f, None
        Gv = G @ v[self.dofs]
        return f, (np.zeros((k, k)), self.c * (np.outer(g, Gv) + rate * G),
                   self.c * np.outer(g, g))

    def forces(self, q, gravity, tangent=False):
        L, g, G = self._line(q, tangent)
        s = self.k * (L - self.length)
        f = s * g
        if not tangent:
            return f, None
        return f, self.k * np.outer(g, g) + s * G

    def force(self, q: np.ndarray, v: np.ndarray | None = None) -> float:
        """The spring-damper's tension [N] at ``(q, q̇)`` (positive: it pulls the points
        together; a compressed cylinder's is negative)."""
        L, g, _ = self._line(np.asarray(q, float), False)
        rate = 0.0 if v is None else float(g @ np.asarray(v, float)[self.dofs])
        return self.k * (L - self.length) + self.c * rate

    def energy(self, q, v, gravity):
        L, _, _ = self._line(q, False)
        return {"kinetic_J": 0.0, "potential_J": 0.0,
                "elastic_J": 0.5 * self.k * (L - self.length) ** 2}

    def __repr__(self) -> str:
        return f"SpringDamper({self.name!r}, k={self.k:g} N/m, c={self.c:g} N·s/m)"


class Cylinder:
    """A length-driven cylinder of a robot (made by :func:`add_cylinder`): its
    ``constraint`` keeps the distance between the two frames' origins at its length law
    (or length); :meth:`force` reads its force from the multipliers."""

    def __init__(self, name: str, a: Frame, b: Frame, constraint, model):
        self.name, self.a, self.b = name, a, b
        self.constraint = constraint
        self._model = model

    def length(self, q: np.ndarray) -> float:
        """The distance between the two pins [m] at ``q``."""
        q = np.asarray(q, float)
        return float(np.linalg.norm(self.b.origin(q) - self.a.origin(q)))

    def force(self, q: np.ndarray, lam: np.ndarray) -> float:
        """The cylinder's pushing force [N] (positive: it pushes the pins apart) from the
        multipliers ``lam`` of a state at ``q``."""
        rows = self._model.assemble().rows_of(self.constraint)
        return float(-2.0 * np.asarray(lam, float)[rows][0] * self.length(q))

    def __repr__(self) -> str:
        return f"Cylinder({self.name!r}, {self.a.label!r} – {self.b.label!r})"


def _frame(robot, spec, what: str) -> Frame:
    if isinstance(spec, Frame):
        return spec
    if isinstance(spec, tuple) and len(spec) == 2 and all(isinstance(s, str) for s in spec):
        return robot.frame(*spec)
    raise ModelError(f"{what}: a frame is (link name, frame name) — ('ground', name) for a "
                     f"frame of robot.add_ground_frame — or a Frame; got {spec!r:.80}")


def _pins(robot, name: str, a, b, what: str) -> tuple[Frame, Frame, float]:
    from .robot import Robot

    if not isinstance(robot, Robot):
        raise ModelError(f"{what}: robot must be a fem.Robot; got {type(robot).__name__}")
    fa = _frame(robot, a, f"{what} {name!r}: a")
    fb = _frame(robot, b, f"{what} {name!r}: b")
    if fa.link == fb.link:
        raise ModelError(f"{what} {name!r}: both ends are on {fa.link!r}")
    q0 = robot.model.q0
    L0 = float(np.linalg.norm(np.asarray(fb.origin(q0)) - np.asarray(fa.origin(q0))))
    if L0 <= 1e-12:
        raise ModelError(f"{what} {name!r}: frames {fa.label!r} and {fb.label!r} are at the "
                         f"same place; the line of the force needs a length")
    return fa, fb, L0


def add_spring(robot, name: str, a, b, stiffness: float, damping: float = 0.0,
               length: float | None = None) -> SpringDamper:
    """A spring-damper between the origins of two frames of ``robot``.

    Parameters
    ----------
    robot : fem.Robot
    name : str
    a, b : (link, frame) or Frame
        The two pins; ``("ground", name)`` is a frame of :meth:`fem.Robot.add_ground_frame`.
    stiffness : float
        ``k`` [N/m] (a hydraulic cylinder: its oil column's and hoses' stiffness).
    damping : float
        ``c`` [N·s/m].
    length : float or None
        The unstretched length [m]; by default the distance where the frames are built
        (no force there).

    Returns
    -------
    SpringDamper
        The body in ``robot.model`` (``spring.force(q, v)``: its tension [N]).
    """
    name = text(name, "add_spring: name")
    fa, fb, L0 = _pins(robot, name, a, b, "spring")
    spring = SpringDamper(name, fa.origin, fb.origin, stiffness, damping,
                          L0 if length is None else length)
    robot.model.add_body(spring)
    _sketch(robot, name, fa, fb)
    return spring


def add_cylinder(robot, name: str, a, b,
                 length: Callable[[float], tuple[float, float, float]] | float | None = None
                 ) -> Cylinder:
    """A cylinder between the origins of two frames whose length is prescribed: a
    function ``length(t) -> (L, L̇, L̈)`` [m, m/s, m/s²] (a hydraulic cylinder driven by
    its valve, a linear motor: inverse dynamics on the length), a number (a length held)
    or None (the length where the frames are built, held: a rigid strut between pins).
    Its force is an output: :meth:`Cylinder.force` from the multipliers of a state.
    ``a``, ``b`` as for :func:`add_spring`."""
    name = text(name, "add_cylinder: name")
    fa, fb, L0 = _pins(robot, name, a, b, "cylinder")
    if callable(length):
        con = DistanceDrive(fb.origin, fa.origin,
                            function(length, f"cylinder {name!r}: length (t -> (L, L̇, L̈))"),
                            name)
    elif length is None or isinstance(length, int | float) and not isinstance(length, bool):
        held = L0 if length is None else positive(length, f"cylinder {name!r}: length", "m")
        con = Distance(fb.origin, fa.origin, held, name)
    else:
        raise ModelError(f"cylinder {name!r}: length is a function t -> (L, L̇, L̈), a "
                         f"number [m] or None (held where built); got {length!r:.80}")
    robot.model.add_constraint(con)
    _sketch(robot, name, fa, fb)
    return Cylinder(name, fa, fb, con, robot.model)


def _drawn(m):
    """A linear map to draw a pin by: the pin itself, or on a reduced body the pin's
    place in the body's frame (its elastic part left out: sketches are linear maps);
    None where there is none."""
    from ..bodies.reduced import ReducedPoint
    from ..maps.linear_map import LinearMap

    if isinstance(m, LinearMap):
        return m
    if isinstance(m, ReducedPoint) and m.v[0] == 1.0:
        return m.body.frame.point(m.v[1:4], f"{m.label} (drawn)")
    return None


def _sketch(robot, name: str, fa: Frame, fb: Frame) -> None:
    """The line between the two pins in the pictures, where both can be drawn."""
    ends = [_drawn(fa.origin), _drawn(fb.origin)]
    if all(e is not None for e in ends):
        robot.model.add_sketch(ends, name)
