"""Points and directions of a model as maps of its coordinates ``q``: the language in
which elements, bodies and constraints speak of points.

* :mod:`.linear_map` — :class:`~fem.LinearMap` ``x = C q[dofs] + x₀``: every point of an
  element family, a natural-coordinate body, a node's field, a constant (``fem.constant``);
* :mod:`.point_maps` — :class:`PointMap`, a point nonlinear in ``q`` (floating-frame and
  reduced bodies) with its Jacobian and second derivatives; sums of maps; the argument
  rule :func:`~fem.maps.point_maps.point_map`.

The floor just above :mod:`fem.core`: it imports nothing else of ``fem``.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

__all__ = ["LinearMap", "constant", "PointMap", "is_nonlinear", "evaluate"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "LinearMap": "linear_map", "constant": "linear_map", "PointMap": "point_maps",
    "is_nonlinear": "point_maps", "evaluate": "point_maps"})
