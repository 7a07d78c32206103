"""Triangle and line meshes: input, topology, selection and validation.

A :class:`Mesh` is plain arrays: ``vertices`` (n, 3), ``triangles`` (k, 3), ``lines`` (l, 2) and
named ``groups`` (gmsh physical groups, or any named index sets).  Everything else is derived
from those arrays, vectorized, and cached on first use: unique edges, edge→triangle adjacency,
triangle neighbours, interior edges with the triangles and opposite vertices on both sides
(what inter-element continuity constraints need), boundary edges and vertices.

Conventions
-----------
* Local edge ``j`` of a triangle is the edge *opposite* its local vertex ``j``, i.e. it runs
  from vertex ``(j + 1) % 3`` to vertex ``(j + 2) % 3``.
* ``edges`` holds each undirected edge once, as ``(a, b)`` with ``a < b``, sorted
  lexicographically.
* ``groups[name]`` maps a cell type to indices: ``"triangle"`` → rows of ``triangles``,
  ``"line"`` → rows of ``lines``, ``"vertex"`` → *vertex* indices (rows of ``vertices``), any
  other cell type → rows of ``other_cells[type]``.
* A ``Mesh`` is treated as immutable: the cached topology is not recomputed if the arrays are
  modified in place.  Build a new mesh instead (``Mesh.from_arrays``).

Built-in meshes (``meshes/*.msh``, made by ``meshes/make_meshes.py``) are loaded by name with
:func:`load_builtin_mesh`.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import meshio
import numpy as np
import numpy.typing as npt

from fem.core.bundled import bundled_dir
from fem.core.errors import ModelError

__all__ = [
    "InteriorEdges",
    "Mesh",
    "cell_dim",
    "builtin_mesh_names",
    "load_builtin_mesh",
    "read_mesh",
    "read_meshio",
    "write_mesh",
]

#: Folder of the built-in meshes (made by ``meshes/make_meshes.py``): beside the package
#: in a checkout, ``<prefix>/share/fem/meshes`` in an installed wheel.
MESH_DIR = bundled_dir("meshes")

#: Cell types the framework works with; any other type is kept in ``Mesh.other_cells``.
SUPPORTED_CELL_TYPES = ("vertex", "line", "triangle")

# Prefix of a group's data array in .vtu/.vtk files written by `write_mesh`.
_GROUP_PREFIX = "group:"
_MAX_LISTED = 20
# Formats that hold triangles but no lines or points.
_SURFACE_ONLY = (".stl", ".obj", ".off", ".ply")


def cell_dim(cell_type: str) -> int:
    """Topological dimension of a meshio cell type (gmsh physical groups are per dimension)."""
    if cell_type.startswith("vertex"):
        return 0
    if cell_type.startswith("line"):
        return 1
    if cell_type.startswith(("triangle", "quad", "polygon")):
        return 2
    return 3


def _listing(indices: npt.ArrayLike) -> str:
    """At most `_MAX_LISTED` indices for an error message."""
    idx = np.asarray(indices).ravel()
    shown = ", ".join(str(i) for i in idx[:_MAX_LISTED])
    more = f", … ({idx.size} in all)" if idx.size > _MAX_LISTED else ""
    return f"[{shown}{more}]"


def _unique_rows_first(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique rows of `keys` in order of first occurrence.

    Returns
    -------
    first : (u,) int
        Row of `keys` where each unique row first occurs, increasing.
    inverse : (len(keys),) int
        For each row of `keys`, the position of its unique row in `first`.
    """
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse.ravel()]


@dataclass(frozen=True)
class InteriorEdges:
    """Edges shared by exactly two triangles, with what lies on each side.

    Attributes
    ----------
    edge : (m,) int
        Index into :attr:`Mesh.edges`.
    vertices : (m, 2) int
        The edge's vertices ``(a, b)``, ``a < b`` (the row of :attr:`Mesh.edges`).
    triangles : (m, 2) int
        The two triangles.  Column 0 is the triangle that runs the edge from ``a`` to ``b``
        (the edge has it on its left for a counter-clockwise triangle), column 1 runs it from
        ``b`` to ``a``.  Where both run it the same way (an inconsistently oriented mesh, which
        :meth:`Mesh.validate` rejects) the lower triangle index comes first.
    local_edge : (m, 2) int
        Local edge number (0, 1, 2) of the edge in each triangle; it equals the local index of
        the vertex opposite the edge.
    opposite_vertices : (m, 2) int
        Global index of the vertex opposite the edge in each triangle.
    """

    edge: np.ndarray
    vertices: np.ndarray
    triangles: np.ndarray
    local_edge: np.ndarray
    opposite_vertices: np.ndarray

    def __len__(self) -> int:
        return len(self.edge)

    @property
    def opposite(self) -> np.ndarray:
        """(m, 2) local index of the opposite vertex in each triangle (= ``local_edge``)."""
        return self.local_edge


@dataclass(frozen=True)
class _Topology:
    edges: np.ndarray  # (m, 2) sorted vertex pairs
    triangle_edges: np.ndarray  # (k, 3) edge index of local edge j
    edge_triangles: np.ndarray  # (m, 2) adjacent triangles, -1 where none
    edge_valence: np.ndarray  # (m,) number of adjacent triangles (1 or 2)
    triangle_neighbours: np.ndarray  # (k, 3) triangle across local edge j, -1 on the boundary
    same_direction: np.ndarray  # (m,) both triangles run the edge the same way
    interior: InteriorEdges


def _topology_field(name: str, doc: str) -> property:
    """A read-only :class:`Mesh` attribute: the field ``name`` of its cached topology."""
    return property(lambda mesh: getattr(mesh._topology, name), doc=doc)


@dataclass(eq=False, repr=False)
class Mesh:
    """A mesh of vertices, triangles and lines with named groups.

    Parameters
    ----------
    vertices : (n, 3) float
        Vertex coordinates (2D input is padded with z = 0).
    triangles : (k, 3) int
        Vertex indices of each triangle, counter-clockwise seen from the side the normal
        points to.
    lines : (l, 2) int
        Vertex indices of each line segment (in a gmsh file these are often just boundary
        markers of a surface mesh).
    groups : dict[str, dict[str, ndarray]]
        Named groups, ``name -> {cell type -> indices}`` (see the module conventions).
    other_cells : dict[str, ndarray]
        Cells of any other meshio type (``"vertex"`` cells, quads, tetrahedra, …), kept so that
        asking for them gives a clear message rather than silently losing them.
    name : str
        Where the mesh came from (file name or built-in name); used in error messages.

    Notes
    -----
    The constructor checks shapes, index ranges and finiteness only.  Geometry (degenerate and
    inverted triangles, non-manifold edges) is checked by :meth:`validate`, which
    :meth:`from_arrays`, :func:`read_mesh` and :func:`load_builtin_mesh` call by default.
    """

    vertices: np.ndarray
    triangles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    lines: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    groups: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    other_cells: dict[str, np.ndarray] = field(default_factory=dict)
    name: str = ""

    # ------------------------------------------------------------------ construction
    def __post_init__(self) -> None:
        try:
            vertices = np.asarray(self.vertices, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(f"{self.label}: vertices must be an (n, 3) array of numbers; got "
                             f"{self.vertices!r:.60}") from None
        if vertices.ndim != 2 or vertices.shape[1] not in (2, 3):
            raise ModelError(
                f"{self.label}: vertices must be an (n, 3) array, got {vertices.shape}"
            )
        if vertices.shape[1] == 2:
            vertices = np.hstack([vertices, np.zeros((len(vertices), 1))])
        bad = np.flatnonzero(~np.isfinite(vertices).all(axis=1))
        if bad.size:
            raise ModelError(f"{self.label}: vertices {_listing(bad)} have non-finite coordinates")
        self.vertices = vertices
        self.triangles = self._index_array(self.triangles, 3, "triangles")
        self.lines = self._index_array(self.lines, 2, "lines")
        self.other_cells = {
            str(t): self._index_array(c, np.shape(c)[1] if np.ndim(c) == 2 else -1,
                                      f"'{t}' cells")
            for t, c in self.other_cells.items()
            if len(c)
        }
        self.groups = {str(g): self._group_entry(g, entry) for g, entry in self.groups.items()}

    def _index_array(self, cells: npt.ArrayLike, width: int, what: str) -> np.ndarray:
        arr = np.asarray(cells)
        if arr.size == 0:
            return np.zeros((0, max(width, 0)), dtype=np.int64)
        if arr.ndim != 2 or (width >= 0 and arr.shape[1] != width) \
                or not np.issubdtype(arr.dtype, np.integer):
            raise ModelError(
                f"{self.label}: {what} must be an integer array of shape (m, {width}), "
                f"got {arr.dtype} {arr.shape}"
            )
        arr = arr.astype(np.int64)
        bad = np.flatnonzero(((arr < 0) | (arr >= len(self.vertices))).any(axis=1))
        if bad.size:
            raise ModelError(
                f"{self.label}: {what} {_listing(bad)} refer to vertices outside "
                f"0..{len(self.vertices) - 1}"
            )
        return arr

    def _group_entry(self, group: str, entry: Mapping[str, npt.ArrayLike]) -> dict:
        out = {}
        from ..core.validate import indices

        for cell_type, idx in entry.items():
            idx = indices(idx, f"{self.label}: group '{group}' ({cell_type})").ravel()
            size = self._count(cell_type)
            bad = idx[(idx < 0) | (idx >= size)]
            if bad.size:
                target = "vertices" if cell_type == "vertex" else f"{cell_type} cells"
                raise ModelError(
                    f"{self.label}: group '{group}' refers to {target} {_listing(bad)}, "
                    f"but the mesh has {size}"
                )
            out[str(cell_type)] = idx
        return out

    def _count(self, cell_type: str) -> int:
        if cell_type == "vertex":
            return len(self.vertices)
        if cell_type == "triangle":
            return len(self.triangles)
        if cell_type == "line":
            return len(self.lines)
        return len(self.other_cells.get(cell_type, ()))

    @classmethod
    def from_arrays(
        cls,
        vertices: npt.ArrayLike,
        triangles: npt.ArrayLike | None = None,
        lines: npt.ArrayLike | None = None,
        groups: Mapping[str, Mapping[str, npt.ArrayLike]] | None = None,
        *,
        name: str = "",
        validate: bool = True,
    ) -> Mesh:
        """Build a mesh from plain arrays.

        Parameters
        ----------
        vertices : (n, 3) or (n, 2) array_like
        triangles : (k, 3) int array_like, optional
        lines : (l, 2) int array_like, optional
        groups : mapping, optional
            ``name -> {"vertex" | "line" | "triangle" -> indices}``.
        name : str
            A label for error messages.
        validate : bool
            Run :meth:`validate` (degenerate/inverted triangles, non-manifold edges).

        Returns
        -------
        Mesh
        """
        mesh = cls(
            vertices=vertices,
            triangles=np.zeros((0, 3), np.int64) if triangles is None else triangles,
            lines=np.zeros((0, 2), np.int64) if lines is None else lines,
            groups=dict(groups or {}),
            name=name,
        )
        return mesh.validate() if validate else mesh

    @classmethod
    def from_meshio(cls, m: meshio.Mesh, *, name: str = "", validate: bool = True) -> Mesh:
        """Convert a :class:`meshio.Mesh`, collecting gmsh physical groups and cell sets.

        Groups come from ``cell_data["gmsh:physical"]`` named through ``field_data``
        (``name -> [tag, dim]``; an unnamed tag becomes ``"physical_<tag>"``), from meshio
        ``cell_sets``, and from ``group:<name>`` point/cell data written by :func:`write_mesh`.
        Cells repeated in the file (gmsh repeats an element once per physical group) are merged.
        """
        return _from_meshio(m, name=name, validate=validate)

    # ------------------------------------------------------------------ description
    @property
    def label(self) -> str:
        """How error messages name this mesh."""
        return f"mesh '{self.name}'" if self.name else "mesh"

    def __repr__(self) -> str:
        parts = [f"{len(self.vertices)} vertices", f"{len(self.triangles)} triangles"]
        if len(self.lines):
            parts.append(f"{len(self.lines)} lines")
        parts += [f"{len(c)} {t}" for t, c in self.other_cells.items()]
        groups = f", groups {sorted(self.groups)}" if self.groups else ""
        return f"Mesh({self.name!r}: {', '.join(parts)}{groups})"

    def cell_counts(self) -> dict[str, int]:
        """Number of cells per type, e.g. ``{"triangle": 6, "line": 6, "vertex": 1}``."""
        counts = {"triangle": len(self.triangles), "line": len(self.lines)}
        counts.update({t: len(c) for t, c in self.other_cells.items()})
        return {t: n for t, n in counts.items() if n}

    def cells_of(self, cell_type: str) -> np.ndarray:
        """The cells of one type, as an (m, nodes per cell) index array.

        Raises
        ------
        ModelError
            If the mesh has no cells of that type; the message lists what it has.
        """
        if cell_type == "triangle" and len(self.triangles):
            return self.triangles
        if cell_type == "line" and len(self.lines):
            return self.lines
        if cell_type in self.other_cells:
            return self.other_cells[cell_type]
        have = ", ".join(f"{n} {t}" for t, n in self.cell_counts().items()) or "no cells"
        unsupported = [t for t in self.cell_counts() if t not in SUPPORTED_CELL_TYPES]
        hint = ""
        if unsupported:
            hint = (
                f" Cell types {unsupported} are not used by fem (it works with "
                f"{', '.join(SUPPORTED_CELL_TYPES)}); re-mesh with linear triangles "
                "(gmsh: Mesh.RecombineAll = 0, Mesh.ElementOrder = 1) or split the cells."
            )
        raise ModelError(f"{self.label} has no '{cell_type}' cells; it has {have}.{hint}")

    # ------------------------------------------------------------------ geometry
    @property
    def bounding_box(self) -> np.ndarray:
        """(2, 3) lower and upper corner of the vertices."""
        if len(self.vertices) == 0:
            return np.zeros((2, 3))
        return np.stack([self.vertices.min(axis=0), self.vertices.max(axis=0)])

    @property
    def size(self) -> float:
        """Length of the bounding-box diagonal (1.0 for a single point)."""
        diag = float(np.linalg.norm(np.diff(self.bounding_box, axis=0)))
        return diag if diag > 0 else 1.0

    def _tol(self, tol: float | None) -> float:
        return 1e-8 * self.size if tol is None else float(tol)

    @functools.cached_property
    def _cross(self) -> np.ndarray:
        p = self.vertices[self.triangles]
        return np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])

    @property
    def triangle_areas(self) -> np.ndarray:
        """(k,) area of each triangle."""
        return 0.5 * np.linalg.norm(self._cross, axis=1)

    @property
    def triangle_normals(self) -> np.ndarray:
        """(k, 3) unit normal of each triangle (right-hand rule on its vertex order)."""
        length = np.linalg.norm(self._cross, axis=1, keepdims=True)
        return self._cross / np.where(length > 0, length, 1.0)

    @property
    def area(self) -> float:
        """Total area of the triangles."""
        return float(self.triangle_areas.sum())

    @property
    def edge_lengths(self) -> np.ndarray:
        """(m,) length of each edge in :attr:`edges`."""
        e = self.edges
        return np.linalg.norm(self.vertices[e[:, 1]] - self.vertices[e[:, 0]], axis=1)

    # ------------------------------------------------------------------ topology
    @functools.cached_property
    def _topology(self) -> _Topology:
        tri = self.triangles
        k = len(tri)
        # Half-edge 3t + j is local edge j of triangle t: from vertex j+1 to vertex j+2.
        start = tri[:, [1, 2, 0]].ravel()
        end = tri[:, [2, 0, 1]].ravel()
        key = np.sort(np.stack([start, end], axis=1), axis=1)
        if k == 0:
            empty = np.zeros((0, 2), np.int64)
            return _Topology(
                edges=empty,
                triangle_edges=np.zeros((0, 3), np.int64),
                edge_triangles=empty,
                edge_valence=np.zeros(0, np.int64),
                triangle_neighbours=np.zeros((0, 3), np.int64),
                same_direction=np.zeros(0, bool),
                interior=InteriorEdges(*(empty[:, 0], empty, empty, empty, empty)),
            )
        edges, inverse, valence = np.unique(key, axis=0, return_inverse=True, return_counts=True)
        inverse = inverse.ravel()
        over = np.flatnonzero(valence > 2)
        if over.size:
            raise ModelError(
                f"{self.label} is not a manifold surface: edges {edges[over].tolist()[:10]} are "
                f"shared by more than two triangles (valences {valence[over][:10].tolist()}); "
                "check for duplicated or overlapping triangles"
            )
        m = len(edges)
        # Sort half-edges by edge; each edge's one or two half-edges are then adjacent.
        order = np.argsort(inverse, kind="stable")
        first = np.concatenate([[0], np.cumsum(valence)[:-1]]).astype(np.int64)
        h0 = order[first]
        two = valence == 2
        h1 = np.full(m, -1, dtype=np.int64)
        h1[two] = order[first[two] + 1]
        forward = start < end  # half-edge runs its edge from edges[e, 0] to edges[e, 1]
        same = np.zeros(m, dtype=bool)
        same[two] = forward[h0[two]] == forward[h1[two]]
        # Column 0: the triangle running the edge a -> b (see InteriorEdges).
        swap = two & ~same & ~forward[h0]
        h0, h1 = np.where(swap, h1, h0), np.where(swap, h0, h1)
        edge_triangles = np.where(np.stack([h0, h1], axis=1) >= 0, np.stack([h0, h1], 1) // 3, -1)
        triangle_edges = inverse.reshape(k, 3)
        tri_of_half = np.repeat(np.arange(k), 3)
        et = edge_triangles[inverse]
        neighbours = np.where(et[:, 0] == tri_of_half, et[:, 1], et[:, 0]).reshape(k, 3)

        ie = np.flatnonzero(two)
        hh = np.stack([h0[ie], h1[ie]], axis=1)
        local = hh % 3
        interior = InteriorEdges(
            edge=ie,
            vertices=edges[ie],
            triangles=hh // 3,
            local_edge=local,
            opposite_vertices=tri[hh // 3, local],
        )
        return _Topology(
            edges=edges,
            triangle_edges=triangle_edges,
            edge_triangles=edge_triangles,
            edge_valence=valence,
            triangle_neighbours=neighbours,
            same_direction=same,
            interior=interior,
        )

    edges = _topology_field(
        "edges", "(m, 2) unique undirected triangle edges ``(a, b)``, ``a < b``, lexicographic.")
    triangle_edges = _topology_field(
        "triangle_edges",
        "(k, 3) index into :attr:`edges` of each triangle's local edge j (opposite vertex j).")
    edge_triangles = _topology_field(
        "edge_triangles", "(m, 2) the triangles on each edge; column 1 is -1 on the boundary.")
    triangle_neighbours = _topology_field(
        "triangle_neighbours",
        "(k, 3) the triangle across local edge j of each triangle, -1 on the boundary.")
    interior_edges = _topology_field(
        "interior", "Edges shared by exactly two triangles, with both triangles and opposite "
        "vertices (:class:`InteriorEdges`).")

    @property
    def boundary_edges(self) -> np.ndarray:
        """Indices into :attr:`edges` of the edges with a single triangle."""
        return np.flatnonzero(self._topology.edge_valence == 1)

    @property
    def boundary_vertices(self) -> np.ndarray:
        """Sorted indices of the vertices on boundary edges."""
        return np.unique(self.edges[self.boundary_edges])

    def euler_characteristic(self) -> int:
        """V − E + F over the vertices used by triangles (1 for a disc, 2 for a sphere)."""
        used = np.unique(self.triangles).size
        return int(used - len(self.edges) + len(self.triangles))

    # ------------------------------------------------------------------ selection
    def _edges_within(self, vertex_mask: np.ndarray) -> np.ndarray:
        return np.flatnonzero(vertex_mask[self.edges].all(axis=1))

    def _plane_mask(self, point: npt.ArrayLike, normal: npt.ArrayLike, tol: float | None):
        n = np.asarray(normal, dtype=float).reshape(3)
        length = np.linalg.norm(n)
        if length == 0:
            raise ModelError("plane selection: the normal vector is zero")
        d = (self.vertices - np.asarray(point, dtype=float).reshape(3)) @ (n / length)
        return np.abs(d) <= self._tol(tol)

    def _line_mask(self, a: npt.ArrayLike, b: npt.ArrayLike, tol: float | None, segment: bool):
        a = np.asarray(a, dtype=float).reshape(3)
        d = np.asarray(b, dtype=float).reshape(3) - a
        length2 = float(d @ d)
        if length2 == 0:
            raise ModelError("line selection: the two points defining the line coincide")
        tol = self._tol(tol)
        s = (self.vertices - a) @ d / length2
        dist = np.linalg.norm(self.vertices - a - s[:, None] * d, axis=1)
        mask = dist <= tol
        if segment:
            slack = tol / np.sqrt(length2)
            mask &= (s >= -slack) & (s <= 1 + slack)
        return mask

    def _box_mask(self, lower: npt.ArrayLike, upper: npt.ArrayLike, tol: float | None):
        lo = np.asarray(lower, dtype=float).reshape(3)
        hi = np.asarray(upper, dtype=float).reshape(3)
        tol = self._tol(tol)
        return ((self.vertices >= lo - tol) & (self.vertices <= hi + tol)).all(axis=1)

    def vertices_on_plane(
        self, point: npt.ArrayLike, normal: npt.ArrayLike, tol: float | None = None
    ) -> np.ndarray:
        """Vertices within `tol` of the plane through `point` with normal `normal`.

        `tol` defaults to 1e-8 × the bounding-box diagonal (as for all selectors).
        """
        return np.flatnonzero(self._plane_mask(point, normal, tol))

    def edges_on_plane(
        self, point: npt.ArrayLike, normal: npt.ArrayLike, tol: float | None = None
    ) -> np.ndarray:
        """Edges (indices into :attr:`edges`) with both vertices on the plane."""
        return self._edges_within(self._plane_mask(point, normal, tol))

    def vertices_on_line(
        self, a: npt.ArrayLike, b: npt.ArrayLike, tol: float | None = None, segment: bool = True
    ) -> np.ndarray:
        """Vertices within `tol` of the segment a–b (of the infinite line if not `segment`)."""
        return np.flatnonzero(self._line_mask(a, b, tol, segment))

    def edges_on_line(
        self, a: npt.ArrayLike, b: npt.ArrayLike, tol: float | None = None, segment: bool = True
    ) -> np.ndarray:
        """Edges with both vertices on the segment a–b (the infinite line if not `segment`)."""
        return self._edges_within(self._line_mask(a, b, tol, segment))

    def vertices_in_box(
        self, lower: npt.ArrayLike, upper: npt.ArrayLike, tol: float | None = None
    ) -> np.ndarray:
        """Vertices inside the axis-aligned box [lower, upper], enlarged by `tol`."""
        return np.flatnonzero(self._box_mask(lower, upper, tol))

    def edges_in_box(
        self, lower: npt.ArrayLike, upper: npt.ArrayLike, tol: float | None = None
    ) -> np.ndarray:
        """Edges with both vertices inside the box."""
        return self._edges_within(self._box_mask(lower, upper, tol))

    def nearest_vertex(self, point: npt.ArrayLike) -> int | np.ndarray:
        """Index of the vertex nearest to `point` (3,), or to each row of `points` (p, 3)."""
        p = np.asarray(point, dtype=float)
        pts = p.reshape(-1, 3)
        if len(self.vertices) == 0:
            raise ModelError(f"{self.label} has no vertices")
        d2 = ((pts[:, None, :] - self.vertices[None, :, :]) ** 2).sum(axis=2)
        idx = d2.argmin(axis=1)
        return int(idx[0]) if p.ndim == 1 else idx

    def nearest_edge(self, point: npt.ArrayLike) -> int | np.ndarray:
        """Index into :attr:`edges` of the edge nearest to `point` (3,) or to each of (p, 3)."""
        p = np.asarray(point, dtype=float)
        pts = p.reshape(-1, 3)
        if len(self.edges) == 0:
            raise ModelError(f"{self.label} has no triangle edges")
        a = self.vertices[self.edges[:, 0]]
        d = self.vertices[self.edges[:, 1]] - a
        rel = pts[:, None, :] - a[None]
        s = np.clip((rel * d[None]).sum(axis=2) / (d * d).sum(axis=1)[None], 0.0, 1.0)
        dist2 = ((rel - s[..., None] * d[None]) ** 2).sum(axis=2)
        idx = dist2.argmin(axis=1)
        return int(idx[0]) if p.ndim == 1 else idx

    def _group(self, name: str) -> dict[str, np.ndarray]:
        if not isinstance(name, str):
            tagged = f"physical_{name}"
            hint = (f"; gmsh's physical group {name} without a name is {tagged!r}"
                    if tagged in self.groups else "")
            have = ", ".join(map(repr, sorted(self.groups))) or "none"
            raise ModelError(f"{self.label}: a group is named by a str; got {name!r} "
                             f"({type(name).__name__}){hint}; its groups: {have}")
        if name not in self.groups:
            have = ", ".join(sorted(self.groups)) or "none"
            raise ModelError(f"{self.label} has no group '{name}'; its groups: {have}")
        return self.groups[name]

    def group_cells(self, name: str, cell_type: str) -> np.ndarray:
        """Indices of the group's cells of one type (vertex indices for ``"vertex"``)."""
        entry = self._group(name)
        if cell_type not in entry:
            raise ModelError(
                f"group '{name}' of {self.label} has no '{cell_type}' cells; it has {sorted(entry)}"
            )
        return entry[cell_type]

    def group_vertices(self, name: str) -> np.ndarray:
        """Sorted vertices of a group: its vertex entries and the vertices of its cells."""
        entry = self._group(name)
        parts = [np.zeros(0, np.int64)]
        for cell_type, idx in entry.items():
            if cell_type == "vertex":
                parts.append(idx)
            elif cell_type == "triangle":
                parts.append(self.triangles[idx].ravel())
            elif cell_type == "line":
                parts.append(self.lines[idx].ravel())
            else:
                parts.append(self.other_cells[cell_type][idx].ravel())
        return np.unique(np.concatenate(parts))

    def group_edges(self, name: str) -> np.ndarray:
        """Sorted indices into :attr:`edges` of a group.

        Line cells map to the triangle edge they coincide with, triangle cells contribute
        their three edges, and a vertex-only group gives the edges with both ends in it.

        Raises
        ------
        ModelError
            If a line of the group is not an edge of any triangle.
        """
        entry = self._group(name)
        parts = [np.zeros(0, np.int64)]
        if "line" in entry:
            parts.append(self.edge_index(self.lines[entry["line"]], what=f"group '{name}'"))
        if "triangle" in entry:
            parts.append(self.triangle_edges[entry["triangle"]].ravel())
        if set(entry) <= {"vertex"}:
            mask = np.zeros(len(self.vertices), dtype=bool)
            mask[entry.get("vertex", [])] = True
            parts.append(self._edges_within(mask))
        return np.unique(np.concatenate(parts))

    def edge_index(self, pairs: npt.ArrayLike, what: str = "vertex pairs") -> np.ndarray:
        """Indices into :attr:`edges` of vertex pairs (m, 2), in either order."""
        from ..core.validate import indices

        pairs = np.sort(indices(pairs, f"{self.label}: {what}", upper=len(self.vertices),
                                width=2, noun="vertex index"), axis=1)
        n = max(len(self.vertices), 1)
        edge_keys = self.edges[:, 0] * n + self.edges[:, 1]  # sorted, since edges are
        keys = pairs[:, 0] * n + pairs[:, 1]
        pos = np.clip(np.searchsorted(edge_keys, keys), 0, max(len(edge_keys) - 1, 0))
        found = (edge_keys[pos] == keys) if len(edge_keys) else np.zeros(len(keys), bool)
        if not found.all():
            missing = pairs[~found]
            raise ModelError(
                f"{what} of {self.label}: segments {missing.tolist()[:10]} are not edges of any "
                "triangle"
            )
        return pos

    # ------------------------------------------------------------------ validation
    def validate(self) -> Mesh:
        """Check the triangles; return the mesh itself so calls can be chained.

        Raises
        ------
        ModelError
            Naming the triangle indices that are degenerate (zero area: repeated or collinear
            vertices), duplicated, inverted (see below), or the edges that make the surface
            non-manifold or non-orientable.

        Notes
        -----
        A triangle is *inverted* if

        * the mesh is planar in the XY plane and its signed area is negative (clockwise seen
          from +z: plate normals must point to +z), or otherwise
        * its orientation is opposite to the majority of its connected component, where
          orientation is compared across shared edges (two neighbours agree when they run
          their common edge in opposite directions).  This works for curved surfaces too.
        """
        for cell_type, cells in self.other_cells.items():
            if cell_dim(cell_type) == 2 and cells.shape[1] < 3:
                raise ModelError(
                    f"{self.label}: {len(cells)} '{cell_type}' cell(s) have only "
                    f"{cells.shape[1]} vertices (e.g. {cells[0].tolist()}); a face needs at "
                    "least 3 — a truncated face line in the file?"
                )
        pairs = self.coincident_vertices()
        if len(pairs):
            raise ModelError(
                f"{self.label}: {len(pairs)} pairs of distinct vertices used by cells lie at the "
                f"same point (e.g. vertices {pairs[:5].tolist()}); cells meeting there are "
                "not joined, which cracks the surface. Merge them: "
                "mesh = mesh.merge_coincident() (or fix the mesher's duplicate-node removal)"
            )
        if len(self.triangles) == 0:
            return self
        cross2 = np.linalg.norm(self._cross, axis=1)  # twice the area
        p = self.vertices[self.triangles]
        longest2 = ((p - p[:, [1, 2, 0]]) ** 2).sum(axis=2).max(axis=1)
        degenerate = np.flatnonzero(cross2 <= 1e-10 * longest2)
        if degenerate.size:
            raise ModelError(
                f"{self.label}: degenerate (zero-area) triangles {_listing(degenerate)} "
                f"(vertices {self.triangles[degenerate[:5]].tolist()}); remove them or fix the "
                "vertex coordinates"
            )
        first, inverse = _unique_rows_first(np.sort(self.triangles, axis=1))
        if first.size < len(self.triangles):
            dup = np.flatnonzero(np.arange(len(self.triangles)) != first[inverse])
            raise ModelError(
                f"{self.label}: triangles {_listing(dup)} repeat triangles "
                f"{_listing(first[inverse[dup]])} (same three vertices)"
            )
        inverted, reason = self._inverted()
        if inverted.size == len(self.triangles):
            raise ModelError(
                f"{self.label}: all {inverted.size} triangles are inverted: {reason}. The "
                "surface is oriented the other way: reverse every triangle "
                "(triangles[:, [0, 2, 1]]) or the surface in the mesher (gmsh: Reverse Surface)"
            )
        if inverted.size:
            raise ModelError(
                f"{self.label}: inverted triangles {_listing(inverted)}: {reason}. Reverse their "
                "vertex order (triangles[i] = triangles[i, [0, 2, 1]])"
            )
        return self

    def coincident_vertices(self, tol: float | None = None) -> np.ndarray:
        """Pairs ``(i, j)``, ``i < j``, of distinct vertices used by triangles or lines that
        lie within ``tol`` (default ``1e-9 ×`` the mesh size) of each other."""
        used = np.unique(np.concatenate([self.triangles.ravel(), self.lines.ravel()]))
        if used.size < 2:
            return np.zeros((0, 2), dtype=np.int64)
        from scipy.spatial import cKDTree

        tree = cKDTree(self.vertices[used])
        pairs = tree.query_pairs(self._tol(tol), output_type="ndarray")
        if len(pairs) == 0:
            return np.zeros((0, 2), dtype=np.int64)
        return np.sort(used[pairs], axis=1)

    def merge_coincident(self, tol: float | None = None) -> Mesh:
        """A copy in which coincident vertices (:meth:`coincident_vertices`) are merged into
        the lowest index; cells and vertex groups are renumbered, unused vertices kept."""
        pairs = self.coincident_vertices(tol)
        rep = np.arange(len(self.vertices))
        if len(pairs):
            import scipy.sparse as sp
            from scipy.sparse.csgraph import connected_components

            n = len(self.vertices)
            g = sp.coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
            _, comp = connected_components(g, directed=False)
            first = np.full(comp.max() + 1, n)
            np.minimum.at(first, comp, np.arange(n))
            rep = first[comp]
        groups = {g: {t: (rep[i] if t == "vertex" else i) for t, i in e.items()}
                  for g, e in self.groups.items()}
        out = Mesh(self.vertices.copy(), rep[self.triangles], rep[self.lines], groups,
                   dict(self.other_cells), self.name)
        return out.validate()

    def _is_planar_xy(self) -> bool:
        z = self.vertices[np.unique(self.triangles), 2]
        return bool(np.ptp(z) <= 1e-9 * self.size)

    def _inverted(self) -> tuple[np.ndarray, str]:
        if self._is_planar_xy():
            return (
                np.flatnonzero(self._cross[:, 2] < 0),
                "negative signed area in the XY plane (clockwise seen from +z; the mesh normal "
                "must be +z)",
            )
        label, component = self._orientation_labels()
        n_comp = component.max() + 1
        plus = np.bincount(component, weights=label > 0, minlength=n_comp)
        minus = np.bincount(component, weights=label < 0, minlength=n_comp)
        # Ties go to the seed (lowest-index triangle of the component), which has label +1.
        majority = np.where(minus > plus, -1, 1)
        return (
            np.flatnonzero(label != majority[component]),
            "their normal is opposite to the majority orientation of the surface",
        )

    def _orientation_labels(self) -> tuple[np.ndarray, np.ndarray]:
        """±1 per triangle, equal for neighbours that agree in orientation; component ids."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        topo = self._topology
        k = len(self.triangles)
        pairs = topo.interior.triangles
        graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(k, k))
        n_comp, component = connected_components(graph, directed=False)
        label = np.zeros(k, dtype=np.int8)
        label[np.unique(component, return_index=True)[1]] = 1  # one seed per component
        # Crossing an edge run the same way by both triangles flips the orientation label.
        factor = np.where(topo.same_direction[topo.triangle_edges], -1, 1).astype(np.int8)
        front = np.flatnonzero(label)
        while front.size:  # breadth-first, one level of the whole mesh per pass
            cand = topo.triangle_neighbours[front].ravel()
            value = (label[front][:, None] * factor[front]).ravel()
            keep = cand >= 0
            cand, value = cand[keep], value[keep]
            keep = label[cand] == 0
            cand, value = cand[keep], value[keep]
            front, first = np.unique(cand, return_index=True)
            label[front] = value[first]
        ie = topo.interior
        sign = np.where(topo.same_direction[ie.edge], -1, 1)
        clash = np.flatnonzero(label[ie.triangles[:, 0]] * sign != label[ie.triangles[:, 1]])
        if clash.size:
            raise ModelError(
                f"{self.label} is not orientable (a Möbius-like surface): no consistent normal "
                f"across edges {ie.vertices[clash].tolist()[:10]}"
            )
        return label, component

    # ------------------------------------------------------------------ derived meshes
    def refined(self) -> Mesh:
        """Uniform red refinement: each triangle into four, each line into two.

        New vertices are edge midpoints, appended after the existing vertices (whose indices
        are kept).  Triangle ``t`` becomes rows ``4t .. 4t+3`` (its three corner triangles,
        then the middle one), line ``i`` becomes rows ``2i, 2i+1``; groups are mapped
        accordingly, and vertex groups are unchanged.  Orientation is preserved.
        """
        extra = [t for t in self.other_cells if t != "vertex"]
        if extra:
            raise ModelError(f"{self.label}: cannot refine cells of type {extra}")
        n, k = len(self.vertices), len(self.triangles)
        tri = self.triangles
        tri_pairs = np.stack([tri[:, [1, 2, 0]].ravel(), tri[:, [2, 0, 1]].ravel()], axis=1)
        pairs = np.sort(np.concatenate([tri_pairs, self.lines]), axis=1)
        if len(pairs):
            unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
            inverse = inverse.ravel()
        else:
            unique, inverse = np.zeros((0, 2), np.int64), np.zeros(0, np.int64)
        vertices = np.concatenate([self.vertices, self.vertices[unique].mean(axis=1)])
        mid_t = n + inverse[: 3 * k].reshape(k, 3)  # midpoint of local edge j (opposite j)
        v0, v1, v2 = tri.T
        m0, m1, m2 = mid_t.T
        children = np.stack(
            [
                np.stack([v0, m2, m1], axis=1),
                np.stack([m2, v1, m0], axis=1),
                np.stack([m1, m0, v2], axis=1),
                np.stack([m0, m1, m2], axis=1),
            ],
            axis=1,
        ).reshape(4 * k, 3)
        mid_l = n + inverse[3 * k :]
        lines = np.stack(
            [
                np.stack([self.lines[:, 0], mid_l], axis=1),
                np.stack([mid_l, self.lines[:, 1]], axis=1),
            ],
            axis=1,
        ).reshape(-1, 2)
        groups = {}
        for g, entry in self.groups.items():
            new = {}
            for cell_type, idx in entry.items():
                if cell_type == "triangle":
                    new[cell_type] = (4 * idx[:, None] + np.arange(4)).ravel()
                elif cell_type == "line":
                    new[cell_type] = (2 * idx[:, None] + np.arange(2)).ravel()
                else:
                    new[cell_type] = idx
            groups[g] = new
        name = f"{self.name} refined" if self.name else ""
        return Mesh(vertices, children, lines, groups, dict(self.other_cells), name)

    def to_meshio(self, *, groups_as_data: bool = True) -> meshio.Mesh:
        """A :class:`meshio.Mesh`; groups become ``group:<name>`` 0/1 point or cell data."""
        blocks = self._blocks()
        point_data, cell_data = {}, {}
        if groups_as_data:
            for g, entry in self.groups.items():
                if "vertex" in entry:
                    mask = np.zeros(len(self.vertices), dtype=np.int8)
                    mask[entry["vertex"]] = 1
                    point_data[_GROUP_PREFIX + g] = mask
                if set(entry) - {"vertex"}:
                    per_block = []
                    for cell_type, cells in blocks:
                        mask = np.zeros(len(cells), dtype=np.int8)
                        if cell_type != "vertex" and cell_type in entry:
                            mask[entry[cell_type]] = 1
                        per_block.append(mask)
                    cell_data[_GROUP_PREFIX + g] = per_block
        return meshio.Mesh(
            self.vertices, [meshio.CellBlock(t, c) for t, c in blocks], point_data, cell_data
        )

    def _blocks(self) -> list[tuple[str, np.ndarray]]:
        blocks = [("triangle", self.triangles), ("line", self.lines)]
        blocks += list(self.other_cells.items())
        return [(t, c) for t, c in blocks if len(c)]


# ---------------------------------------------------------------------- meshio → Mesh
def _from_meshio(m: meshio.Mesh, *, name: str, validate: bool) -> Mesh:
    points = np.asarray(m.points, dtype=float)
    if points.ndim != 2 or points.shape[1] not in (2, 3):
        raise ModelError(f"mesh '{name}': points have shape {points.shape}; expected (n, 2|3)")
    cells: dict[str, list[np.ndarray]] = {}
    offsets: list[tuple[str, int]] = []  # (type, offset into that type's concatenation)
    for block in m.cells:
        data = np.asarray(block.data, dtype=np.int64)
        data = data.reshape(len(data), -1)
        offsets.append((block.type, sum(len(c) for c in cells.get(block.type, []))))
        cells.setdefault(block.type, []).append(data)
    merged = {t: np.concatenate(c) for t, c in cells.items()}

    # Group membership as (name, type, indices into merged[type]) before merging duplicates.
    raw: list[tuple[str, str, np.ndarray]] = []
    physical = m.cell_data.get("gmsh:physical")
    if physical is not None:
        names = {(int(v[0]), int(v[1])): str(k) for k, v in m.field_data.items() if np.size(v) >= 2}
        for (cell_type, offset), tags in zip(offsets, physical, strict=True):
            tags = np.asarray(tags, dtype=np.int64)
            dim = cell_dim(cell_type)
            for tag in np.unique(tags[tags > 0]):
                group = names.get((int(tag), dim), f"physical_{tag}")
                raw.append((group, cell_type, offset + np.flatnonzero(tags == tag)))
    for set_name, per_block in (m.cell_sets or {}).items():
        if set_name.startswith("gmsh:"):
            continue
        for (cell_type, offset), idx in zip(offsets, per_block, strict=False):
            if idx is not None and len(idx):
                raw.append((set_name, cell_type, offset + np.asarray(idx, dtype=np.int64)))
    for key, per_block in m.cell_data.items():
        if key.startswith(_GROUP_PREFIX):
            for (cell_type, offset), mask in zip(offsets, per_block, strict=True):
                idx = np.flatnonzero(np.asarray(mask).ravel())
                if idx.size:
                    raw.append((key[len(_GROUP_PREFIX) :], cell_type, offset + idx))
    vertex_sets = {
        key[len(_GROUP_PREFIX) :]: np.flatnonzero(np.asarray(v).ravel())
        for key, v in m.point_data.items()
        if key.startswith(_GROUP_PREFIX)
    }

    # Merge cells repeated in the file (gmsh writes one copy per physical group).
    unique: dict[str, np.ndarray] = {}
    remap: dict[str, np.ndarray] = {}
    for cell_type, data in merged.items():
        first, inverse = _unique_rows_first(np.sort(data, axis=1))
        unique[cell_type] = data[first]
        remap[cell_type] = inverse
    groups: dict[str, dict[str, list[np.ndarray]]] = {}
    for group, cell_type, idx in raw:
        if cell_type == "vertex":
            values = merged["vertex"][idx, 0]  # vertex groups hold vertex indices
        else:
            values = remap[cell_type][idx]
        groups.setdefault(group, {}).setdefault(cell_type, []).append(values)
    for group, idx in vertex_sets.items():
        groups.setdefault(group, {}).setdefault("vertex", []).append(idx)
    final = {
        g: {t: np.unique(np.concatenate(v)) for t, v in entry.items()}
        for g, entry in groups.items()
    }
    other = {t: c for t, c in unique.items() if t not in ("triangle", "line")}
    mesh = Mesh(
        vertices=points,
        triangles=unique.get("triangle", np.zeros((0, 3), np.int64)),
        lines=unique.get("line", np.zeros((0, 2), np.int64)),
        groups=final,
        other_cells=other,
        name=name,
    )
    return mesh.validate() if validate else mesh


# ---------------------------------------------------------------------- files
def _extension(path: Path) -> str:
    suffixes = "".join(path.suffixes[-2:]).lower()
    if suffixes in meshio.extension_to_filetypes:
        return suffixes
    return path.suffix.lower()


def read_meshio(path: str | Path) -> meshio.Mesh:
    """:func:`meshio.read`, with every failure a :class:`ModelError` naming file and reason.

    meshio itself prints each parser's complaint and calls ``sys.exit(1)`` on an unreadable
    file; this function keeps stdout clean and raises instead.
    """
    if not isinstance(path, str | os.PathLike):
        raise ModelError(f"a mesh file is named by a path (str or Path); got {path!r:.60}")
    path = Path(path)
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "does not exist"
        raise ModelError(f"cannot read mesh file {path}: it {what}")
    ext = _extension(path)
    if ext not in meshio.extension_to_filetypes:
        known = " ".join(sorted(meshio.extension_to_filetypes))
        raise ModelError(
            f"cannot read mesh file {path}: unsupported extension '{ext or '(none)'}'. "
            f"Readable mesh formats: {known}"
        )
    # Try the extension's formats one by one (gmsh before ANSYS for .msh), capturing what
    # meshio prints, and collect every reason (meshio 5.3 would print them and exit).
    formats = sorted(meshio.extension_to_filetypes[ext], key=lambda f: f != "gmsh")
    reasons, error = [], None
    for file_format in formats:
        captured = io.StringIO()
        try:
            with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
                m = meshio.read(path, file_format=file_format)
            break
        except (Exception, SystemExit) as exc:  # ReadError, ValueError, KeyError, exit …
            error = exc
            lines = captured.getvalue().splitlines()
            said = [ln.strip() for ln in lines if ln.strip() and "Couldn't read" not in ln]
            if not isinstance(exc, SystemExit):
                said.append(f"{type(exc).__name__}: {exc}")
            reasons.append(f"{file_format}: {' '.join(said) or 'the reader rejected the content'}")
    else:
        raise ModelError(
            f"cannot read mesh file {path}: it is not valid {' or '.join(formats)} data "
            f"({'; '.join(reasons)})"
        ) from error
    return m


def read_mesh(path: str | Path, *, validate: bool = True) -> Mesh:
    """Read a mesh file with meshio.

    Parameters
    ----------
    path : str or Path
        Any format meshio reads, chosen by extension: gmsh ``.msh`` (2.2 and 4.1, ASCII or
        binary; physical groups become :attr:`Mesh.groups`), ``.vtu``, ``.vtk``, ``.obj``,
        ``.stl``, ``.ply``, ``.off``, ``.xdmf``, ``.med``, ``.inp``, …
    validate : bool
        Run :meth:`Mesh.validate`.

    Returns
    -------
    Mesh

    Raises
    ------
    ModelError
        If the file does not exist, its extension is not a mesh format meshio knows, meshio
        fails to parse it (the message names the file and carries meshio's reason), or the
        mesh fails validation.
    """
    m = read_meshio(path)
    return _from_meshio(m, name=Path(path).name, validate=validate)


def write_mesh(mesh: Mesh, path: str | Path) -> Path:
    """Write a mesh, keeping its groups.

    ``.msh`` is written as gmsh 2.2 ASCII with physical groups (a cell in several groups is
    repeated once per group, as gmsh does; :func:`read_mesh` merges the copies).  Each group
    must hold cells of a single dimension there.  ``.vtu``/``.vtk`` store groups as
    ``group:<name>`` 0/1 point or cell data.  Surface formats (``.stl``, ``.obj``, ``.off``,
    ``.ply``) get the triangles only, other extensions all cells without groups.

    Returns
    -------
    Path
        The file written.
    """
    path = Path(path)
    ext = _extension(path)
    try:
        if ext == ".msh":
            meshio.write(path, _to_gmsh(mesh), file_format="gmsh22", binary=False)
        else:
            m = mesh.to_meshio(groups_as_data=ext in (".vtu", ".vtk"))
            if ext in _SURFACE_ONLY:
                m = meshio.Mesh(m.points, [b for b in m.cells if b.type == "triangle"])
            meshio.write(path, m)
    except ModelError:
        raise
    except Exception as exc:
        raise ModelError(
            f"cannot write {mesh.label} to {path}: {type(exc).__name__}: {exc}"
        ) from exc
    return path


def _to_gmsh(mesh: Mesh) -> meshio.Mesh:
    """meshio mesh with gmsh:physical/geometrical tags, one physical tag per group."""
    tags: dict[str, tuple[int, int]] = {}
    for tag, (g, entry) in enumerate(sorted(mesh.groups.items()), start=1):
        dims = {cell_dim(t) for t in entry}
        if len(dims) > 1:
            raise ModelError(
                f"cannot write group '{g}' of {mesh.label} to gmsh: it mixes cell types "
                f"{sorted(entry)} of different dimensions; split it into one group per type"
            )
        tags[g] = (tag, dims.pop() if dims else 0)

    cells = {t: c for t, c in mesh._blocks()}
    vertex_nodes = [np.zeros(0, np.int64)]
    vertex_nodes += [e["vertex"] for e in mesh.groups.values() if "vertex" in e]
    if "vertex" in cells:
        vertex_nodes.insert(0, cells["vertex"][:, 0])
    if sum(len(v) for v in vertex_nodes):
        nodes = np.concatenate(vertex_nodes)
        cells["vertex"] = nodes[np.sort(np.unique(nodes, return_index=True)[1])][:, None]

    blocks, physical = [], []
    for cell_type, data in cells.items():
        # Membership index of each group in this block (vertex groups hold vertex indices).
        members = []
        for g, entry in sorted(mesh.groups.items()):
            if cell_type not in entry:
                continue
            idx = entry[cell_type]
            if cell_type == "vertex":
                idx = np.flatnonzero(np.isin(data[:, 0], idx))
            members.append((tags[g][0], idx))
        # First block: every cell once, in order, tagged with its first group (0 = none).
        first_tag = np.zeros(len(data), dtype=np.int64)
        for tag, idx in reversed(members):
            first_tag[idx] = tag
        blocks.append((cell_type, data))
        physical.append(first_tag)
        # Repeat cells that belong to further groups.
        for tag, idx in members:
            again = idx[first_tag[idx] != tag]
            if again.size:
                blocks.append((cell_type, data[again]))
                physical.append(np.full(again.size, tag, dtype=np.int64))
    return meshio.Mesh(
        mesh.vertices,
        [meshio.CellBlock(t, c) for t, c in blocks],
        # Elementary (geometrical) tag = physical tag, or one spare entity for ungrouped cells.
        cell_data={
            "gmsh:physical": physical,
            "gmsh:geometrical": [np.where(p > 0, p, len(tags) + 1) for p in physical],
        },
        field_data={g: np.array(v) for g, v in tags.items()},
    )


# ---------------------------------------------------------------------- built-in meshes
def builtin_mesh_names() -> list[str]:
    """Names of the meshes in ``meshes/`` (file stems), sorted."""
    files = list(MESH_DIR.glob("*.msh")) + list(MESH_DIR.glob("*.vtu"))
    return sorted({f.stem for f in files}, key=_natural_key)


def _natural_key(name: str) -> tuple:
    stem, _, number = name.rpartition("_")
    digits = "".join(ch for ch in number if ch.isdigit())
    prefix = number.rstrip("0123456789")
    return (stem, prefix, int(digits) if digits else -1, name)


def load_builtin_mesh(name: str, *, validate: bool = True) -> Mesh:
    """Load a built-in mesh by name, e.g. ``"hexagon_6"``, ``"square_s8"``, ``"square_u8"``.

    The files live in ``meshes/`` next to the ``fem`` package and are made by
    ``python meshes/make_meshes.py`` (see ``docs/output.md`` for the list).

    Raises
    ------
    ModelError
        If there is no such mesh; the message lists the available names.
    """
    for ext in (".msh", ".vtu"):
        path = MESH_DIR / f"{name}{ext}"
        if path.is_file():
            mesh = read_mesh(path, validate=validate)
            mesh.name = name
            return mesh
    names = ", ".join(builtin_mesh_names()) or f"none (run python {MESH_DIR / 'make_meshes.py'})"
    raise ModelError(f"unknown built-in mesh '{name}'; available: {names}")
