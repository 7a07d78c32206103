"""Work done beside the run: one worker process that takes independent work off a run's
critical path on a machine with two cores or more — history plots (matplotlib's text
layout costs a third of a second a plot), a reference model's run (the flagship's rigid
robot while the flexible one is solved).

``fem run`` allows it (:func:`allow`; ``FEM_BESIDE=0`` does not) and forks the worker
when it starts, so that it loads matplotlib and the case while the run builds and
solves; everywhere else (tests, notebooks, sweeps on Dask workers, a machine with one
core) :func:`call` runs the work at once in the calling process, with the same result
to the bit: the worker is a fork of the run, with the same code and inputs and one BLAS
thread.  What the worker is given is checked by the caller first, so that bad input is
refused where it was given.  :func:`drain` finishes all work — what the worker has not
started is done in the run's own process — and raises the first error one met; ``fem
run`` calls it before ``summary.json`` lists the run's files.  A run that is
interrupted :func:`abandon`\\ s what is not done yet (no half-written file: plots are
written under a temporary name and renamed when complete).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

__all__ = ["allow", "allowed", "call", "collect", "drain", "abandon", "pending", "usable",
           "on_settle", "share", "shared", "knows", "refork"]

_POOL: Any = None
_PLOTTER: Any = None      # the first worker, kept for the plots when the worker was forked again
_JOBS: list = []
_SETTLE: list = []
_BATCH: list = []
_ALLOWED = False
_SHARED: list = []        # objects of the run the worker may be given by number (share)
_FORKED_WITH = 0          # how many of them the worker has: those shared before its fork
_WAITING: Any = None      # set when the run waits for its worker: the worker stops preloading

BATCH_SIZE = 4
"""Batched work (:func:`call` with ``batch=True``) is handed on in groups of this many:
the worker does each group in two processes (itself and a fork of itself, which has its
imports loaded already), so that the run's plots, handed on when the solve ends and the
run's own process waits, take both cores."""


def allow(flag: bool, preload: Callable[[], object] | None = None) -> None:
    """Let :func:`call` use the worker (``fem run`` does, where :func:`usable`), and fork
    it now: while the run builds and solves, the worker imports what plots need and
    calls ``preload`` (``fem run``: loads the case, so that the case's own functions can
    be handed to it)."""
    global _ALLOWED
    _ALLOWED = bool(flag) and usable() and os.environ.get("FEM_BESIDE", "1") != "0"
    if _ALLOWED:
        _pool(preload).submit(int)         # a first job: the worker starts at once


def _pool(preload: Callable[[], object] | None = None):
    global _POOL, _FORKED_WITH, _WAITING
    if _POOL is None:
        _FORKED_WITH = len(_SHARED)
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        _quiet_cancelled_work()
        context = multiprocessing.get_context("fork")
        if _WAITING is None:
            _WAITING = context.Event()
        _POOL = ProcessPoolExecutor(max_workers=1, initializer=_start_child,
                                    # a worker forked again leaves the plots to the
                                    # first one (_PLOTTER), which has matplotlib loaded
                                    initargs=(preload, _PLOTTER is None, _WAITING),
                                    mp_context=context)
    return _POOL


def _quiet_cancelled_work() -> None:
    """Python 3.11's process pool, when its worker is terminated, sets an error on every
    piece of work still waiting, those cancelled too, and so raises ``InvalidStateError``
    in its manager thread (CPython issue gh-107219; later versions ignore it there).
    :func:`abandon` terminates the worker with work cancelled (taken back, or not wanted
    any more): nothing is lost, and the thread's traceback, printed at the end of a run,
    would only alarm.  The thread hook lets that one exception of that thread pass and
    hands every other on."""
    import threading

    if sys.version_info >= (3, 12) or getattr(threading.excepthook, "_fem_beside", False):
        return
    from concurrent.futures import InvalidStateError

    previous = threading.excepthook

    def hook(args):
        if (args.exc_type is not None and issubclass(args.exc_type, InvalidStateError)
                and type(args.thread).__name__ == "_ExecutorManagerThread"):
            return
        previous(args)

    hook._fem_beside = True
    threading.excepthook = hook


def share(obj: Any) -> int:
    """Number ``obj`` (a run's drawing, say) for work beside the run: a worker forked
    after this has it (:func:`knows`), and work handed to it names it by that number
    (:func:`shared`) instead of sending it.  -1 (known to no worker) where work is not
    handed on (:func:`allowed`): nothing is kept."""
    if not _ALLOWED:
        return -1
    _SHARED.append(obj)
    return len(_SHARED) - 1


def shared(key: int) -> Any:
    """In the worker (or here): the object :func:`share` numbered ``key``."""
    return _SHARED[key]


def knows(key: int) -> bool:
    """Whether the worker was forked after ``key`` was shared (so it has that object)."""
    return _ALLOWED and _POOL is not None and 0 <= key < _FORKED_WITH


def refork() -> bool:
    """Start the worker again, as a fork of this process as it is now — with the run's
    model built, its compiled kernels loaded and its shared objects (:func:`share`) —
    when it has no work: work handed on afterwards needs neither load again what the
    run has loaded (a second of imports and kernels for the flagship's rigid robot) nor
    be sent what the run has built (its drawing: the frames of a series are then made in
    the worker from the states alone).  The first worker stays, idle, for the plots:
    it has matplotlib loaded (half a second to import in the new one).  Returns whether
    it did.  Not while work is pending; the caller does not ask while the worker
    prepares pictures (``fem run`` without ``--no-render``: the renderer it is loading
    would be lost)."""
    global _POOL, _PLOTTER
    if not _ALLOWED or _POOL is None or _JOBS or _BATCH:
        return False
    if _PLOTTER is None:                  # it has matplotlib loaded: it draws the plots
        _PLOTTER, _POOL = _POOL, None
    else:
        _shutdown_pool(_POOL, wait=False)
        _POOL = None
    _pool(None).submit(int)               # the new worker starts at once
    return True


def _load_plotting() -> None:
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.figure  # noqa: F401


def allowed() -> bool:
    """Whether :func:`call` hands work to the worker."""
    return _ALLOWED


def usable() -> bool:
    """Whether a worker would run beside the run: on systems with fork, with two cores
    or more for this process."""
    if not hasattr(os, "fork"):
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores >= 2


def _start_child(preload: Callable[[], object] | None, plotting: bool = True,
                 waiting: Any = None) -> None:
    """The worker leaves signals to the run that started it (Ctrl-C and SIGTERM reach the
    whole process group, and the run decides what happens to pending work), computes
    with one BLAS thread as the run's solvers do, and loads ahead what it will need:
    first ``preload``'s, then what may be needed later — the plots' matplotlib and the
    further stages ``preload`` returns (a list of callables: a movie's encoder) — one
    stage after the other, as long as the run does not wait for it (``waiting``, set by
    :func:`collect`): the work that arrives is not held up by loads it may not need (a
    snapshot's run that ends before its worker has loaded matplotlib for plots it has
    none of).  What work needs and was not loaded it imports itself.  A failure to load
    is left to the run's own process to report."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        from threadpoolctl import threadpool_limits

        global _BLAS_LIMIT
        _BLAS_LIMIT = threadpool_limits(1, "blas")
    except ImportError:                   # pragma: no cover - a dependency of scipy
        pass
    try:
        later = list((preload() if preload is not None else None) or ())
    except Exception:                     # noqa: BLE001 - the run reports its own errors
        later = []
    for stage in ([_load_plotting] if plotting else []) + later:
        if waiting is not None and waiting.is_set():
            break
        try:
            stage()
        except Exception:                 # noqa: BLE001
            pass


_BLAS_LIMIT: Any = None


class _Done:
    """The result of work done at once, with a future's ``result()``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value

    def done(self) -> bool:
        return True

    def succeeded(self) -> bool:
        return True


class _Job:
    """Work handed to the worker; :func:`drain` does it here instead when the worker has
    not started it (the run's own process is free by then)."""

    def __init__(self, future: Any, function: Callable, args: tuple,
                 needs: tuple[str, ...] = ()) -> None:
        self.future, self.function, self.args = future, function, args
        self.needs = needs
        self.count = len(args[1]) if function is _run_all else 1   # pieces of work
        self.local: _Done | None = None

    def worth_taking_back(self) -> bool:
        """Whether doing the work here could finish sooner than waiting for the worker:
        not when it needs a module this process has not loaded (matplotlib for a plot:
        a second of imports here, against a fifth of a second a plot in the worker,
        which has it loaded)."""
        return all(name in sys.modules for name in self.needs)

    def take_back(self) -> bool:
        """Do the work here if the worker has not started it; whether it was."""
        if self.local is None and self.future.cancel():
            self.local = _Done(self.function(*self.args))
        return self.local is not None

    def result(self) -> Any:
        return self.local.result() if self.local is not None else self.future.result()

    def done(self) -> bool:
        """Whether the work is finished (by the worker or here), well or not."""
        return self.local is not None or self.future.done()

    def succeeded(self) -> bool:
        """Whether the work is finished and raised nothing (without waiting)."""
        if self.local is not None:
            return True
        f = self.future
        return f.done() and not f.cancelled() and f.exception() is None


def call(function: Callable, *args: Any, needs: tuple[str, ...] = (), batch: bool = False):
    """``function(*args)`` in the worker when :func:`allowed` (started on first use), else
    at once here.  Returns an object whose ``result()`` gives the value (waiting for the
    worker, and raising what the work raised).  ``function`` must be importable by name
    (a module's function) and its arguments and value picklable.  ``needs``: modules the
    work imports that the worker loads ahead (``("matplotlib",)`` for a plot); the run
    does not take such work back while it has not loaded them itself (:func:`collect`).
    ``batch=True``: independent pieces of the same function (the plots) are handed on
    together, :data:`BATCH_SIZE` at a time or when one of them is collected or at the
    drain, and the worker does each group in two processes (other work handed on in
    between goes first: nothing waits for a plot)."""
    if not _ALLOWED:
        return _Done(function(*args))
    if batch:
        if _BATCH and _BATCH[0][0] is not function:
            _flush()
        item = _BatchItem()
        _BATCH.append((function, args, tuple(needs), item))
        if len(_BATCH) >= BATCH_SIZE:
            _flush()
        return item
    job = _Job(_pool().submit(function, *args), function, args, tuple(needs))
    _JOBS.append(job)
    return job


class _BatchItem:
    """One piece of batched work: its value is its place in its group's values."""

    def __init__(self) -> None:
        self.job: _Job | None = None
        self.index = 0

    def result(self) -> Any:
        _flush()
        return self.job.result()[self.index]

    def done(self) -> bool:
        return self.job is not None and self.job.done()

    def succeeded(self) -> bool:
        return self.job is not None and self.job.succeeded()


def _flush() -> None:
    """Hand the batched work on as one job (:func:`_split`)."""
    if not _BATCH:
        return
    group = list(_BATCH)
    _BATCH.clear()
    function, needs = group[0][0], group[0][2]
    arglist = [args for _, args, _, _ in group]
    pool = _PLOTTER if _PLOTTER is not None else _pool()
    job = _Job(pool.submit(_split, function, arglist), _run_all, (function, arglist),
               needs)
    for k, (*_, item) in enumerate(group):
        item.job, item.index = job, k
    _JOBS.append(job)


def _run_all(function: Callable, arglist: list) -> list:
    """The values of ``function`` over ``arglist``, one after the other."""
    return [function(*args) for args in arglist]


def _split(function: Callable, arglist: list) -> list:
    """In the worker: the values of ``function`` over ``arglist``, the second half done by
    a fork of the worker (which has matplotlib and the case loaded) at the same time;
    the first error met is raised."""
    import pickle

    if len(arglist) < 2 or not usable():
        return _run_all(function, arglist)
    half = (len(arglist) + 1) // 2
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                   # the helper: its half, then gone
        status = 0
        try:
            os.close(read)
            _die_with_parent()
            try:
                out = ("ok", _run_all(function, arglist[half:]))
            except BaseException as err:       # noqa: BLE001 - handed to the worker
                out = ("error", err)
            try:
                data = pickle.dumps(out)
            except Exception:                  # noqa: BLE001 - an unpicklable error
                data = pickle.dumps(("error", RuntimeError(repr(out[1]))))
            with os.fdopen(write, "wb") as f:
                f.write(data)
        except BaseException:                  # noqa: BLE001
            status = 1
        finally:
            os._exit(status)
    os.close(write)
    first: BaseException | None = None
    try:
        mine = _run_all(function, arglist[:half])
    except BaseException as err:               # noqa: BLE001 - raised after the helper's
        first, mine = err, []
    with os.fdopen(read, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    if first is not None:
        raise first
    if not data:
        raise RuntimeError("the helper process beside the worker stopped before its work "
                           "was done (killed, or out of memory)")
    kind, value = pickle.loads(data)
    if kind == "error":
        raise value
    return mine + value


def _die_with_parent() -> None:
    """Linux: the helper gets SIGTERM when the worker that forked it ends (a run that is
    abandoned stops the worker; its helper must not go on writing into the folder)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)              # PR_SET_PDEATHSIG
    except (OSError, AttributeError):              # pragma: no cover - not Linux
        pass


def pending() -> int:
    """How many pieces of work handed to the worker are not collected by :func:`drain`."""
    return sum(job.count for job in _JOBS) + len(_BATCH)


def collect(jobs: list, take_back: bool = True) -> list:
    """Finish these pieces of work (from :func:`call`) and give their values, in order:
    what the worker has not started is done here, the last first, while it finishes the
    rest (as :func:`drain` does for all); raises the first error one met.  With
    ``take_back=False`` the worker does it all (work it has prepared for, the pictures)."""
    if _WAITING is not None:
        _WAITING.set()                    # the run waits: the worker stops loading ahead
    if any(isinstance(job, _BatchItem) and job.job is None for job in jobs):
        _flush()                          # only for the batch asked for: a group stays whole
    mine: list[_Job] = []
    for job in jobs:
        job = job.job if isinstance(job, _BatchItem) else job
        if isinstance(job, _Job) and all(job is not m for m in mine):
            mine.append(job)
    _JOBS[:] = [job for job in _JOBS if all(job is not m for m in mine)]
    first: BaseException | None = None
    for job in reversed(mine if take_back else []):
        if not job.worth_taking_back():
            continue                       # the worker gets to it sooner
        try:
            if not job.take_back():
                break                      # the worker has started this one and all before
        except BaseException as err:       # noqa: BLE001 - re-raised below, the first one
            first = first or err
    values = []
    for job in jobs:
        try:
            values.append(job.result())
        except BaseException as err:       # noqa: BLE001
            first = first or err
            values.append(None)
    if first is not None:
        raise first
    return values


def on_settle(callback: Callable[[], object]) -> None:
    """Call ``callback()`` once the work beside the run is over: after :func:`drain` has
    finished it all, or after :func:`abandon` has stopped the worker (then ``callback``
    does here what must not be lost of the work not done: a series' frames computed but
    not written)."""
    if all(callback is not c for c in _SETTLE):
        _SETTLE.append(callback)


def _settle(strict: bool = True) -> None:
    """Run the :func:`on_settle` callbacks; ``strict=False`` (an abandoned run, which is
    failing already): each does what it can, and its error does not hide the run's."""
    callbacks = list(_SETTLE)
    _SETTLE.clear()
    first: BaseException | None = None
    for callback in callbacks:
        try:
            callback()
        except Exception as err:          # noqa: BLE001 - the first is raised when strict
            first = first or err
    if first is not None and strict:
        raise first


def drain() -> float:
    """Finish all work handed to the worker — what it has not started is done here, the
    last first, while it finishes the rest — and raise the first error one met (a
    :class:`fem.ModelError` for a plot that could not be written).  Returns the seconds
    this took.  The worker stays for more work (a run's pictures) until
    :func:`abandon`."""
    t0 = time.perf_counter()
    first: BaseException | None = None
    _flush()
    try:
        collect(list(_JOBS))
    except BaseException as err:           # noqa: BLE001 - re-raised below, the first one
        first = err
    try:
        _settle()
    except BaseException as err:           # noqa: BLE001
        first = first or err
    if first is not None:
        from concurrent.futures.process import BrokenProcessPool

        if isinstance(first, BrokenProcessPool):
            from ..core.errors import ModelError

            raise ModelError("the worker beside the run stopped before its work was done "
                             "(killed, or out of memory); `fem run` again, or call "
                             "fem.core.beside.allow(False) to do all work in the run's "
                             "own process") from None
        raise first
    return time.perf_counter() - t0


def abandon() -> None:
    """Drop the work not done yet and stop the worker (an interrupted or failed run)."""
    _BATCH.clear()
    for job in _JOBS:
        job.future.cancel()
    _JOBS.clear()
    _shutdown(wait=False)
    _settle(strict=False)


def _shutdown(wait: bool) -> None:
    global _POOL, _PLOTTER, _WAITING
    (pool, _POOL), (plotter, _PLOTTER) = (_POOL, None), (_PLOTTER, None)
    _WAITING = None                       # the next run's worker loads ahead again
    _shutdown_pool(pool, wait)
    _shutdown_pool(plotter, wait)


def _shutdown_pool(pool, wait: bool) -> None:
    if pool is None:
        return
    if not wait:
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
    pool.shutdown(wait=wait, cancel_futures=not wait)
