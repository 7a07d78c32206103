"""Input and output of runs: the run layout and streamed results (:mod:`.output`), result
files (:mod:`.results`, :mod:`.files`), ParaView series (:mod:`.vtk`), pictures and movies
(:mod:`.render`, :mod:`.centreline`, :mod:`.fe_bodies`) and the web view (:mod:`.web`);
each module imported on first use (``fem.io.output.stream``)."""

from __future__ import annotations

from ..core.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {}, modules=(
    "centreline", "fe_bodies", "files", "output", "render", "results", "vtk", "web"))
