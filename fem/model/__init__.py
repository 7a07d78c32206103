"""The model a user builds: :class:`Model` (bodies, element groups, nodes, loads,
constraints) with what goes into it — meshes (:mod:`.mesh`), builders of straight cables
and beams (:mod:`.builders`), actuators (:mod:`.actuators`) and prescribed motions
(:mod:`.trajectory`) — and the minimal-coordinate chains of floating-frame links
(:mod:`.chains`: :class:`HubLink`, :class:`PlanarChain`, :class:`SpatialChain`,
:func:`dh_chain`), models of their own.  A model is assembled (:mod:`fem.assembly`) into
the system the solvers see.

The floor above the parts a model is made of — element families and materials
(:mod:`fem.elements`), bodies (:mod:`fem.bodies`), constraints (:mod:`fem.constraints`),
the maps of ``q`` (:mod:`fem.maps`) — and above the assembly, which ``Model.assemble()``
calls."""

from __future__ import annotations

from ..core.lazy import lazy_exports

__all__ = ["Body", "ElementGroup", "Model", "HubLink", "PlanarChain", "SpatialChain",
           "dh_chain"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "Model": "core", "Body": "core", "ElementGroup": "core", "HubLink": "chains",
    "PlanarChain": "chains", "SpatialChain": "chains", "dh_chain": "chains"})
