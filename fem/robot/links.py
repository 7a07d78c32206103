"""Link models: what a link is made of, one keyword each.

A link of a :class:`fem.Robot` is a name, a model and named frames (its joint frames,
its tool frame) given as poses in the build configuration.  The model decides the
coordinates and how each frame becomes maps of them:

========================  ==================================================  ==========
model                     coordinates                                         frames
========================  ==================================================  ==========
:class:`Rigid`            a natural-coordinate rigid body (``r, u, v, w``)    anywhere
:class:`Bar`              a slender rigid rod: its two end points              on its axis
:class:`AncfBeam`         ANCF shear-deformable beam elements, root → tip     two: ends
:class:`AncfCable`        ANCF cable elements (tangent only, no twist)        two: ends
:class:`FloatingFrame`    a rigid frame + the elastic coordinates of a basis  two: ends
========================  ==================================================  ==========

Flexible models span their first frame (the root) to their last (the tip), both on
the link's centre line; their section is given by shape and size with a
:class:`fem.Material`, so the mass and stiffness follow from them.  ``damping=ζ`` damps
a flexible link without damping its rigid motion: ANCF links by strain-rate
(Kelvin–Voigt) damping with ζ at their first cantilever mode (higher modes get more, in
proportion to their frequency), plate links the same way with ζ at the free plate's first
elastic mode, floating-frame and reduced links by ζ on every mode.
Every model gives its *rigid velocity field* (:meth:`BuiltLink.rigid_velocity`), which
the robot uses to start a run in motion with no elastic velocity.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.errors import ModelError
from ..core.validate import choice, integer, matrix, nonnegative, positive, vector3
from ..elements.materials import Material
from ..elements.materials import material as validate_material
from .frames import Frame, Pose, independent_columns

__all__ = ["LinkModel", "Rigid", "Bar", "BarFrame", "AncfBeam", "AncfCable", "FloatingFrame",
           "Reduced", "Plate", "BuiltLink", "section_properties", "link_span", "chord_frame"]


def _skew(x: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def section_properties(shape: str, what: str, radius: float | None = None,
                       width: float | None = None, height: float | None = None,
                       wall: float | None = None) -> dict[str, float]:
    """Area, second moments ``iy`` (about the section's y), ``iz``, torsion constant
    ``j`` and polar moment ``ip`` [m², m⁴] of a ``"circle"`` (``radius``; a tube with
    ``wall``) or a ``"rectangle"`` (``width`` along y, ``height`` along z; a tube with
    ``wall``).

    The rectangle's torsion constant is Saint-Venant's series to its first term,
    ``j = a b³ (1/3 − 0.21 (b/a)(1 − b⁴/(12 a⁴)))`` (a ≥ b; within 0.5 % of the series,
    Roark's Formulas for Stress and Strain, table 10.7)."""
    shape = choice(shape, ("circle", "rectangle"), f"{what}: section")
    if shape == "circle":
        if radius is None:
            raise ModelError(f"{what}: a circle section needs radius= [m]")
        R = positive(radius, f"{what}: radius", "m")
        r = 0.0
        if wall is not None:
            wall = positive(wall, f"{what}: wall", "m")
            if wall >= R:
                raise ModelError(f"{what}: wall {wall:g} m must be thinner than the radius "
                                 f"{R:g} m (a solid section: leave wall out)")
            r = R - wall
        A = np.pi * (R**2 - r**2)
        i = np.pi * (R**4 - r**4) / 4
        return {"area": A, "iy": i, "iz": i, "j": 2 * i, "ip": 2 * i}
    if width is None or height is None:
        raise ModelError(f"{what}: a rectangle section needs width= and height= [m]")
    b = positive(width, f"{what}: width", "m")
    h = positive(height, f"{what}: height", "m")
    if wall is not None:
        return _hollow_rectangle(b, h, positive(wall, f"{what}: wall", "m"), what)
    a, c = max(b, h), min(b, h)
    j = a * c**3 * (1 / 3 - 0.21 * (c / a) * (1 - c**4 / (12 * a**4)))
    iy, iz = b * h**3 / 12, h * b**3 / 12
    return {"area": b * h, "iy": iy, "iz": iz, "j": j, "ip": iy + iz}


def _hollow_rectangle(b: float, h: float, t: float, what: str) -> dict[str, float]:
    """A rectangular tube of constant wall ``t``; torsion by Bredt's thin-walled formula
    ``j = 2 t (b − t)² (h − t)² / (b + h − 2t)``."""
    if 2 * t >= min(b, h):
        raise ModelError(f"{what}: wall {t:g} m must be less than half the smaller side "
                         f"{min(b, h):g} m (a solid section: leave wall out)")
    bi, hi = b - 2 * t, h - 2 * t
    iy, iz = (b * h**3 - bi * hi**3) / 12, (h * b**3 - hi * bi**3) / 12
    return {"area": b * h - bi * hi, "iy": iy, "iz": iz,
            "j": 2 * t * (b - t) ** 2 * (h - t) ** 2 / (b + h - 2 * t), "ip": iy + iz}


@dataclass
class BuiltLink:
    """A link once in the model: its frames as maps, its coordinates and how it moves
    rigidly.

    ``fields`` lists ``(first coordinate, is_position)`` of every 3-vector of the link
    (node positions and directions); ``elastic`` the coordinates that are purely elastic
    (a floating frame's), which move with no rigid velocity."""

    name: str
    kind: str
    flexible: bool
    frames: dict[str, Frame]
    fields: list[tuple[int, bool]]
    elastic: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    group: object | None = None          # the element group (ANCF links)
    body: object | None = None           # the rigid or floating-frame body
    beam: object | None = None           # a reduced beam's reading as a beam (ReducedBeam)

    @property
    def dofs(self) -> np.ndarray:
        d = [np.arange(s, s + 3) for s, _ in self.fields] + [self.elastic]
        return np.unique(np.concatenate(d)).astype(np.int64)

    def rigid_velocity(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(dofs, T)``: the coordinate rates ``q̇[dofs] = T (v, ω)`` of the link moving
        rigidly with the velocity ``v`` of the world origin's point and the angular
        velocity ``ω`` (``ṙ = v + ω × r`` for a position, ``ḋ = ω × d`` for a
        direction; elastic coordinates do not move)."""
        rows, blocks = [], []
        for s, is_pos in self.fields:
            x = q[s:s + 3]
            blk = np.zeros((3, 6))
            if is_pos:
                blk[:, :3] = np.eye(3)
            blk[:, 3:] = -_skew(x)
            rows.append(np.arange(s, s + 3))
            blocks.append(blk)
        if self.elastic.size:
            rows.append(self.elastic)
            blocks.append(np.zeros((self.elastic.size, 6)))
        return np.concatenate(rows).astype(np.int64), np.vstack(blocks)


def damping_ratio(value, what: str) -> float:
    zeta = nonnegative(value, f"{what}: damping (a damping ratio)", "")
    if zeta >= 1.0:
        raise ModelError(f"{what}: damping is a damping ratio ζ of the link's modes, below 1 "
                         f"(0.01–0.05 for metal structures); got {zeta:g}")
    return zeta


def checked_interfaces(interfaces, what: str, forms: str) -> dict:
    """A reduced link's ``interfaces``: a dict of frame name → maps of its FE model
    (checked by :func:`interface_maps` when the link is built)."""
    if not isinstance(interfaces, dict) or not interfaces:
        raise ModelError(f"{what}: interfaces must be a dict of frame name → the FE model's "
                         f"point there (or {forms})")
    return interfaces


def interface_maps(interfaces: dict, frames, name: str, kind: str, forms: str) -> dict:
    """Every frame's interface maps as a list ``[point]``, ``[point, x]`` or ``[point, x,
    y, z]`` (each a :class:`fem.LinearMap` of the FE model); ``forms`` says them in the
    messages."""
    from ..maps.linear_map import LinearMap

    missing = [f for f in frames if f not in interfaces]
    if missing:
        raise ModelError(f"link {name!r} ({kind}): no interface for frames {missing}; "
                         f"give interfaces={{frame: FE point}} for every frame")
    out = {}
    for f in frames:
        maps = interfaces[f]
        maps = [maps] if isinstance(maps, LinearMap) else list(maps)
        if len(maps) not in (1, 2, 4) or not all(isinstance(m, LinearMap) for m in maps):
            raise ModelError(f"link {name!r} ({kind}): interface {f!r} is an FE model's "
                             f"point (a fem.LinearMap), {forms} maps")
        out[f] = maps
    return out


def independent_directions(values: np.ndarray, name: str, frame: str) -> np.ndarray:
    """``values`` (3, 3), an interface's three direction vectors at build as columns,
    checked independent (:func:`~fem.robot.frames.independent_columns`)."""
    return independent_columns(values, f"link {name!r}: interface {frame!r}: its directions "
                               f"[x, y, z]", "give three independent vectors of the FE "
                               "model, e.g. an ANCF node's r_x, r_y, r_z")


def _ancf_damping(model, group, spec, s: dict, L: float, name: str) -> None:
    """Strain-rate (Kelvin–Voigt) damping with ζ at the link's first cantilever mode,
    ``η = 2ζ/ω₁``, ``ω₁ = 1.8751² √(EI/ρA) / L²`` (Euler–Bernoulli, the softer plane)."""
    if spec.damping <= 0:
        return
    m = spec.material
    w1 = 1.87510407**2 * np.sqrt(m.E * min(s["iy"], s["iz"]) / (m.rho * s["area"])) / L**2
    model.add_damping(group, 2.0 * spec.damping / w1, kind="strain_rate")


class LinkModel:
    """What a link is made of (subclasses: :class:`Rigid`, :class:`AncfBeam`,
    :class:`AncfCable`, :class:`FloatingFrame`)."""

    kind = "?"
    flexible = False
    spans_frames = False      # the model runs from its first frame to its last

    def build(self, model, name: str, frames: dict[str, Pose]) -> BuiltLink:
        raise NotImplementedError

    def stiffer(self, factor: float) -> LinkModel:
        """The same link with its material's E (and G) scaled by ``factor`` (the stiff
        limit of a flexible link); a rigid link returns itself."""
        return self


@dataclass
class Rigid(LinkModel):
    """A rigid link: ``mass`` [kg], centre of mass ``com`` [m] and ``inertia`` [kg·m²]
    about the centre of mass, both in the axes of the link's first frame (its *link
    frame*, as in URDF)."""

    mass: float
    com: tuple = (0.0, 0.0, 0.0)
    inertia: object = None
    kind = "rigid"

    def __post_init__(self):
        what = "rigid link"
        self.mass = nonnegative(self.mass, f"{what}: mass", "kg")
        self.com = vector3(self.com, f"{what}: com")
        self.inertia = np.zeros((3, 3)) if self.inertia is None else \
            matrix(self.inertia, f"{what}: inertia [kg·m²]", (3, 3))
        I = self.inertia
        if not np.allclose(I, I.T, atol=1e-12 * max(1.0, np.abs(I).max())) or \
                np.linalg.eigvalsh(0.5 * (I + I.T)).min() < -1e-12 * max(1.0, np.abs(I).max()):
            raise ModelError(f"{what}: inertia must be a symmetric positive semi-definite "
                             f"3×3 tensor about the centre of mass; got {I.tolist()}")

    def build(self, model, name, frames):
        first = next(iter(frames.values()))
        R0, p0 = first.rotation, first.position
        sketch = np.array([R0.T @ (p.position - p0) for p in frames.values()] +
                          ([self.com] if np.any(self.com) else []))
        body = model.add_rigid_body(name, self.mass, p0, R0, com=self.com,
                                    inertia=self.inertia, sketch=sketch)
        basis = [body.axis(i) for i in range(3)]
        built = {}
        for fname, p in frames.items():
            built[fname] = Frame(name, fname, p, body.point(R0.T @ (p.position - p0),
                                                            label=f"{name} {fname}"),
                                 basis, R0)
        dofs = model.node_dofs(body.node, ("r", "u", "v", "w"))
        fields = [(int(dofs[0]), True)] + [(int(dofs[3 * j]), False) for j in (1, 2, 3)]
        return BuiltLink(name, self.kind, False, built, fields, body=body)


@dataclass
class Bar(LinkModel):
    """A slender rigid link: a uniform rod of ``mass`` [kg] whose coordinates are its two
    end points (6 coordinates and one length row, the natural-coordinate bar of Liu et
    al. 2023, eq 32): its mass on its axis, inertia ``m l²/12`` across it and none about
    it.

    The bar runs from its first frame to its last; other frames sit on the segment
    between.  A bar has no orientation about its own axis (*spin*) until a joint fixes
    it: a revolute joint whose axis is normal to the bar, with a link on its other side
    that carries that axis (the ground, a :class:`Rigid` link, a bar whose spin is
    fixed), keeps the bar normal to the axis with one row (instead of a rigid link's
    two and its six rigidity rows) and from then on every frame of the bar has the axis
    as a basis vector (and ``bar × axis``), so the next joints may use any of its
    directions.  Before that a frame of the bar carries its axis only: a spherical
    joint, or a universal joint whose axes the bar need not carry, joins it; a joint
    that needs the bar's orientation about its own axis is refused, naming it.  Add the
    joints from the fixed end out (a serial chain's order).

    ``share={frame: other bar's end frame}`` (a :class:`BarFrame`, ``robot.frame(link,
    name)``) builds that end on the other bar's end point: the two bars share its three
    coordinates, where separate points would take three coordinates more and a joint's
    three point rows.  The joint between the two frames then writes no point rows
    (only its axis rows); a chain of bars joined so has the coordinates of its joint
    points alone, as a model of bars sharing their nodes."""

    mass: float
    share: dict = field(default_factory=dict)
    kind = "bar"

    def __post_init__(self):
        self.mass = nonnegative(self.mass, "bar link: mass", "kg")
        if not isinstance(self.share, dict) or not all(
                isinstance(f, BarFrame) and f.node is not None for f in self.share.values()):
            raise ModelError("bar link: share maps a frame name of this bar to an end frame "
                             "of another Bar (robot.frame(link, frame)), whose point the "
                             "bar's end then shares")

    def build(self, model, name, frames):
        if len(frames) < 2:
            raise ModelError(f"link {name!r} (bar) runs between two frames, its ends; it "
                             f"has {len(frames)} ({', '.join(frames) or 'none'})")
        names = list(frames)
        p0, p1 = frames[names[0]].position, frames[names[-1]].position
        d = p1 - p0
        L = float(np.linalg.norm(d))
        if L <= 1e-9 * max(1.0, float(np.abs(p0).max())):
            raise ModelError(f"link {name!r} (bar): its end frames {names[0]!r} and "
                             f"{names[-1]!r} are at the same place; a bar needs a length")
        e0 = d / L
        for f, other in self.share.items():
            if f not in (names[0], names[-1]):
                raise ModelError(f"link {name!r} (bar): share names frame {f!r}, which is "
                                 f"not one of its ends ({names[0]!r}, {names[-1]!r})")
            gap = float(np.linalg.norm(other.pose.position - frames[f].position))
            if gap > 1e-9 * max(1.0, L):
                raise ModelError(f"link {name!r} (bar): frame {f!r} shares the point of "
                                 f"{other.label!r}, {gap:.3g} m away; build the shared end "
                                 f"where the other bar's end is")
        ends = []
        for f, pz in ((names[0], p0), (names[-1], p1)):
            if f in self.share:
                ends.append(self.share[f].node)
            else:
                ends.append(int(model.add_nodes(r=[pz], names=[f"{name} {f}"])[0]))
        nodes = np.array(ends, np.int64)
        model.add_element("rigid_bar", [int(nodes[0]), int(nodes[1])], mass=self.mass,
                          name=name)
        a, b = model.point(int(nodes[0])), model.point(int(nodes[1]))
        spin = _BarSpin(name, ((b - a) * (1.0 / L)).named(f"{name} axis"), e0)
        built = {}
        for f, pz in frames.items():
            s = float((pz.position - p0) @ e0) / L
            off = np.linalg.norm(pz.position - p0 - s * L * e0)
            if off > 1e-9 * max(1.0, L) or not -1e-12 <= s <= 1.0 + 1e-12:
                raise ModelError(f"link {name!r} (bar): frame {f!r} is {off:.3g} m off the "
                                 f"bar's axis or beyond its ends (a bar's frames sit on the "
                                 f"segment from {names[0]!r} to {names[-1]!r}); use a Rigid "
                                 f"link for a frame beside the axis")
            origin = a if f == names[0] else b if f == names[-1] else \
                (a * (1.0 - s) + b * s).named(f"{name} {f}")
            built[f] = BarFrame(name, f, pz, origin, spin,
                                node=int(nodes[0]) if f == names[0] else
                                int(nodes[1]) if f == names[-1] else None)
        # the link's own points (a shared end is the other bar's: each coordinate moves
        # with one link in Robot.place and Robot.start_velocity)
        own = [int(n) for f, n in zip((names[0], names[-1]), nodes, strict=True)
               if f not in self.share]
        return BuiltLink(name, self.kind, False, built,
                         [(int(model.node_fields[n]["r"]), True) for n in own])


class _BarSpin:
    """A bar's axis and, once a joint has fixed it, its spin: the vector ``n`` normal to
    the bar (a map of the link on the joint's other side) that its frames' bases take."""

    def __init__(self, link: str, e, e0: np.ndarray):
        self.link, self.e, self.e0 = link, e, e0
        self.n = None
        self.joint: str | None = None
        self.frames: list[BarFrame] = []

    def fix(self, n, n0: np.ndarray, joint: str) -> None:
        """The bar's spin from ``n`` (a map, ``n0`` at build, normal to the bar), fixed
        by ``joint``: every frame's basis becomes ``(e, n, e × n)``."""
        from ..maps.linear_map import LinearMap
        from ..maps.point_maps import CrossMap

        self.n, self.joint = n, joint
        if isinstance(n, LinearMap) and not n.dofs.size:
            m = -self.e.crossed(n.offset)                 # e × n = −(n × e): linear
        elif isinstance(n, LinearMap):
            m = CrossMap(self.e, n, f"{self.link} axis × {n.label}")
        else:
            m = None                    # a nonlinear n: the third direction is not kept
        basis0 = np.column_stack([self.e0, n0, np.cross(self.e0, n0)])
        for f in self.frames:
            f.basis = [self.e, n, m]
            f.basis0 = basis0
            f._inv = np.linalg.inv(basis0)


class BarFrame(Frame):
    """A frame of a :class:`Bar`: its basis is the bar's axis alone until a joint fixes
    the bar's spin (:meth:`_BarSpin.fix`), then the axis, the spin vector and their
    cross product."""

    def __init__(self, link: str, name: str, pose: Pose, origin, spin: _BarSpin,
                 node: int | None = None):
        R = pose.rotation
        e0 = spin.e0
        k = int(np.argmin(np.abs(R.T @ e0)))          # the pose's axis most normal to it
        y0 = R[:, k] - (R[:, k] @ e0) * e0
        y0 /= np.linalg.norm(y0)
        super().__init__(link, name, pose, origin, [spin.e, None, None],
                         np.column_stack([e0, y0, np.cross(e0, y0)]))
        self.bar = spin
        self.node = node            # the end point's node (None: a frame between the ends)
        spin.frames.append(self)

    def vector(self, local, what: str | None = None, tangent: bool = False):
        local = np.asarray(local, float)
        world = self.pose.rotation @ local
        c = self._inv @ world
        small = 1e-9 * max(1.0, float(np.abs(c).max()))
        need = [j for j in (1, 2) if abs(c[j]) > small and self.basis[j] is None]
        if need:
            w = what or "a joint"
            if self.bar.n is None:
                raise ModelError(
                    f"{w}: link {self.link!r} is a Bar (a slender rod), which has no "
                    f"orientation about its own axis until a joint fixes it; frame "
                    f"{self.label!r} has no direction {np.round(world, 6).tolist()} "
                    f"(it is not along the bar). Add first a revolute joint on the bar "
                    f"whose axis is normal to it (from the fixed end out), give this joint "
                    f"an axis the bar carries, or make the link Rigid")
            raise ModelError(
                f"{w}: link {self.link!r} (bar) carries its axis and the spin vector of "
                f"joint {self.bar.joint!r} but not their cross product (that vector is "
                f"not linear in the coordinates); give this joint the bar's axis or that "
                f"joint's, or make the link Rigid")
        c[np.abs(c) <= small] = 0.0
        out = None
        for j in range(3):
            if c[j] != 0.0:
                term = c[j] * self.basis[j]
                out = term if out is None else out + term
        if out is None:
            from ..maps.linear_map import constant
            return constant(np.zeros(3))
        return out


def link_span(name: str, kind: str, frames: dict[str, Pose]):
    """Root and tip poses of a link that spans its frames, with its axis triad."""
    if len(frames) != 2:
        raise ModelError(f"link {name!r} ({kind}) spans exactly two frames, root and tip "
                         f"(its joints' frames); it has {len(frames)} "
                         f"({', '.join(frames) or 'none'}). A tool frame or a third joint: "
                         f"join a rigid link to its tip with a fixed joint")
    (n0, root), (n1, tip) = frames.items()
    d = tip.position - root.position
    L = float(np.linalg.norm(d))
    if L <= 1e-9:
        raise ModelError(f"link {name!r} ({kind}): frames {n0!r} and {n1!r} are at the "
                         f"same place; a flexible link needs a length")
    t = d / L
    up = root.rotation[:, 2]
    if abs(up @ t) > 0.99:
        up = root.rotation[:, 1]
    ez = up - (up @ t) * t
    ez /= np.linalg.norm(ez)
    T = np.column_stack([t, np.cross(ez, t), ez])
    return root, tip, L, T


def _ancf_frames(model, name, frames, nodes, T, with_section: bool):
    """The frames at an ANCF link's end nodes.  A beam's frame is its end *section*:
    the section vectors ``r_y``, ``r_z`` and their normal ``r_y × r_z`` (not the centre
    line's slope ``r_x``, which shear turns away from the section), so that a joint
    clamps the section as a flange does, whatever its axis (a joint holding the slope
    left the section free to turn: a support that softened as the mesh was refined).
    A cable's frame is its tangent ``r_x`` only."""
    from ..maps.point_maps import CrossMap

    built = {}
    for (fname, p), node in zip(frames.items(), (nodes[0], nodes[-1]), strict=True):
        if with_section:
            ry, rz = (model.node_field(int(node), f) for f in ("r_y", "r_z"))
            basis = [CrossMap(ry, rz, f"{name} {fname} section normal"), ry, rz]
        else:
            basis = [model.node_field(int(node), "r_x"), None, None]
        built[fname] = Frame(name, fname, p, model.node_field(int(node), "r"), basis, T,
                             on_tangent=not with_section,
                             tangent=model.node_field(int(node), "r_x"),
                             gradients=[model.node_field(int(node), f)
                                        for f in ("r_x", "r_y", "r_z")]
                             if with_section else None)
    return built


def chord_frame(frames: dict[str, Frame]):
    """Origin, tip and side maps of the frame through a link's two end frames (its
    pictures magnify the deformation relative to it)."""
    root, tip = frames.values()
    side = root.basis[1] if root.basis[1] is not None else root.basis[0]
    return root.origin, tip.origin, side


def _node_fields(model, nodes, names) -> list[tuple[int, bool]]:
    out = []
    for nd in nodes:
        f = model.node_fields[int(nd)]
        out += [(f[k], k == "r") for k in names]
    return out


@dataclass
class _Rod(LinkModel):
    """A flexible link with a section: a :class:`fem.Material` and a ``section``
    "circle" (``radius``) or "rectangle" (``width`` along the section's y, ``height``
    along z, z being the root frame's z made normal to the link); a tube of ``wall``."""

    material: Material
    section: str = "circle"
    radius: float | None = None
    width: float | None = None
    height: float | None = None
    wall: float | None = None   # a tube: the wall's thickness [m] (circle or rectangle)
    flexible = True
    spans_frames = True
    damping = 0.0               # a damping ratio; the subclasses declare the field

    def _check_section(self) -> None:
        what = f"{self.kind} link"
        self.material = validate_material(self.material, f"{what}: material")
        section_properties(self.section, what, self.radius, self.width, self.height,
                           self.wall)
        self.damping = damping_ratio(self.damping, what)

    def properties(self, name: str) -> dict[str, float]:
        """:func:`section_properties` of the link's section."""
        return section_properties(self.section, f"link {name!r}", self.radius, self.width,
                                  self.height, self.wall)

    def stiffer(self, factor):
        return _scaled(self, factor)

    def rigid_equivalent(self, name: str, frames: dict[str, Pose]) -> Rigid:
        """The rigid link with this rod's mass distribution between the same two frames
        (the reference for what the flexibility costs): mass ``ρ A L``, centre halfway,
        inertia ``ρ L ip`` about the rod and ``m L²/12 + ρ L i`` across (section axes as
        the flexible model's), in the axes of the first frame."""
        root, tip, L, T = link_span(name, self.kind, frames)
        s = self.properties(name)
        rho = self.material.rho
        m = rho * s["area"] * L
        D = np.diag([rho * L * s["ip"], m * L**2 / 12 + rho * L * s["iy"],
                     m * L**2 / 12 + rho * L * s["iz"]])
        R0 = root.rotation
        return Rigid(m, com=R0.T @ (0.5 * (tip.position - root.position)),
                     inertia=R0.T @ T @ D @ T.T @ R0)


@dataclass
class AncfBeam(_Rod):
    """A flexible link of shear-deformable ANCF beam elements (``ancf_beam``: bending,
    shear, torsion and stretch; Liu et al. 2018) from the link's root frame to its tip
    frame.  Section and material as for every rod (:class:`_Rod`).
    """

    elements: int = 4
    damping: float = 0.0
    formulation: str = "structural"    # the beam's energy; "continuum" for comparison
    kind = "ancf_beam"

    def __post_init__(self):
        self.elements = integer(self.elements, "ancf_beam link: elements", minimum=1)
        self.formulation = choice(self.formulation, ("structural", "continuum",
                                                     "continuum_split"),
                                  "ancf_beam link: formulation")
        self._check_section()
        if self.wall is not None and self.section == "rectangle":
            raise ModelError("ancf_beam link: wall — ANCF beam elements take a solid "
                             "rectangle or a circular tube; a rectangular tube is a cable's "
                             "or a floating frame's section")

    def _section(self) -> dict:
        if self.section == "circle":
            tube = {} if self.wall is None else {"inner_radius": self.radius - self.wall}
            return {"section": "circle", "radius": self.radius, **tube}
        return {"section": "rectangle", "width": self.width, "height": self.height}

    def build(self, model, name, frames):
        from ..model.builders import straight_beam

        root, tip, L, T = link_span(name, self.kind, frames)
        group, nodes = straight_beam(model, root.position, tip.position, self.elements,
                                     self.material, name=name, up=T[:, 2], **self._section(),
                                     **({} if self.formulation == "structural" else
                                        {"formulation": self.formulation}))
        built = _ancf_frames(model, name, frames, nodes, T, True)
        model.add_link_frame(group, *chord_frame(built))
        _ancf_damping(model, group, self, self.properties(name), L, name)
        return BuiltLink(name, self.kind, True, built,
                         _node_fields(model, nodes, ("r", "r_x", "r_y", "r_z")), group=group)


@dataclass
class AncfCable(_Rod):
    """A flexible link of ANCF cable elements (``ancf_cable``: stretch and bending, no
    shear or twist) from the root frame to the tip frame.  Its frames carry the tangent
    only: revolute joints with axes normal to the link and spherical joints."""

    elements: int = 4
    damping: float = 0.0
    kind = "ancf_cable"

    def __post_init__(self):
        self.elements = integer(self.elements, "ancf_cable link: elements", minimum=1)
        self._check_section()

    def build(self, model, name, frames):
        from ..model.builders import straight_cable

        root, tip, L, T = link_span(name, self.kind, frames)
        s = self.properties(name)
        group, nodes = straight_cable(model, root.position, tip.position, self.elements,
                                      self.material, s["area"], s["iy"], name=name)
        built = _ancf_frames(model, name, frames, nodes, T, False)
        model.add_link_frame(group, *chord_frame(built))
        _ancf_damping(model, group, self, s, L, name)
        return BuiltLink(name, self.kind, True, built, _node_fields(model, nodes, ("r", "r_x")),
                         group=group)


@dataclass
class FloatingFrame(_Rod):
    """A flexible link in a floating frame (Fan and Zhang 2016): a rigid frame at the
    root plus the elastic coordinates of a deformation basis (``basis`` "bspline",
    "bezier", "fe" or "modes", ``functions`` per field), with ``kinematics``
    "fourth_order" (default: large deflections to the next order in the slopes) or the
    paper's form, "paper".  Section as for :class:`AncfBeam`."""

    basis: str = "bspline"
    functions: int = 6
    kinematics: str = "fourth_order"
    damping: float = 0.0
    kind = "floating_frame"

    def __post_init__(self):
        from ..elements.floating_frame import kinematics_name

        self.functions = integer(self.functions, "floating_frame link: functions", minimum=1)
        self.kinematics = kinematics_name(self.kinematics, "floating_frame link")
        self._check_section()

    def build(self, model, name, frames):
        from ..elements.floating_frame import FloatingFrameLink

        root, tip, L, T = link_span(name, self.kind, frames)
        s = self.properties(name)
        m = self.material
        G = m.E / (2 * (1 + m.nu))
        link = FloatingFrameLink(L, self.basis, self.functions, m.rho * s["area"],
                                 m.E * s["area"], m.E * s["iy"], m.E * s["iz"], G * s["j"],
                                 m.rho * s["ip"], kinematics=self.kinematics)
        body = model.add_floating_frame(name, link, root.position, T)
        if self.damping > 0:
            model.add_modal_damping(body, self.damping)
        model.add_sketch([body.point(x, f"{name} x = {x:.3g} m")
                          for x in np.linspace(0.0, L, 11)], name,    # its centre line
                         radius=float(np.sqrt(s["area"] / np.pi)))
        (n0, p0), (n1, p1) = frames.items()
        built = {
            n0: Frame(name, n0, p0, body.origin, [body.axis(i) for i in range(3)], T),
            n1: Frame(name, n1, p1, body.point(L, f"{name} {n1}"),
                      [body.direction(L, i, f"{name} {n1} axis {i}") for i in range(3)], T),
        }
        fdofs = body.frame_dofs
        fields = [(int(fdofs[0]), True)] + [(int(fdofs[3 * j]), False) for j in (1, 2, 3)]
        return BuiltLink(name, self.kind, True, built, fields,
                         elastic=np.asarray(body.elastic_dofs, np.int64), body=body)


@dataclass
class Reduced(LinkModel):
    """A link reduced from an FE model of it (Craig–Bampton component modes in a floating
    frame, :func:`fem.reduction.reduce_body`): a link of any shape — a casting, a plate,
    a frame of beams — at the cost of its modes.

    ``fe_model`` is the link's :class:`fem.Model` built where the link is (world
    coordinates in the build configuration); ``interfaces`` maps every frame of the
    link to the FE model's point there (a :class:`fem.LinearMap`), or to a list of four
    maps ``[point, x, y, z]`` — the point and three direction vectors of the FE model
    (an ANCF node's ``r, r_x, r_y, r_z``) — so that a joint there turns with the
    deformed section.  With a point alone the frame's directions are the floating
    frame's axes (the link's local rotation at the joint is then left out); with two,
    ``[point, x]``, the frame carries the FE model's vector along its x axis alone.
    ``n_modes`` fixed-interface modes; ``options`` go to ``reduce_body`` (with
    ``"cache": True`` through :func:`fem.reduction.cached_reduction`: reduced once per
    content, then loaded)."""

    fe_model: object
    interfaces: dict
    n_modes: int = 8
    options: dict = field(default_factory=dict)
    damping: float = 0.0
    kind = "reduced"
    flexible = True

    def __post_init__(self):
        from ..model.core import Model

        if not isinstance(self.fe_model, Model):
            raise ModelError(f"reduced link: fe_model must be the link's fem.Model; got "
                             f"{type(self.fe_model).__name__}")
        checked_interfaces(self.interfaces, "reduced link", "[point, x, y, z] maps")
        self.n_modes = integer(self.n_modes, "reduced link: n_modes", minimum=0)
        self.damping = damping_ratio(self.damping, "reduced link")

    def build(self, model, name, frames):
        from ..reduction import cached_reduction, reduce_body

        spec = interface_maps(self.interfaces, frames, name, "reduced",
                               "[point, x] or [point, x, y, z]")
        for f, maps in spec.items():
            if len(maps) == 4:
                independent_directions(np.column_stack([m(self.fe_model.q0)
                                                        for m in maps[1:]]), name, f)
        options = dict(self.options)
        reduce = cached_reduction if options.pop("cache", False) else reduce_body
        red = reduce(self.fe_model, interfaces={f: m if len(m) > 1 else m[0]
                                                for f, m in spec.items()},
                     n_modes=self.n_modes, **options)
        body = model.add_reduced_body(name, red, fe_model=self.fe_model)  # drawn on its mesh
        if self.damping > 0:
            model.add_modal_damping(body, self.damping)
        q_fe = self.fe_model.q0
        built = {}
        for f, p in frames.items():
            maps = spec[f]
            if len(maps) == 2:                 # a point and the frame's x: tangent only
                x0 = maps[1](q_fe)
                built[f] = Frame(name, f, p, body.interface(f"{f}[0]"),
                                 [body.interface(f"{f}[1]"), None, None],
                                 np.column_stack([x0, p.rotation[:, 1:]]))
                continue
            if len(maps) == 1:
                R0 = red.rotation
                built[f] = Frame(name, f, p, body.interface(f),
                                 [body.axis(i) for i in range(3)], R0)
            else:
                basis0 = np.column_stack([m(q_fe) for m in maps[1:]])
                dirs = [body.interface(f"{f}[{j}]") for j in (1, 2, 3)]
                built[f] = Frame(name, f, p, body.interface(f"{f}[0]"), dirs, basis0,
                                 gradients=dirs)
        if len(built) == 2:                   # pictures: the bending against the chord
            model.add_link_frame(body, *chord_frame(built))
        fd = body.frame_dofs
        fields = [(int(fd[0]), True)] + [(int(fd[3 * j]), False) for j in (1, 2, 3)]
        return BuiltLink(name, self.kind, True, built, fields,
                         elastic=np.asarray(body.modal_dofs, np.int64), body=body)


@dataclass
class Plate(LinkModel):
    """A flexible plate link (a platform): Bézier-triangle ANCF thick-plate elements on a
    triangle ``mesh`` (Liu et al. 2023; ``element`` "bezier_plate_shared", the vertices'
    fields shared between triangles), of ``thickness`` [m] and ``material``.

    The mesh is in the axes of the link's first frame (its *link frame*), as a URDF link's
    geometry; every frame must sit on a mesh vertex, whose position and gradient fields
    (``r``, ``r_x``, ``r_y``, ``r_z``) are the frame's origin and basis, or at the midpoint
    of an *edge* with its x axis along it — a mesh edge, or a straight side of the plate
    (collinear boundary edges, its midpoint a vertex or not): the frame's basis is then
    the edge's direction alone, read as ``edges`` says.  ``"tangent"`` (default): the
    plate's tangent at the edge's first end, the edge held straight (the tangents at its
    two ends equal: the pin of a joint along the edge; Liu et al. 2023, eq 36);
    ``"chord"``: the chord between the edge's two end vertices, unit at build, no
    straight-edge rows (the joint's moment spread over the edge rather than put on one
    vertex's slopes: it converges as the mesh is refined, docs/parallel_robot.md).
    ``element`` "bezier_plate" gives every triangle its own coordinates joined by the
    continuity equations of Liu et al. (2023) (a vertex frame is then a point).
    ``options`` go to the element family (``shear_factor``)."""

    mesh: object
    material: Material
    thickness: float
    element: str = "bezier_plate_shared"
    damping: float = 0.0
    options: dict = field(default_factory=dict)
    edges: str = "tangent"
    kind = "plate"
    flexible = True

    def __post_init__(self):
        from ..model.mesh import Mesh

        if not isinstance(self.mesh, Mesh):
            raise ModelError(f"plate link: mesh must be a fem.Mesh (fem.read_mesh, "
                             f"fem.load_builtin_mesh); got {type(self.mesh).__name__}")
        self.material = validate_material(self.material, "plate link: material")
        self.thickness = positive(self.thickness, "plate link: thickness", "m")
        self.element = choice(self.element, ("bezier_plate_shared", "bezier_plate"),
                              "plate link: element")
        self.damping = damping_ratio(self.damping, "plate link")
        self.edges = choice(self.edges, PLATE_EDGES, "plate link: edges")
        if not isinstance(self.options, dict):
            raise ModelError(f"plate link: options must be a dict of the element family's "
                             f"options (e.g. {{'shear_factor': 'auto'}}); got "
                             f"{type(self.options).__name__}")

    def build(self, model, name, frames):
        from ..model.mesh import Mesh

        first = next(iter(frames.values()))
        V = np.asarray(self.mesh.vertices, float)
        world = first.position + V @ first.rotation.T
        mesh = Mesh.from_arrays(world, self.mesh.triangles, self.mesh.lines, name=name)
        group = model.add_mesh(mesh, self.element, self.material, name=name,
                               thickness=self.thickness, normal=first.rotation[:, 2],
                               **self.options)
        _plate_continuity(model, group, name)
        size = float(np.ptp(world, axis=0).max())
        built = {}
        for f, p in frames.items():
            ends = _plate_edge(mesh, p, 1e-9 * size)
            if ends is not None:
                built[f] = _plate_edge_frame(model, group, name, f, p, ends, self.edges)
                continue
            d = np.linalg.norm(world - p.position, axis=1)
            v = int(np.argmin(d))
            node = int(group.mesh_vertex_node[v])
            if d[v] > 1e-9 * size or node < 0:
                built[f] = _plate_point_frame(model, group, name, f, p, size)
                continue
            basis = [model.node_field(node, k) for k in ("r_x", "r_y", "r_z")]
            B0 = np.column_stack([m(model.q0) for m in basis])
            built[f] = Frame(name, f, p, model.node_field(node, "r"), basis, B0)
        if self.damping > 0:
            w1 = _free_plate_frequency(mesh, self, name, first.rotation[:, 2])
            model.add_damping(group, 2.0 * self.damping / w1, kind="strain_rate")
        nodes = np.unique(group.nodes)
        fields = []
        for nd in nodes:
            fields += [(start, k == "r") for k, start in model.node_fields[int(nd)].items()]
        return BuiltLink(name, self.kind, True, built, fields, group=group)

    def stiffer(self, factor):
        return _scaled(self, factor)


def _plate_continuity(model, group, name: str) -> None:
    """The plate's continuity rows (:func:`fem.elements.bezier_plate.add_continuity`): the
    middle G¹ row per inner edge of the shared-vertex plate, the paper's equations of the
    per-element one."""
    from ..elements.bezier_plate import add_continuity

    add_continuity(model, group, f"{name} continuity")


PLATE_EDGES = ("tangent", "chord")
"""How a plate frame at an edge's midpoint reads the edge's direction (:class:`Plate`)."""


def _plate_edge(mesh, p: Pose, tol: float) -> tuple[int, int] | None:
    """The end vertices ``(a, b)`` (``b − a`` along the frame's x) of the edge whose
    midpoint the frame sits at, its x along it: a mesh edge, or a straight side of the
    plate — the run of collinear boundary edges through the frame; None elsewhere."""
    V, edges = np.asarray(mesh.vertices, float), np.asarray(mesh.edges)
    e = p.rotation[:, 0]
    d = V[edges[:, 1]] - V[edges[:, 0]]
    L = np.linalg.norm(d, axis=1)
    along = np.abs(np.abs(d @ e) - L) <= 1e-9 * L
    rel = p.position - V[edges[:, 0]]
    s = rel @ e * np.sign(d @ e)
    off = np.linalg.norm(rel - np.outer(rel @ e, e), axis=1)
    on = np.flatnonzero(along & (off <= tol) & (s >= -tol) & (s <= L + tol))
    if not on.size:
        return None
    boundary = np.zeros(len(edges), bool)
    boundary[mesh.boundary_edges] = True
    run = set(int(i) for i in on)
    if boundary[on].all():          # a side of the plate: its collinear boundary edges
        line = along & boundary & (off <= tol)
        verts = set(edges[list(run)].ravel().tolist())
        grown = True
        while grown:
            nxt = {int(i) for i in np.flatnonzero(line & np.isin(edges, list(verts)).any(1))}
            grown = bool(nxt - run)
            run |= nxt
            verts |= set(edges[list(run)].ravel().tolist())
    elif len(run) > 1:              # a vertex between interior edges: a vertex frame
        return None
    verts = np.unique(edges[list(run)])
    x = V[verts] @ e
    a, b = int(verts[np.argmin(x)]), int(verts[np.argmax(x)])
    if np.linalg.norm(0.5 * (V[a] + V[b]) - p.position) > tol:
        return None
    return a, b


def _plate_edge_frame(model, group, name: str, f: str, p: Pose, ends, reading: str) -> Frame:
    """A plate frame at the midpoint of the edge ``ends`` (its x along it): the basis is
    the edge's direction alone — the tangent at its first end with the edge held straight,
    or the chord between its ends (:class:`Plate`, ``edges``)."""
    from ..constraints import Coincident
    from ..elements.bezier_plate import edge_tangent_along, plate_point

    V = np.asarray(group.mesh.vertices, float)
    a, b = ends
    e = p.rotation[:, 0]
    origin = plate_point(group, p.position).named(f"{name} {f}")
    if reading == "chord":
        c0, c1 = (plate_point(group, V[v]) for v in (a, b))
        chord = (c1 - c0).named(f"{name} {f} chord")
        return Frame(name, f, p, origin, [chord, None, None],
                     np.column_stack([chord(model.q0), p.rotation[:, 1:]]))
    t0, t1 = edge_tangent_along(group, a, e), edge_tangent_along(group, b, -e)
    model.add_constraint(Coincident(t0, -t1, f"{name} {f} edge straight"))
    return Frame(name, f, p, origin, [t0, None, None], p.rotation)


def _plate_point_frame(model, group, name: str, f: str, p: Pose, size: float) -> Frame:
    """A plate frame that is not on a shared vertex nor at an edge's midpoint along the
    edge: at a vertex of a per-element plate (a point); refused elsewhere."""
    from ..elements.bezier_plate import plate_point

    V, tol = group.mesh.vertices, 1e-9 * size
    on_vertex = np.linalg.norm(V - p.position, axis=1).min() <= tol
    if not on_vertex:
        edges = np.asarray(group.mesh.edges)
        mid = 0.5 * (V[edges[:, 0]] + V[edges[:, 1]])
        hit = np.flatnonzero(np.linalg.norm(mid - p.position, axis=1) <= tol)
        if hit.size:
            a, b = (int(i) for i in edges[hit[0]])
            d = (V[b] - V[a]) / np.linalg.norm(V[b] - V[a])
            raise ModelError(f"link {name!r} (plate): frame {f!r} sits on an edge's "
                             f"midpoint; its x axis must run along the edge "
                             f"({np.round(d, 6).tolist()})")
        raise ModelError(f"link {name!r} (plate): frame {f!r} is neither on a mesh vertex nor "
                         f"at an edge's midpoint; a plate's frame sits on one (add a vertex "
                         f"to the mesh there)")
    origin = plate_point(group, p.position).named(f"{name} {f}")
    return Frame(name, f, p, origin, [None, None, None], p.rotation)


def _free_plate_frequency(mesh, spec: Plate, name: str, normal) -> float:
    """ω₁ [rad/s]: the first elastic mode of the plate alone, free (its six rigid
    modes have ω ≈ 0)."""
    from ..model.core import Model
    from ..solvers.modal import modes

    alone = Model(f"{name} (free)", gravity=(0.0, 0.0, 0.0))
    alone.add_mesh(mesh, spec.element, spec.material, name=name, thickness=spec.thickness,
                   normal=normal, **spec.options)
    w2 = modes(alone, n_modes=12).omega2
    scale = np.abs(w2).max()
    elastic = w2[w2 > 1e-6 * scale]
    if elastic.size == 0:
        raise ModelError(f"link {name!r} (plate): no elastic mode found to set the damping "
                         "ratio at")
    return float(np.sqrt(elastic[0]))


def _scaled(spec, factor: float):
    import dataclasses

    m = spec.material
    stiff = Material(E=m.E * factor, nu=m.nu, rho=m.rho, name=f"{m.name} ×{factor:g}")
    return dataclasses.replace(spec, material=stiff)
