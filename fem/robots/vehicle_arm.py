"""A planar frame arm in large motion: ANCF cables or reduced bodies on the constrained core.

The vehicle manipulator of Ma and Mei (2010) is built by ``cases/vehicle_manipulator_cms.py``
as a linear :class:`fem.frames.Frame` (nine Euler–Bernoulli substructures, hinges, motor
masses, two pin-ended hydraulic cylinders).  :func:`arm_model` turns *that same frame*
into a model of the nonlinear constrained core, so geometry, sections, masses and hinges
are the case's, not a copy:

* ``kind="ancf"``: every substructure (a member group of the frame) is a chain of planar
  ANCF cable elements on the frame's own mesh.  The gradient-deficient cable is the
  nonlinear counterpart of the frame's member: axial stretch plus Euler–Bernoulli bending
  (exact curvature), cubic Hermite interpolation, consistent mass without rotary inertia;
  the frame's axial field is linear, the cable's cubic — the one discretization
  difference.  The arm is kept in the x–z plane by fixing every node's ``y`` (position
  and slope).
* ``kind="reduced"``: every substructure is a :class:`fem.bodies.ReducedBody` reduced by
  :func:`fem.reduction.reduce_body` from its own ANCF cable model (the same elements):
  Craig–Bampton with interfaces at its joints — the end position at a hinge, position
  and slope at a clamped junction — and ``2 n_modes`` fixed-interface normal modes of
  the 3-D cable, of which the in-plane part is kept (:func:`in_plane`): a straight cable
  bends alike in and out of the plane, so the modes come in pairs and the planar arm
  never excites the out-of-plane half.  Each body is held in the plane by three rows
  (origin ``y``, axes ``u`` and ``w`` normal to ``y``).

Junctions follow the frame's hinges: members clamped together at a frame node share the
ANCF node (``r`` and ``r_x`` equal; the reduced bodies: two coincident rows each for
position and slope), a hinged member end only shares the position.  A clamped junction
must be straight (collinear members, oriented alike), as all of the manipulator's are.
Supports are pins on the ground (``x, z``).  Point masses (the motors) sit on the node.

Axial members (the cylinders) are not bodies; per member group, one of

* ``"rigid"``: a constant distance between the two pins;
* a function ``t -> (L, L̇, L̈)``: a length drive (:class:`fem.constraints.DistanceDrive`);
* ``"spring"``: the member's axial stiffness ``EA/L`` as a one-element ANCF cable kept
  straight by linear rows (its slopes follow its chord), so it adds no coordinate of its
  own to the motion — how the modal analysis at the start pose models the cylinders, as
  the linear frame does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from ..constraints import Coincident, Distance, DistanceDrive, Dot, Fixed, Linear
from ..core.errors import ModelError
from ..model.core import Model
from ..model.linear_map import constant
from ..model.materials import Material

if TYPE_CHECKING:  # pragma: no cover
    from ..bodies.reduced import Reduction

__all__ = ["ArmModel", "arm_model", "crank_length_law", "group_chains", "in_plane",
           "substructure_model"]

_EY = np.array([0.0, 1.0, 0.0])
_XZ = (0, 2)


@dataclass
class Chain:
    """One substructure: its frame nodes in order, direction, section and end hinges."""

    name: str
    nodes: list[int]
    t: np.ndarray
    E: float
    rho: float
    section: dict
    hinge: tuple[bool, bool]


@dataclass
class ArmModel:
    """What :func:`arm_model` builds.

    Attributes
    ----------
    model : fem.Model
    kind : {"ancf", "reduced"}
    points : dict[str, point map]
        The frame's named points (``frame.named``) on the model: at a junction, the point
        of the first substructure listed there.
    drives : dict[str, Constraint]
        The constraint of every axial member (``Distance``, ``DistanceDrive``) — a spring
        has none.
    bodies, reductions, fe_models : dict[str, ...]
        Per substructure (``kind="reduced"``): the body, its reduction and its ANCF model.
    info : dict
        Coordinates, constraints, in-plane modes per body and the offline reduction time
        (wall clock, metadata only).
    """

    model: Model
    kind: str
    points: dict = field(default_factory=dict)
    drives: dict = field(default_factory=dict)
    bodies: dict = field(default_factory=dict)
    reductions: dict = field(default_factory=dict)
    fe_models: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)


def group_chains(frame, groups: dict[str, Sequence[int]],
                 substructures: Sequence[str]) -> list[Chain]:
    """The substructures of ``frame`` as straight chains of frame nodes, every chain
    oriented along a canonical direction (``x`` up, or ``z`` up when vertical) so that
    collinear members clamped together have the same slope."""
    X = np.asarray(frame.nodes, float)
    chains = []
    for name in substructures:
        if name not in groups:
            raise ModelError(f"arm model: no member group {name!r} in the frame (it has "
                             f"{sorted(groups)})")
        mem = [frame.members[k] for k in groups[name]]
        nodes = [mem[0].i] + [m.j for m in mem]
        for a, b in zip(mem[:-1], mem[1:], strict=True):
            if a.j != b.i:
                raise ModelError(f"arm model: group {name!r} is not one chain of members")
        hinge = (mem[0].hinge_i, mem[-1].hinge_j)
        d = X[nodes[-1]] - X[nodes[0]]
        L = np.linalg.norm(d)
        t = d / L
        dev = np.abs(np.cross(X[nodes] - X[nodes[0]], t)).max()
        if dev > 1e-9 * L:
            raise ModelError(f"arm model: group {name!r} is not straight (its nodes leave "
                             f"the line by {dev:.3g} m)")
        if t[0] < -1e-12 or (abs(t[0]) <= 1e-12 and t[2] < 0):
            nodes, t, hinge = nodes[::-1], -t, hinge[::-1]
        sec = mem[0].section
        chains.append(Chain(name, nodes, t, mem[0].E, mem[0].rho, sec, hinge))
    return chains


def substructure_model(chain: Chain, frame, masses: Sequence[tuple[int, float]] = (),
                       gravity=(0.0, 0.0, -9.81), name: str | None = None
                       ) -> tuple[Model, np.ndarray]:
    """The ANCF cable model of one substructure (for :func:`fem.reduction.reduce_body`):
    ``(model, nodes)`` with one node per frame node of the chain and the given point
    masses ``(frame node, kg)``."""
    X = np.asarray(frame.nodes, float)
    fe = Model(name or chain.name, gravity=gravity)
    nodes = fe.add_nodes(r=X[chain.nodes], r_x=np.tile(chain.t, (len(chain.nodes), 1)),
                         names=[f"{chain.name} {k}" for k in range(len(chain.nodes))])
    _cables(fe, chain, nodes)
    for nd, kg in masses:
        fe.add_point_mass(fe.point(nodes[chain.nodes.index(nd)]), kg)
    return fe, nodes


def _cables(model, chain: Chain, nodes) -> None:
    mat = Material(chain.E, 0.3, chain.rho)
    conn = np.column_stack([nodes[:-1], nodes[1:]])
    model.add_elements("ancf_cable", conn, mat, name=chain.name,
                       area=chain.section["area"], inertia=chain.section["iy"])


def in_plane(reduction: Reduction, normal=(0.0, 1.0, 0.0), tol: float = 1e-8) -> Reduction:
    """The part of a reduction that moves in the plane normal to ``normal`` (frame axes):
    its modes ``Ψ a`` with no component along ``normal``, made M-orthonormal and
    K-diagonal again; inertia invariants, modal stiffness, damping and prestress force
    transformed with them (``W → Bᵀ W B``, ``B = diag(I₄, T, T, T)``).  For a model
    symmetric about the plane the span splits into in-plane and out-of-plane modes; the
    former are kept.  A reduction with the cubic modal force (``K3``) is refused."""
    from ..bodies.reduced import Reduction

    if not isinstance(reduction, Reduction):
        raise ModelError(f"in_plane: expected a fem.bodies.Reduction; got "
                         f"{type(reduction).__name__}")
    if reduction.K2 is not None:
        raise ModelError("in_plane: the reduction has the cubic modal force (nonlinear=True)"
                         "; restrict a linear reduction")
    n = np.asarray(normal, float)
    n = n / np.linalg.norm(n)
    modes = reduction.modes                                     # (S, 3, m)
    m = modes.shape[2]
    Y = np.einsum("d,sdm->sm", n, modes)
    _, s, Vt = np.linalg.svd(Y, full_matrices=True)
    rank = int(np.sum(s > tol * max(np.abs(modes).max(), 1e-300)))
    N = Vt[rank:].T                                             # (m, m') in-plane
    if N.shape[1] == 0:
        raise ModelError("in_plane: no mode of the reduction lies in the plane")
    # the modal mass is W's modal block (identity for reduce_body's basis)
    nV = 4 + 3 * m
    Mm = sum(reduction.W[4 + k * m:4 + (k + 1) * m, 4 + k * m:4 + (k + 1) * m]
             for k in range(3))
    Mn = N.T @ Mm @ N
    lam, U = np.linalg.eigh(0.5 * (Mn + Mn.T))
    T1 = N @ (U / np.sqrt(lam))
    Kn = T1.T @ reduction.K @ T1
    w2, Z = np.linalg.eigh(0.5 * (Kn + Kn.T))
    T = T1 @ Z
    k = T.shape[1]
    B = np.zeros((nV, 4 + 3 * k))
    B[:4, :4] = np.eye(4)
    for a in range(3):
        B[4 + a * m:4 + (a + 1) * m, 4 + a * k:4 + (a + 1) * k] = T
    W = B.T @ reduction.W @ B
    f0 = None if reduction.f0 is None else T.T @ reduction.f0
    red = Reduction(c=reduction.c, Q=reduction.Q, modes=np.einsum("sdm,mk->sdk", modes, T),
                    W=0.5 * (W + W.T), K=np.diag(w2), C=T.T @ reduction.C @ T,
                    frequencies_hz=np.sqrt(np.maximum(w2, 0.0)) / (2 * np.pi),
                    origin=reduction.origin, rotation=reduction.rotation,
                    slot_dofs=reduction.slot_dofs, n_fe=reduction.n_fe, f0=f0,
                    interfaces=dict(reduction.interfaces),
                    info={**reduction.info, "n_modes": int(k), "in_plane_of": int(m)})
    return red


def arm_model(frame, groups: dict[str, Sequence[int]], substructures: Sequence[str],
              kind: str = "ancf", axial: dict[str, str | Callable] | None = None,
              n_modes: int = 4, gravity=(0.0, 0.0, -9.81), name: str | None = None,
              reduce: Callable | None = None) -> ArmModel:
    """The planar ``frame`` as a model of the nonlinear constrained core (module docstring).

    Parameters
    ----------
    frame : fem.frames.Frame
        A planar (``"xz"``) frame; ``frame.named`` (name → node), if present, names points.
    groups : dict[str, list[int]]
        Member ids per group (what the frame's builder returns).
    substructures : sequence of str
        The groups that are flexible bodies (straight chains).
    kind : {"ancf", "reduced"}
    axial : dict[str, "rigid" | "spring" | callable]
        The axial members (one-member groups between two pins) and how each is modelled.
    n_modes : int
        ``kind="reduced"``: ``2 n_modes`` fixed-interface modes of each 3-D cable model are
        computed; their in-plane part is kept.
    gravity : (3,)
    reduce : callable or None
        The reduction function (default :func:`fem.reduction.reduce_body`; e.g.
        :func:`fem.reduction.cached_reduction`).
    """
    if kind not in ("ancf", "reduced"):
        raise ModelError(f"arm model: kind must be 'ancf' or 'reduced'; got {kind!r}")
    if frame.plane != "xz":
        raise ModelError("arm model: the frame must be planar (Frame('xz'))")
    axial = dict(axial or {})
    X = np.asarray(frame.nodes, float)
    chains = group_chains(frame, groups, substructures)
    model = Model(name or f"{frame.name}_{kind}", gravity=gravity)
    arm = ArmModel(model, kind)
    # ---- ends: per frame node, the clamped cluster(s) and the hinged member ends
    ends: dict[int, list[tuple[Chain, int, bool]]] = {}
    for ch in chains:
        for side, nd in ((0, ch.nodes[0]), (1, ch.nodes[-1])):
            ends.setdefault(nd, []).append((ch, side, ch.hinge[side]))
    mass_at = {}
    for nd, kg, _ in frame.masses:
        mass_at[nd] = mass_at.get(nd, 0.0) + kg
    # the substructure that carries each point mass: the first listed through its node
    carrier = {}
    for nd in mass_at:
        owner = next((ch for ch in chains if nd in ch.nodes), None)
        if owner is None:
            raise ModelError(f"arm model: the point mass at frame node {nd} is on no "
                             "substructure")
        carrier[nd] = owner.name
    # points of each chain end: (position map, slope map)
    end_maps: dict[tuple[str, int], tuple] = {}
    t0 = time.perf_counter()
    if kind == "ancf":
        shared: dict[int, int] = {}         # frame node → ANCF node of its clamped cluster
        chain_nodes = {}
        for ch in chains:
            ids = []
            for k, nd in enumerate(ch.nodes):
                end = k in (0, len(ch.nodes) - 1)
                hinged = end and ch.hinge[0 if k == 0 else 1]
                if end and not hinged and nd in shared:
                    other = shared[nd]
                    if np.linalg.norm(model.q0[model.node_dofs(other, "r_x")] - ch.t) > 1e-9:
                        raise ModelError(f"arm model: {ch.name!r} is clamped at frame node "
                                         f"{nd} to a member that is not collinear with it")
                    ids.append(other)
                    continue
                nid = model.add_node(name=f"{ch.name} {k}", r=X[nd], r_x=ch.t)
                if end and not hinged:
                    shared[nd] = nid
                ids.append(nid)
            _cables(model, ch, np.asarray(ids))
            chain_nodes[ch.name] = ids
            for side, k in ((0, 0), (1, -1)):
                nid = ids[k]
                end_maps[(ch.name, side)] = (model.point(nid), model.node_field(nid, "r_x"))
        model.add_constraint(Fixed(np.concatenate(
            [model.node_dofs(nid, ("r", "r_x"))[[1, 4]] for nid in range(len(model.node_fields))]),
            "plane (y = 0)"))
        for nd, kg in mass_at.items():
            ids = chain_nodes[carrier[nd]]
            ch = next(c for c in chains if c.name == carrier[nd])
            model.add_point_mass(model.point(ids[ch.nodes.index(nd)]), kg)
        arm.info["chain_nodes"] = chain_nodes
    else:
        from ..reduction import reduce_body

        reduce = reduce or reduce_body
        for ch in chains:
            fe, nodes = substructure_model(
                ch, frame, [(nd, kg) for nd, kg in mass_at.items() if carrier[nd] == ch.name],
                gravity, name=ch.name)
            inter = {}
            for side, k in ((0, 0), (1, -1)):
                nd = ch.nodes[k]
                if len(ends.get(nd, [])) > 1 or nd in frame.supports or _on_axial(
                        frame, groups, axial, nd):
                    key = "start" if side == 0 else "end"
                    inter[key] = [fe.point(nodes[k])] if ch.hinge[side] else \
                        [fe.point(nodes[k]), fe.node_field(nodes[k], "r_x")]
            if not inter:
                raise ModelError(f"arm model: substructure {ch.name!r} is joined to nothing")
            red = in_plane(reduce(fe, inter, n_modes=2 * n_modes))
            body = model.add_reduced_body(ch.name, red, fe_model=fe)
            arm.bodies[ch.name], arm.reductions[ch.name], arm.fe_models[ch.name] = \
                body, red, fe
            # in the x-z plane: origin y, axes u and w normal to y
            model.add_constraint(Fixed(body.origin.dofs[[1]], f"{ch.name} plane y"))
            for i in (0, 2):
                model.add_constraint(Dot(body.axis(i), constant(_EY), 0.0,
                                         f"{ch.name} plane {'uvw'[i]}"))
            for side, k in ((0, 0), (1, -1)):
                end_maps[(ch.name, side)] = (body.map(fe.point(nodes[k])),
                                             body.map(fe.node_field(nodes[k], "r_x")))
        arm.info["reduction_wall_s"] = time.perf_counter() - t0
        arm.info["modes_per_body"] = {k: r.n_modes for k, r in arm.reductions.items()}
    # ---- junctions and supports
    rep: dict[int, object] = {}             # frame node → its representative point
    for nd, lst in ends.items():
        first_clamped = None
        for ch, side, hinged in lst:
            p, s = end_maps[(ch.name, side)]
            if nd not in rep:
                rep[nd] = p
            elif kind == "reduced" or hinged or first_clamped is None:
                model.add_constraint(Coincident(p, rep[nd], f"{ch.name} at node {nd}",
                                                components=_XZ))
            if not hinged:
                if first_clamped is None:
                    first_clamped = (ch, s)
                elif kind == "reduced":
                    model.add_constraint(Coincident(s, first_clamped[1],
                                                    f"{ch.name} clamped at node {nd}",
                                                    components=_XZ))
        if nd in frame.supports:
            sup = frame.supports[nd]
            if "ry" in sup:
                raise ModelError(f"arm model: frame node {nd} is clamped to the ground; only "
                                 "pins (x, z) are supported")
            comps = tuple(i for i, c in ((0, "x"), (2, "z")) if c in sup)
            model.add_constraint(Coincident(rep[nd], constant(X[nd]), f"pin at node {nd}",
                                            components=comps))
    # ---- axial members
    for gname, how in axial.items():
        mem = [frame.members[k] for k in groups[gname]]
        if len(mem) != 1:
            raise ModelError(f"arm model: axial group {gname!r} must be one member")
        i, j = mem[0].i, mem[0].j
        pi, pj = (_pin(frame, X, rep, nd, gname) for nd in (i, j))
        model.add_sketch([_drawn(pi), _drawn(pj)], gname)   # drawn in series and movies
        if how == "rigid":
            arm.drives[gname] = model.add_constraint(Distance(pi, pj, name=gname))
        elif how == "spring":
            _spring(model, gname, X[i], X[j], mem[0], pi, pj)
        elif callable(how):
            arm.drives[gname] = model.add_constraint(DistanceDrive(pi, pj, how, gname))
        else:
            raise ModelError(f"arm model: axial member {gname!r} must be 'rigid', 'spring' or "
                             f"a length law t -> (L, L̇, L̈); got {how!r}")
    named = getattr(frame, "named", {}) or {}
    arm.points = {k: _pin(frame, X, rep, nd, f"point {k}") for k, nd in named.items()}
    asm = model.assemble()
    arm.info.update({"coordinates": int(asm.n), "constraints": int(asm.m)})
    return arm


def _on_axial(frame, groups, axial, nd) -> bool:
    return any(nd in (frame.members[k].i, frame.members[k].j) for g in axial
               for k in groups[g])


def _pin(frame, X, rep, nd, gname):
    if nd in rep:
        return rep[nd]
    if nd in frame.supports:
        return constant(X[nd], f"ground pin {nd}")
    raise ModelError(f"arm model: {gname!r} is at frame node {nd}, which is neither a "
                     "substructure end nor a ground pin")


def _drawn(p):
    """A linear map to draw a pin by: the pin itself, or on a reduced body the pin's
    place in the body frame (its elastic part, a fraction of a millimetre here, left out:
    sketches are linear maps)."""
    from ..bodies.reduced import ReducedPoint

    if isinstance(p, ReducedPoint) and p.v[0] == 1.0:
        return p.body.frame.point(p.v[1:4], f"{p.label} (drawn)")
    return p


def _spring(model, name, xi, xj, member, pi, pj) -> None:
    """An axial spring ``EA/L`` between two pins: one ANCF cable kept straight (each slope
    equals the chord over the reference length: linear rows), its ends on the pins."""
    d = xj - xi
    L = float(np.linalg.norm(d))
    t = d / L
    a = model.add_node(name=f"{name} 0", r=xi, r_x=t)
    b = model.add_node(name=f"{name} 1", r=xj, r_x=t)
    mat = Material(member.E, 0.3, max(member.rho, 1e-12))
    model.add_elements("ancf_cable", [[a, b]], mat, name=name, area=member.section["area"],
                       inertia=member.section["iy"])
    ra, rb = model.node_dofs(a, "r"), model.node_dofs(b, "r")
    A = sp.lil_matrix((4, model.n_dof))          # r_x − (r_b − r_a)/L = 0, x and z
    for row, (node, c) in enumerate((n, c) for n in (a, b) for c in _XZ):
        A[row, model.node_dofs(node, "r_x")[c]] = 1.0
        A[row, rb[c]] = -1.0 / L
        A[row, ra[c]] = 1.0 / L
    model.add_constraint(Linear(A, name=f"{name} straight"))
    model.add_constraint(Fixed(np.concatenate([model.node_dofs(n, ("r", "r_x"))[[1, 4]]
                                               for n in (a, b)]), f"{name} plane"))
    for node, p in ((a, pi), (b, pj)):
        model.add_constraint(Coincident(model.point(node), p, f"{name} pin",
                                        components=_XZ))


def crank_length_law(center, crank_point, pin, angle: Callable) -> Callable:
    """The length law ``t -> (L, L̇, L̈)`` of a cylinder from a fixed ``pin`` to the point
    ``crank_point`` of a rigid crank that turns about ``center`` by ``angle(t) -> (θ, θ̇,
    θ̈)`` (in the x–z plane, θ positive from x towards z): the drive that would turn a rigid
    rocker through that angle.  A flexible rocker turns by that plus its deflection."""
    c = np.asarray(center, float)[[0, 2]] if np.size(center) == 3 else np.asarray(center, float)
    a = np.asarray(crank_point, float)[[0, 2]] if np.size(crank_point) == 3 else \
        np.asarray(crank_point, float)
    p = (np.asarray(pin, float)[[0, 2]] if np.size(pin) == 3 else np.asarray(pin, float)) - c
    a = a - c
    r = float(np.linalg.norm(a))
    phi0 = float(np.arctan2(a[1], a[0]))

    def law(t: float) -> tuple[float, float, float]:
        th, thd, thdd = (float(np.asarray(v).reshape(-1)[0]) for v in angle(t))
        ph = phi0 + th
        g = r * r + p @ p - 2.0 * r * (p[0] * np.cos(ph) + p[1] * np.sin(ph))
        g1 = 2.0 * r * (p[0] * np.sin(ph) - p[1] * np.cos(ph))
        g2 = 2.0 * r * (p[0] * np.cos(ph) + p[1] * np.sin(ph))
        L = float(np.sqrt(g))
        Ld = g1 * thd / (2.0 * L)
        Ldd = (g2 * thd**2 + g1 * thdd) / (2.0 * L) - Ld**2 / L
        return L, Ld, Ldd

    return law
