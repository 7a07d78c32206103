"""Triangle and line meshes: their arrays, topology, selection and checks.

A :class:`Mesh` is plain arrays: ``vertices`` (n, 3), ``triangles`` (k, 3), ``lines`` (l, 2) and
named ``groups`` (gmsh physical groups, or any named index sets).  Everything else is derived
from those arrays, vectorized, and cached on first use: unique edges, edge→triangle adjacency,
triangle neighbours, interior edges with the triangles and opposite vertices on both sides
(what inter-element continuity constraints need), boundary edges and vertices.  Selecting
its parts is :mod:`fem.model.mesh_selection`, checking it :mod:`fem.model.mesh_checks`
(both mixed into :class:`Mesh`), reading and writing files and the built-in meshes
:mod:`fem.model.mesh_files`.

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
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

import meshio
import numpy as np
import numpy.typing as npt

from fem.core.errors import ModelError

from .mesh_cells import (
    SUPPORTED_CELL_TYPES,
    InteriorEdges,
    MeshTopology,
    cell_dim,
    listing,
    unique_rows_first,
)
from .mesh_checks import MeshChecks
from .mesh_selection import MeshSelection

__all__ = ["InteriorEdges", "Mesh", "SUPPORTED_CELL_TYPES", "cell_dim"]


# Prefix of a group's data array in .vtu/.vtk files written by `write_mesh`.
_GROUP_PREFIX = "group:"


def _topology_field(name: str, doc: str) -> property:
    """A read-only :class:`Mesh` attribute: the field ``name`` of its cached topology."""
    return property(lambda mesh: getattr(mesh._topology, name), doc=doc)


@dataclass(eq=False, repr=False)
class Mesh(MeshSelection, MeshChecks):
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
    :meth:`from_arrays`, :func:`fem.model.mesh_files.read_mesh` and
    :func:`fem.model.mesh_files.load_builtin_mesh` call by default.
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
            raise ModelError(f"{self.label}: vertices {listing(bad)} have non-finite coordinates")
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
                f"{self.label}: {what} {listing(bad)} refer to vertices outside "
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
                    f"{self.label}: group '{group}' refers to {target} {listing(bad)}, "
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
        return mesh_from_meshio(m, name=name, validate=validate)

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
    def _topology(self) -> MeshTopology:
        tri = self.triangles
        k = len(tri)
        # Half-edge 3t + j is local edge j of triangle t: from vertex j+1 to vertex j+2.
        start = tri[:, [1, 2, 0]].ravel()
        end = tri[:, [2, 0, 1]].ravel()
        key = np.sort(np.stack([start, end], axis=1), axis=1)
        if k == 0:
            empty = np.zeros((0, 2), np.int64)
            return MeshTopology(
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
        return MeshTopology(
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
def mesh_from_meshio(m: meshio.Mesh, *, name: str, validate: bool) -> Mesh:
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
        first, inverse = unique_rows_first(np.sort(data, axis=1))
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
