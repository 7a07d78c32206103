"""The cells of a mesh and the edges between them, as arrays: the cell types fem works
with and their dimensions, the record of a mesh's topology (:class:`InteriorEdges`: the
edges shared by two triangles, with what lies on each side), and two array helpers
(first occurrences of rows; a list of indices short enough for a message)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["SUPPORTED_CELL_TYPES", "InteriorEdges", "cell_dim"]


#: Cell types the framework works with; any other type is kept in ``Mesh.other_cells``.
SUPPORTED_CELL_TYPES = ("vertex", "line", "triangle")


_MAX_LISTED = 20


def cell_dim(cell_type: str) -> int:
    """Topological dimension of a meshio cell type (gmsh physical groups are per dimension)."""
    if cell_type.startswith("vertex"):
        return 0
    if cell_type.startswith("line"):
        return 1
    if cell_type.startswith(("triangle", "quad", "polygon")):
        return 2
    return 3


def listing(indices: npt.ArrayLike) -> str:
    """At most `_MAX_LISTED` indices for an error message."""
    idx = np.asarray(indices).ravel()
    shown = ", ".join(str(i) for i in idx[:_MAX_LISTED])
    more = f", … ({idx.size} in all)" if idx.size > _MAX_LISTED else ""
    return f"[{shown}{more}]"


def unique_rows_first(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
class MeshTopology:
    edges: np.ndarray  # (m, 2) sorted vertex pairs
    triangle_edges: np.ndarray  # (k, 3) edge index of local edge j
    edge_triangles: np.ndarray  # (m, 2) adjacent triangles, -1 where none
    edge_valence: np.ndarray  # (m,) number of adjacent triangles (1 or 2)
    triangle_neighbours: np.ndarray  # (k, 3) triangle across local edge j, -1 on the boundary
    same_direction: np.ndarray  # (m,) both triangles run the edge the same way
    interior: InteriorEdges
