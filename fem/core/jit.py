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
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

__all__ = ["disabled", "numba_module", "compiled", "drop_stale_caches"]


def disabled() -> bool:
    """Whether ``FEM_NO_JIT`` turns the compiled kernels off."""
    return os.environ.get("FEM_NO_JIT", "").strip().lower() in ("1", "true", "yes")


def numba_module() -> ModuleType | None:
    """The numba module, or None when it is missing or :func:`disabled` says so.  The
    first call drops stale disk caches (:func:`drop_stale_caches`)."""
    if disabled():
        return None
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is a dependency; keep a fallback
        return None
    if not _checked:
        _checked.append(drop_stale_caches())
    return numba


_checked: list = []
STAMP = "numba-sources.stamp"


def _sources_digest(root: Path) -> str:
    """A digest of the package's sources: every ``*.py`` under ``root`` with its size
    and modification time."""
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        st = f.stat()
        h.update(f"{f.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def drop_stale_caches(root: Path | None = None) -> int:
    """Delete the package's numba disk caches (``__pycache__/*.nbi``, ``*.nbc``) when
    any of its sources changed since they were written; returns how many files went.

    numba keys a cached function on its own file only.  A kernel that calls kernels of
    other files keeps their old code, inlined, after those files change — and gives
    their old results.  The stamp (a digest of every source's size and time, in the
    package's ``__pycache__``) makes any edit of the package recompile every kernel
    once.  Where ``__pycache__`` is not writable (an installed, read-only package)
    nothing is done: such a package does not change under its caches."""
    root = Path(__file__).resolve().parents[1] if root is None else Path(root)
    stamp = root / "__pycache__" / STAMP
    try:
        digest = _sources_digest(root)
        if stamp.is_file() and stamp.read_text().strip() == digest:
            return 0
        gone = 0
        for f in root.rglob("__pycache__/*.nb[ic]"):
            f.unlink(missing_ok=True)
            gone += 1
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest + "\n")
        return gone
    except OSError:
        return 0


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
