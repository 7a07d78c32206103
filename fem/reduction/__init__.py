"""Model reduction: Craig–Bampton component mode synthesis (Ma and Mei 2010).

:func:`craig_bampton` reduces any linear substructure ``(M, K)`` with given boundary
coordinates; :class:`ComponentAssembly` couples reduced components on shared interface
coordinates (or :func:`constrain` with ``B q = 0``); :func:`frame_cms` does both for a
:class:`fem.frames.Frame` split into member groups; :func:`newmark` integrates the
reduced equations in time.  :func:`reduce_body` reduces a linear FE model to component
modes in a floating frame (:class:`fem.bodies.ReducedBody`, large motion).
"""

from ..core.lazy import lazy_exports
from ..solvers.linear import generalized_eigen
from .body import averaged, cache_dir, cached_reduction, reduce_body, rigid
from .craig_bampton import (
    Assembly,  # noqa: F401  (the former name of ComponentAssembly)
    AssemblyModes,
    Component,
    ComponentAssembly,
    constrain,
    craig_bampton,
    newmark,
    null_space_basis,
)
from .frame_cms import FrameCMS, frame_cms
from .linearize import linearize

__all__ = ["Component", "craig_bampton", "ComponentAssembly", "AssemblyModes", "null_space_basis",
           "constrain", "generalized_eigen", "newmark", "FrameCMS", "frame_cms", "linearize",
           "reduce_body", "rigid", "averaged", "cached_reduction", "cache_dir"]

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
