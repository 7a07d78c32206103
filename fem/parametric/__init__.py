"""Parameter studies: one case over a grid of parameters, each point a Dask task.

``fem sweep CASE -p E_Pa=2e8,7e10 -p payload_kg=6,10 --out DIR`` and
:func:`fem.sweep` (this package's :func:`sweep`, imported on first use so that
``import fem`` does not load Dask).  The package is not called ``fem.sweep`` because
importing a submodule of that name would replace the ``fem.sweep`` function.

* :mod:`.grid` — points from value lists (grid or zip) and their folder names,
* :mod:`.point` — one point on a worker: ``fem run`` into its folder, then a done marker,
* :mod:`.runner` — executors (LocalCluster, an existing cluster, serial), resume, progress,
* :mod:`.table` — the CSV/Parquet table and the plots.
"""

from ..core.lazy import lazy_exports
from .runner import PointOutcome, SweepInterrupted, SweepResult, sweep

__all__ = ["sweep", "SweepResult", "PointOutcome", "SweepInterrupted"]

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
