"""One sweep point, as a worker runs it: the case run of ``fem run`` (through
:func:`fem.cases.run_case`) into the point's folder, then a done marker.

The marker ``done.json`` is written atomically *after* ``summary.json``, so a folder with
a marker is a complete run and a folder without one (a killed worker, Ctrl-C, a failure)
is rerun from scratch on resume.  A failing point leaves ``error.json`` with the message
and traceback; the exception does not leave the task, so the other points go on.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
import traceback
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..core.errors import ModelError
from ..solvers.results import jsonable

__all__ = ["PointTask", "run_point", "read_done", "DONE", "ERROR"]

DONE = "done.json"
ERROR = "error.json"


@dataclass(frozen=True)
class PointTask:
    """What is sent to a worker: names and numbers only, never a model.

    Attributes
    ----------
    case : str
        Case name.
    case_dir : str or None
        Folder the driver found the case in; used when the worker does not find the case
        by name (a shared filesystem).
    name : str
        The point's folder name.
    params : dict
        All parameters of the point (swept and fixed), typed.
    folder : str or None
        Output folder of the point; None writes nothing (in-memory sweeps).
    """

    case: str
    case_dir: str | None
    name: str
    params: dict = field(default_factory=dict)
    folder: str | None = None


def _plain(params: dict):
    return json.loads(json.dumps(jsonable(params)))


def read_done(folder: str | Path | None, params: dict, case: str | None = None
              ) -> dict | None:
    """The point's summary if ``folder`` holds a complete run of these parameters (and,
    given ``case``, of that case: a point of another case with the same parameters is
    not this one's)."""
    if folder is None:
        return None
    folder = Path(folder)
    try:
        marker = json.loads((folder / DONE).read_text())
        if marker.get("parameters") != _plain(params):
            return None
        summary = json.loads((folder / "summary.json").read_text())
        if case is not None and case != summary.get("case", case):
            return None
        return summary
    except (OSError, ValueError, AttributeError):
        return None


def _write_atomic(path: Path, data: dict) -> None:
    from ..core.files import atomic_write_text

    atomic_write_text(path, json.dumps(jsonable(data), indent=1))


def _make_case_findable(case: str, case_dir: str | None) -> None:
    from ..cases import available_cases

    if case_dir is None or not Path(case_dir).is_dir():
        return
    found = available_cases().get(case)
    if found is not None and found.parent == Path(case_dir).resolve():
        return
    dirs = os.environ.get("FEM_CASES", "")
    os.environ["FEM_CASES"] = case_dir + (os.pathsep + dirs if dirs else "")


def run_point(task: PointTask) -> dict:
    """Run one point (on a worker or in this process) and describe how it went.

    Returns
    -------
    dict
        ``name``, ``status`` ("done", "skipped": complete before, or "failed"),
        ``figures`` (the run's summary), ``error`` and ``traceback`` for failures,
        ``wall_s``; ``host``, ``pid`` and ``fem`` (package folder) of the process that
        ran it.
    """
    from ..cases import run_case
    from ..core.threads import single_thread_blas
    from ..io.options import OPTIONS

    t0 = time.perf_counter()
    info = {"name": task.name, "host": socket.gethostname(), "pid": os.getpid(),
            "fem": str(Path(__file__).resolve().parents[1])}
    folder = Path(task.folder) if task.folder is not None else None
    if folder is not None:
        previous = read_done(folder, task.params, task.case)
        if previous is not None:
            return {**info, "status": "skipped", "figures": previous,
                    "wall_s": previous.get("wall_s")}
        if folder.exists():      # what an interrupted attempt left behind
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    saved = {f.name: getattr(OPTIONS, f.name) for f in fields(OPTIONS)}
    pending = list(OPTIONS.pending)
    try:
        _make_case_findable(task.case, task.case_dir)
        with single_thread_blas():
            summary = run_case(task.case, dict(task.params), folder, render=False,
                               progress=False)
        if summary["status"] == "interrupted":
            raise KeyboardInterrupt
        if summary["status"] == "failed":        # a ModelError of the run: summary written
            raise ModelError(summary["error"])
    except Exception as err:  # recorded, so that the other points go on
        error = f"{type(err).__name__}: {err}"
        tb = traceback.format_exc()
        if folder is not None:
            _write_atomic(folder / ERROR, {"error": error, "traceback": tb,
                                           "parameters": task.params, **info})
        return {**info, "status": "failed", "error": error, "traceback": tb,
                "wall_s": time.perf_counter() - t0}
    finally:   # run_case sets the output options; a serial sweep runs inside another run
        for name, value in saved.items():
            setattr(OPTIONS, name, value)
        OPTIONS.pending[:] = pending
    wall = time.perf_counter() - t0
    if folder is not None:
        _write_atomic(folder / DONE, {"parameters": task.params, "wall_s": wall,
                                      "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                                      **info})
    return {**info, "status": "done", "figures": jsonable(summary), "wall_s": wall}
