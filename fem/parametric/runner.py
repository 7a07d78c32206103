"""Running a sweep: points to tasks, tasks to Dask (or this process), results to a table.

Executors: by default an in-process Dask ``LocalCluster`` of worker processes (one thread
and one BLAS thread each); an existing cluster by scheduler address or ``Client``; or
``client="serial"``, the same point function called here one point after another (no
Dask needed).  Only :class:`~fem.parametric.point.PointTask` objects — names and numbers —
travel to the workers; each worker builds its own model.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import ModelError
from ..solvers.results import jsonable
from .grid import expand, point_names, varying
from .point import ERROR, PointTask, read_done, run_point
from .table import history_rows, parse_plot, plot_figure, table_rows, to_frame, write_table

__all__ = ["sweep", "SweepResult", "PointOutcome", "SweepInterrupted"]

_NO_DASK = ('sweeping on Dask workers needs the dask extra: pip install -e ".[dask]" in the '
            'source checkout (pip install "fem[dask]" otherwise); or run the points here, one '
            'after another, with `fem sweep --serial` (client="serial")')


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a sweep: the table of the points finished so far was
    written (``result``, ``message``); a rerun resumes from them."""

    def __init__(self, message: str, result: SweepResult, signal_name: str | None = None):
        super().__init__(message)
        self.message, self.result, self.signal_name = message, result, signal_name


@dataclass
class PointOutcome:
    """How one point went: ``status`` is "done" (ran now), "skipped" (complete from an
    earlier run) or "failed" (``error`` says why)."""

    name: str
    params: dict
    status: str
    figures: dict | None = None
    error: str | None = None
    folder: Path | None = None
    wall_s: float | None = None
    host: str | None = None


@dataclass
class SweepResult:
    """Every point of a sweep, in grid order, and where the files went."""

    case: str
    swept: list[str]
    points: list[PointOutcome]
    out: Path | None = None
    wall_s: float = 0.0
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    dashboard: str | None = None

    @property
    def counts(self) -> dict[str, int]:
        """Number of points per status: ``done`` (ran now), ``skipped``, ``failed``."""
        out = {"done": 0, "skipped": 0, "failed": 0}
        for p in self.points:
            out[p.status] += 1
        return out

    @property
    def failures(self) -> list[PointOutcome]:
        return [p for p in self.points if p.status == "failed"]

    def rows(self) -> list[dict]:
        """The table as a list of dicts (see :func:`fem.parametric.table.table_rows`)."""
        return table_rows(self.points, self.swept)

    @property
    def table(self):
        """The table as a pandas DataFrame (needs ``pip install "fem[dask]"``)."""
        if importlib.util.find_spec("pandas") is None:
            raise ModelError('SweepResult.table needs pandas: pip install "fem[dask]" '
                             "(or use SweepResult.rows())")
        return to_frame(self.rows())

    def _overview(self) -> list[tuple[str, str]]:
        n = self.counts
        lines = [("points", f"{len(self.points)} over {', '.join(self.swept) or '-'}"),
                 ("status", f"done {n['done']}, skipped {n['skipped']} (complete before), "
                            f"failed {n['failed']}"),
                 ("wall time", f"{self.wall_s:.1f} s")]
        if self.out is not None:
            lines.append(("folder", str(self.out)))
        lines += [(f"failed {p.name}", str(p.error)[:120]) for p in self.failures[:3]]
        return lines

    def __repr__(self) -> str:
        from ..core.display import text

        return text(f"fem SweepResult {self.case!r}", self._overview())

    def _repr_html_(self) -> str:
        from ..core.display import html

        rows = self.rows()
        header = list(dict.fromkeys(k for r in rows for k in r if k != "error"))[:12]
        body = [[_short_cell(r.get(k)) for k in header] for r in rows[:30]]
        if len(rows) > 30:
            body.append(["…"] * len(header))
        return html(f"fem SweepResult {self.case!r}", self._overview(), (header, body))

    def figures(self, **params) -> dict:
        """Summary of the point with these parameter values (e.g. ``E_Pa=2e8``)."""
        match = [p for p in self.points
                 if all(p.params.get(k) == v for k, v in params.items())]
        if len(match) != 1:
            raise ModelError(f"{len(match)} points match {params}; give values that pick "
                             f"one point of {self.swept}")
        if match[0].status == "failed":
            raise ModelError(f"point {match[0].name} failed: {match[0].error}")
        return match[0].figures


def _short_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)[:40]


def _dashboard(client) -> str | None:
    try:
        if "dashboard" in client.scheduler_info().get("services", {}):
            return client.dashboard_link
    except Exception:  # a dashboard is a convenience, never a reason to fail
        return None
    return None


@contextlib.contextmanager
def _dask_client(client, workers: int | None, n_tasks: int) -> Iterator:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ModelError(_NO_DASK) from None
    if isinstance(client, Client):
        yield client
        return
    if isinstance(client, str):
        try:
            c = Client(client, timeout="20s")
        except (OSError, ValueError, TypeError) as err:
            raise ModelError(f"cannot reach the Dask scheduler at {client}: {err}; start "
                             "one with `dask scheduler` (see docs/sweep.md)") from None
        with c:
            yield c
        return
    if client is not None:
        raise ModelError(f"client must be None, 'serial', a scheduler address or a "
                         f"distributed.Client; got {client!r}")
    n = workers or max(1, min(os.cpu_count() or 1, n_tasks))
    root = str(Path(__file__).resolve().parents[2])     # workers import this same fem
    path = os.pathsep.join([root] + [p for p in os.environ.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    env = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONPATH": path}
    dashboard = ":0" if importlib.util.find_spec("bokeh") else None
    import logging

    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                      dashboard_address=dashboard, env=env,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as c:
        yield c


def _execute(tasks: list[PointTask], client, workers: int | None,
             on_result: Callable[[PointTask, dict], None],
             on_start: Callable[[str | None], None]) -> None:
    if isinstance(client, str) and client == "serial":
        on_start(None)
        for t in tasks:
            on_result(t, run_point(t))
        return
    with _dask_client(client, workers, len(tasks)) as c:
        from distributed import as_completed

        on_start(_dashboard(c))
        token = uuid.uuid4().hex[:8]
        futures = {c.submit(run_point, t, key=f"fem-point-{token}-{t.name}", pure=False): t
                   for t in tasks}
        killed: list[PointTask] = []

        def report(t: PointTask, fut, retry: bool) -> None:
            try:
                res = fut.result()
            except Exception as err:   # e.g. KilledWorker: the point crashed workers
                if type(err).__name__ == "KilledWorker" and not retry:
                    # the culprit, or a point queued on the workers the culprit killed:
                    # decided below, each alone
                    killed.append(t)
                    return
                res = {"name": t.name, "status": "failed",
                       "error": f"{type(err).__name__}: {err}"}
                if t.folder is not None and Path(t.folder).is_dir():
                    (Path(t.folder) / ERROR).write_text(json.dumps(jsonable(
                        {"error": res["error"], "parameters": t.params}), indent=1))
            on_result(t, res)

        try:
            # each result is let go once reported: a result the scheduler still holds is
            # recomputed when its worker dies (a point that kills its worker, later on
            # the same worker), and the rerun would clear the reported point's folder
            for fut in as_completed(list(futures)):
                report(futures.pop(fut), fut, retry=False)
                fut.release()
            for t in killed:         # one at a time: bystanders finish, culprits fail
                fut = c.submit(run_point, t, key=f"fem-point-{token}-{t.name}-alone",
                               pure=False)
                futures[fut] = t
                report(futures.pop(fut), fut, retry=True)
                fut.release()
        except BaseException:
            c.cancel(list(futures))
            raise


def _check_client(client) -> None:
    """None, "serial", a scheduler address (``tcp://host:8786``, ``host:8786``) or a
    ``distributed.Client``; a string that is none of these is refused before anything
    runs (Dask would wait for a scheduler that cannot exist)."""
    import re

    if client is None or (isinstance(client, str) and client == "serial"):
        return
    if isinstance(client, str):
        address = re.compile(r"^(?:(tcp|tls|inproc|ucx|ws|wss)://)?"
                             r"(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.\-_]+)(?::(\d{1,5}))?/?$")
        m = address.match(client.strip())
        if not m or not (m.group(1) or m.group(3)) or (m.group(3) and int(m.group(3)) > 65535):
            raise ModelError(f"--scheduler must be a Dask scheduler address such as "
                             f"tcp://host:8786 or host:8786; got {client!r} (start one with "
                             f"`dask scheduler`, or use --serial)")
        return
    if type(client).__name__ != "Client":
        raise ModelError(f"client must be None, 'serial', a scheduler address or a "
                         f"distributed.Client; got {client!r:.80}")


def _typed_or_raw(module, key: str, value):
    from ..cases import parse_params

    try:
        return parse_params(module, {key: value})[key]
    except ModelError:
        return value


def _check_resume(out: Path, case: str) -> None:
    """A sweep folder resumed must hold a sweep of the same case (its ``sweep.json``);
    else its points would be taken as this sweep's.  Each point is then resumed only
    with the same parameters (:func:`~fem.parametric.point.read_done`)."""
    try:
        before = json.loads((out / "sweep.json").read_text())
    except FileNotFoundError:
        if (out / "points").is_dir() and any((out / "points").iterdir()):
            raise ModelError(f"sweep --out {out} holds points/ but no sweep.json: not "
                             "a sweep folder this version can resume; choose another --out "
                             "or remove it") from None
        return
    except (OSError, ValueError) as err:
        raise ModelError(f"sweep --out {out}: its sweep.json is unreadable ({err}); choose "
                         "another --out or remove it") from None
    if not isinstance(before, dict):
        raise ModelError(f"sweep --out {out}: its sweep.json is not a sweep's; choose "
                         "another --out or remove it")
    if before.get("case") != case:
        raise ModelError(f"sweep --out {out} holds a sweep of case {before.get('case')!r}; "
                         f"this sweep is of {case!r}: resuming would take that case's points "
                         "as this one's; choose another --out")


def sweep(case: str, grid: Mapping | Sequence[Mapping], client=None, *,
          out: str | Path | None = None, mode: str = "grid", workers: int | None = None,
          plot: Sequence[str | tuple[str, str]] = (), progress: bool = True) -> SweepResult:
    """Run a case over a grid of parameters, each point one ``fem run`` on a Dask worker.

    Parameters
    ----------
    case : str
        Case name (``fem list``).
    grid : dict or list of dicts
        ``{"E_Pa": [2e8, 7e10], "payload_kg": [6, 10], "analysis": "circle"}``: lists are
        swept, single values fixed; strings are parsed like ``-p`` values.  A list of
        dicts gives the points explicitly.
    client : None, "serial", str or distributed.Client
        None: a LocalCluster of ``workers`` processes for this sweep.  An address
        (``"tcp://host:8786"``) or a Client: an existing cluster.  ``"serial"``: here,
        one point after another.
    out : str or Path, optional
        Sweep folder: ``points/<name>/`` per point (the outputs of ``fem run``),
        ``table.csv``/``table.parquet``, ``sweep.json`` and plots.  Points complete from
        an earlier run are skipped (resume).  None: nothing is written, nothing resumed.
    mode : "grid" or "zip"
        Every combination, or the i-th values together.
    workers : int, optional
        LocalCluster size (None or 0: cores, at most the number of points; a negative
        number is refused).
    plot : list of "figure:parameter"
        Plots written to ``out/plots/``.
    progress : bool
        Progress bar over points.

    Returns
    -------
    SweepResult
    """
    from ..cases import available_cases, load_case, parse_params
    from ..core.validate import choice, integer

    t0 = time.perf_counter()
    mode = choice(mode, ("grid", "zip"), "sweep: mode")
    if workers is not None:
        workers = integer(workers, "sweep: workers (--workers, local worker processes; 0: "
                          "as many as cores)", minimum=0, maximum=1024) or None
    _check_client(client)
    if not isinstance(plot, list | tuple):
        raise ModelError(f"sweep: plot is a list of 'figure:parameter'; got {plot!r:.80}")
    module = load_case(case)
    case_dir = str(available_cases()[case].parent) if case in available_cases() else None
    raw = expand(grid, module.PARAMS, mode)
    typed, invalid = [], []
    for p in raw:
        try:
            typed.append(parse_params(module, dict(p)))
            invalid.append(None)
        except ModelError as err:      # this point fails; the others run
            typed.append({k: _typed_or_raw(module, k, v) for k, v in p.items()})
            invalid.append(f"ModelError: {err}")
    swept = varying(typed)
    plots = [parse_plot(s) for s in plot]
    for _, param in plots:
        if param not in swept:
            raise ModelError(f"--plot: {param!r} is not a swept parameter "
                             f"(swept: {', '.join(swept) or 'none'})")
    names = point_names(typed, swept)
    out = Path(out) if out is not None else None
    if out is not None:
        from ..core.files import atomic_write_text, writable_folder

        writable_folder(out, "sweep --out")
        _check_resume(out, case)
        atomic_write_text(out / "sweep.json", json.dumps(jsonable({
            "case": case, "mode": mode, "swept": swept,
            "points": [{"name": n, "parameters": p} for n, p in zip(names, typed, strict=True)],
        }), indent=1))
    outcomes: dict[str, PointOutcome] = {}
    tasks = []
    for name, params, error in zip(names, typed, invalid, strict=True):
        folder = out / "points" / name if out is not None else None
        if error is not None:
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
                (folder / ERROR).write_text(json.dumps(jsonable(
                    {"error": error, "parameters": params}), indent=1))
            outcomes[name] = PointOutcome(name, params, "failed", error=error, folder=folder)
            continue
        previous = read_done(folder, params, case)
        if previous is not None:
            outcomes[name] = PointOutcome(name, params, "skipped", previous, folder=folder,
                                          wall_s=previous.get("wall_s"))
            continue
        tasks.append(PointTask(case, case_dir, name, params,
                               str(folder) if folder is not None else None))

    bar = None
    result = SweepResult(case, swept, [], out)

    def on_start(dashboard):
        nonlocal bar
        from tqdm.auto import tqdm

        result.dashboard = dashboard
        bar = tqdm(total=len(raw), initial=len(raw) - len(tasks), unit="point",
                   desc=f"sweep {case}", disable=not progress, dynamic_ncols=True)
        if dashboard and progress:
            bar.write(f"Dask dashboard: {dashboard}")

    def on_result(task, res):
        # a submitted point that comes back "skipped" was completed during this sweep by an
        # earlier attempt whose result died with its worker (Dask reran the task)
        status = "done" if res["status"] == "skipped" else res["status"]
        outcomes[task.name] = PointOutcome(
            task.name, task.params, status, res.get("figures"), res.get("error"),
            Path(task.folder) if task.folder else None, res.get("wall_s"), res.get("host"))
        bar.update(1)
        failed = sum(o.status == "failed" for o in outcomes.values())
        if failed:
            bar.set_postfix(failed=failed)

    try:
        if tasks:
            _execute(tasks, client, workers, on_result, on_start)
    except KeyboardInterrupt as err:
        # keep what finished: the table of the points done so far (a rerun resumes)
        if bar is not None:
            bar.close()
        result.points = [outcomes[n] for n in names if n in outcomes]
        result.wall_s = time.perf_counter() - t0
        n_left = len(names) - len(result.points)
        where = ""
        if out is not None:
            try:
                result.files += write_table(result.rows(), out,
                                            history_rows(result.points, swept))
                where = f"; table of the {len(result.points)} finished points: {out / 'table.csv'}"
            except OSError as werr:
                where = f"; the table could not be written ({werr.strerror or werr})"
        raise SweepInterrupted(f"{len(result.points)} of {len(names)} points finished, "
                               f"{n_left} not run{where}; rerun the same command to resume",
                               result, getattr(err, "signal_name", None)) from None
    finally:
        if bar is not None:
            bar.close()
    result.points = [outcomes[n] for n in names]
    result.wall_s = time.perf_counter() - t0
    if out is not None:
        rows = result.rows()
        result.files += write_table(rows, out, history_rows(result.points, swept))
        for fig, param in plots:
            (out / "plots").mkdir(exist_ok=True)
            try:
                result.files.append(plot_figure(rows, fig, param, swept,
                                                out / "plots" / f"{fig}_vs_{param}.png"))
            except ModelError as err:
                result.notes.append(f"plot {fig}:{param} not written: {err}")
    return result
