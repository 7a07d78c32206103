"""Poses and frames: where a link's joints and tool sit, as maps of the coordinates.

A :class:`Pose` is a position and a rotation in world axes, given when a link is built
(the *build configuration*).  Once the link's model is in the :class:`fem.Model`, each of
its poses becomes a :class:`Frame`: an origin and a triad of basis vectors that are maps
of the generalized coordinates (:class:`fem.LinearMap` for rigid bodies, ANCF nodes and
the root of a floating frame; :class:`fem.maps.point_maps.PointMap` on a deformed
floating-frame link).  A vector fixed in the frame is a combination of the basis maps,
whatever the link's model — so a joint builds its rows from frames alone.

:class:`Projection` is the map ``q ↦ (a₁·d, a₂·d, a₃·d)``: a vector ``d`` of one frame
seen in the axes ``aᵢ`` of another.  It is what a joint angle is measured from and what
a motor on a joint between two moving links drives (its second derivatives are constant
when both frames are linear maps).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError
from ..core.validate import vector3
from ..maps.linear_map import LinearMap, constant
from ..maps.point_maps import PointMap, evaluate, is_nonlinear

__all__ = ["Pose", "pose", "Frame", "Projection", "axis_vector"]

_AXES = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0),
         "-x": (-1.0, 0.0, 0.0), "-y": (0.0, -1.0, 0.0), "-z": (0.0, 0.0, -1.0)}


@dataclass(frozen=True)
class Pose:
    """A position [m] and a rotation (columns: the frame's x, y, z axes in world axes)."""

    position: np.ndarray
    rotation: np.ndarray

    def __repr__(self) -> str:
        p = np.round(self.position, 6).tolist()
        return f"Pose(position={p})"


def axis_vector(value, what: str) -> np.ndarray:
    """A unit 3-vector from ``"x"``, ``"-z"``, … or three numbers."""
    if isinstance(value, str):
        if value not in _AXES:
            raise ModelError(f"{what}: an axis is 'x', 'y', 'z' (or '-x', …) or a 3-vector; "
                             f"got {value!r}")
        return np.array(_AXES[value])
    v = vector3(value, what)
    n = float(np.linalg.norm(v))
    if n < 1e-12:
        raise ModelError(f"{what}: the axis is zero; give a direction such as 'z' or "
                         f"(0, 0, 1)")
    return v / n


def pose(position=(0.0, 0.0, 0.0), rotation=None, *, x=None, z=None) -> Pose:
    """A :class:`Pose` from a position and either a rotation matrix (columns = axes) or
    one or two axes in world coordinates: ``z`` (the joint axis, say) and ``x`` (a
    direction made normal to ``z``).  With one of them alone, the other is world z (or
    world y, then x, where that is nearly parallel) made normal to it.  Nothing: world
    axes.

    >>> pose((0.2, 0, 0), z="y", x="x").rotation[:, 2]
    array([0., 1., 0.])
    """
    p = vector3(position, "pose: position")
    if rotation is not None:
        if x is not None or z is not None:
            raise ModelError("pose: give either rotation or the axes x/z, not both")
        from ..core.validate import rotation as checked_rotation

        return Pose(p, checked_rotation(rotation, "pose: rotation"))
    if x is None and z is None:
        return Pose(p, np.eye(3))
    zz = axis_vector(z, "pose: z") if z is not None else None
    xx = axis_vector(x, "pose: x") if x is not None else None
    if zz is None:
        zz = _most_normal(xx)
    if xx is None:
        xx = _most_normal(zz)
    xx = xx - (xx @ zz) * zz
    if np.linalg.norm(xx) < 1e-9:
        raise ModelError(f"pose: x {np.round(x, 6).tolist() if not isinstance(x, str) else x}"
                         f" is parallel to z; give two different directions")
    xx /= np.linalg.norm(xx)
    return Pose(p, np.column_stack([xx, np.cross(zz, xx), zz]))


def _most_normal(v: np.ndarray) -> np.ndarray:
    """World z made normal to ``v`` (world y, then x, where z is nearly along ``v``)."""
    for e in (np.eye(3)[2], np.eye(3)[1], np.eye(3)[0]):
        if abs(e @ v) < 0.9:
            break
    e = e - (e @ v) * v
    return e / np.linalg.norm(e)


def independent_columns(values, what: str, hint: str) -> np.ndarray:
    """``values`` (3, 3), three vectors where built as columns, checked independent (a
    frame needs three axes, a weld their inverse); else a ModelError: ``what`` "are not
    independent …", then ``hint``."""
    values = np.asarray(values, float)
    s = np.linalg.svd(values, compute_uv=False)
    if not np.all(np.isfinite(s)) or s[-1] <= 1e-8 * max(s[0], 1e-300):
        raise ModelError(f"{what} are not independent where built (their values "
                         f"{np.round(values.T, 6).tolist()}); {hint}")
    return values


class Frame:
    """A built frame of a link: an origin and basis-vector maps.

    Parameters
    ----------
    link : str
        The link's name (``"ground"`` for a fixed frame).
    name : str
    pose : Pose
        Where it was at build.
    origin : LinearMap or PointMap
    basis : sequence of 3 maps (or None where the model has no such vector)
        Vectors of the link's model at the frame (a rigid body's axes, an ANCF node's
        gradients ``r_x, r_y, r_z``, a floating frame's deformed section axes).
    basis0 : (3, 3) array
        Their values at build, as columns (a missing one: any vector completing them).
    on_tangent : bool
        The first basis vector is a centre line's tangent and the others its section's
        (an ANCF link's node): joints then prefer rows on the section vectors.
    tangent : map, optional
        An ANCF beam's centre-line slope ``r_x`` (its ``basis[0]`` is the section's
        normal).
    gradients : sequence of 3 linear or point maps, optional
        Where the frame is a deformable material point — an ANCF beam's node, a reduced
        link's interface ``[point, x, y, z]`` — the three gradient vectors there
        (``r_x, r_y, r_z``), whose values where built are ``basis0``: a fixed joint
        between two such frames welds them (:class:`~fem.robot.joints.Joint`).
    """

    def __init__(self, link: str, name: str, pose: Pose, origin, basis, basis0,
                 on_tangent: bool = False, tangent=None, gradients=None):
        self.link, self.name, self.pose = link, name, pose
        self.origin = origin
        self.basis = list(basis)
        self.basis0 = np.asarray(basis0, float)
        self._inv = np.linalg.inv(self.basis0)
        self.on_tangent = bool(on_tangent)
        self.tangent = tangent      # an ANCF beam's centre-line slope r_x (its basis[0]
        #                             is the section's normal); None elsewhere
        self.gradients = None if gradients is None else list(gradients)

    @property
    def label(self) -> str:
        return f"{self.link} {self.name}"

    @property
    def moving(self) -> bool:
        """Whether the frame moves (its maps depend on coordinates)."""
        return any(len(m.dofs) for m in [self.origin, *self.basis] if m is not None)

    def vector(self, local, what: str | None = None, tangent: bool = False):
        """The vector with components ``local`` in the frame's axes, as a map of ``q``.

        A frame of a model that lacks a direction (an ANCF cable has its tangent only)
        refuses a vector that needs it, naming the frame.  ``tangent``: on an ANCF
        beam's frame, take the centre line's slope for the first basis vector instead
        of the section's normal."""
        local = np.asarray(local, float)
        world = self.pose.rotation @ local
        c = self._inv @ world
        c[np.abs(c) < 1e-13 * max(1.0, float(np.abs(c).max()))] = 0.0
        out = None
        for j in range(3):
            if c[j] == 0.0:
                continue
            m = self.tangent if (j == 0 and tangent and self.tangent is not None) \
                else self.basis[j]
            if m is None:
                raise ModelError(
                    f"{what or 'a joint'}: frame {self.label!r} has no direction "
                    f"{np.round(world, 6).tolist()} (its link's model carries only its "
                    f"tangent; an ANCF cable has no section axes): use a spherical joint, "
                    f"an axis normal to the link, or a beam")
            term = c[j] * m
            out = term if out is None else out + term
        if out is None:
            return constant(np.zeros(3))
        return out

    def axis(self, i: int):
        """The frame's own axis ``i`` (0: x, 1: y, 2: z) as a map."""
        return self.vector(np.eye(3)[i])

    def __repr__(self) -> str:
        return f"Frame({self.label!r}, at {np.round(self.pose.position, 6).tolist()})"


def ground_frame(name: str, p: Pose) -> Frame:
    """A fixed frame (of the ground) at a pose."""
    basis = [constant(p.rotation[:, j], f"ground {name} axis {'xyz'[j]}") for j in range(3)]
    return Frame("ground", name, p, constant(p.position, f"ground {name}"), basis, p.rotation)


class Projection(PointMap):
    """``x(q) = (a₀·d, a₁·d, a₂·d)``: the vector map ``d`` in the axes ``aᵢ`` (maps of
    another frame).  Its value, Jacobian and second derivatives come from the maps':
    ``J = Σ aᵢᵀJ_d + dᵀJ_aᵢ`` per component; ``H`` from both maps' first and second
    derivatives (constant when all are linear maps)."""

    def __init__(self, axes, d, label: str = "projection"):
        self.axes = list(axes)
        self.d = d
        maps = [*self.axes, d]
        self.dofs = np.unique(np.concatenate(
            [np.asarray(m.dofs, np.int64) for m in maps] + [np.zeros(0, np.int64)]))
        self._cols = [np.searchsorted(self.dofs, np.asarray(m.dofs, np.int64)) for m in maps]
        self.label = label
        self.constant_hessian = not any(is_nonlinear(m) for m in maps)
        self._H = None
        self._last = None          # (q[dofs], with second derivatives, (x, J, H))
        self._linear = None
        if all(isinstance(m, LinearMap) for m in maps):
            # all four maps linear in q[dofs]: their coefficients over the union, so a
            # value and its Jacobian are four products (x_i = a_i·d, J_i = a_iᵀD + dᵀA_i)
            k = self.dofs.size
            A = np.zeros((4, 3, k))
            off = np.empty((4, 3))
            for i, (m, c) in enumerate(zip(maps, self._cols, strict=True)):
                A[i][:, c] = m.coef
                off[i] = m.offset
            self._linear = (A[:3].reshape(9, k), off[:3].reshape(9), A[3], off[3])

    def evaluate(self, q, second=False):
        # the last configuration's values again when q[dofs] is the same: a joint's
        # projection is asked for by its constraint rows, its motor's effort (B) and the
        # reactions at one Newton iterate — six calls in ten were repeats, each 40–150 µs
        # (a third of a robot's NumPy run with beam links); the arrays are read-only
        ql = q[self.dofs]
        last = self._last
        if last is not None and second <= last[1] and (last[0] == ql).all():
            x, J, H = last[2]
            return x, J, (H if second else None)
        x, J, H = self._evaluate(q, second)
        x.setflags(write=False)
        J.setflags(write=False)
        if H is not None:
            H.setflags(write=False)
        self._last = (ql, second, (x, J, H))
        return x, J, H

    def _evaluate(self, q, second=False):
        if self._linear is not None and (not second or self._H is not None):
            Aa, oa, D, od = self._linear
            ql = q[self.dofs]
            xa = (Aa @ ql + oa).reshape(3, 3)         # the axes, one a row
            xd = D @ ql + od
            J = xa @ D + (xd @ Aa.reshape(3, 3, -1))
            return xa @ xd, J, (self._H if second else None)
        k = self.dofs.size
        build = second and (self._H is None or not self.constant_hessian)
        xd, Jd, Hd = evaluate(self.d, q, build and not self.constant_hessian)
        cd = self._cols[-1]
        x = np.zeros(3)
        J = np.zeros((3, k))
        H = np.zeros((3, k, k)) if build else None
        for i, (a, ca) in enumerate(zip(self.axes, self._cols[:-1], strict=True)):
            xa, Ja, Ha = evaluate(a, q, build and not self.constant_hessian)
            x[i] = xa @ xd
            J[i, cd] += xa @ Jd
            J[i, ca] += xd @ Ja
            if build:
                cross = Ja.T @ Jd                     # (ka, kd)
                H[i][np.ix_(ca, cd)] += cross
                H[i][np.ix_(cd, ca)] += cross.T
                if not self.constant_hessian:
                    H[i][np.ix_(ca, ca)] += np.einsum("c,cjk->jk", xd, Ha)
                    H[i][np.ix_(cd, cd)] += np.einsum("c,cjk->jk", xa, Hd)
        if second:
            if build and self.constant_hessian:
                H.setflags(write=False)
                self._H = H
            elif not build:
                H = self._H
        return x, J, H

    def bilinear_form(self, component: int):
        if not self.constant_hessian:
            return None
        return None, [(self.axes[component], self.d)]


def projection(axes, d, label: str):
    """:class:`Projection`, or a :class:`fem.LinearMap` when the axes are constant."""
    if all(isinstance(a, LinearMap) and a.dofs.size == 0 for a in axes) \
            and isinstance(d, LinearMap):
        A = np.array([a.offset for a in axes])
        return LinearMap(d.dofs, A @ d.coef, A @ d.offset, label)
    return Projection(axes, d, label)
