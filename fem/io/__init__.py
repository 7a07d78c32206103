"""Output of runs: the run layout and streamed results (:mod:`.output`), ParaView series
(:mod:`.vtk`), pictures and movies (:mod:`.render`, :mod:`.centreline`, :mod:`.fe_bodies`)
and the web view (:mod:`.web`); each module imported on first use
(``fem.io.output.stream``).  The results themselves are the solvers'
(:mod:`fem.solvers.results`); files written safely are :mod:`fem.core.files`."""

from __future__ import annotations

from ..core.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {}, modules=(
    "centreline", "fe_bodies", "output", "render", "vtk", "web"))
