"""The 3-RRRU robot of Liu et al. 2023 as a constrained DAE: natural-coordinate links and a
rigid or flexible (Bézier-triangle ANCF plate) moving platform.

Shares only the geometry (:class:`~fem.robots.rrru3.RRRU3Geometry`) with the independent
rigid reference of :mod:`fem.robots.rrru3`.

Per limb k (joint centres A → B → C → U, see :mod:`fem.robots.rrru3`):

* nodes A, B, C, U (positions only); ``rigid_bar`` links A–B, B–C, C–U with the paper's
  masses (eq 32) — their lengths are the bars' own constraints (eq 33₁₋₃);
* A fixed; links 1 and 2 in the limb plane: ``(B − A)·t = 0``, ``(C − A)·t = 0``
  (eq 33₄); R3 perpendicular to link 3: ``(U − C)·(t × (C − B)) = 0`` (eq 33₅);
* U joint: ``U = W_k`` (eq 34, Δh from the geometry) and the first U axis
  ``a = t × (C − B)`` perpendicular to the second, the platform edge direction
  ``b`` through ``W_k`` (eq 36₁).  For the flexible plate ``b`` is read in one of two
  ways (``u_joint_edge``): ``"tangent"``, the paper's eq 36, is the plate's edge tangent
  at the edge's first corner vertex, the edge kept straight along the joint axis by
  equal tangents at its two end vertices (eq 36₂₋₃, written per unit reference length
  so it holds on refined meshes too); ``"chord"`` is the chord between the edge's two
  corner points, with no straight-edge rows.  The tangent puts the joint's moment on
  one vertex's slopes, a point moment on a shear-deformable plate, whose local rotation
  has no limit as the mesh is refined; the chord spreads it over the edge and converges
  (``docs/parallel_robot.md``).  For the rigid platform ``b`` is the body-fixed edge
  direction;
* a motor in R1: :class:`~fem.model.actuators.RevoluteActuator` about ``u_k`` on link 1.

Platform: the hexagon mesh (built-in ``hexagon_6`` … ``hexagon_384``) moved to the start
point, as ``bezier_plate_shared`` (shared vertex coordinates + the middle G¹ row of eq 29)
or ``bezier_plate`` (48 coordinates per element + the paper's continuity equations); or a
``rigid_body`` with the hexagonal prism's inertia.  The payload is a point mass at P.
Trajectory: P follows a path through servo constraints (eq 37), one motor per row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..constraints import AngleDrive, Coincident, Dot, PrescribedPoint
from ..core.errors import ModelError
from ..core.validate import choice
from ..elements.bezier_plate import (
    add_continuity,
    edge_tangent_along,
    plate_point,
    vertex_at,
    vertex_elements,
)
from ..elements.materials import Material
from ..maps.linear_map import LinearMap
from ..model.actuators import RevoluteActuator
from ..model.core import Model
from ..model.mesh_files import load_builtin_mesh
from .rrru3 import ActuatorMotion, RRRU3Geometry, joint_positions

__all__ = ["RobotModel", "build_robot", "actuator_angles_from_state"]


@dataclass
class RobotModel:
    """The model and the handles a case needs to read results."""

    model: Model
    geom: RRRU3Geometry
    platform: str
    P: LinearMap                       # platform centre
    W: list[LinearMap]                 # edge midpoints (U-joint centres on the platform)
    A: list[LinearMap]
    B: list[LinearMap]
    actuators: list[RevoluteActuator]
    path_constraint: PrescribedPoint | list[AngleDrive]
    plate_group: object | None = None
    centre_elements: list | None = None    # [(element, local vertex)] of P
    counts: dict = field(default_factory=dict)
    reduced: ReducedPlatform | None = None  # platform="reduced": its FE model and body
    robot: object | None = None             # the fem.Robot (built in robot words)
    solver_settings: dict = field(default_factory=dict)   # AlphaOptions its runs take

    def plate_state(self, q: np.ndarray):
        """``(plate group, coordinates it reads)`` of the flexible or reduced platform
        (the reduced one expanded on the full mesh by modal superposition), or None."""
        if self.reduced is not None:
            return self.reduced.group, self.reduced.body.fe_coordinates(q)
        if self.plate_group is not None:
            return self.plate_group, q
        return None


@dataclass
class ReducedPlatform:
    """The platform's FE model (Bézier plate, continuity, U edges, payload) and
    the reduced body made from it."""

    fe: Model
    group: object
    body: object


def constant_path(p0) -> object:
    """A path that holds P at ``p0``: ``t ↦ (p0, 0, 0)`` (the static hold's target)."""
    p0 = np.asarray(p0, float)
    z = np.zeros(3)
    return lambda t: (p0, z, z)


class JointMotion:
    """The motors' angles along a path of P from the rigid robot's inverse kinematics:
    ``motion(k)(t) -> (α, α̇, α̈)`` of limb k's :class:`~fem.constraints.AngleDrive`
    (arm A→B about the actuator axis, zero along the outward radial).

    The drive angle α is the elevation φ₁ of link 1 above the outward horizontal, signed by
    the axis: ``α = ((k × r)·e_z) φ₁`` with ``θ = −σ φ₁`` (:func:`rrru3.actuator_angles`).
    The three limbs of one instant are computed together and kept for the next call.
    """

    def __init__(self, geom: RRRU3Geometry, path):
        self.geom, self.path = geom, path
        self.sign = np.array([np.cross(geom.actuator_axis(k), geom.radial(k))[2]
                              for k in range(3)])
        self._t, self._val = None, None
        self._motion = ActuatorMotion(geom)

    def at(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(α, α̇, α̈)`` of the three limbs at ``t`` [rad, rad/s, rad/s²]."""
        if self._t != t:
            th, thd, thdd = self._motion(*self.path(t))
            c = -self.geom.actuator_axis_sign * self.sign      # α = c θ
            self._t, self._val = t, (c * th, c * thd, c * thdd)
        return self._val

    def motion(self, k: int, zero: float = 0.0):
        """Limb ``k``'s ``t -> (α, α̇, α̈)``, the angle counted from ``zero`` [rad] (a
        joint's angle at the robot's build pose: a motor of :mod:`fem.robot` measures
        from there)."""
        def angle(t):
            a, ad, add = self.at(t)
            return a[k] - zero, ad[k], add[k]
        return angle


BARS = True
U_JOINT_EDGES = ("chord", "tangent")
"""How a U joint reads the flexible platform's edge direction (:func:`build_robot`)."""


def _add_plate(model, geom, mesh, E, nu, continuity, shear_factor, damping_beta, P0,
               u_joint_edge: str = "tangent"):
    """The Bézier-plate platform in ``model``: group, mesh, P, W_k, edge directions,
    centre elements and the continuity constraint.  ``u_joint_edge="tangent"``: each U
    edge's direction is the plate's edge tangent at its first corner, the edge kept
    straight (the paper's eq. 36); ``"chord"``: the chord between the edge's two
    corners, no straight-edge rows."""
    m = load_builtin_mesh(mesh)
    from ..model.mesh import Mesh
    m = Mesh.from_arrays(m.vertices + P0, m.triangles, m.lines, m.groups, name=m.name)
    family = "bezier_plate_shared" if continuity == "shared" else "bezier_plate"
    mat = Material(E, nu, geom.platform_density, name="platform")
    plate_group = model.add_mesh(m, family, mat, name="platform",
                                 thickness=geom.platform_thickness,
                                 shear_factor=shear_factor)
    con = add_continuity(model, plate_group, "plate continuity")
    if damping_beta:
        model.add_damping(plate_group, damping_beta)
    P = plate_point(plate_group, P0).named("P")
    centre = vertex_elements(plate_group, vertex_at(plate_group, P0))
    W = [plate_point(plate_group, P0 + geom.edge_midpoint_offset(k)).named(f"W{k + 1}")
         for k in range(3)]
    edge_dirs = []
    for k in range(3):
        t = geom.tangent(k)
        w = P0 + geom.edge_midpoint_offset(k)
        half = 0.5 * geom.platform_side
        try:
            ends = [vertex_at(plate_group, w + s * half * t) for s in (-1.0, 1.0)]
        except ModelError:
            raise ModelError(f"mesh {mesh!r}: the side facing limb {k + 1} is not where "
                             "the geometry expects it") from None
        if u_joint_edge == "chord":
            c0, c1 = (plate_point(plate_group, w + s * half * t) for s in (-1.0, 1.0))
            edge_dirs.append((c1 - c0).named(f"E{k + 1}"))
            continue
        T0 = edge_tangent_along(plate_group, ends[0], t)    # along +t at the first end
        T1 = edge_tangent_along(plate_group, ends[1], -t)   # along −t at the other end
        model.add_constraint(Coincident(T0, -T1, f"U{k + 1} edge straight"))
        edge_dirs.append(T0.named(f"E{k + 1}"))
    return plate_group, m, P, W, edge_dirs, centre, con


CUBIC_TOL = {"path": 3e-4, "joints": 1e-5}
"""The reduced platform's quartic potential compressed (``reduce_body``'s ``cubic_tol``)
by drive: the path drive deflects the plate by about its sag, the motors' drive swings it
about twenty times further, where the compression's error (growing with the square of
the deflection) at 3e-4 turns the potential's tangent indefinite and the run diverges
(docs/reduced_bodies.md, "The compression at large deflections")."""


def reduced_platform(fe: Model, P, W, E, n_modes: int = 2, state=None,
                     reduction: str = "nonlinear", n_derivatives: int = 4,
                     n_enrich: int = 16, enrich_weight: str = "energy",
                     cubic_tol: float = 3e-4):
    """Craig–Bampton reduction of the platform's FE model: static modes for P, the U
    centres W_k and the edge directions E_k (every component), ``n_modes``
    fixed-interface modes and the static sag under the platform's weight; with
    ``reduction="nonlinear"`` the modal derivatives of the ``n_derivatives`` lowest modes
    and the plate's exact cubic modal force (geometric nonlinearity); the plate's damping
    as the full plate applies it (``damping="fe"``: ``β K`` on the absolute velocities,
    which also damps the sagged plate's turning); ``n_enrich`` vectors compressed from
    the quadratic response of every pair of the linear basis (``reduce_body(...,
    enrich=)``, 0: none); cached on disk (:func:`fem.reduction.cached_reduction`) by the
    model's content."""
    from ..reduction import cached_reduction

    inter = {"P": P, **{f"W{k + 1}": w for k, w in enumerate(W)},
             **{f"E{k + 1}": e for k, e in enumerate(E)}}
    extra = {} if not n_enrich else {"enrich": int(n_enrich), "enrich_weight": enrich_weight}
    if cubic_tol and reduction == "nonlinear":
        extra["cubic_tol"] = float(cubic_tol)
    return cached_reduction(fe, inter, n_modes=n_modes, loads="gravity", state=state,
                            derivatives=n_derivatives if reduction == "nonlinear" else 0,
                            nonlinear=reduction == "nonlinear", damping="fe", **extra)


def build_robot(geom: RRRU3Geometry | None = None, platform: str = "flexible",
                mesh: str = "hexagon_6", E: float = 6.9e8, nu: float = 0.3,
                continuity: str = "shared", path=None, shear_factor=1.0,
                damping_beta: float = 0.0, n_modes: int = 2,
                reduce_at: str = "static", drive: str = "path",
                reduction: str = "nonlinear", n_derivatives: int = 4,
                n_enrich: int = 16, enrich_weight: str = "energy",
                cubic_tol: float | None = None, u_joint_edge: str = "tangent",
                words: bool = False) -> RobotModel:
    """Assemble the robot (see module docstring).

    Parameters
    ----------
    platform : "flexible", "rigid" or "reduced" (the flexible plate's Craig–Bampton
        modes in a floating frame: :func:`reduced_platform`)
    mesh : built-in hexagon mesh name (flexible platform)
    E, nu : plate material (density from the platform mass and the hexagon volume)
    continuity : "shared" (``bezier_plate_shared`` + middle G¹ rows) or "constraints"
        (``bezier_plate`` + the paper's continuity equations)
    path : callable ``t -> (x, ẋ, ẍ)`` for P; default: P held at the start point
    shear_factor : transverse-shear factor of the plate (1.0: plain continuum, the paper's
        element; "auto": the shear-locking remedy of docs/bezier_plate.md)
    damping_beta : stiffness-proportional structural damping of the plate [s]
        (:meth:`Model.add_damping`; 0: none)
    n_modes, n_derivatives, n_enrich, cubic_tol : the reduced platform's basis; the
        defaults (2 normal modes, derivatives of 4, 16 enrichment vectors: 44 modal
        coordinates) follow the full plate's path drive within 1 % of the torque range on
        hexagon_24 and hexagon_96 (docs/reduced_bodies.md, "The basis chosen")
    n_modes : fixed-interface normal modes of the reduced platform
    reduction : "nonlinear" (default: the plate's exact cubic modal force on a basis
        with modal derivatives, :func:`reduced_platform`) or "linear" (``f0 + K η``)
    n_derivatives : modal derivatives of this many lowest modes (nonlinear reduction)
    n_enrich, enrich_weight : vectors compressed from every pair's modal derivative
        (:func:`fem.reduction.reduce_body` ``enrich``, ``enrich_weight``; 0: none)
    cubic_tol : the reduced platform's quartic potential compressed to this relative
        tolerance (:func:`fem.reduction.reduce_body` ``cubic_tol``; 0: whole).  None
        (default): 3e-4 with ``drive="path"``, where the plate deflects by its sag, and
        1e-5 with ``drive="joints"``, whose swing deflects it about twenty times further:
        the compression's error grows with the square of the deflection, and 3e-4 loses
        the potential's convexity there (docs/reduced_bodies.md, "The compression at
        large deflections")
    u_joint_edge : the flexible or reduced platform's edge direction at each U joint:
        "tangent" (default here: the paper's eq 36, the edge tangent at one corner vertex
        and the edge kept straight) or "chord" (the chord between the edge's corners,
        which converges under mesh refinement; the flagship case's default)
    reduce_at : "static" (default) linearizes the plate about the robot's static hold at the
        path start (:func:`static_state` of the full flexible robot): the reduced platform
        keeps that state's stresses (``f0``) and their geometric stiffness; "reference" about
        the flat, unstressed plate (measured: the circle's servo-constrained inverse
        dynamics then grows unstable after 0.6 s, docs/reduced_bodies.md)
    words : build it with :class:`fem.Robot` (:func:`build_robot_in_words`)
    """
    geom = RRRU3Geometry() if geom is None else geom
    choice(platform, ("flexible", "rigid", "reduced"), "platform")
    choice(reduce_at, ("static", "reference"), "reduce_at")
    choice(continuity, ("shared", "constraints"), "continuity")
    choice(drive, ("path", "joints"), "drive")
    choice(reduction, ("linear", "nonlinear"), "reduction")
    choice(u_joint_edge, U_JOINT_EDGES, "u_joint_edge")
    if cubic_tol is None:
        cubic_tol = CUBIC_TOL[drive]
    if words:
        return build_robot_in_words(geom, platform, mesh, E, nu, continuity, path,
                                    shear_factor, damping_beta, n_modes, reduce_at, drive,
                                    reduction, n_derivatives, n_enrich, enrich_weight,
                                    cubic_tol, u_joint_edge)
    P0 = np.asarray(geom.start_point, float)
    jp = joint_positions(geom, P0)
    model = Model(f"rrru3_{platform}", gravity=(0.0, 0.0, -geom.gravity))
    model.view = "iso"
    plate_group, centre, body, fe = None, None, None, None
    if platform == "flexible":
        plate_group, m, P, W, edge_dirs, centre, con = _add_plate(
            model, geom, mesh, E, nu, continuity, shear_factor, damping_beta, P0,
            u_joint_edge)
    elif platform == "reduced":
        fe = Model("platform FE", gravity=(0.0, 0.0, -geom.gravity))
        fe_group, m, Pf, Wf, Ef, centre, con = _add_plate(
            fe, geom, mesh, E, nu, continuity, shear_factor, damping_beta, P0,
            u_joint_edge)
        fe.add_point_mass(Pf, geom.payload_mass)          # the payload rides in the modes
        state = None
        if reduce_at == "static":     # the plate as it hangs: its stresses and their stiffness
            full = build_robot(geom, "flexible", mesh, E, nu, continuity, None, shear_factor,
                               damping_beta, drive=drive, u_joint_edge=u_joint_edge)
            qs = static_state(full).q
            state = fe.q0.copy()
            for nf, nt in zip(full.plate_group.nodes.ravel(), fe_group.nodes.ravel(),
                              strict=True):
                for f, start in full.model.node_fields[nf].items():
                    t0 = fe.node_fields[nt][f]
                    state[t0:t0 + 3] = qs[start:start + 3]
        red = reduced_platform(fe, Pf, Wf, Ef, n_modes, state, reduction, n_derivatives,
                               n_enrich, enrich_weight, cubic_tol)
        body = model.add_reduced_body("platform", red, fe_model=fe)
        P = body.interface("P")
        W = [body.interface(f"W{k + 1}") for k in range(3)]
        edge_dirs = [body.interface(f"E{k + 1}") for k in range(3)]
        fe = ReducedPlatform(fe, fe_group, body)
    else:
        R = np.eye(3)
        hexagon = geom.platform_vertices(np.zeros(3))
        body = model.add_rigid_body("platform", geom.platform_mass, P0, R,
                                    inertia=geom.platform_inertia(),
                                    sketch=np.vstack([hexagon, hexagon[:1]]))
        P = body.point((0, 0, 0), "P")
        W = [body.point(geom.edge_midpoint_offset(k), f"W{k + 1}") for k in range(3)]
        edge_dirs = [body.vector(geom.tangent(k), f"edge {k + 1}") for k in range(3)]
        con = None
    if platform != "reduced":
        model.add_point_mass(P, geom.payload_mass)
    A_maps, B_maps, acts, drives = [], [], [], []
    joint_motion = JointMotion(geom, path or constant_path(P0)) if drive == "joints" else None
    for k in range(3):
        t = geom.tangent(k)
        nodes = model.add_nodes(r=[jp["A"][k], jp["B"][0, k], jp["C"][0, k], jp["U"][0, k]],
                                names=[f"limb {k + 1} {j}" for j in "ABCU"])
        A, B, C, U = (model.point(n) for n in nodes)
        for (a, b), mass, nm in zip(((0, 1), (1, 2), (2, 3)), geom.link_masses,
                                    ("link1", "link2", "link3"), strict=True):
            model.add_element("rigid_bar", [nodes[a], nodes[b]], mass=mass,
                              name=f"limb {k + 1} {nm}")
        model.fix(nodes[0], name=f"limb {k + 1} R1 centre")
        tk = model.ground(t, f"t{k + 1}")
        model.add_constraint(Dot(B - A, tk, 0.0, f"limb {k + 1} link 1 in plane"))
        model.add_constraint(Dot(C - A, tk, 0.0, f"limb {k + 1} link 2 in plane"))
        axis3 = (C - B).crossed(t)                        # R3 axis a = t × (C − B)
        model.add_constraint(Dot(U - C, axis3, 0.0, f"limb {k + 1} R3"))
        offset = model.ground((0.0, 0.0, geom.u_joint_offset), "Δh")
        model.add_constraint(Coincident(U, W[k] + offset, f"U{k + 1} centre"))
        model.add_constraint(Dot(axis3, edge_dirs[k], 0.0, f"U{k + 1} axes"))
        act = RevoluteActuator(A, B, geom.actuator_axis(k), f"motor {k + 1}")
        model.add_actuator(act)
        if joint_motion is not None:
            drives.append(model.add_constraint(AngleDrive(
                A, B, geom.actuator_axis(k), geom.radial(k), joint_motion.motion(k),
                f"motor {k + 1} angle", servo=True)))
        A_maps.append(A)
        B_maps.append(B)
        acts.append(act)
    base = [model.ground(geom.actuator_position(k)) for k in (0, 1, 2, 0)]
    model.add_sketch(base, "static platform")
    if platform != "reduced":
        model.add_sketch([*W, W[0]], "U joints")
    if joint_motion is None:
        path_con = model.add_constraint(PrescribedPoint(P, path or constant_path(P0),
                                                        (0, 1, 2), "path of P", servo=True))
    else:
        path_con = drives
    rm = RobotModel(model, geom, platform, P, W, A_maps, B_maps, acts, path_con,
                    plate_group, centre, reduced=fe)
    asm = model.assemble()
    rm.counts = {"n_coordinates": asm.n, "n_constraints": asm.m,
                 "n_plate_coordinates": int(len(np.unique(plate_group.dofs)))
                 if plate_group is not None else (fe.body.dofs.size if fe is not None else 0),
                 "n_continuity_constraints": 0 if con is None else int(con.A.shape[0]),
                 "n_continuity_written": 0 if con is None else int(con.written)}
    return rm


def _platform_plate(geom, mesh, E, nu, continuity, shear_factor, u_joint_edge):
    """The Bézier-plate platform as a :class:`fem.robot.Plate` link: the hexagon mesh in
    the frame at P, its U frames at the edge midpoints, x along the edge (read as
    ``u_joint_edge``)."""
    from ..robot import Plate

    return Plate(load_builtin_mesh(mesh), Material(E, nu, geom.platform_density,
                                                   name="platform"),
                 geom.platform_thickness, "bezier_plate_shared" if continuity == "shared"
                 else "bezier_plate", options={"shear_factor": shear_factor},
                 edges=u_joint_edge)


def build_robot_in_words(geom: RRRU3Geometry, platform: str, mesh: str, E: float,
                         nu: float, continuity: str, path, shear_factor, damping_beta: float,
                         n_modes: int, reduce_at: str, drive: str, reduction: str,
                         n_derivatives: int, n_enrich: int, enrich_weight: str,
                         cubic_tol: float, u_joint_edge: str) -> RobotModel:
    """The robot of :func:`build_robot` (its arguments) with :class:`fem.Robot`: per
    limb rigid links 1–3 (slender: their mass on their axis, as ``rigid_bar``), revolute
    joints R1 (the motor) at A about ``u``, R2 at B about ``t``, R3 at C about ``a = t ×
    (C − B)``, and a universal joint at U whose axes are link 3's ``a`` and the platform
    frame's x, along the edge; the platform a :class:`~fem.robot.Plate` (its edge frames
    read by ``u_joint_edge``), a :class:`~fem.robot.Rigid` body or a
    :class:`~fem.robot.Reduced` link of that plate.  The payload is a point mass at P."""
    from ..robot import Bar, Reduced, Rigid, Robot, pose

    bars = BARS

    if platform != "rigid" and geom.u_joint_offset:
        raise ModelError(f"u_joint_offset {geom.u_joint_offset:g} m: on the {platform} "
                         "platform the U centres are the plate's edge midpoints (Δh = 0)")
    P0 = np.asarray(geom.start_point, float)
    jp = joint_positions(geom, P0)
    robot = Robot(f"rrru3_{platform}", gravity=(0.0, 0.0, -geom.gravity))
    model = robot.model
    model.view = "iso"
    dh = np.array([0.0, 0.0, geom.u_joint_offset])
    frames = {"P": pose(P0), **{f"U{k + 1}": pose(P0 + geom.edge_midpoint_offset(k) + dh,
                                                  x=geom.tangent(k)) for k in range(3)}}
    spec = _platform_plate(geom, mesh, E, nu, continuity, shear_factor, u_joint_edge)
    reduced = None
    if platform == "reduced":
        fe = Robot("platform FE", gravity=(0.0, 0.0, -geom.gravity))
        plate = fe.add_link("platform", spec, frames)
        if damping_beta:
            fe.model.add_damping(plate.group, damping_beta)
        Pf = fe.frame("platform", "P").origin
        fe.model.add_point_mass(Pf, geom.payload_mass)      # the payload rides in the modes
        state = None
        if reduce_at == "static":   # the plate as it hangs: its stresses and their stiffness
            full = build_robot_in_words(geom, "flexible", mesh, E, nu, continuity, None,
                                        shear_factor, damping_beta, n_modes, reduce_at, drive,
                                        reduction, n_derivatives, n_enrich, enrich_weight,
                                        cubic_tol, u_joint_edge)
            qs = static_state(full).q
            state = fe.model.q0.copy()
            for nf, nt in zip(full.plate_group.nodes.ravel(), plate.group.nodes.ravel(),
                              strict=True):
                for f, start in full.model.node_fields[nf].items():
                    t0 = fe.model.node_fields[nt][f]
                    state[t0:t0 + 3] = qs[start:start + 3]
        # the U interfaces: the point and the edge direction as the frame reads it (the
        # tangent, or the chord as it is, not made unit)
        inter = {"P": Pf, **{f"U{k + 1}": [fe.frame("platform", f"U{k + 1}").origin,
                                           fe.frame("platform", f"U{k + 1}").basis[0]]
                             for k in range(3)}}
        spec = Reduced(fe.model, inter, n_modes, _reduction_options(
            reduction, state, n_derivatives, n_enrich, enrich_weight, cubic_tol))
        reduced = ReducedPlatform(fe.model, plate.group, None)
    elif platform == "rigid":
        spec = Rigid(geom.platform_mass + geom.payload_mass, inertia=geom.platform_inertia())
    link = robot.add_link("platform", spec, frames)
    P = robot.frame("platform", "P").origin
    con, centre = None, None
    if platform == "flexible":
        if damping_beta:
            model.add_damping(link.group, damping_beta)
        model.add_point_mass(P, geom.payload_mass)
    if platform == "rigid":
        W = [link.body.point(geom.edge_midpoint_offset(k), f"W{k + 1}") for k in range(3)]
    else:
        W = [robot.frame("platform", f"U{k + 1}").origin for k in range(3)]
    if reduced is not None:
        reduced.body = link.body
    group = link.group if platform == "flexible" else (reduced.group if reduced else None)
    if group is not None:
        centre = vertex_elements(group, vertex_at(group, P0))
        owner = model if platform == "flexible" else reduced.fe
        con = next(c for c in owner.constraints if c.name == "platform continuity")
    motion = JointMotion(geom, path or constant_path(P0)) if drive == "joints" else None
    for k in range(3):
        t, u = geom.tangent(k), geom.actuator_axis(k)
        A, B, C, U = jp["A"][k], jp["B"][0, k], jp["C"][0, k], jp["U"][0, k]
        a = np.cross(t, C - B)
        limb = f"limb {k + 1}"
        for i, (p, q, z0, z1) in enumerate(((A, B, u, t), (B, C, t, a), (C, U, a, a))):
            m, L = geom.link_masses[i], float(np.linalg.norm(q - p))
            shared = {} if i == 0 else {"ABCU"[i]: robot.frame(f"{limb} link{i}", "ABCU"[i])}
            spec = Bar(m, share=shared) if bars else Rigid(m, com=(L / 2, 0, 0), inertia=np.diag(
                [0.0, 1.0, 1.0]) * m * L**2 / 12)
            robot.add_link(f"{limb} link{i + 1}", spec, {"ABCU"[i]: pose(p, z=z0, x=q - p),
                                                         "ABCU"[i + 1]: pose(q, z=z1, x=q - p)})
        robot.add_joint(f"{limb} R1", "revolute", "ground", (f"{limb} link1", "A"))
        robot.add_joint(f"{limb} R2", "revolute", (f"{limb} link1", "B"),
                        (f"{limb} link2", "B"))
        robot.add_joint(f"{limb} R3", "revolute", (f"{limb} link2", "C"),
                        (f"{limb} link3", "C"))
        robot.add_joint(f"U{k + 1}", "universal", (f"{limb} link3", "U"),
                        ("platform", f"U{k + 1}"), axis="z", axis2="x")
        servo = None
        if motion is not None:
            d = B - A
            zero = np.arctan2(d @ np.cross(u, geom.radial(k)), d @ geom.radial(k))
            servo = motion.motion(k, zero)
        robot.add_motor(f"motor {k + 1}", f"{limb} R1", servo=servo)
    base = [model.ground(geom.actuator_position(k)) for k in (0, 1, 2, 0)]
    model.add_sketch(base, "static platform")
    if platform != "reduced":
        model.add_sketch([*W, W[0]], "U joints")
    path_con = (robot.add_path("path of P", ("platform", "P"), path or constant_path(P0))
                if motion is None else [m.drive for m in robot.motors.values()])
    rm = RobotModel(model, geom, platform, P, W,
                    [robot.frame(f"limb {k + 1} link1", "A").origin for k in range(3)],
                    [robot.frame(f"limb {k + 1} link1", "B").origin for k in range(3)],
                    [m.actuator for m in robot.motors.values()], path_con,
                    link.group if platform == "flexible" else None, centre, reduced=reduced,
                    robot=robot,
                    # 372 unknowns on hexagon_6, 234 with the joints' linear rows
                    # eliminated: dense (fem.solvers.reduced_factorization)
                    solver_settings={} if bars else {"eliminate_beyond_dense": True})
    asm = model.assemble()
    rm.counts = {"n_coordinates": asm.n, "n_constraints": asm.m,
                 "n_plate_coordinates": int(len(np.unique(link.group.dofs)))
                 if platform == "flexible" else (link.body.dofs.size if reduced else 0),
                 "n_continuity_constraints": 0 if con is None else int(con.A.shape[0]),
                 "n_continuity_written": 0 if con is None else int(con.written)}
    return rm


def _reduction_options(reduction, state, n_derivatives, n_enrich, enrich_weight,
                       cubic_tol) -> dict:
    """The options of :class:`fem.robot.Reduced` for :func:`reduced_platform`'s
    reduction (:func:`fem.reduction.reduce_body`, cached on disk by content)."""
    extra = {} if not n_enrich else {"enrich": int(n_enrich), "enrich_weight": enrich_weight}
    if cubic_tol and reduction == "nonlinear":
        extra["cubic_tol"] = float(cubic_tol)
    return {"cache": True, "loads": "gravity", "state": state,
            "derivatives": n_derivatives if reduction == "nonlinear" else 0,
            "nonlinear": reduction == "nonlinear", "damping": "fe", **extra}


def actuator_angles_from_state(rm: RobotModel, q: np.ndarray, v: np.ndarray | None = None):
    """Actuator angles θ_k [rad] (and rates) from link 1: ``θ = −σ φ₁`` with ``φ₁`` the
    elevation of B − A above the outward horizontal (as :mod:`fem.robots.rrru3`)."""
    g = rm.geom
    th, thd = np.zeros(3), np.zeros(3)
    for k in range(3):
        d = rm.B[k](q) - rm.A[k](q)
        x, z = d @ g.radial(k), d[2]
        th[k] = -g.actuator_axis_sign * np.arctan2(z, x)
        if v is not None:
            dd = rm.B[k].coef @ v[rm.B[k].dofs] - rm.A[k].coef @ v[rm.A[k].dofs]
            xd, zd = dd @ g.radial(k), dd[2]
            thd[k] = -g.actuator_axis_sign * (x * zd - z * xd) / (x * x + z * z)
    return (th, thd) if v is not None else th


def static_state(rm: RobotModel, tol: float = 1e-12):
    """Static equilibrium with P held at the path's start (liu2023 §5.1)."""
    from ..solvers import solve_static

    return solve_static(rm.model, tol=tol)


def run_path(rm: RobotModel, t_end: float, dt: float, rho_inf: float = 0.1, q0=None,
             tol: float = 1e-8, result=None, progress: bool = False, exact: bool = True):
    """Inverse dynamics along the model's path: for the rigid platform (no elastic
    coordinates: the servo rows fix every DOF) the exact per-instant solve, unless
    ``exact=False``; generalized-α from the static equilibrium otherwise."""
    from ..solvers import driven_inverse_dynamics, simulate

    if rm.platform == "rigid" and exact:
        times = np.linspace(0.0, t_end, int(round(t_end / dt)) + 1)
        res = driven_inverse_dynamics(rm.model, times, q0=q0)
        if result is not None:          # replay into a streaming result for output
            for i in range(len(res.t)):
                result.record(res.t[i], res.q[i], res.v[i], res.a[i], res.lam[i],
                              **{k: v[i] for k, v in res.stats.items()})
            return result.finish()
        return res
    q0 = static_state(rm).q if q0 is None else q0
    # co-rotated factorization reuse: the platform turns with the mechanism; measured
    # 2× faster on hexagon_24/96, no change on the 6-element default (docs/performance.md)
    return simulate(rm.model, t_end, dt, rho_inf=rho_inf, q0=q0, tol=tol,
                    constraint_tol=1e-11, result=result, progress=progress, reuse="step",
                    corotate=True, **rm.solver_settings)


def histories(rm: RobotModel, res, path=None) -> dict[str, np.ndarray]:
    """Per-step robot quantities: torques [N·m], actuator angles [rad] and rates [rad/s],
    P, W1..W3, sag d = |P − mean(W)| [m], path error [m], and for the flexible plate the
    Green–Lagrange normal strains at P in the bottom, middle and top layers (global axes)."""
    asm = rm.model.assemble()
    n = len(res.t)
    tau = np.array([[asm.efforts(lam)[a.name] for a in rm.actuators] for lam in res.lam])
    th = np.zeros((n, 3))
    thd = np.zeros((n, 3))
    P = np.array([rm.P(q) for q in res.q])
    W = np.array([[w(q) for w in rm.W] for q in res.q])
    for i in range(n):
        th[i], thd[i] = actuator_angles_from_state(rm, res.q[i], res.v[i])
    out = {"time": res.t, "torque": tau, "theta": th, "theta_dot": thd, "P": P, "W": W,
           "sag": np.linalg.norm(P - W.mean(axis=1), axis=1)}
    if path is not None:
        x = np.asarray(path(res.t)[0]).reshape(n, 3)
        out["path_error"] = np.linalg.norm(P - x, axis=1)
    if rm.plate_state(res.q[0]) is not None:
        # strains at P averaged over the elements meeting there (the element strains are
        # not continuous across elements): one evaluation of the whole history at the
        # corners' points of the three layers, each element read at its own corner on P
        corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]
        xi = np.array([[x, y, c] for x, y in corners for c in (-1.0, 0.0, 1.0)])
        els = np.array([e for e, _ in rm.centre_elements], dtype=int)
        pts = 3 * np.array([lv for _, lv in rm.centre_elements], dtype=int)[:, None] \
            + np.arange(3)                                      # (els, layer)
        grp, _ = rm.plate_state(res.q[0])
        qs = np.array([rm.plate_state(q)[1][grp.dofs] for q in res.q])
        E = grp.family.green_lagrange_global(qs, xi, els)       # (n, els, 9 points, 3, 3)
        rows = np.arange(len(els))[:, None]
        strains = np.diagonal(E[:, rows, pts], axis1=-2, axis2=-1).sum(axis=1)
        out["centre_strain"] = strains / len(rm.centre_elements)   # (n, layer, xx/yy/zz)
    return out
