"""Linear frames: Euler–Bernoulli beam-columns with rotational nodal coordinates.

A :class:`Frame` is a small linear structure — nodes, members, sections, supports, end
releases (hinges) and point masses — assembled into sparse consistent mass and stiffness
matrices ``M``, ``K`` for modal analysis and component mode synthesis
(:mod:`fem.reduction`).  It is deliberately separate from the nonlinear
:class:`fem.Model`: the core element interface interpolates positions linearly in
3-vector nodal fields (see :mod:`fem.elements`), while a frame node carries small
translations *and* small rotations, which that interface cannot express.

Element (two-node, cubic Hermite bending, linear axial/torsion), local axes ``x`` along
the member, ``y`` from the orientation vector, ``z = x × y``; local coordinates per node
``(u, v, w, θx, θy, θz)`` with ``θz = dv/dx`` and ``θy = -dw/dx``::

    axial    EA/L [1 -1; -1 1]            ρAL/6 [2 1; 1 2]
    torsion  GJ/L [1 -1; -1 1]            ρ(Iy+Iz)L/6 [2 1; 1 2]
    bending  EI/L³ [12 6L -12 6L; ...]    ρAL/420 [156 22L 54 -13L; ...]

(Przemieniecki, *Theory of Matrix Structural Analysis*, 1968, ch. 5 and 11; the
substructures' constraint modes of Ma and Mei 2010, eqs 4, 6, 8, 10, are exactly these
cubic and linear shape functions.)  An end release (hinge) removes the end's bending
rotations from the member by static condensation, ``u_c = -K_cc⁻¹ K_cr u_r``; the same map
``T`` gives the released member's consistent mass ``Tᵀ M T`` (the propped-cantilever shape
functions).

A *planar* frame (``plane="xz"``) keeps per node the in-plane coordinates
``(x, z, ry)`` (``ry`` the rotation about +y, so ``ry = -dw/dx`` for a member along +x);
members then bend about their section's ``y`` axis with ``I = iy``.  A spatial frame
(``plane=None``) keeps ``(x, y, z, rx, ry, rz)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..core.errors import ModelError
from ..core.validate import finite, integer, nonnegative, positive

__all__ = ["Frame", "Member", "rectangle", "circle", "section_properties", "frame_modes",
           "FrameModes", "DOF_NAMES"]

DOF_NAMES = {"xz": ("x", "z", "ry"), None: ("x", "y", "z", "rx", "ry", "rz")}
_PLANAR_LOCAL = np.array([0, 2, 4, 6, 8, 10])   # (u, w, θy) at both ends


def rectangle(width: float, height: float, wall: float | None = None) -> dict[str, float]:
    """Solid or hollow rectangle: ``width`` along the section's y, ``height`` along z.

    Returns ``{"area", "iy", "iz", "j"}`` [m², m⁴]: ``iy = b h³/12`` (bending in the
    member's x–z plane, the in-plane bending of a planar frame).  Torsion constant:
    solid, Roark's series ``J = a b³ (1/3 - 0.21 (b/a)(1 - b⁴/12a⁴))`` (a ≥ b); hollow
    (constant ``wall``), Bredt's thin-walled ``J = 2 t (b-t)² (h-t)² / (b + h - 2t)``.
    """
    b = positive(width, "rectangle section: width", "m")
    h = positive(height, "rectangle section: height", "m")
    if wall is None:
        a_, b_ = max(b, h), min(b, h)
        j = a_ * b_**3 * (1 / 3 - 0.21 * b_ / a_ * (1 - b_**4 / (12 * a_**4)))
        return {"area": b * h, "iy": b * h**3 / 12, "iz": h * b**3 / 12, "j": j}
    t = positive(wall, "rectangle section: wall", "m")
    if 2 * t >= min(b, h):
        raise ModelError(f"rectangle section: wall {t:g} m must be less than half the "
                         f"smaller side {min(b, h):g} m")
    bi, hi = b - 2 * t, h - 2 * t
    return {"area": b * h - bi * hi, "iy": (b * h**3 - bi * hi**3) / 12,
            "iz": (h * b**3 - hi * bi**3) / 12,
            "j": 2 * t * (b - t) ** 2 * (h - t) ** 2 / (b + h - 2 * t)}


def circle(diameter: float, wall: float | None = None) -> dict[str, float]:
    """Solid or hollow (tube of constant ``wall``) circle: ``{"area", "iy", "iz", "j"}``,
    ``I = π(D⁴ - d⁴)/64``, ``J = 2I``."""
    D = positive(diameter, "circle section: diameter", "m")
    d = 0.0
    if wall is not None:
        t = positive(wall, "circle section: wall", "m")
        if 2 * t >= D:
            raise ModelError(f"circle section: wall {t:g} m must be less than the radius "
                             f"{D / 2:g} m")
        d = D - 2 * t
    i = np.pi * (D**4 - d**4) / 64
    return {"area": np.pi * (D**2 - d**2) / 4, "iy": i, "iz": i, "j": 2 * i}


def section_properties(section: dict, what: str = "section") -> dict[str, float]:
    """Check a section dict: ``area``, ``iy`` (> 0) and optional ``iz``, ``j`` (≥ 0;
    default ``iz = iy``, ``j = iy + iz``)."""
    if not isinstance(section, dict):
        raise ModelError(f"{what} must be a dict with 'area' and 'iy' (use "
                         f"fem.frames.rectangle/circle); got {section!r}")
    for key in ("area", "iy"):
        if key not in section:
            raise ModelError(f"{what} has no {key!r}; keys: {sorted(section)}")
    a = positive(section["area"], f"{what}: area", "m²")
    iy = positive(section["iy"], f"{what}: iy", "m⁴")
    iz = nonnegative(section.get("iz", iy), f"{what}: iz", "m⁴")
    j = nonnegative(section.get("j", iy + iz), f"{what}: j", "m⁴")
    return {"area": a, "iy": iy, "iz": iz, "j": j}


@dataclass
class Member:
    """One straight prismatic member between two frame nodes."""

    i: int
    j: int
    E: float
    G: float
    rho: float
    section: dict
    hinge_i: bool = False
    hinge_j: bool = False
    orientation: np.ndarray = field(default_factory=lambda: np.array([0.0, 1.0, 0.0]))
    group: str = ""


def _local_matrices(L, E, G, rho, A, Iy, Iz, J):
    """Local 12×12 stiffness and consistent mass of n members, shape (n, 12, 12)."""
    n = len(L)
    K = np.zeros((n, 12, 12))
    M = np.zeros((n, 12, 12))
    bar = np.array([[1.0, -1.0], [-1.0, 1.0]])
    bar_m = np.array([[2.0, 1.0], [1.0, 2.0]]) / 6
    for idx, k, m in (((0, 6), E * A / L, rho * A * L), ((3, 9), G * J / L,
                                                         rho * (Iy + Iz) * L)):
        ix = np.ix_(range(n), idx, idx)
        K[ix] += k[:, None, None] * bar
        M[ix] += m[:, None, None] * bar_m
    Lr = L[:, None, None]
    ones = np.ones_like(Lr)
    kb = np.block([[12 * ones, 6 * Lr, -12 * ones, 6 * Lr],
                   [6 * Lr, 4 * Lr**2, -6 * Lr, 2 * Lr**2],
                   [-12 * ones, -6 * Lr, 12 * ones, -6 * Lr],
                   [6 * Lr, 2 * Lr**2, -6 * Lr, 4 * Lr**2]])
    mb = np.block([[156 * ones, 22 * Lr, 54 * ones, -13 * Lr],
                   [22 * Lr, 4 * Lr**2, 13 * Lr, -3 * Lr**2],
                   [54 * ones, 13 * Lr, 156 * ones, -22 * Lr],
                   [-13 * Lr, -3 * Lr**2, -22 * Lr, 4 * Lr**2]])
    rho_al = (rho * A * L / 420)[:, None, None]
    # bending in x-y (v, θz) with Iz; in x-z (w, θy) with Iy and θy = -dw/dx (sign flip)
    s = np.array([1.0, -1.0, 1.0, -1.0])[:, None] * np.array([1.0, -1.0, 1.0, -1.0])
    for idx, EI, sign in (((1, 5, 7, 11), E * Iz, 1.0), ((2, 4, 8, 10), E * Iy, s)):
        ix = np.ix_(range(n), idx, idx)
        K[ix] += (EI / L**3)[:, None, None] * kb * sign
        M[ix] += rho_al * mb * sign
    return K, M


def _condense(K, M, released):
    """Static condensation of the local coordinates ``released`` (same for all members
    of the batch): returns 12×12 matrices with zero rows/columns there."""
    keep = np.setdiff1d(np.arange(12), released)
    Kcc = K[:, released][:, :, released]
    Kcr = K[:, released][:, :, keep]
    T = np.zeros((len(K), 12, len(keep)))
    T[:, keep, np.arange(len(keep))] = 1.0
    T[:, released, :] = -np.linalg.solve(Kcc, Kcr)
    Kr = np.einsum("nai,nab,nbj->nij", T, K, T)
    Mr = np.einsum("nai,nab,nbj->nij", T, M, T)
    Ko, Mo = np.zeros_like(K), np.zeros_like(M)
    ix = np.ix_(range(len(K)), keep, keep)
    Ko[ix], Mo[ix] = Kr, Mr
    return Ko, Mo


class Frame:
    """A linear frame (planar ``plane="xz"`` or spatial ``plane=None``).

    Parameters
    ----------
    plane : "xz" or None
        ``"xz"``: nodes ``(x, z)`` with coordinates ``(x, z, ry)``; ``None``: 3D nodes with
        ``(x, y, z, rx, ry, rz)``.
    name : str
    """

    def __init__(self, plane: str | None = "xz", name: str = "frame"):
        if plane not in DOF_NAMES:
            raise ModelError(f"frame plane must be 'xz' or None (spatial); got {plane!r}")
        self.plane = plane
        self.name = name
        self.dof_names = DOF_NAMES[plane]
        self.nodes: list[np.ndarray] = []
        self.members: list[Member] = []
        self.supports: dict[int, set[str]] = {}
        self.masses: list[tuple[int, float, float]] = []

    # -- building ---------------------------------------------------------------------
    @property
    def ndof_node(self) -> int:
        return len(self.dof_names)

    @property
    def n_dof(self) -> int:
        return self.ndof_node * len(self.nodes)

    def add_node(self, *coords: float) -> int:
        """A node at ``(x, z)`` (planar) or ``(x, y, z)``; returns its id."""
        if len(coords) == 1 and np.ndim(coords[0]) == 1:
            coords = tuple(coords[0])
        want = 2 if self.plane else 3
        if len(coords) != want:
            raise ModelError(f"frame node needs {want} coordinates "
                             f"{'(x, z)' if self.plane else '(x, y, z)'}; got {coords!r}")
        c = [finite(v, "frame node coordinate") for v in coords]
        xyz = np.array([c[0], 0.0, c[1]]) if self.plane else np.array(c)
        self.nodes.append(xyz)
        return len(self.nodes) - 1

    def _node(self, n, what: str) -> int:
        n = integer(n, what, 0)
        if n >= len(self.nodes):
            raise ModelError(f"{what}: no node {n}; the frame has {len(self.nodes)} nodes")
        return n

    def add_member(self, i: int, j: int, E: float, rho: float, section: dict, *,
                   G: float | None = None, nu: float = 0.3, hinge_i: bool = False,
                   hinge_j: bool = False, orientation: Sequence[float] = (0.0, 1.0, 0.0),
                   n_elements: int = 1, group: str = "") -> list[int]:
        """A straight member from node ``i`` to ``j``, split into ``n_elements`` elements
        (new nodes in between); returns the element (member) ids.

        ``hinge_i``/``hinge_j`` release the bending moments at that end (only at the
        member's own end element); ``orientation`` is a vector in the local x–y plane
        (default global y, so a planar member bends about y).
        """
        i, j = self._node(i, "member start"), self._node(j, "member end")
        if i == j:
            raise ModelError(f"member from node {i} to itself")
        E = positive(E, "member E", "Pa")
        rho = nonnegative(rho, "member rho", "kg/m³")
        G = E / (2 * (1 + finite(nu, "member nu"))) if G is None else positive(G, "member G")
        sec = section_properties(section, "member section")
        n = integer(n_elements, "member n_elements", 1)
        ori = np.asarray(orientation, float)
        L = np.linalg.norm(self.nodes[j] - self.nodes[i])
        if L == 0:
            raise ModelError(f"member {i}-{j} has zero length")
        if ori.shape != (3,) or np.linalg.norm(np.cross(self.nodes[j] - self.nodes[i],
                                                        ori)) < 1e-9 * L:
            raise ModelError(f"member {i}-{j}: orientation {orientation!r} must be a 3-vector "
                             "not parallel to the member")
        if self.plane and abs(ori[0]) + abs(ori[2]) > 0:
            raise ModelError("planar frame: member orientation must be the y axis")
        chain = [i]
        for k in range(1, n):
            p = self.nodes[i] + (self.nodes[j] - self.nodes[i]) * k / n
            chain.append(self.add_node(*(p[[0, 2]] if self.plane else p)))
        chain.append(j)
        ids = []
        for k in range(n):
            self.members.append(Member(chain[k], chain[k + 1], E, G, rho, sec,
                                       hinge_i=bool(hinge_i) and k == 0,
                                       hinge_j=bool(hinge_j) and k == n - 1,
                                       orientation=ori, group=group))
            ids.append(len(self.members) - 1)
        return ids

    def fix(self, node: int, dofs: Sequence[str] | None = None) -> None:
        """Fix coordinates of a node (default: all), by name, e.g. ``("x", "z")``."""
        node = self._node(node, "support")
        dofs = self.dof_names if dofs is None else tuple(dofs)
        bad = [d for d in dofs if d not in self.dof_names]
        if bad:
            raise ModelError(f"support at node {node}: unknown coordinate(s) {bad}; "
                             f"this frame has {self.dof_names}")
        self.supports.setdefault(node, set()).update(dofs)

    def add_mass(self, node: int, kg: float, inertia: float = 0.0) -> None:
        """A point mass ``kg`` on a node's translations (rotary ``inertia`` [kg m²] on its
        rotations)."""
        node = self._node(node, "point mass")
        self.masses.append((node, positive(kg, "point mass", "kg"),
                            nonnegative(inertia, "point mass inertia", "kg m²")))

    # -- numbering ---------------------------------------------------------------------
    def dof(self, node: int, name: str) -> int:
        """Global index of coordinate ``name`` of ``node``."""
        if name not in self.dof_names:
            raise ModelError(f"unknown coordinate {name!r}; this frame has {self.dof_names}")
        return self._node(node, "coordinate") * self.ndof_node + self.dof_names.index(name)

    def fixed_dofs(self) -> np.ndarray:
        return np.array(sorted(self.dof(n, d) for n, ds in self.supports.items()
                               for d in ds), dtype=int)

    # -- matrices ----------------------------------------------------------------------
    def element_matrices(self, members: Sequence[int] | None = None):
        """Global-axes element matrices ``(K, M, dofs)`` of the given members, shapes
        ``(n, m, m)``, ``(n, m, m)``, ``(n, m)`` with m = 6 (planar) or 12."""
        ids = np.arange(len(self.members)) if members is None else np.asarray(members, int)
        if len(ids) == 0:
            m = 2 * self.ndof_node
            return np.zeros((0, m, m)), np.zeros((0, m, m)), np.zeros((0, m), int)
        mem = [self.members[k] for k in ids]
        X = np.array(self.nodes)
        ni = np.array([m.i for m in mem])
        nj = np.array([m.j for m in mem])
        d = X[nj] - X[ni]
        L = np.linalg.norm(d, axis=1)
        get = lambda key: np.array([m.section[key] for m in mem])  # noqa: E731
        E = np.array([m.E for m in mem])
        K, M = _local_matrices(L, E, np.array([m.G for m in mem]),
                               np.array([m.rho for m in mem]), get("area"), get("iy"),
                               get("iz"), get("j"))
        # releases: condense per pattern (bending rotations θy, θz at the released end)
        pattern = np.array([int(m.hinge_i) + 2 * int(m.hinge_j) for m in mem])
        for p in (1, 2, 3):
            sel = np.flatnonzero(pattern == p)
            if sel.size:
                rel = ([4, 5] if p & 1 else []) + ([10, 11] if p & 2 else [])
                K[sel], M[sel] = _condense(K[sel], M[sel], np.array(rel))
        # rotation: rows of R are the local axes in global components
        e1 = d / L[:, None]
        ori = np.array([m.orientation for m in mem])
        e3 = np.cross(e1, ori)
        e3 /= np.linalg.norm(e3, axis=1)[:, None]
        e2 = np.cross(e3, e1)
        R = np.stack([e1, e2, e3], axis=1)                       # (n, 3, 3)
        T = np.zeros((len(mem), 12, 12))
        for b in range(4):
            T[:, 3 * b:3 * b + 3, 3 * b:3 * b + 3] = R
        Kg = np.einsum("nai,nab,nbj->nij", T, K, T)
        Mg = np.einsum("nai,nab,nbj->nij", T, M, T)
        if self.plane:
            Kg = Kg[:, _PLANAR_LOCAL][:, :, _PLANAR_LOCAL]
            Mg = Mg[:, _PLANAR_LOCAL][:, :, _PLANAR_LOCAL]
        nd = self.ndof_node
        dofs = np.concatenate([ni[:, None] * nd + np.arange(nd),
                               nj[:, None] * nd + np.arange(nd)], axis=1)
        return Kg, Mg, dofs

    def matrices(self, members: Sequence[int] | None = None, masses: bool = True
                 ) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """Sparse ``(M, K)`` over all ``n_dof`` coordinates (supports not applied) of the
        given members (default all) plus, if ``masses``, the point masses."""
        Ke, Me, dofs = self.element_matrices(members)
        r = np.repeat(dofs, dofs.shape[1], axis=1).ravel()
        c = np.tile(dofs, (1, dofs.shape[1])).ravel()
        n = self.n_dof
        K = sp.csr_matrix((Ke.ravel(), (r, c)), shape=(n, n))
        M = sp.csr_matrix((Me.ravel(), (r, c)), shape=(n, n))
        if masses and self.masses:
            M = M + self.mass_matrix()
        K = (K + K.T) / 2
        M = (M + M.T) / 2
        return M.tocsr(), K.tocsr()

    def mass_matrix(self, nodes: Sequence[int] | None = None) -> sp.csr_matrix:
        """Diagonal matrix of the point masses (optionally only those on ``nodes``)."""
        diag = np.zeros(self.n_dof)
        nd = self.ndof_node
        trans = [k for k, s in enumerate(self.dof_names) if not s.startswith("r")]
        rot = [k for k, s in enumerate(self.dof_names) if s.startswith("r")]
        for node, kg, inertia in self.masses:
            if nodes is None or node in nodes:
                diag[node * nd + np.array(trans)] += kg
                diag[node * nd + np.array(rot)] += inertia
        return sp.diags(diag).tocsr()

    def active_dofs(self, M=None, K=None) -> np.ndarray:
        """Coordinates that are neither supported nor idle (an idle coordinate has no
        stiffness and no mass, e.g. the rotation of a node where every member is hinged)."""
        if M is None or K is None:
            M, K = self.matrices()
        idle = (np.abs(K.diagonal()) == 0) & (np.abs(M.diagonal()) == 0)
        keep = ~idle
        keep[self.fixed_dofs()] = False
        return np.flatnonzero(keep)

    def modes(self, n_modes: int = 6) -> FrameModes:
        """Lowest ``n_modes`` natural frequencies and mode shapes (all coordinates)."""
        M, K = self.matrices()
        free = self.active_dofs(M, K)
        res = frame_modes(M[free][:, free], K[free][:, free], n_modes)
        shapes = np.zeros((self.n_dof, res.shapes.shape[1]))
        shapes[free] = res.shapes
        return FrameModes(res.frequencies_hz, shapes)

    def to_dict(self, frequencies_hz: Sequence[float] = ()) -> dict:
        """The frame in the plain JSON schema of ``frame.json`` (planar frames only)."""
        if self.plane != "xz":
            raise ModelError("frame.json export is defined for planar (xz) frames")
        return {
            "plane": "xz",
            "nodes": [{"id": k, "x": float(p[0]), "z": float(p[2])}
                      for k, p in enumerate(self.nodes)],
            "members": [{"id": k, "i": m.i, "j": m.j, "E": m.E, "rho": m.rho,
                         "A": m.section["area"], "I": m.section["iy"],
                         "hinge_i": m.hinge_i, "hinge_j": m.hinge_j, "group": m.group}
                        for k, m in enumerate(self.members)],
            "supports": [{"node": n, "fix": sorted(ds, key=self.dof_names.index)}
                         for n, ds in sorted(self.supports.items())],
            "masses": [{"node": n, "kg": kg} for n, kg, _ in self.masses],
            "frequencies_hz": [float(f) for f in frequencies_hz],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Frame:
        """Rebuild a planar frame from the ``frame.json`` schema (members as given)."""
        try:
            fr = cls("xz", name=data.get("name", "frame"))
            ids = {}
            for nd in data["nodes"]:
                ids[nd["id"]] = fr.add_node(nd["x"], nd["z"])
            for m in data["members"]:
                sec = {"area": m["A"], "iy": m["I"], "iz": m["I"], "j": 2 * m["I"]}
                fr.add_member(ids[m["i"]], ids[m["j"]], m["E"], m["rho"], sec,
                              hinge_i=m["hinge_i"], hinge_j=m["hinge_j"],
                              group=m.get("group", ""))
            for s in data["supports"]:
                fr.fix(ids[s["node"]], s["fix"])
            for ms in data["masses"]:
                fr.add_mass(ids[ms["node"]], ms["kg"])
        except (KeyError, TypeError) as err:
            raise ModelError(f"frame dict does not follow the frame.json schema: {err!r}"
                             ) from None
        return fr


@dataclass
class FrameModes:
    """Natural frequencies [Hz] (ascending) and mass-normalised mode shapes (columns)."""

    frequencies_hz: np.ndarray
    shapes: np.ndarray


def frame_modes(M, K, n_modes: int = 6, dense_limit: int = 1500) -> FrameModes:
    """Lowest ``n_modes`` of ``K φ = ω² M φ``, mass-normalised
    (:func:`fem.solvers.linear.generalized_eigen`)."""
    from ..solvers.linear import generalized_eigen

    n_modes = integer(n_modes, "n_modes", 1)
    if M.shape[0] == 0:
        raise ModelError("no free coordinates: everything is supported")
    w2, V = generalized_eigen(M, K, n_modes, dense_limit)
    return FrameModes(np.sqrt(np.clip(w2, 0.0, None)) / (2 * np.pi), V)
