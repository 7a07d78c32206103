"""Points and directions on a Bézier-plate mesh, as linear maps of the plate's coordinates.

A plate group built by :meth:`fem.Model.add_mesh` knows its mesh (``group.mesh``); these
helpers turn places of that mesh — a vertex, an edge midpoint, the direction of a mesh
edge leaving a vertex — into :class:`~fem.LinearMap` objects that every constraint of the
library accepts.  Positions are linear in the coordinates (``r = (S(ξ) ⊗ I₃) e``, Liu et
al. 2023 eq 14), so every map here is exact.  Vertex rows follow the element's
48-coordinate layout (:mod:`.family`): at a vertex, the position and then the
area-coordinate gradients towards the *next* and the *previous* vertex.
"""

from __future__ import annotations

import numpy as np

from ...core.errors import ModelError
from ...maps.linear_map import LinearMap
from .family import NEXT_VERTEX, BezierTrianglePlate

__all__ = ["vertex_map", "vertex_at", "vertex_elements", "plate_point", "edge_tangent",
           "edge_tangent_along"]

_TOL = 1e-9


def _plate_mesh(group):
    if not isinstance(group.family, BezierTrianglePlate):
        raise ModelError(f"group {group.name!r} is of family {group.family.name!r}, not a "
                         "Bézier plate")
    if group.mesh is None:
        raise ModelError(f"group {group.name!r} was not built from a mesh (use add_mesh)")
    return group.mesh


def vertex_map(group, element: int, local: int, field_row: int = 0) -> LinearMap:
    """Row ``5·local + field_row`` of element ``element``'s 48-coordinate layout as a map:
    ``field_row`` 0 the position of local vertex ``local``, 1 its gradient towards the next
    vertex, 2 towards the previous one."""
    pm = group.family.plate_map[element]                   # (16, 16)
    coef = np.einsum("k,ij->ikj", pm[5 * local + field_row], np.eye(3)).reshape(3, -1)
    return LinearMap(group.dofs[element], coef,
                     label=f"{group.name}[{element}] vertex {local}")


def vertex_at(group, x) -> int:
    """The mesh vertex at reference position ``x`` (within 1e-9)."""
    mesh = _plate_mesh(group)
    d = np.linalg.norm(mesh.vertices - np.asarray(x, float), axis=1)
    v = int(np.argmin(d))
    if d[v] > _TOL:
        raise ModelError(f"plate {group.name!r}: no mesh vertex at {np.asarray(x).tolist()} "
                         f"(nearest: vertex {v}, {d[v]:.3g} away)")
    return v


def vertex_elements(group, vertex: int) -> list[tuple[int, int]]:
    """The elements around mesh vertex ``vertex``, each as ``(element, local vertex)``."""
    tri = _plate_mesh(group).triangles
    return [(int(e), list(tri[e]).index(vertex))
            for e in np.flatnonzero((tri == vertex).any(1))]


def _element_with_edge(group, v_from: int, v_to: int) -> int:
    tri = group.mesh.triangles
    e = np.flatnonzero((tri == v_from).any(1) & (tri == v_to).any(1))
    if e.size == 0:
        raise ModelError(f"plate {group.name!r}: no triangle has the edge {v_from}–{v_to}")
    return int(e[0])


def edge_tangent(group, v_from: int, v_to: int) -> LinearMap:
    """Position derivative at mesh vertex ``v_from`` along the mesh edge towards ``v_to``,
    per unit reference length."""
    mesh = _plate_mesh(group)
    e = _element_with_edge(group, v_from, v_to)
    tri = list(mesh.triangles[e])
    i, j = tri.index(v_from), tri.index(v_to)
    row = 1 if j == NEXT_VERTEX[i] else 2      # first gradient → next vertex, else previous
    length = np.linalg.norm(mesh.vertices[v_to] - mesh.vertices[v_from])
    return vertex_map(group, e, i, row) * (1.0 / length)


def edge_tangent_along(group, vertex: int, direction) -> LinearMap:
    """:func:`edge_tangent` at ``vertex`` along the mesh edge that leaves it in the
    reference ``direction`` (a vector; the edge must be parallel to it)."""
    mesh = _plate_mesh(group)
    t = np.asarray(direction, float)
    t = t / np.linalg.norm(t)
    edges = mesh.edges[(mesh.edges == vertex).any(1)]
    for u in np.unique(edges):
        if u == vertex:
            continue
        d = mesh.vertices[u] - mesh.vertices[vertex]
        if abs(float(d @ t) - float(np.linalg.norm(d))) < _TOL:
            return edge_tangent(group, vertex, int(u))
    raise ModelError(f"plate {group.name!r}: no mesh edge leaves vertex {vertex} along "
                     f"{t.tolist()}")


def plate_point(group, x) -> LinearMap:
    """The mid-surface point at reference position ``x``: a mesh vertex or an edge
    midpoint."""
    mesh = _plate_mesh(group)
    x = np.asarray(x, float)
    tri = mesh.triangles
    d = np.linalg.norm(mesh.vertices - x, axis=1)
    v = int(np.argmin(d))
    if d[v] < _TOL:
        e = int(np.flatnonzero((tri == v).any(1))[0])
        return vertex_map(group, e, list(tri[e]).index(v), 0).named(f"plate vertex {v}")
    mid = 0.5 * (mesh.vertices[tri] + mesh.vertices[tri[:, NEXT_VERTEX]])   # (n_el, 3, 3)
    hit = np.argwhere(np.linalg.norm(mid - x, axis=2) < _TOL)
    if len(hit):
        e, a = (int(i) for i in hit[0])
        ac = np.zeros(3)
        ac[a] = ac[NEXT_VERTEX[a]] = 0.5
        return group.material_point(e, [ac[1], ac[2], 0.0]).named("edge midpoint")
    raise ModelError(f"plate {group.name!r} has no vertex or edge midpoint at "
                     f"{x.tolist()}")
