"""BLAS threading for the solvers.

The systems of this framework are small (dense LU below a few hundred unknowns) or
sparse (SuperLU, single-threaded).  Multithreaded OpenBLAS makes a 228×228 dense LU about
300× slower on a loaded 2-core machine (78 ms instead of 0.26 ms, measured), so the
solvers run with one BLAS thread.  Entering the limit costs about 1 ms, so it wraps whole
solves, never single factorizations.  Most of that millisecond (2.3 ms on a loaded 2-core
machine) is threadpoolctl's search of the loaded libraries, so the controller it builds is
kept and searched again only when modules were imported since (a new extension may bring
a BLAS): then entering costs ≈ 0.05 ms.
"""

from __future__ import annotations

import functools
import sys
from contextlib import contextmanager

__all__ = ["single_thread_blas", "blas_single_threaded"]

_controller: tuple | None = None
"""``(threadpoolctl.ThreadpoolController, len(sys.modules) when it was made)``."""


def _blas_controller():
    """The kept controller of the loaded thread pools, made anew where modules were
    imported since."""
    global _controller
    n = len(sys.modules)
    if _controller is None or _controller[1] != n:
        from threadpoolctl import ThreadpoolController

        _controller = (ThreadpoolController(), n)
    return _controller[0]


@contextmanager
def single_thread_blas():
    try:
        controller = _blas_controller()
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        yield


def blas_single_threaded(fn):
    """Decorator: run ``fn`` with one BLAS thread."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with single_thread_blas():
            return fn(*args, **kwargs)

    return wrapper
