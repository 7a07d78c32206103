"""The compiled kernels: which path a process runs, where their compiled code is kept, and
how long compiling took.

Every compiled kernel of the framework (element forces in :mod:`fem.elements.kernels`,
the Newton iteration of :mod:`fem.solvers.constant_kernels`, the bodies' terms of
:mod:`fem.bodies.kernels`, …) has a NumPy form that gives the same results to the
solver's tolerance.  **One path per process**: the first kernel a process asks for
decides, for the whole process, between

* ``"compiled"`` — numba's kernels, used only when the compiled code of every kernel is
  already in the cache for this machine and these sources (:func:`kernels_ready`), so a
  run never waits for the compiler; and
* ``"numpy"`` — the NumPy forms, at once.  A run that takes this path because the cache
  is empty starts ``fem compile`` in the background when it ends, at the lowest
  priority, so that later runs find the kernels ready.

One decision per process, never per kernel: a run that mixed compiled and NumPy kernels
would give results that depend on which kernels happened to be cached, while with one
path a rerun on the same path is bit-identical.  The environment sets the path:
``FEM_JIT=numpy`` (or ``FEM_NO_JIT=1``) always the NumPy forms, ``FEM_JIT=compiled``
always the kernels, compiling what is missing in the run (``fem compile`` does this),
``FEM_JIT=auto`` (the default) as above; ``FEM_JIT_BACKGROUND=0`` starts no background
compile.  :func:`path` tells which path the process takes; ``summary.json`` records it.

The compiled code lives in the user's cache directory (``$NUMBA_CACHE_DIR`` when set,
else ``$XDG_CACHE_HOME/fem`` or ``~/.cache/fem``), never in the source tree, and is keyed
on the *content* of the sources a kernel compiles — its own file and the kernel files it
calls into (:data:`INLINES`) — so a checkout or an update that leaves a kernel's sources
unchanged keeps its compiled code, and one that changes them compiles it anew.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

__all__ = ["PATHS", "bar_while_compiling", "cache_dir", "clock", "compile_lock",
           "compile_report", "compile_seconds", "compiled", "compiling", "decided",
           "disabled", "kernels_ready", "mark_failed", "mark_ready", "numba_module",
           "on_compile", "path", "prefer_numpy", "source_stamp", "start_background_compile",
           "use_path", "why"]

PATHS = ("compiled", "numpy")
"""The two paths a process can run: the compiled kernels or their NumPy forms."""

PACKAGE = Path(__file__).resolve().parents[1]
"""The ``fem`` package's folder."""

KERNEL_SOURCES = (
    "assembly/linalg.py", "bodies/chain_kernels.py", "bodies/frame_kernels.py",
    "bodies/kernels.py", "bodies/reduced_kernels.py", "constraints/compiled.py",
    "constraints/general_kernels.py", "elements/floating_frame.py", "elements/kernels.py",
    "solvers/constant_kernels.py", "solvers/corotation.py", "solvers/elimination.py",
    "solvers/fused.py",
)
"""The files of the package that define compiled kernels (relative to the package)."""

INLINES = {
    "bodies/chain_kernels.py": ("elements/floating_frame.py",),
    "bodies/kernels.py": ("bodies/chain_kernels.py",),
    "solvers/elimination.py": ("assembly/linalg.py",),
    "solvers/constant_kernels.py": (
        "assembly/linalg.py", "bodies/kernels.py", "constraints/compiled.py",
        "elements/kernels.py", "solvers/elimination.py", "solvers/fused.py"),
}
"""The kernel files whose compiled code a file's kernels take in (they call kernels of
those files, whose machine code numba links into the caller's), closed transitively by
:func:`source_stamp`."""


def disabled() -> bool:
    """Whether the environment turns the compiled kernels off (``FEM_NO_JIT`` true or
    ``FEM_JIT=numpy``)."""
    return (os.environ.get("FEM_NO_JIT", "").strip().lower() in ("1", "true", "yes")
            or _requested() == "numpy")


def _requested() -> str:
    """``FEM_JIT``: "auto" (default), "numpy" or "compiled" (aliases off/on)."""
    raw = os.environ.get("FEM_JIT", "").strip().lower()
    return {"": "auto", "off": "numpy", "0": "numpy", "no": "numpy", "false": "numpy",
            "on": "compiled", "1": "compiled", "yes": "compiled", "true": "compiled",
            "force": "compiled"}.get(raw, raw if raw in ("numpy", "compiled") else "auto")


# -- where compiled code is kept ----------------------------------------------------------

def cache_dir() -> Path:
    """The folder of the compiled kernels and their ready marks: ``$NUMBA_CACHE_DIR``
    when set, else ``$XDG_CACHE_HOME/fem`` (``~/.cache/fem``)."""
    numba_dir = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    if numba_dir:
        return Path(numba_dir).expanduser() / "fem"
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "fem"


@functools.cache
def _content(rel: str) -> bytes:
    try:
        return (PACKAGE / rel).read_bytes()
    except OSError:
        return b""


def _closure(rel: str) -> list[str]:
    seen: list[str] = []
    todo = [rel]
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.append(f)
            todo.extend(INLINES.get(f, ()))
    return sorted(seen)


def source_stamp(py_file: str | Path) -> str:
    """The key of a kernel file's compiled code: a digest of its content and of the
    content of the kernel files it calls into (:data:`INLINES`, transitively)."""
    rel = Path(py_file).resolve().relative_to(PACKAGE).as_posix()
    h = hashlib.sha256()
    for f in _closure(rel):
        h.update(f.encode() + b"\0" + _content(f) + b"\0")
    return h.hexdigest()


def _machine_key() -> str:
    """What compiled code depends on besides the sources: numba, Python, the machine."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        nb = version("numba")
    except PackageNotFoundError:
        nb = "none"
    return f"numba {nb}; python {sys.version_info[0]}.{sys.version_info[1]}; " \
           f"{platform.machine()} {platform.system()}"


CACHE_LAYOUT = 2
"""The layout of the compiled code in :func:`cache_dir` (2: a folder per kernel source
content); part of the ready mark, so a change of layout is not taken for ready code."""


def _ready_mark() -> Path:
    h = hashlib.sha256(f"{_machine_key()}; layout {CACHE_LAYOUT}".encode())
    for f in KERNEL_SOURCES:
        h.update(f.encode() + b"\0" + _content(f) + b"\0")
    return cache_dir() / "ready" / h.hexdigest()[:32]


def kernels_ready() -> bool:
    """Whether ``fem compile`` has compiled every kernel for these sources, this numba,
    this Python and this kind of machine (its mark is in :func:`cache_dir`)."""
    return _ready_mark().is_file()


def mark_ready() -> Path:
    """Record that every kernel is compiled and cached (``fem compile`` does, at its
    end); returns the mark's path."""
    mark = _ready_mark()
    mark.parent.mkdir(parents=True, exist_ok=True)
    mark.write_text(_machine_key() + "\n")
    return mark


def mark_failed(reason: str) -> Path:
    """Record that ``fem compile`` failed for these sources (no background compile is
    started for them again; an explicit ``fem compile`` tries anew); returns the path."""
    mark = _ready_mark().with_suffix(".failed")
    mark.parent.mkdir(parents=True, exist_ok=True)
    mark.write_text(reason + "\n")
    return mark


def _install_locator(numba: ModuleType) -> None:
    """Make numba keep the package's kernels in :func:`cache_dir`, keyed on
    :func:`source_stamp` instead of the files' times."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl   # renamed in 0.61
    if any(getattr(c, "_fem", False) for c in impl._locator_classes):
        return

    class ContentLocator(caching._CacheLocator):
        _fem = True

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            rel = Path(py_file).resolve().relative_to(PACKAGE.parent)
            # one folder per source content: two checkouts (or versions) of the package
            # that differ in a kernel's sources keep their compiled code side by side
            # instead of overwriting each other's index (which made both recompile)
            self._cache_path = str(cache_dir() / "kernels" / source_stamp(py_file)[:16]
                                   / rel.parent)

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return source_stamp(self._py_file)

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            try:
                Path(py_file).resolve().relative_to(PACKAGE)
            except (ValueError, OSError):
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            return self

    impl._locator_classes.insert(0, ContentLocator)


# -- the path of this process --------------------------------------------------------------

_state: dict = {"path": None, "numba": None, "background": None, "why": None}


def _import_numba() -> ModuleType | None:
    if _state["numba"] is None:
        try:
            import numba
        except ImportError:
            return None
        _install_locator(numba)
        _watch_compiles(numba)
        _state["numba"] = numba
    return _state["numba"]


def prefer_numpy(reason: str) -> bool:
    """Take the NumPy path in this process where the choice is left to it (``FEM_JIT``
    unset or "auto") and not made yet: for work measured too short to repay loading numba
    and the compiled code (about half a second to a second on the project's 2-core
    machine; ``tests/benchmarks/kernel_paths.py``).  A case says so with ``KERNELS =
    "numpy"`` (``fem run`` calls this for it).  Returns whether the NumPy path was taken
    for that ``reason`` (kept in :func:`why`)."""
    if _state["path"] is not None or disabled() or _requested() != "auto":
        return False
    _state["path"] = "numpy"
    _state["why"] = reason
    return True


def why() -> str | None:
    """Why this process runs the NumPy path though the environment left the choice open
    (:func:`prefer_numpy`), or None."""
    return _state.get("why")


def path() -> str:
    """The path of this process, "compiled" or "numpy", decided once at the first call
    (see the module's description) and kept: every kernel of the process follows it."""
    if _state["path"] is None:
        want = "numpy" if disabled() else _requested()
        if want == "auto":
            want = "compiled" if kernels_ready() else "numpy"
            if want == "numpy" and _numba_installed():
                # at exit, not now: the compile must not slow this run
                atexit.register(start_background_compile)
        if want == "compiled" and _import_numba() is None:
            want = "numpy"
        _state["path"] = want
    return _state["path"]


def _numba_installed() -> bool:
    from importlib.util import find_spec

    return find_spec("numba") is not None


def numba_module() -> ModuleType | None:
    """The numba module when this process runs the compiled path (:func:`path`), else
    None (then every caller runs its NumPy form)."""
    return _import_numba() if path() == "compiled" else None


@contextlib.contextmanager
def use_path(which: str) -> Iterator[None]:
    """Run the block on the given path ("compiled" or "numpy") and restore the process's
    path after it: for ``fem compile`` and the tests that compare the kernels with their
    NumPy forms.  "compiled" compiles whatever is not cached."""
    if which not in PATHS:
        raise ValueError(f"path must be one of {PATHS}, got {which!r}")
    if which == "compiled" and _import_numba() is None:
        raise RuntimeError("numba is not installed: the compiled path is not available")
    before = _state["path"]
    _state["path"] = which
    try:
        yield
    finally:
        _state["path"] = before


def compiled(build: Callable[[ModuleType], object]) -> Callable[[], object | None]:
    """Decorator for a kernel built on first use: ``build(numba)`` defines and returns the
    compiled function (or a tuple of them); the decorated name becomes a getter that
    returns it, built once, on the compiled path, and None on the NumPy path (then the
    caller runs its NumPy form).  Compiled code is cached on disk by the kernels' own
    ``cache=True``, in :func:`cache_dir`."""
    made: list = []

    @functools.wraps(build)
    def get():
        # the decided path first: asked at every element-force call (a few µs each)
        decided = _state["path"]
        if decided == "numpy":
            return None
        if decided == "compiled" and made:
            return made[0]
        numba = numba_module()
        if numba is None:
            return None
        if not made:
            made.append(build(numba))
        return made[0]

    return get


# -- background compiling -------------------------------------------------------------------

def _lock_path() -> Path:
    return cache_dir() / "compile.lock"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def start_background_compile() -> bool:
    """Start ``fem compile`` in a detached process at the lowest priority, unless one is
    running, ``FEM_JIT_BACKGROUND=0`` says not to, or the cache cannot be written;
    returns whether one was started.  Its log is ``compile.log`` in :func:`cache_dir`."""
    if _state["background"] is not None:
        return False
    _state["background"] = False
    if os.environ.get("FEM_JIT_BACKGROUND", "1").strip().lower() in ("0", "no", "false"):
        return False
    if _ready_mark().with_suffix(".failed").is_file():
        return False
    lock = _lock_path()
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(ValueError, OSError):
            if _alive(int(lock.read_text().split()[0])):
                return False
        log = open(lock.parent / "compile.log", "ab")     # noqa: SIM115 - the child's
    except OSError:
        return False
    env = {k: v for k, v in os.environ.items() if k not in ("FEM_JIT", "FEM_NO_JIT")}
    env["FEM_JIT_BACKGROUND"] = "0"
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PACKAGE.parent)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    try:
        with log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "fem", "compile", "--background"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                start_new_session=True, close_fds=True,
                preexec_fn=(lambda: os.nice(19)) if hasattr(os, "nice") else None)
    except OSError:
        return False
    _state["background"] = proc
    return True


@contextlib.contextmanager
def compile_lock() -> Iterator[bool]:
    """Hold the cache's compile lock (this process's id in ``compile.lock``); yields
    whether it was taken (False: another live process holds it)."""
    lock = _lock_path()
    lock.parent.mkdir(parents=True, exist_ok=True)
    try:
        other = int(lock.read_text().split()[0])
    except (ValueError, OSError, IndexError):
        other = 0
    if other and other != os.getpid() and _alive(other):
        yield False
        return
    lock.write_text(f"{os.getpid()}\n")
    try:
        yield True
    finally:
        with contextlib.suppress(OSError):
            if lock.read_text().split()[0] == str(os.getpid()):
                lock.unlink()


# -- compile time ----------------------------------------------------------------------------

_clock: dict = {"total": 0.0, "depth": 0, "start": 0.0, "ticker": None}
_listeners: list[Callable[[str, float], None]] = []
TICK_S = 5.0
"""Seconds between two lines of "compiling kernels (once)" while compiling."""


_per_kernel: dict[str, float] = {}


def compile_report() -> dict[str, float]:
    """Seconds spent compiling each kernel in this process (``module.function``; a
    kernel's time includes the kernels it calls that were compiled with it)."""
    return dict(sorted(_per_kernel.items(), key=lambda kv: -kv[1]))


def compile_seconds() -> float:
    """Seconds this process spent compiling kernels so far (outermost compiles only;
    loading compiled code from the cache is not compiling)."""
    extra = time.perf_counter() - _clock["start"] if _clock["depth"] else 0.0
    return _clock["total"] + extra


def clock() -> float:
    """A clock for wall times that exclude compiling: ``time.perf_counter()`` less
    :func:`compile_seconds` (the difference of two readings is the time spent on
    everything but compiling kernels)."""
    return time.perf_counter() - compile_seconds()


def decided() -> str | None:
    """The path this process took, or None when no kernel was asked for yet (then only
    NumPy forms ran)."""
    return _state["path"]


def compiling() -> bool:
    """Whether a kernel is being compiled now."""
    return _clock["depth"] > 0


def on_compile(callback: Callable[[str, float], None]) -> Callable[[], None]:
    """Call ``callback(event, seconds)`` when compiling starts ("start"), every
    :data:`TICK_S` while it goes on ("tick") and when it ends ("end"); returns the
    function that removes it."""
    _listeners.append(callback)

    def remove() -> None:
        with contextlib.suppress(ValueError):
            _listeners.remove(callback)

    return remove


def _notify(event: str, seconds: float) -> None:
    for cb in list(_listeners):
        with contextlib.suppress(Exception):
            cb(event, seconds)


def _tick(stop: threading.Event, t0: float) -> None:
    while not stop.wait(TICK_S):
        _notify("tick", time.perf_counter() - t0)


def _watch_compiles(numba: ModuleType) -> None:
    from numba.core import event

    class Clock(event.Listener):
        def on_start(self, ev):
            _clock.setdefault("starts", []).append(time.perf_counter())
            _clock["depth"] += 1
            if _clock["depth"] == 1:
                _clock["start"] = time.perf_counter()
                stop = threading.Event()
                threading.Thread(target=_tick, args=(stop, _clock["start"]),
                                 daemon=True).start()
                _clock["ticker"] = stop
                _notify("start", 0.0)

        def on_end(self, ev):
            took = time.perf_counter() - _clock["starts"].pop()
            disp = (ev.data or {}).get("dispatcher")
            func = getattr(disp, "py_func", None)
            if func is not None:
                key = f"{func.__module__}.{func.__name__}"
                _per_kernel[key] = _per_kernel.get(key, 0.0) + took
            _clock["depth"] -= 1
            if _clock["depth"] == 0:
                took = time.perf_counter() - _clock["start"]
                _clock["total"] += took
                if _clock["ticker"] is not None:
                    _clock["ticker"].set()
                _notify("end", took)

    event.register("numba:compile", Clock())


@contextlib.contextmanager
def bar_while_compiling(bar) -> Iterator[None]:
    """While kernels compile inside the block, a tqdm progress ``bar`` reads "compiling
    kernels (once)" with the time it has taken and no step rate or ETA; it is restored
    when compiling ends."""
    saved: dict = {}

    def show(event: str, seconds: float) -> None:
        if event == "start":
            saved.update(desc=bar.desc, fmt=bar.bar_format)
            bar.bar_format = "{desc} {elapsed}"
            bar.set_description_str("compiling kernels (once)", refresh=True)
        elif event == "tick":
            bar.refresh()
        elif event == "end" and saved:
            bar.bar_format = saved["fmt"]
            bar.set_description_str(saved["desc"], refresh=False)
            bar.start_t += seconds        # the steps' rate and ETA without the compiling
            bar.refresh()

    remove = on_compile(show)
    try:
        yield
    finally:
        remove()


def _say(line: str) -> None:
    """A line on stderr, above a progress bar when one is shown."""
    if "tqdm" in sys.modules:
        from tqdm import tqdm

        tqdm.write(line, file=sys.stderr)
    else:
        print(line, file=sys.stderr, flush=True)


def _log_line(event: str, seconds: float) -> None:
    """The default report on stderr: a line when a process first compiles, one every
    :data:`TICK_S` while a compile goes on (a log of a long compile is never silent) and
    one when a long compile ends."""
    if event == "start" and not _clock.get("said"):
        _clock["said"] = True
        _say("fem: compiling kernels (once) …")
    elif event == "tick":
        _say(f"fem: compiling kernels (once) … {compile_seconds():.0f} s")
    elif event == "end" and seconds >= TICK_S:
        _say(f"fem: compiling kernels (once) … {compile_seconds():.0f} s, done")


on_compile(_log_line)
