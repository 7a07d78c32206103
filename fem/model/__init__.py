"""The model a user builds: :class:`Model` (bodies, element groups, nodes, loads,
constraints) with what goes into it — meshes (:mod:`.mesh`), materials
(:mod:`.materials`), builders of straight cables and beams (:mod:`.builders`), linear and
nonlinear point maps (:mod:`.linear_map`, :mod:`.point_maps`), actuators
(:mod:`.actuators`) and prescribed motions (:mod:`.trajectory`).  The model is assembled
(:mod:`fem.assembly`) into the system the solvers see."""

from __future__ import annotations

from ..core.lazy import lazy_exports

__all__ = ["Body", "ElementGroup", "Model"]

__getattr__, __dir__ = lazy_exports(__name__, {"Model": "core", "Body": "core",
                                               "ElementGroup": "core"})
