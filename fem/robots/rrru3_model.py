"""The 3-RRRU robot of Liu et al. 2023 in robot words (:class:`fem.Robot`): its geometry
and paper data made into links, joints and motors, with a rigid or flexible (Bézier-triangle
ANCF plate) moving platform.

Shares only the geometry (:class:`~fem.robots.rrru3.RRRU3Geometry`) with the independent
rigid reference of :mod:`fem.robots.rrru3`.

Per limb k (joint centres A → B → C → U, see :mod:`fem.robots.rrru3`):

* links 1–3 (A–B, B–C, C–U) are :class:`~fem.robot.Bar` links with the paper's masses:
  the natural-coordinate bar of eq 32, whose coordinates are its end points and whose
  length is its one row (eq 33₁₋₃); link 2 is built on link 1's B and link 3 on link 2's
  C (``Bar(share=...)``), so the limb's coordinates are the points A, B, C, U alone;
* revolute R1 at A about ``u_k`` (the motor, ground → link 1), R2 at B about ``t_k``,
  R3 at C about ``a_k = t_k × (C − B)``: each keeps its bar normal to its axis with one
  row (eq 33₄₋₅) and gives the bar its spin, the axis the next joint turns about;
* a universal joint U between link 3 (its ``a_k``) and the platform frame at the edge
  midpoint ``W_k`` (x along the edge): ``U = W_k`` (eq 34, Δh = 0) and ``a · b = 0``
  (eq 36₁).  For the flexible plate ``b`` is read in one of two ways (``u_joint_edge``,
  :class:`~fem.robot.Plate` ``edges``): ``"tangent"``, the paper's eq 36, the plate's
  edge tangent at the edge's first corner vertex, the edge kept straight (eq 36₂₋₃);
  ``"chord"``, the chord between the edge's two corner points, with no straight-edge
  rows.  The tangent puts the joint's moment on one vertex's slopes, a point moment on
  a shear-deformable plate, whose local rotation has no limit as the mesh is refined;
  the chord spreads it over the edge and converges (``docs/parallel_robot.md``);
* a motor on R1: servo (``drive="joints"``) or the equation of the path (``"path"``).

Platform: the hexagon mesh (built-in ``hexagon_6`` … ``hexagon_384``) in the frame at P
as a :class:`~fem.robot.Plate` (``bezier_plate_shared``: shared vertex coordinates + the
middle G¹ row of eq 29, or ``bezier_plate``: 48 coordinates per element + the paper's
continuity equations), a :class:`~fem.robot.Rigid` body with the hexagonal prism's
inertia, or a :class:`~fem.robot.Reduced` link of the plate.  The payload is a point mass
at P.  Trajectory: P follows a path through servo constraints (eq 37), one motor per row.
The model has the coordinates and rows of the paper's (hexagon_6, chord edges: 159 + 60;
rigid platform: 48 + 48).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..constraints import Constraint
from ..core.errors import ModelError
from ..core.validate import choice
from ..elements.bezier_plate import vertex_at, vertex_elements
from ..elements.materials import Material
from ..maps.linear_map import LinearMap
from ..model.actuators import Actuator
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
    actuators: list[Actuator]          # the motors' efforts (joint actuators)
    path_constraint: Constraint | list[Constraint]   # the path's rows or the motors' drives
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


U_JOINT_EDGES = ("chord", "tangent")
"""How a U joint reads the flexible platform's edge direction (:func:`build_robot`)."""


CUBIC_TOL = {"path": 3e-4, "joints": 1e-5}
"""The reduced platform's quartic potential compressed (``reduce_body``'s ``cubic_tol``)
by drive: the path drive deflects the plate by about its sag, the motors' drive swings it
about twenty times further, where the compression's error (growing with the square of
the deflection) at 3e-4 turns the potential's tangent indefinite and the run diverges
(docs/reduced_bodies.md, "The compression at large deflections")."""


def build_robot(geom: RRRU3Geometry | None = None, platform: str = "flexible",
                mesh: str = "hexagon_6", E: float = 6.9e8, nu: float = 0.3,
                continuity: str = "shared", path=None, shear_factor=1.0,
                damping_beta: float = 0.0, n_modes: int = 2,
                reduce_at: str = "static", drive: str = "path",
                reduction: str = "nonlinear", n_derivatives: int = 4,
                n_enrich: int = 16, enrich_weight: str = "energy",
                cubic_tol: float | None = None, u_joint_edge: str = "tangent",
                links: str = "bar") -> RobotModel:
    """Assemble the robot (see module docstring).

    Parameters
    ----------
    platform : "flexible", "rigid" or "reduced" (the flexible plate's Craig–Bampton
        modes in a floating frame: a :class:`~fem.robot.Reduced` link whose interfaces
        are P and each U frame's point and edge direction)
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
        with modal derivatives) or "linear" (``f0 + K η``)
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
    links : "bar" (default: links 1–3 :class:`~fem.robot.Bar` links, the paper's
        eq 32 bars sharing their joint points) or "rigid" (:class:`~fem.robot.Rigid`
        links with the bar's mass on their axis, each its own 12 natural coordinates and
        6 rows: the same mechanism, 231 + 132 unknowns on hexagon_6, for comparison)
    """
    geom = RRRU3Geometry() if geom is None else geom
    choice(platform, ("flexible", "rigid", "reduced"), "platform")
    choice(reduce_at, ("static", "reference"), "reduce_at")
    choice(continuity, ("shared", "constraints"), "continuity")
    choice(drive, ("path", "joints"), "drive")
    choice(reduction, ("linear", "nonlinear"), "reduction")
    choice(u_joint_edge, U_JOINT_EDGES, "u_joint_edge")
    choice(links, ("bar", "rigid"), "links")
    if cubic_tol is None:
        cubic_tol = CUBIC_TOL[drive]
    from ..robot import Bar, Reduced, Rigid, Robot, pose

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
            full = build_robot(geom, "flexible", mesh, E, nu, continuity, None, shear_factor,
                               damping_beta, drive=drive, u_joint_edge=u_joint_edge,
                               links=links)
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
            spec = Bar(m, share=shared) if links == "bar" else Rigid(
                m, com=(L / 2, 0, 0), inertia=np.diag([0.0, 1.0, 1.0]) * m * L**2 / 12)
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
                    # rigid links: 363 unknowns on hexagon_6, 225 with the joints' linear
                    # rows eliminated: dense (fem.solvers.reduced_factorization)
                    solver_settings={} if links == "bar" else {"eliminate_beyond_dense": True})
    asm = model.assemble()
    rm.counts = {"n_coordinates": asm.n, "n_constraints": asm.m,
                 "n_plate_coordinates": int(len(np.unique(link.group.dofs)))
                 if platform == "flexible" else (link.body.dofs.size if reduced else 0),
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


def _reduction_options(reduction, state, n_derivatives, n_enrich, enrich_weight,
                       cubic_tol) -> dict:
    """The options of the reduced platform's :class:`fem.robot.Reduced` link: static modes
    for its interfaces, fixed-interface modes, the static sag under gravity, with
    ``reduction="nonlinear"`` the modal derivatives and the plate's exact cubic modal
    force, the plate's damping as the full plate applies it (``damping="fe"``) and
    ``n_enrich`` vectors compressed from every pair's quadratic response
    (:func:`fem.reduction.reduce_body`, cached on disk by content)."""
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
