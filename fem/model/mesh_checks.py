"""Checking a mesh: no truncated faces, no coincident vertices left unjoined, no
degenerate, repeated or inverted triangles, a manifold and orientable surface — each
named by its cells in a :class:`~fem.ModelError` — and merging coincident vertices.

:class:`MeshChecks` is one part of :class:`fem.model.mesh.Mesh` (which it is mixed into).
"""

from __future__ import annotations

from typing import Self

import numpy as np

from fem.core.errors import ModelError

from .mesh_cells import cell_dim, listing, unique_rows_first

__all__ = ["MeshChecks"]


class MeshChecks:
    """The checks of :class:`fem.model.mesh.Mesh` (see the module docstring)."""

    def validate(self) -> Self:
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
                f"{self.label}: degenerate (zero-area) triangles {listing(degenerate)} "
                f"(vertices {self.triangles[degenerate[:5]].tolist()}); remove them or fix the "
                "vertex coordinates"
            )
        first, inverse = unique_rows_first(np.sort(self.triangles, axis=1))
        if first.size < len(self.triangles):
            dup = np.flatnonzero(np.arange(len(self.triangles)) != first[inverse])
            raise ModelError(
                f"{self.label}: triangles {listing(dup)} repeat triangles "
                f"{listing(first[inverse[dup]])} (same three vertices)"
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
                f"{self.label}: inverted triangles {listing(inverted)}: {reason}. Reverse their "
                "vertex order (triangles[i] = triangles[i, [0, 2, 1]])"
            )
        return self

    def coincident_vertices(self, tol: float | None = None) -> np.ndarray:
        """Pairs ``(i, j)``, ``i < j``, of distinct vertices used by triangles or lines that
        lie within ``tol`` (default ``1e-9 ×`` the mesh size) of each other."""
        used = np.unique(np.concatenate([self.triangles.ravel(), self.lines.ravel()]))
        if used.size < 2:
            return np.zeros((0, 2), dtype=np.int64)
        pairs = _close_pairs(self.vertices[used], self._tol(tol))
        if len(pairs) == 0:
            return np.zeros((0, 2), dtype=np.int64)
        return np.sort(used[pairs], axis=1)

    def merge_coincident(self, tol: float | None = None) -> Self:
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
        out = type(self)(self.vertices.copy(), rep[self.triangles], rep[self.lines], groups,
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


def _close_pairs(points: np.ndarray, r: float) -> np.ndarray:
    """Index pairs ``(i, j)``, ``i < j``, of points at most ``r`` apart (as scipy's
    ``cKDTree.query_pairs(r)``), shape (k, 2).

    Sort and sweep along x: only points within ``r`` of each other in x are compared,
    which for a mesh's tolerance (10⁻⁹ of its size) is almost never more than one
    candidate a point — O(n log n), without importing ``scipy.spatial`` (0.1 s, on the
    path of every run that loads a mesh)."""
    n = len(points)
    order = np.argsort(points[:, 0], kind="stable")
    x = points[order, 0]
    end = np.searchsorted(x, x + r, side="right")       # candidates k+1 … end-1 in order
    count = end - np.arange(n) - 1
    if not count.any():
        return np.zeros((0, 2), dtype=np.int64)
    if count.sum() > 4 * n + 1_000_000:        # a tolerance wide for the mesh: a tree
        from scipy.spatial import cKDTree

        return np.sort(cKDTree(points).query_pairs(r, output_type="ndarray"), axis=1)
    a = np.repeat(np.arange(n), count)
    b = a + 1 + (np.arange(len(a)) - np.repeat(np.cumsum(count) - count, count))
    i, j = order[a], order[b]
    close = ((points[i] - points[j]) ** 2).sum(axis=1) <= r * r
    pairs = np.column_stack([np.minimum(i, j), np.maximum(i, j)])[close]
    return pairs.astype(np.int64, copy=False)
