"""The Bézier-triangle plate (Liu et al. 2023): one home for the element family
(:mod:`.family`), the continuity of a plate mesh across its edges (:mod:`.continuity`) and
the points and directions of a plate mesh as linear maps (:mod:`.points`)."""

from .continuity import add_continuity, continuity_counts, continuity_rows, independent_rows
from .family import (
    NEXT_VERTEX,
    PREV_VERTEX,
    BezierTrianglePlate,
    BezierTrianglePlateShared,
    bezier_basis,
    control_from_nodal,
    draw_grid,
    g1_cross_derivative,
    nodal_from_control,
    paper_continuity,
    seed_continuity,
    shape_functions,
)
from .points import (
    edge_tangent,
    edge_tangent_along,
    plate_point,
    vertex_at,
    vertex_elements,
    vertex_map,
)

__all__ = [
    "BezierTrianglePlate", "BezierTrianglePlateShared", "NEXT_VERTEX", "PREV_VERTEX",
    "shape_functions", "bezier_basis", "nodal_from_control", "control_from_nodal",
    "g1_cross_derivative", "paper_continuity", "seed_continuity", "draw_grid",
    "add_continuity", "continuity_rows", "continuity_counts", "independent_rows",
    "vertex_map", "vertex_at", "vertex_elements", "plate_point", "edge_tangent",
    "edge_tangent_along",
]
