"""What every floor uses: errors (:mod:`.errors`), argument checks (:mod:`.validate`),
units (:mod:`.units`), the compiled-kernel switch (:mod:`.jit`), BLAS threads
(:mod:`.threads`), terminal display (:mod:`.display`), name registries
(:mod:`.registry`), files written safely (:mod:`.files`), the bundled cases and meshes
(:mod:`.bundled`) and names of a package loaded on first use (:mod:`.lazy`).  It imports
nothing of ``fem`` above it."""

from __future__ import annotations

from .lazy import lazy_exports

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
