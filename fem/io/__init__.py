"""Output of runs, each module one job, imported on first use (``fem.io.output.stream``):

* the run layout — :mod:`.output` (streamed results, ``write_outputs``), :mod:`.options`
  (what a run's output does: ``OPTIONS``, ``TIMING``);
* a model's drawing, the frames of its series — :mod:`.drawing` (element groups, a linear
  map of ``q``), :mod:`.centreline` (chains of floating-frame links), :mod:`.fe_bodies`
  (bodies on their FE meshes); ParaView series :mod:`.vtk`;
* pictures — :mod:`.pictures` (those of a run folder), :mod:`.render` (a still picture),
  :mod:`.scenes` (what a picture shows), :mod:`.cameras`, :mod:`.movies`,
  :mod:`.plots` (history plots), :mod:`.headless` (no display needed);
* the web view — :mod:`.web` (``fem view``).

The results themselves are the solvers' (:mod:`fem.solvers.results`); files written
safely are :mod:`fem.core.files`.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {})
