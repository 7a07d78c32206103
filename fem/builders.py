"""Generators for common structures (one call builds a cable, a body, ...)."""

from __future__ import annotations

import numpy as np

from .errors import ModelError
from .materials import Material
from .validate import integer, positive, vector3

__all__ = ["straight_cable", "straight_beam", "rectangle_section", "circle_section"]


def rectangle_section(width: float, height: float) -> dict[str, float]:
    """Area and second moments of a solid ``width × height`` rectangle [m², m⁴]."""
    width = positive(width, "rectangle section: width", "m")
    height = positive(height, "rectangle section: height", "m")
    A = width * height
    return {"area": A, "iy": width * height**3 / 12, "iz": height * width**3 / 12}


def circle_section(radius: float) -> dict[str, float]:
    """Area and second moment of a solid circle [m², m⁴]."""
    radius = positive(radius, "circle section: radius", "m")
    A = np.pi * radius**2
    return {"area": A, "iy": np.pi * radius**4 / 4, "iz": np.pi * radius**4 / 4}


def straight_cable(model, start, end, n_elements: int, material: Material, area: float,
                   inertia: float, name: str = "cable", **options):
    """A straight ANCF cable from ``start`` to ``end`` with ``n_elements`` elements.

    Returns ``(group, nodes)``: the element group and the ``n_elements + 1`` node ids in
    order from ``start``.
    """
    n_elements = integer(n_elements, f"cable {name!r}: n_elements", minimum=1)
    p0 = vector3(start, f"cable {name!r}: start")
    p1 = vector3(end, f"cable {name!r}: end")
    L = np.linalg.norm(p1 - p0)
    if L <= 0:
        raise ModelError(f"cable {name!r}: start and end coincide (zero length)")
    t = (p1 - p0) / L
    s = np.linspace(0.0, 1.0, int(n_elements) + 1)
    r = p0 + s[:, None] * (p1 - p0)
    nodes = model.add_nodes(r=r, r_x=np.tile(t, (len(s), 1)),
                            names=[f"{name} node {i}" for i in range(len(s))])
    conn = np.column_stack([nodes[:-1], nodes[1:]])
    group = model.add_elements("ancf_cable", conn, material, name=name, area=area,
                               inertia=inertia, **options)
    return group, nodes


def straight_beam(model, start, end, n_elements: int, material: Material, name: str = "beam",
                  up=(0.0, 0.0, 1.0), **section):
    """A straight ANCF beam (``ancf_beam``) from ``start`` to ``end``, ``n_elements`` long.

    The section's ``z`` axis (``r_z``) is ``up`` made normal to the axis, ``r_y = r_z ×
    r_x``; ``section`` is the family's data (``section='circle', radius=...`` or
    ``section='rectangle', width=..., height=...``).  Returns ``(group, nodes)``.
    """
    if int(n_elements) < 1:
        raise ModelError(f"beam {name!r}: n_elements must be ≥ 1, got {n_elements}")
    p0, p1 = np.asarray(start, float), np.asarray(end, float)
    L = np.linalg.norm(p1 - p0)
    if L <= 0:
        raise ModelError(f"beam {name!r}: start and end coincide (zero length)")
    t = (p1 - p0) / L
    ez = np.asarray(up, float) - np.dot(up, t) * t
    if np.linalg.norm(ez) < 1e-8:
        raise ModelError(f"beam {name!r}: 'up' {tuple(up)} is parallel to the beam axis")
    ez /= np.linalg.norm(ez)
    ey = np.cross(ez, t)
    s = np.linspace(0.0, 1.0, int(n_elements) + 1)
    k = len(s)
    nodes = model.add_nodes(r=p0 + s[:, None] * (p1 - p0), r_x=np.tile(t, (k, 1)),
                            r_y=np.tile(ey, (k, 1)), r_z=np.tile(ez, (k, 1)),
                            names=[f"{name} node {i}" for i in range(k)])
    conn = np.column_stack([nodes[:-1], nodes[1:]])
    group = model.add_elements("ancf_beam", conn, material, name=name, **section)
    return group, nodes
