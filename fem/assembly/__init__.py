"""From a model to the system the solvers see: the declared solver contract
(:mod:`.system`), the sparse assembly with its patterns built once (:mod:`.core`), the
constraints' rows (:mod:`.constraints`) and the linear algebra (:mod:`.linalg`)."""

from __future__ import annotations

from ..core.lazy import lazy_exports

__all__ = ["Assembly", "System"]

__getattr__, __dir__ = lazy_exports(__name__, {"Assembly": "core", "System": "system"})
