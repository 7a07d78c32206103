"""BLAS threading for the solvers.

The systems of this framework are small (dense LU below a few hundred unknowns) or
sparse (SuperLU, single-threaded).  Multithreaded OpenBLAS makes a 228×228 dense LU about
300× slower on a loaded 2-core machine (78 ms instead of 0.26 ms, measured), so the
solvers run with one BLAS thread.  Entering the limit costs about 1 ms, so it wraps whole
solves, never single factorizations.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

__all__ = ["single_thread_blas", "blas_single_threaded"]


@contextmanager
def single_thread_blas():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        yield
        return
    with threadpool_limits(1, "blas"):
        yield


def blas_single_threaded(fn):
    """Decorator: run ``fn`` with one BLAS thread."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with single_thread_blas():
            return fn(*args, **kwargs)

    return wrapper
