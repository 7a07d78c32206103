"""Access to numba for the compiled kernels, with one switch to turn them all off.

Every compiled kernel of the framework (element forces in :mod:`fem.elements.kernels`,
the CSR product of :mod:`fem.linalg`, the Newton iteration algebra of
:mod:`fem.solvers.fused`, the co-rotation of :mod:`fem.solvers.corotation`) has a NumPy
form that gives the same results to round-off.  The NumPy forms run when numba is not
installed or when the environment variable ``FEM_NO_JIT`` is ``1``, ``true`` or ``yes``
(for debugging, and for the tests that check the fallbacks).  numba itself is imported
only when a kernel is first needed, so ``import fem`` stays light.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from types import ModuleType

__all__ = ["disabled", "numba_module", "compiled"]


def disabled() -> bool:
    """Whether ``FEM_NO_JIT`` turns the compiled kernels off."""
    return os.environ.get("FEM_NO_JIT", "").strip().lower() in ("1", "true", "yes")


def numba_module() -> ModuleType | None:
    """The numba module, or None when it is missing or :func:`disabled` says so."""
    if disabled():
        return None
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is a dependency; keep a fallback
        return None
    return numba


def compiled(build: Callable[[ModuleType], object]) -> Callable[[], object | None]:
    """Decorator for a kernel built on first use: ``build(numba)`` defines and returns the
    compiled function (or a tuple of them); the decorated name becomes a getter that
    returns it, built once, or None when :func:`numba_module` is None (then the caller
    runs its NumPy form).  Compiled code is cached on disk by the kernels' own
    ``cache=True``."""
    made: list = []

    @functools.wraps(build)
    def get():
        if not made:
            numba = numba_module()
            made.append(None if numba is None else build(numba))
        return made[0]

    return get
