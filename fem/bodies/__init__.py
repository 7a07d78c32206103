"""Bodies nonlinear in their coordinates, inside the constrained core.

Element families (:mod:`fem.elements`) interpolate positions linearly in their
coordinates, so their mass is constant.  A body of this package is not: its material
points are :class:`~fem.maps.point_maps.PointMap` objects, its mass ``M(q)`` and its
quadratic-velocity forces come from those maps (``M = Σ w JᵀJ``, ``f_qv = Σ w Jᵀ q̇ᵀHq̇``),
and the assembly (:class:`fem.assembly.Assembly`) adds them to the constant part.  Any
constraint of :mod:`fem.constraints` can join its points and directions.

A body kind implements :class:`NonlinearBody` (the part of the solver contract
:mod:`fem.assembly.system` a body supplies); :class:`~fem.bodies.floating_frame.FloatingFrameBody`
is the first; :class:`~fem.bodies.reduced.ReducedBody` (component modes of a linear
FE model in a floating frame, :func:`fem.reduction.reduce_body`) the second.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports
from .base import NonlinearBody, inertia_from_points
from .floating_frame import FloatingFrameBody
from .reduced import ReducedBody, Reduction

__all__ = ["NonlinearBody", "FloatingFrameBody", "ReducedBody", "Reduction",
           "inertia_from_points"]

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
