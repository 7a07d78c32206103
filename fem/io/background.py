"""Plots drawn beside the run: a worker process that draws history plots while the run
goes on, so that a machine with two cores does not wait for matplotlib's text layout
(a third of a second a plot) after the solve.

``fem run`` turns it on (:data:`fem.io.options.OPTIONS.plot_workers`); everything else
(tests, notebooks, sweeps on Dask workers, a machine with one core) draws in the calling
process.  The worker is forked when the first plot is asked for; the plot's arguments
are checked in the caller first, so that bad input is refused where it was given.
:func:`drain` waits for every plot and raises the first error a plot met; it is called
before ``summary.json`` lists the run's files.  A run that is interrupted
:func:`abandon`\\ s the plots not yet drawn (no half-written file: a plot is written to a
temporary name and renamed when complete).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from typing import Any

__all__ = ["submit", "drain", "abandon", "usable"]

_POOL: Any = None
_JOBS: list = []


def usable() -> bool:
    """Whether a plot worker would run beside the run: on Linux-like systems with fork,
    with two cores or more for this process."""
    if not hasattr(os, "fork"):
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores >= 2


def _quiet_child() -> None:
    """A plot worker leaves signals to the run that started it: Ctrl-C and SIGTERM reach
    the whole process group, and the run decides what happens to pending plots."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def submit(function: Callable, *args: Any) -> None:
    """Run ``function(*args)`` in the plot worker (started on first use)."""
    global _POOL
    if _POOL is None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        _POOL = ProcessPoolExecutor(max_workers=1, initializer=_quiet_child,
                                    mp_context=multiprocessing.get_context("fork"))
    _JOBS.append(_POOL.submit(function, *args))


def pending() -> int:
    """How many submitted plots are not collected yet."""
    return len(_JOBS)


def drain() -> float:
    """Wait for every submitted plot; raise the first error one met (a
    :class:`fem.ModelError` for a plot that could not be written).  Returns the seconds
    waited."""
    t0 = time.perf_counter()
    jobs = list(_JOBS)
    _JOBS.clear()
    first: BaseException | None = None
    for job in jobs:
        try:
            job.result()
        except BaseException as err:       # noqa: BLE001 - re-raised below, the first one
            first = first or err
    _shutdown(wait=True)
    if first is not None:
        from concurrent.futures.process import BrokenProcessPool

        if isinstance(first, BrokenProcessPool):
            from ..core.errors import ModelError

            raise ModelError("the plot worker stopped before drawing every plot (killed, "
                             "or out of memory); `fem run` again, or set "
                             "fem.io.options.OPTIONS.plot_workers = 0 to draw plots "
                             "in the run's own process") from None
        raise first
    return time.perf_counter() - t0


def abandon() -> None:
    """Drop the plots not drawn yet and stop the worker (an interrupted or failed run)."""
    for job in _JOBS:
        job.cancel()
    _JOBS.clear()
    _shutdown(wait=False)


def _shutdown(wait: bool) -> None:
    global _POOL
    pool, _POOL = _POOL, None
    if pool is None:
        return
    if not wait:
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
    pool.shutdown(wait=wait, cancel_futures=not wait)
