"""Selecting parts of a mesh: vertices and edges on a plane, on a line, in a box, the
nearest ones, the cells, vertices and edges of a named group, the edges of vertex pairs.

:class:`MeshSelection` is one part of :class:`fem.model.mesh.Mesh` (which it is mixed
into); every selector's tolerance defaults to 1e-8 × the bounding-box diagonal.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from fem.core.errors import ModelError

__all__ = ["MeshSelection"]


class MeshSelection:
    """The selectors of :class:`fem.model.mesh.Mesh` (see the module docstring)."""

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
