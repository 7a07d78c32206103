"""Planar robots: links kept in a plane and the joints of a plane.

A robot whose links all move in one plane (an excavator's boom and stick, a crane's arm,
a planar frame of tubes) is built in 3-D like any other and then held in its plane:

* :func:`keep_in_plane` adds, for every link, the rows that keep it in the plane where it
  is built — a rigid, floating-frame or reduced link: its frame's origin and its two
  in-plane axes (3 rows); an ANCF link: every node's position and slopes (the
  out-of-plane part of each field);
* :func:`add_planar_joint` joins two frames with the joints of the plane, whose rows are
  only the in-plane ones (the 3-D joints would repeat the plane's rows):

  ===========  =====  ==================================================================
  kind         rows   what stays equal
  ===========  =====  ==================================================================
  revolute     2      the origins (a pin: turn about the plane's normal)
  fixed        3–4    the origins and the directions: the child's tangent along the
                      parent's (1 row); where both frames carry only a centre line's
                      slope (ANCF cables, reduced ends given as [point, slope]) and the
                      slopes are parallel, the two slopes equal (2 rows): the centre
                      line goes on smoothly, as through a shared node
  ===========  =====  ==================================================================

A reduced link moves in the plane only if its modes do (``fem.robots.vehicle_arm.
in_plane`` keeps a reduction's in-plane part).  A planar joint is one of the robot's
joints (``robot.joints``, :meth:`fem.Robot.joint_value`, the sensors) where both frames
see the plane's normal alike and a revolute's parent frame carries its axes (the ground's,
a rigid link's; not a cable's tangent alone): a motor drives such a planar revolute as a
3-D one (:meth:`fem.Robot.add_motor`); cylinders work as in 3-D
(:func:`fem.robot.add_cylinder`).
"""

from __future__ import annotations

import numpy as np

from ..constraints import Constraint, Dot
from ..core.errors import ModelError
from ..core.validate import choice, text
from ..maps.linear_map import LinearMap, constant
from .frames import Frame, axis_vector

__all__ = ["keep_in_plane", "add_planar_joint", "PLANAR_KINDS"]

PLANAR_KINDS = ("revolute", "fixed")


def _plane(normal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unit normal and two in-plane unit vectors (e₁ the world axis most in the
    plane, e₂ = n × e₁)."""
    n = axis_vector(normal, "plane: normal")
    e = np.eye(3)
    e1 = e[int(np.argmin(np.abs(e @ n)))]
    e1 = e1 - (e1 @ n) * n
    e1 /= np.linalg.norm(e1)
    return n, e1, np.cross(n, e1)


def _field(model, start: int, label: str) -> LinearMap:
    dofs = np.arange(start, start + 3, dtype=np.int64)
    return LinearMap(dofs, np.eye(3), np.zeros(3), label)


def keep_in_plane(robot, normal="y", links=None) -> list[Constraint]:
    """Keep ``links`` (default: every link) in the planes normal to ``normal`` in which
    they are built.  Returns the rows added.

    Every link must be built in the plane: its frame axes (rigid, floating-frame,
    reduced links) or its nodes' slopes (ANCF links) either in the plane or along its
    normal; anything else is refused, naming the link."""
    from .robot import Robot

    if not isinstance(robot, Robot):
        raise ModelError(f"keep_in_plane: robot must be a fem.Robot; got "
                         f"{type(robot).__name__}")
    n, e1, e2 = _plane(normal)
    names = list(robot.links) if links is None else [text(x, "keep_in_plane: link")
                                                     for x in links]
    model = robot.model
    q0 = model.q0
    rows: list[Constraint] = []
    for name in names:
        if name not in robot.links:
            raise ModelError(f"keep_in_plane: no link {name!r}; the robot has "
                             f"{sorted(robot.links)}")
        b = robot.links[name]
        fields = b.fields
        if b.body is not None:               # a frame: its origin and two in-plane axes
            s, _ = fields[0]
            rows.append(Dot(_field(model, s, f"{name} origin"), constant(n),
                            float(n @ q0[s:s + 3]), f"{name} in plane"))
            axes = [(k, st) for k, (st, _) in enumerate(fields[1:], 1)]
            inplane = [(k, st) for k, st in axes if abs(n @ q0[st:st + 3]) < 1e-9]
            if len(inplane) != 2:
                raise ModelError(f"keep_in_plane: link {name!r} is not built in the plane "
                                 f"(two of its frame's axes must lie in it)")
            rows += [Dot(_field(model, st, f"{name} axis {k}"), constant(n), 0.0,
                         f"{name} in plane {'uvw'[k - 1]}") for k, st in inplane]
            continue
        for s, is_position in fields:        # an ANCF link: every node's fields
            x0 = q0[s:s + 3]
            m = _field(model, s, f"{name} coordinates {s}")
            if is_position:
                rows.append(Dot(m, constant(n), float(n @ x0), f"{name} in plane"))
                continue
            size = float(np.linalg.norm(x0))
            along = abs(n @ x0)
            if along < 1e-9 * size:
                rows.append(Dot(m, constant(n), 0.0, f"{name} in plane"))
            elif abs(along - size) < 1e-9 * size:
                rows += [Dot(m, constant(e), 0.0, f"{name} normal") for e in (e1, e2)]
            else:
                raise ModelError(f"keep_in_plane: link {name!r} is not built in the plane "
                                 f"(a slope {np.round(x0, 6).tolist()} is neither in it nor "
                                 f"along its normal)")
    for con in rows:
        model.add_constraint(con)
    return rows


def _tangent(f: Frame) -> np.ndarray:
    """The frame's first basis direction at build, in world axes (a cable's tangent)."""
    t = f.basis0[:, 0]
    return t / np.linalg.norm(t)


def add_planar_joint(robot, name: str, kind: str, parent, child, normal="y"
                     ) -> list[Constraint]:
    """A joint of the plane normal to ``normal`` between two frames (``(link, frame)``;
    ``"ground"`` is a fixed frame where the other is): ``"revolute"`` (a pin) or
    ``"fixed"`` (a clamp), see the module docstring.  Returns its rows.  The links must
    be held in the plane (:func:`keep_in_plane`)."""
    from .robot import Robot

    if not isinstance(robot, Robot):
        raise ModelError(f"planar joint: robot must be a fem.Robot; got "
                         f"{type(robot).__name__}")
    name = text(name, "add_planar_joint: name")
    kind = choice(kind, PLANAR_KINDS, f"planar joint {name!r}: kind")
    p, c = robot.joint_frames(parent, child, f"planar joint {name!r}")
    n, e1, e2 = _plane(normal)
    d = c.origin - p.origin
    rows: list[Constraint] = [Dot(d, constant(e), 0.0, f"{name} point {i}")
                              for i, e in enumerate((e1, e2))]
    if kind == "fixed":
        w = f"planar joint {name!r}"
        tp, tc = _tangent(p), _tangent(c)
        vp = p.vector(p.pose.rotation.T @ tp, w)
        vc = c.vector(c.pose.rotation.T @ tc, w)
        slopes_only = p.basis[1] is None and c.basis[1] is None
        if slopes_only and tp @ tc > 1 - 1e-12:
            rows += [Dot(vc - vp, constant(e), 0.0, f"{name} slope {i}")
                     for i, e in enumerate((e1, e2))]
        else:
            perp = np.cross(n, tp)
            vperp = p.vector(p.pose.rotation.T @ perp, w)
            rows.append(Dot(vc, vperp, None, f"{name} angle"))
    if name in robot.joints:
        raise ModelError(f"planar joint {name!r}: there is already a joint named {name!r}")
    for con in rows:
        robot.model.add_constraint(con)
    _register(robot, name, kind, p, c, n, rows)
    return rows


def _register(robot, name: str, kind: str, p: Frame, c: Frame, n: np.ndarray, rows) -> None:
    """The joint in ``robot.joints`` (its angle in :meth:`fem.Robot.joint_value` and the
    sensors; a motor on a revolute, :meth:`fem.Robot.add_motor`) where both frames see
    the plane's normal alike and, for a revolute, the parent frame carries its axes (a
    rigid link's, a beam's; not a cable's tangent alone); its rows are the planar ones."""
    from .joints import Joint

    a_p, a_c = p.pose.rotation.T @ n, c.pose.rotation.T @ n
    if np.abs(a_p - a_c).max() > 1e-9:
        return
    joint = Joint(name, kind, p, c, a_p)
    joint.constraints = list(rows)
    if kind == "revolute":
        try:                # its angle needs the parent frame's axes (not a cable's)
            joint.coordinate_map()
        except ModelError:
            return
    robot.joints[name] = joint
