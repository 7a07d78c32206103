"""Generators for common structures (one call builds a cable, a body, ...)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.errors import ModelError
from ..core.validate import affordable, integer, vector3
from ..elements.materials import Material
from ..elements.materials import material as validate_material
from ..elements.sections import circle_section, rectangle_section

__all__ = ["straight_cable", "straight_beam", "rectangle_section", "circle_section"]
# rectangle_section, circle_section: the solid sections of fem.elements.sections


def _node_names(kind: str, name: str, k: int, end_names) -> list[str]:
    """Names of the ``k`` nodes of a straight line of elements: ``"<name> node <i>"``, the
    first and the last replaced by ``end_names`` where given (``kind`` for messages)."""
    what = f"{kind} {name!r}"
    names = [f"{name} node {i}" for i in range(k)]
    if isinstance(end_names, str) or not isinstance(end_names, Sequence) \
            or len(end_names) != 2:
        raise ModelError(f"{what}: end_names is (name of the start node, name of the end "
                         f"node), each a str or None; got {end_names!r}")
    for i, given in ((0, end_names[0]), (k - 1, end_names[1])):
        if given is None:
            continue
        if not isinstance(given, str) or not given:
            raise ModelError(f"{what}: a node name in end_names must be a non-empty str or "
                             f"None; got {given!r}")
        names[i] = given
    if end_names[0] is not None and end_names[0] == end_names[1]:
        raise ModelError(f"{what}: end_names names both ends {end_names[0]!r}; the two end "
                         f"nodes need distinct names")
    return names


_BYTES_PER_ELEMENT = {"cable": 50e3, "beam": 150e3}
"""Memory of one element of a straight line, model and assembly (:func:`_straight_line`)."""


def _straight_line(kind: str, name: str, start, end, n_elements, material):
    """The checked arguments of a straight line of ``n_elements`` elements from ``start``
    to ``end``: ``(material, unit direction, node positions)`` (``kind`` for messages)."""
    n_elements = integer(n_elements, f"{kind} {name!r}: n_elements", minimum=1)
    # measured with the assembly and one tangent: 40–50 KB a cable element, 133 KB a
    # beam element; asked before any node exists
    affordable(n_elements * _BYTES_PER_ELEMENT[kind], f"{kind} {name!r}: n_elements",
               n_elements)
    p0 = vector3(start, f"{kind} {name!r}: start")
    p1 = vector3(end, f"{kind} {name!r}: end")
    material = validate_material(material, f"{kind} {name!r}: material")
    L = np.linalg.norm(p1 - p0)
    if L <= 0:
        raise ModelError(f"{kind} {name!r}: start and end coincide (zero length)")
    s = np.linspace(0.0, 1.0, int(n_elements) + 1)
    return material, (p1 - p0) / L, p0 + s[:, None] * (p1 - p0)


def straight_cable(model, start, end, n_elements: int, material: Material, area: float,
                   inertia: float, name: str = "cable",
                   end_names: Sequence[str | None] = (None, None), **options):
    """A straight ANCF cable from ``start`` to ``end`` with ``n_elements`` elements.

    The nodes are named ``"<name> node <i>"`` (``i`` from 0 at ``start``); ``end_names``
    ``(first, last)`` names the end nodes instead, e.g. ``end_names=(None, "tip")``, so
    that :meth:`fem.Model.node` finds them (``model.node("tip")``).

    Returns ``(group, nodes)``: the element group and the ``n_elements + 1`` node ids in
    order from ``start``.
    """
    material, t, r = _straight_line("cable", name, start, end, n_elements, material)
    nodes = model.add_nodes(r=r, r_x=np.tile(t, (len(r), 1)),
                            names=_node_names("cable", name, len(r), end_names))
    conn = np.column_stack([nodes[:-1], nodes[1:]])
    group = model.add_elements("ancf_cable", conn, material, name=name, area=area,
                               inertia=inertia, **options)
    return group, nodes


def straight_beam(model, start, end, n_elements: int, material: Material, name: str = "beam",
                  up=(0.0, 0.0, 1.0), end_names: Sequence[str | None] = (None, None),
                  **section):
    """A straight ANCF beam (``ancf_beam``) from ``start`` to ``end``, ``n_elements`` long.

    The section's ``z`` axis (``r_z``) is ``up`` made normal to the axis, ``r_y = r_z ×
    r_x``; ``section`` is the family's data (``section='circle', radius=...`` or
    ``section='rectangle', width=..., height=...``).  Nodes are named as by
    :func:`straight_cable` (``end_names`` names the end nodes).  Returns ``(group, nodes)``.
    """
    up = vector3(up, f"beam {name!r}: up")
    material, t, r = _straight_line("beam", name, start, end, n_elements, material)
    ez = up - np.dot(up, t) * t
    if np.linalg.norm(ez) < 1e-8:
        raise ModelError(f"beam {name!r}: 'up' {up.tolist()} is zero or parallel to the beam "
                         f"axis; give a direction across the beam")
    ez /= np.linalg.norm(ez)
    ey = np.cross(ez, t)
    k = len(r)
    nodes = model.add_nodes(r=r, r_x=np.tile(t, (k, 1)),
                            r_y=np.tile(ey, (k, 1)), r_z=np.tile(ez, (k, 1)),
                            names=_node_names("beam", name, k, end_names))
    conn = np.column_stack([nodes[:-1], nodes[1:]])
    group = model.add_elements("ancf_beam", conn, material, name=name, **section)
    return group, nodes
