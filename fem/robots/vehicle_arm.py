"""The vehicle manipulator's substructures for its robot: geometry and FE models.

The vehicle manipulator of Ma and Mei (2010) is a linear :class:`fem.frames.Frame`
built by ``cases/vehicle_manipulator_cms.py`` (nine Euler–Bernoulli substructures,
hinges, motor masses, two pin-ended hydraulic cylinders).  For the large motion the case
builds the same frame as a robot in the x–z plane (``fem.Robot``, ``fem.robot.planar``):
each substructure a link of ANCF cables or of its reduced cable model.  What is here is
what that robot takes from the frame:

* :func:`group_chains` — each substructure as a straight chain of frame nodes, oriented
  alike along collinear members (so that clamped members continue each other's slope);
* :func:`substructure_model` — a substructure's ANCF cable model on the frame's mesh,
  the source of its reduction;
* :func:`in_plane` — the in-plane part of a reduction (a straight cable bends alike in
  and out of the plane, so its modes come in pairs; the planar arm keeps one of each);
* :func:`crank_length_law` — the length law of a cylinder that turns a rigid crank by a
  given angle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import ModelError
from ..elements.materials import Material
from ..model.core import Model

if TYPE_CHECKING:  # pragma: no cover
    from ..bodies.reduced import Reduction

__all__ = ["ArmModel", "crank_length_law", "group_chains", "in_plane", "substructure_model"]

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
    """The arm as the case's large motion reads it.

    Attributes
    ----------
    model : fem.Model
        The robot's model.
    kind : {"ancf", "reduced"}
    points : dict[str, point map]
        The frame's named points on the model: at a junction, the point of the first
        substructure listed there.
    drives : dict[str, Constraint]
        The constraint of every cylinder held or driven (a spring has none).
    bodies : dict[str, ...]
        The reduced bodies by substructure (``kind="reduced"``).
    info : dict
        Coordinates, constraints, in-plane modes per body and the offline reduction time
        (wall clock, metadata only).
    robot : fem.Robot
    """

    model: Model
    kind: str
    points: dict = field(default_factory=dict)
    drives: dict = field(default_factory=dict)
    bodies: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    robot: object = None


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
