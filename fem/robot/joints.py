"""Joints and motors between frames of any two links.

A joint relates a *parent* frame and a *child* frame (:class:`~fem.robot.frames.Frame`)
and builds its own constraint rows from their origins and basis vectors, whatever the
links' models.  Its axis is given in the frames' axes (``"z"`` by default) and is the
same in both: the joint is closed when the two frames' origins coincide and their axes
agree as the joint allows.

=============  =====  ========================================================
kind           rows   what stays equal
=============  =====  ========================================================
revolute       5      origins; the child's axis along the parent's
prismatic      5      orientation; the origins' offset along the axis only
cylindrical    4      the child's axis along the parent's; offset along it only
spherical      3      origins
universal      4      origins; the child's second axis normal to the parent's axis
planar         3      the plane normal ``axis``; the origins' offset within it
fixed          6      origins and orientation (12 between deformable nodes, below)
=============  =====  ========================================================

A fixed joint between two frames that are both deformable material points — an ANCF
beam's node, a reduced link's interface ``[point, x, y, z]`` — *welds* them as one
continued beam: the origins and the three gradient vectors in the relation they had
when built, ``[r_x r_y r_z]_child = [r_x r_y r_z]_parent T`` (12 rows; the constant
``T`` allows a slope discontinuity: Shabana and Mikkola, *Use of the finite element
absolute nodal coordinate formulation in modeling slope discontinuity*, J. Mech. Des.
125 (2003) 342–350, doi:10.1115/1.1564569).  The 6 rows of a rigid joint would leave
each side's section free to stretch and shear apart from the other's, and the joint
would soften as the links' meshes are refined.

A frame of an ANCF cable carries its tangent only (a cable has no twist): a revolute
joint on it keeps the tangent normal to the axis (4 rows) and a fixed joint clamps the
tangent (5 rows).

The joint's coordinate — the angle about the axis from the parent's x to the child's
x for a revolute, the offset along the axis for a prismatic — is measured from
:class:`~fem.robot.frames.Projection` maps, and a motor drives that same coordinate:
as a *servo* its row ``c(q)·e(θ(t)) = 0`` prescribes it (the effort is the output:
inverse dynamics), as an *effort* motor it applies ``τ ∂θ/∂q``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..constraints import Coincident, Constraint, ConstraintRows, Dot
from ..core.errors import ModelError
from ..maps.linear_map import LinearMap, constant
from ..maps.point_maps import evaluate, is_nonlinear
from ..model.actuators import Actuator
from .frames import Frame, axis_vector, independent_columns, projection

__all__ = ["JOINT_KINDS", "Joint", "JointDrive", "JointActuator"]

JOINT_KINDS = ("revolute", "prismatic", "cylindrical", "spherical", "universal", "planar",
               "fixed")
DRIVEN_KINDS = ("revolute", "prismatic")


def _tangent_share(frame: Frame, local) -> float:
    """How much of an ANCF link's centre-line tangent ``r_x`` (its frame's first basis
    vector) the frame's vector ``local`` takes; 0 on frames of other links."""
    if not frame.on_tangent:
        return 0.0
    c = frame._inv @ (frame.pose.rotation @ np.asarray(local, float))
    return round(abs(float(c[0])), 12)


def _normals(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors normal to ``a`` and to each other: the frame's x made normal to
    ``a`` (its y if x is along ``a``), then ``a × n₁``."""
    e = np.eye(3)
    n1 = e[0] - (e[0] @ a) * a
    if np.linalg.norm(n1) < 1e-6:
        n1 = e[1] - (e[1] @ a) * a
    n1 /= np.linalg.norm(n1)
    return n1, np.cross(a, n1)


class Joint:
    """A joint of a :class:`fem.Robot` (made by :meth:`fem.Robot.add_joint`).

    Attributes
    ----------
    name, kind : str
    parent, child : Frame
    axis : (3,) array
        The joint axis in the frames' axes.
    constraints : list of fem.constraints.Constraint
        Its rows in the model.
    """

    def __init__(self, name: str, kind: str, parent: Frame, child: Frame, axis="z",
                 axis2="x"):
        self.name, self.kind = name, kind
        self.parent, self.child = parent, child
        self.axis = axis_vector(axis, f"joint {name!r}: axis")
        self.n1, self.n2 = _normals(self.axis)
        if kind == "universal":
            a2 = axis_vector(axis2, f"joint {name!r}: axis2")
            w1, w2 = parent.pose.rotation @ self.axis, child.pose.rotation @ a2
            if abs(w1 @ w2) > 1e-9:
                raise ModelError(f"joint {name!r}: a universal joint's second axis (axis2, "
                                 f"in the child frame) must be normal to its first (axis, in "
                                 f"the parent frame) where the frames are built; they are "
                                 f"{np.degrees(np.arccos(np.clip(w1 @ w2, -1, 1))):.3g}° "
                                 f"apart")
            self.axis2 = a2
        self.constraints: list[Constraint] = []
        self.limits: dict = {}        # lower, upper, effort, velocity (from a URDF)
        self._coordinate: dict = {}           # "section" / "tangent" -> (map, offset)

    # ------------------------------------------------------------ rows
    def _has(self, frame: Frame, local) -> bool:
        try:
            frame.vector(local)
        except ModelError:
            return False
        return True

    def _along(self, a: np.ndarray) -> list[Constraint]:
        """Rows keeping the child's vector ``a`` along the parent's: two Dot rows with
        the parent's normals (or, on a cable's tangent-only frame, the tangent normal to
        the parent's ``a`` where ``a`` is normal to the tangent)."""
        P, C, w = self.parent, self.child, f"joint {self.name!r}"
        n1, n2 = _normals(a)
        # the child's a against the parent's normals, or the parent's a against the
        # child's: whichever uses less of an ANCF beam's tangent, so that the rows hold
        # the beam's section (a clamp of the section, shear free, as in Timoshenko's
        # beam) rather than its centre line's slope (which leaves the section free to
        # turn at the joint: a support that gets softer as the mesh is refined)
        ways = []
        if self._has(C, a) and self._has(P, n1) and self._has(P, n2):
            ways.append((_tangent_share(C, a) + _tangent_share(P, n1)
                         + _tangent_share(P, n2), 0))
        if self._has(P, a) and self._has(C, n1) and self._has(C, n2):
            ways.append((_tangent_share(P, a) + _tangent_share(C, n1)
                         + _tangent_share(C, n2), 1))
        if ways:
            _, way = min(ways)
            if way == 0:
                ca = C.vector(a, w)
                return [Dot(ca, P.vector(n, w), 0.0, f"{self.name} axis {i}")
                        for i, n in enumerate((n1, n2))]
            pa = P.vector(a, w)
            return [Dot(pa, C.vector(n, w), 0.0, f"{self.name} axis {i}")
                    for i, n in enumerate((n1, n2))]
        # a tangent-only frame: its tangent t normal to a
        for tangent_frame, other in ((C, P), (P, C)):
            if tangent_frame.basis[1] is None:
                t_local = tangent_frame.pose.rotation.T @ tangent_frame.basis0[:, 0]
                if abs(t_local @ a) > 1e-9:
                    raise ModelError(
                        f"{w}: frame {tangent_frame.label!r} is on an ANCF cable, which "
                        f"turns only about axes normal to it; the joint axis is not normal "
                        f"to the cable (use a beam or a spherical joint)")
                return [Dot(tangent_frame.vector(t_local, w), other.vector(a, w), 0.0,
                            f"{self.name} axis")]
        raise ModelError(f"{w}: neither frame carries the joint axis")

    def _weld_rows(self, q0: np.ndarray | None) -> list[Constraint]:
        """A weld's gradient rows: ``g_child,j = Σₖ T_kj g_parent,k`` for the three
        gradients, ``T`` from their values where the frames are built (at ``q0``, else
        the frames' ``basis0``; the identity where one beam is continued straight)."""
        P, C = self.parent, self.child
        if q0 is None:
            Gp, Gc = P.basis0, C.basis0
        else:
            Gp, Gc = (np.column_stack([evaluate(m, q0)[0] for m in f.gradients])
                      for f in (P, C))
        independent_columns(Gp, f"joint {self.name!r} (fixed, a weld): the gradients of "
                            f"frame {P.label!r}", "a weld needs three")
        T = np.linalg.solve(Gp, Gc)
        T[np.abs(T) < 1e-12 * np.abs(T).max()] = 0.0
        rows = []
        for j in range(3):
            combo = None
            for k in range(3):
                if T[k, j] != 0.0:
                    term = T[k, j] * P.gradients[k] if T[k, j] != 1.0 else P.gradients[k]
                    combo = term if combo is None else combo + term
            rows.append(Coincident(C.gradients[j], combo,
                                   f"{self.name} gradient {'xyz'[j]}"))
        return rows

    def _twist(self) -> list[Constraint]:
        """The row locking the rotation about the axis (child's n₁ normal to parent's
        n₂); none where a frame is a cable's (no twist)."""
        P, C, w = self.parent, self.child, f"joint {self.name!r}"
        ways = [(_tangent_share(C, c) + _tangent_share(P, p), k, c, p)
                for k, (c, p) in enumerate(((self.n1, self.n2), (self.n2, self.n1)))
                if self._has(C, c) and self._has(P, p)]
        if ways:            # the pair using less of a beam's tangent (see _along)
            _, _, c, p = min(ways, key=lambda x: x[:2])
            return [Dot(C.vector(c, w), P.vector(p, w), 0.0, f"{self.name} twist")]
        return []

    def _bar_rows(self) -> list[Constraint] | None:
        """The rows of a joint on a :class:`~fem.robot.Bar` frame whose spin no joint has
        fixed yet: a revolute's point and the bar normal to the axis (one row), the axis
        then fixing the bar's spin; None where the ordinary rows serve (a spherical or
        universal joint, or every bar's spin fixed).  A joint that needs the bar's
        orientation about its own axis is refused."""
        P, C, k, w = self.parent, self.child, self.kind, f"joint {self.name!r}"
        free = [f for f in (P, C) if getattr(f, "bar", None) is not None and f.bar.n is None]
        if not free or k in ("spherical", "universal"):
            return None
        bar = free[0]
        if k != "revolute":
            raise ModelError(
                f"{w} ({k}): link {bar.link!r} is a Bar (a slender rod), which has no "
                f"orientation about its own axis until a revolute joint normal to it fixes "
                f"it, and a {k} joint needs it; add that revolute joint first (from the "
                f"fixed end out), or make the link Rigid")
        if len(free) == 2:
            raise ModelError(
                f"{w}: both links, {P.link!r} and {C.link!r}, are bars whose spin no joint "
                f"has fixed, so neither carries the joint's axis; add the joints from the "
                f"fixed end out (a joint to the ground or to a fixed-spin link first), or "
                f"make one link Rigid")
        other = C if bar is P else P
        world = P.pose.rotation @ self.axis
        cos = float(bar.bar.e0 @ world)
        if abs(cos) > 1e-9:
            raise ModelError(
                f"{w}: link {bar.link!r} is a Bar (a slender rod): a revolute joint on it "
                f"must have its axis normal to the bar, which fixes the bar's spin; the "
                f"axis is {np.degrees(np.arccos(np.clip(abs(cos), 0.0, 1.0))):.6g}° from "
                f"the bar's normal plane. Give the frames an axis normal to the bar, or "
                f"make the link Rigid")
        n = other.vector(self.axis, w)
        rows: list[Constraint] = self._point_rows()
        rows.append(Dot(bar.bar.e, n, 0.0, f"{self.name} axis"))
        bar.bar.fix(n, world, self.name)
        return rows

    def _point_rows(self) -> list[Constraint]:
        """The origins' coincidence; none where both frames are on one point (two bars
        sharing an end, :class:`~fem.robot.Bar` ``share``)."""
        P, C = self.parent, self.child
        if getattr(P, "node", None) is not None and getattr(P, "node", None) == \
                getattr(C, "node", None):
            return []
        return [Coincident(P.origin, C.origin, f"{self.name} point")]

    def build_rows(self, q0: np.ndarray | None = None) -> list[Constraint]:
        """The joint's rows (a weld's gradient relation taken at ``q0``, the model's
        build state, where given)."""
        P, C, k, w = self.parent, self.child, self.kind, f"joint {self.name!r}"
        rows: list[Constraint] | None = self._bar_rows()
        if rows is not None:
            self.constraints = rows
            return rows
        if k == "fixed" and P.gradients is not None and C.gradients is not None:
            self.constraints = rows = self._point_rows() + self._weld_rows(q0)
            return rows
        rows = []
        if k in ("revolute", "spherical", "universal", "fixed"):
            rows += self._point_rows()
        if k in ("prismatic", "cylindrical"):
            d = C.origin - P.origin
            rows += [Dot(d, P.vector(n, w), 0.0, f"{self.name} offset {i}")
                     for i, n in enumerate((self.n1, self.n2))]
        if k == "planar":
            rows.append(Dot(C.origin - P.origin, P.vector(self.axis, w), 0.0,
                            f"{self.name} plane"))
        if k in ("revolute", "prismatic", "cylindrical", "fixed", "planar"):
            rows += self._along(self.axis)
        if k in ("prismatic", "fixed"):
            rows += self._twist()
        if k == "universal":
            rows.append(Dot(P.vector(self.axis, w), C.vector(self.axis2, w), 0.0,
                            f"{self.name} cross"))
        self.constraints = rows
        return rows

    # ------------------------------------------------------------ coordinate
    def coordinate_map(self, on: str = "section"):
        """The map whose value gives the joint coordinate: for a revolute, a direction of
        the child normal to the axis, in the parent's axes ``(n₁, n₂, a)`` (θ = atan2 of
        the second and first components, less :meth:`offset`); for a prismatic, the
        origins' offset in those axes (the third component).

        ``on="section"`` measures the child's direction that carries least of its frame's
        first basis vector (on an ANCF beam the centre line's tangent ``r_x``): a section
        vector, so that a drive clamps the section; ``on="tangent"`` the other (the
        tangent where the link runs normal to the axis; a cable's tangent always)."""
        if on in self._coordinate:
            return self._coordinate[on][0]
        P, C, w = self.parent, self.child, f"joint {self.name!r}"
        if self.kind not in DRIVEN_KINDS:
            raise ModelError(f"joint {self.name!r} is {self.kind}: only revolute and "
                             f"prismatic joints have one coordinate (a motor, an angle)")
        axes = [P.vector(v, w) for v in (self.n1, self.n2, self.axis)]
        if self.kind == "prismatic":
            m = projection(axes, C.origin - P.origin, f"{self.name} offset")
            self._coordinate[on] = (m, 0.0)
            return m
        options = [(v, off) for v, off in ((self.n1, 0.0), (self.n2, np.pi / 2))
                   if self._has(C, v)]
        if options:
            coef = np.round([abs((C._inv @ (C.pose.rotation @ v))[0]) for v, _ in options], 12)
            pick = int(np.argmin(coef)) if on == "section" else int(np.argmax(coef))
            v, offset = options[pick]
            d = C.vector(v, w, tangent=(on == "tangent"))
        else:                                   # a cable's tangent, normal to the axis
            t_local = C.pose.rotation.T @ C.basis0[:, 0]
            d = C.vector(t_local, w)
            offset = float(np.arctan2(t_local @ self.n2, t_local @ self.n1))
        m = projection(axes, d, f"{self.name} direction")
        self._coordinate[on] = (m, offset)
        return m

    def offset(self, on: str = "section") -> float:
        """The angle [rad] of the measured direction at the joint's zero."""
        self.coordinate_map(on)
        return self._coordinate[on][1]

    @property
    def unit(self) -> str:
        return "m" if self.kind == "prismatic" else "rad"

    def value(self, q: np.ndarray) -> float:
        """The joint coordinate at ``q``: angle [rad] or offset [m]."""
        c = self.coordinate_map()(q)
        if self.kind == "prismatic":
            return float(c[2])
        return float(np.arctan2(c[1], c[0]) - self.offset())

    def gradient(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(dofs, ∂θ/∂q[dofs])`` of the joint coordinate."""
        m = self.coordinate_map()
        x, J, _ = evaluate(m, q)
        if self.kind == "prismatic":
            return np.asarray(m.dofs), J[2]
        r2 = x[0] ** 2 + x[1] ** 2
        return np.asarray(m.dofs), (x[0] * J[1] - x[1] * J[0]) / r2

    def hessian(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(dofs, ∂²θ/∂q²[dofs, dofs])`` of the joint coordinate (for the derivative of
        its rate, ``∂θ̇/∂q = H q̇``)."""
        m = self.coordinate_map()
        x, J, H = evaluate(m, q, True)
        if self.kind == "prismatic":
            return np.asarray(m.dofs), H[2]
        r2 = x[0] ** 2 + x[1] ** 2
        N = x[0] * J[1] - x[1] * J[0]
        dN = np.outer(J[1], J[0]) - np.outer(J[0], J[1]) + x[0] * H[1] - x[1] * H[0]
        dr2 = 2.0 * (x[0] * J[0] + x[1] * J[1])
        return np.asarray(m.dofs), dN / r2 - np.outer(N, dr2) / r2**2

    def rate(self, q: np.ndarray, v: np.ndarray) -> float:
        """The joint rate at ``(q, q̇)``: [rad/s] or [m/s]."""
        dofs, g = self.gradient(q)
        return float(g @ v[dofs])

    def __repr__(self) -> str:
        return (f"Joint({self.name!r}, {self.kind}, {self.parent.label!r} → "
                f"{self.child.label!r})")


class JointDrive(Constraint):
    """The joint coordinate follows ``motion(t) -> (x, ẋ, ẍ)`` (one row).

    Revolute: ``c(q)·e(θ(t)) = 0`` with ``c`` the child's direction in the parent's axes
    and ``e(θ) = (−sin θ, cos θ, 0)``: the prescribed direction of the quadratic form (a
    linear ``c`` when the parent is the ground: the compiled path keeps it).  Prismatic:
    ``s(q) − x(t) = 0``.  ``servo=True``: the row's reaction is a motor's effort."""

    kind = "joint_drive"

    def __init__(self, joint: Joint, motion: Callable, name: str, servo: bool = True):
        from ..core.validate import function

        super().__init__(name)
        self.joint = joint
        self.c = joint.coordinate_map()
        self.motion = function(motion, f"motor {name!r}: motion (t -> (x, ẋ, ẍ))")
        self.servo = bool(servo)

    def rows(self, q0, n_dof):
        from ..constraints import motion_values

        j, name = self.joint, self.name
        if j.kind == "prismatic":
            unit_z = constant(np.array([0.0, 0.0, 1.0]))

            def h(t):
                return tuple(np.array([v]) for v in motion_values(self.motion, t, None,
                                                                   name))

            if is_nonlinear(self.c):
                return ConstraintRows(1, [name], np.zeros(1), motion=h,
                                      motion_rows=np.array([0]),
                                      general=[(0, self.c, unit_z)])
            return ConstraintRows(1, [name], np.array([self.c.offset[2]]),
                                  _row(self.c, 2, n_dof), motion=h,
                                  motion_rows=np.array([0]))
        off = j.offset()

        def beta(t):
            th, thd, thdd = motion_values(self.motion, t, None, name)
            th = th + off
            c, s = np.cos(th), np.sin(th)
            e = np.array([-s, c, 0.0])
            d = np.array([c, s, 0.0])
            return e[None], (-thd * d)[None], (-thdd * d - thd**2 * e)[None]

        if is_nonlinear(self.c):
            return ConstraintRows(1, [name], np.zeros(1), general=[(0, self.c, None)],
                                  beta_motion=beta, beta_rows=np.array([0]))
        zero = LinearMap(np.zeros(0, np.int64), np.zeros((3, 0)), np.zeros(3), "e(t)")
        return ConstraintRows(1, [name], np.zeros(1), bilinear=[(0, self.c, zero)],
                              beta_motion=beta, beta_rows=np.array([0]))


def _row(m: LinearMap, component: int, n_dof: int):
    import scipy.sparse as sp

    return sp.coo_matrix((m.coef[component], (np.zeros(m.dofs.size, int), m.dofs)),
                         shape=(1, n_dof))


class JointActuator(Actuator):
    """The effort of a motor on its joint: the generalized force ``u ∂θ/∂q`` (a torque
    about the axis on the child and its reaction on the parent; a force along it).

    For a revolute joint ``∂θ/∂q = (c₀ ∇c₁ − c₁ ∇c₀) / |c|²`` with ``c`` the child's
    direction in the parent's axes (``on``: a section vector of the child's frame, or
    its tangent — see :meth:`Joint.coordinate_map`); ``|c|`` is taken at build (1 for a
    rigid or ground parent, within the strain of an ANCF node otherwise), so that with a
    ground parent
    the force is affine in ``q`` (as :class:`fem.model.actuators.RevoluteActuator`)."""

    def __init__(self, joint: Joint, name: str, effort=None, on: str = "section"):
        super().__init__(name, effort)
        self.joint = joint
        self.units = "N" if joint.kind == "prismatic" else "N·m"
        self.c = joint.coordinate_map(on)
        self.dofs = np.asarray(self.c.dofs, np.int64)
        self.r2 = 1.0
        self._affine = None       # (D, b) of B = D q[dofs] + b once bound (linear c)

    def bind(self, q0: np.ndarray) -> None:
        if self.joint.kind == "revolute":
            x = self.c(q0)
            self.r2 = float(x[0] ** 2 + x[1] ** 2)
            if self.r2 < 1e-12:
                raise ModelError(f"motor {self.name!r}: the child's reference direction is "
                                 f"along the joint axis of {self.joint.name!r}")
        # a linear direction (a ground or fixed-axis parent): B affine, ∂B/∂q constant —
        # a product and a sum where the general form evaluates the map each call (the
        # solvers ask for B at every residual and for ∂B/∂q at every factorization)
        aff = self.affine()
        if aff is not None:
            D, b = aff
            D.setflags(write=False)
            self._affine = (D, b)

    def B(self, q):
        if self._affine is not None:
            D, b = self._affine
            return D @ q[self.dofs] + b
        x, J, _ = evaluate(self.c, q)
        if self.joint.kind == "prismatic":
            return J[2].copy()
        return (x[0] * J[1] - x[1] * J[0]) / self.r2

    def dB(self, q):
        if self._affine is not None:
            return self._affine[0]
        x, J, H = evaluate(self.c, q, True)
        if self.joint.kind == "prismatic":
            return H[2].copy()
        return (np.outer(J[1], J[0]) - np.outer(J[0], J[1]) + x[0] * H[1]
                - x[1] * H[0]) / self.r2

    def affine(self):
        if is_nonlinear(self.c):
            return None
        A, b = self.c.coef, self.c.offset
        if self.joint.kind == "prismatic":
            return np.zeros((self.dofs.size, self.dofs.size)), A[2].copy()
        D = (np.outer(A[1], A[0]) - np.outer(A[0], A[1])) / self.r2
        return D, (A[1] * b[0] - A[0] * b[1]) / self.r2
