"""Results of a time integration: states, multipliers, residuals and named sensors.

A :class:`Result` can stream to a folder while it records: every ``chunk`` records are
written as ``chunk_NNNNN.npz`` (and the rest when the run finishes or fails).  Between two
chunks each record is also appended, as one raw float64 row, to ``chunk_NNNNN.part``
(its layout in ``part.json``), which is deleted once the chunk is written.  So a run that
is interrupted — Ctrl-C, an exception, even SIGKILL — leaves every recorded step readable
with :meth:`Result.load`; a damaged chunk file (a truncated copy, a full disk) is skipped
with a warning and the other chunks are still read.

Every run folder's ``result/`` is read by :meth:`Result.load`: a time series (dynamics,
inverse dynamics), one record (a static equilibrium), or — for a modal analysis — the
modes and their frequencies (:class:`Modes`, no times).  ``meta.json`` names the kind.
"""

from __future__ import annotations

import json
import math
import os
import time
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.errors import ModelError
from ..core.validate import FemWarning

__all__ = ["Result", "Modes", "jsonable"]

_STATE = ("t", "q", "v", "a", "lam")


class Result:
    """Time series of a run.

    Attributes (arrays after :meth:`finish`, one row per recorded step)
    ----------
    t : (n_steps,) times [s]
    q, v, a : (n_steps, n_dof) coordinates, velocities, accelerations
    lam : (n_steps, n_con) constraint multipliers
    stats : dict of (n_steps,) arrays — ``residual_dynamics`` (relative),
        ``residual_constraints`` (max |Φ|), ``residual_velocity`` (max |Φ_q q̇ + Φ_t|),
        ``iterations``, ``step_size``
    sensors : dict name -> (n_steps, ...) arrays recorded by sensor functions

    Parameters
    ----------
    sensors : dict name -> f(t, q, v, a, lam), recorded at every record
    info : dict of run metadata (kept in ``meta.json`` when streaming)
    directory : folder to stream chunks into (None: memory only)
    chunk : records per chunk file
    on_record : callback ``f(index, t, q, v, a, lam)`` after every record (VTK frames)
    """

    def __init__(self, sensors: dict[str, Callable] | None = None, info: dict | None = None,
                 directory: str | Path | None = None, chunk: int = 200,
                 on_record: Callable | None = None):
        from ..core.validate import SOLVER_OPTIONS, function, integer

        SOLVER_OPTIONS["sensors"](sensors, "Result: sensors")
        self._sensor_fns = dict(sensors or {})
        self._nonfinite_warned: set[str] = set()
        if info is not None and not isinstance(info, dict):
            raise ModelError(f"Result: info must be a dict; got {info!r:.60}")
        self.info = dict(info or {})
        if directory is not None and not isinstance(directory, str | os.PathLike):
            raise ModelError(f"Result: directory must be a path; got {directory!r:.60}")
        self.directory = None if directory is None else Path(directory)
        self.chunk = integer(chunk, "Result: chunk (records per chunk file)", minimum=1)
        self.on_record = None if on_record is None else function(on_record,
                                                                 "Result: on_record")
        self._rows: dict[str, list] = {k: [] for k in _STATE}
        self._stats: dict[str, list] = {}
        self._sens: dict[str, list] = {k: [] for k in self._sensor_fns}
        self._flushed = 0          # records already on disk
        self.expected_records = 0  # set by the solver when it knows (for output pacing)
        # what streams the run's frames (fem.io.output.stream sets them; None: written at
        # the end by fem.write_outputs, from the model's drawing)
        self.drawing = None
        self.writer = None
        self.write_seconds = 0.0   # wall time spent writing to disk (reported, never used)
        self._n_chunks = 0
        self._part_layout: list | None = None   # the arrays of the open .part file
        self._finished = False                  # finish() made the arrays
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
            for old in (*self.directory.glob("chunk_*.npz"),
                        *self.directory.glob("chunk_*.part")):
                old.unlink()
            self._write_meta(finished=False)

    # ------------------------------------------------------------- recording
    def record(self, t: float, q, v, a, lam, **stats) -> None:
        row = (_copy(q), _copy(v), _copy(a), _copy(lam))
        t = float(t)
        sensed = ([(k, self._sensed(k, fn, t, q, v, a, lam))
                   for k, fn in self._sensor_fns.items()] if self._sensor_fns else ())
        # everything computed first, then appended with the time last: an interrupt
        # (Ctrl-C, SIGTERM) between two appends leaves a row without its time, which
        # _complete() drops
        st = self._stats
        for k, val in stats.items():
            lst = st.get(k)
            if lst is None:
                st[k] = [val]
            else:
                lst.append(val)
        for k, val in sensed:
            self._sens[k].append(val)
        rows = self._rows
        rows["q"].append(row[0])
        rows["v"].append(row[1])
        rows["a"].append(row[2])
        rows["lam"].append(row[3])
        rows["t"].append(t)
        if self.directory is not None:
            t0 = time.perf_counter()
            self._append_part()
            self.write_seconds += time.perf_counter() - t0
        if self.on_record is not None:
            self.on_record(len(self) - 1, t, q, v, a, lam)
        if self.directory is not None and len(self) - self._flushed >= self.chunk:
            t0 = time.perf_counter()
            self.flush()
            self.write_seconds += time.perf_counter() - t0

    def _sensed(self, name: str, fn: Callable, t: float, q, v, a, lam) -> np.ndarray:
        """Sensor ``name``'s value at ``t``: numbers, of the shape of its first sample."""
        raw = fn(t, q, v, a, lam)
        if (type(raw) is float or type(raw) is np.float64) and math.isfinite(raw):
            first = self._sens.get(name)     # the usual sensor: one finite number
            if not first or np.ndim(first[0]) == 0:
                return raw
        val = np.asarray(raw)
        if val.dtype.kind not in "biufc":
            raise ModelError(f"sensor {name!r} returned {val.dtype} values at t = {t:g} s "
                             f"({_short_repr(val)}); a sensor returns numbers (a float or "
                             "an array of floats)")
        first = self._sens.get(name)
        if first and np.shape(first[0]) != val.shape:
            raise ModelError(f"sensor {name!r} returned shape {val.shape} at t = {t:g} s; "
                             f"its first sample had shape {np.shape(first[0])}: a sensor's "
                             "output keeps the shape of its first sample (pad with NaN, or "
                             "make one sensor per size)")
        if not np.all(np.isfinite(val)) and name not in self._nonfinite_warned:
            self._nonfinite_warned.add(name)    # once: a sensor may be undefined at times
            warnings.warn(f"sensor {name!r} returned non-finite values at t = {t:g} s "
                          f"({_short_repr(val)}); recorded as they are", FemWarning,
                          stacklevel=4)
        return val

    def latest_sensors(self) -> dict[str, np.ndarray]:
        """The sensors' values of the last record (empty before the first)."""
        return {k: vals[-1] for k, vals in self._sens.items() if vals}

    def record_steps(self, t, q, v, a, lam, stats: dict[str, list], rows) -> None:
        """Record the rows ``rows`` of a block of steps, as :meth:`record` does each in
        order: ``t`` (k,), ``q``, ``v``, ``a``, ``lam`` (k, ·) arrays the record keeps
        (nothing may write to them later), ``stats`` a list of k values per name."""
        rows = list(rows)
        if self._sensor_fns or self.directory is not None or self.on_record is not None:
            for i in rows:
                self.record(t[i], q[i], v[i], a[i], lam[i],
                            **{k: val[i] for k, val in stats.items()})
            return
        st = self._stats
        for k, val in stats.items():
            sel = [val[i] for i in rows]
            lst = st.get(k)
            if lst is None:
                st[k] = sel
            else:
                lst.extend(sel)
        R = self._rows
        for name, x in (("q", q), ("v", v), ("a", a), ("lam", lam)):
            R[name].extend([x[i] for i in rows])
        R["t"].extend([float(t[i]) for i in rows])     # last (see record)

    def _row_arrays(self, i: int) -> dict[str, np.ndarray]:
        """Record ``i`` as named float arrays (the same names as in a chunk file)."""
        out = {k: np.asarray(self._rows[k][i], dtype=float) for k in _STATE}
        out.update({f"stat:{k}": np.asarray(v[i]) for k, v in self._stats.items()})
        out.update({f"sensor:{k}": np.asarray(v[i]) for k, v in self._sens.items()})
        return out

    def _append_part(self) -> None:
        """Append the newest record to the current ``.part`` file (survives SIGKILL: the
        file is unbuffered, each row is in the operating system's hands once written)."""
        arrays = self._row_arrays(len(self) - 1)
        layout = [[k, list(v.shape)] for k, v in arrays.items() if v.dtype.kind in "biufc"]
        if layout != self._part_layout:
            if len(self) - 1 > self._flushed:    # the layout changed mid-chunk: close it
                self._part_layout = None
                self.flush(upto=len(self) - 1)
            self._part_layout = layout
            _atomic_text(self.directory / "part.json", json.dumps({"fields": layout}))
        row = np.concatenate([arrays[k].ravel() for k, _ in layout]).astype("<f8")
        self._part_file().write(row.tobytes())

    def _part_file(self):
        """The current chunk's ``.part`` file, open for appending (kept open between
        records: opening it for every record cost a third of the recording's time)."""
        path = self.directory / f"chunk_{self._n_chunks:05d}.part"
        fh = self.__dict__.get("_part_fh")
        if fh is None or fh.closed or fh.name != str(path):
            self._close_part()
            fh = self._part_fh = open(path, "ab", buffering=0)
        return fh

    def _close_part(self) -> None:
        fh = self.__dict__.pop("_part_fh", None)
        if fh is not None:
            fh.close()

    def __getstate__(self) -> dict:
        """A copy or pickle of a streaming result leaves the open ``.part`` file here."""
        state = dict(self.__dict__)
        state.pop("_part_fh", None)
        return state

    def __len__(self) -> int:
        return len(self._rows["t"])

    @property
    def kind(self) -> str:
        """``"time"`` (a time series) or ``"static"`` (one equilibrium record), from
        ``info["analysis"]``."""
        return "static" if self.info.get("analysis") == "static" else "time"

    def _complete(self) -> None:
        """Drop the last row if a record was interrupted half-way (appended to some lists
        but not yet to ``t``, the last one)."""
        lists = [*self._rows.values(), *self._sens.values()]
        n = min(len(v) for v in lists)
        for v in (*lists, *self._stats.values()):
            del v[n:]

    def flush(self, upto: int | None = None) -> None:
        """Write the records not yet in a chunk file as one chunk file."""
        self._complete()
        end = len(self) if upto is None else min(upto, len(self))
        if self.directory is None or end == self._flushed:
            return
        s = slice(self._flushed, end)
        arrays = {k: np.asarray(self._rows[k][s]) for k in _STATE}
        arrays.update({f"stat:{k}": np.asarray(v[s]) for k, v in self._stats.items()})
        arrays.update({f"sensor:{k}": np.asarray(v[s]) for k, v in self._sens.items()})
        _atomic_npz(self.directory / f"chunk_{self._n_chunks:05d}.npz", arrays)
        part = self.directory / f"chunk_{self._n_chunks:05d}.part"
        self._close_part()
        self._n_chunks += 1
        self._flushed = end
        if part.exists():
            part.unlink()
        if end < len(self):   # records after `upto` start the next part file
            rows = [self._row_arrays(i) for i in range(end, len(self))]
            layout = self._part_layout or []
            with open(self.directory / f"chunk_{self._n_chunks:05d}.part", "ab") as fh:
                for r in rows:
                    fh.write(np.concatenate([np.asarray(r[k], dtype=float).ravel()
                                             for k, _ in layout]).astype("<f8").tobytes())

    def _write_meta(self, finished: bool) -> None:
        from ..core.files import writer

        # the writer's identity: a reader tells a run still going from one that died
        meta = {"kind": self.kind, "info": jsonable(self.info), "finished": finished,
                "records": len(self), "writer": writer()}
        _atomic_text(self.directory / "meta.json", json.dumps(meta, indent=1))

    def finish(self) -> Result:
        """Turn the records into arrays (and flush the last chunk when streaming)."""
        self._complete()
        if self.directory is not None:
            self.flush()
            self._write_meta(finished=True)
        for k in _STATE:
            setattr(self, k, np.asarray(self._rows[k]))
        self.stats = {k: np.asarray(v) for k, v in self._stats.items()}
        self.sensors = {k: np.asarray(v) for k, v in self._sens.items()}
        self._finished = True
        return self

    # ------------------------------------------------------------ display
    def _overview(self) -> list[tuple[str, str]]:
        from ..core.display import span

        t = self._rows["t"]
        q = self._rows["q"]
        lam = self._rows["lam"]
        status = self.info.get("status") or ("finished" if self._finished else "recording")
        lines = [("steps", f"{len(self)} recorded, t = {span(t, 's')}"),
                 ("coordinates", str(np.size(q[0]) if q else 0)),
                 ("multipliers", str(np.size(lam[0]) if lam else 0)),
                 ("histories", ", ".join(self._sens) or "none (pass sensors=…)"),
                 ("status", status)]
        res = self._stats.get("residual_constraints")
        if res:
            lines.append(("max |Φ|", f"{float(np.max(np.abs(res))):.3g}"))
        if self.directory is not None:
            lines.append(("streamed to", str(self.directory)))
        return lines

    def __repr__(self) -> str:
        from ..core.display import text

        return text("fem.Result", self._overview())

    def _repr_html_(self) -> str:
        from ..core.display import html

        return html("fem.Result", self._overview())

    def histories(self, stats: bool = False) -> dict[str, np.ndarray]:
        """The recorded histories, name → array with one row per step: the sensors
        (``sensors=`` of the solver, e.g. ``{"tip_z_m": f}``) and, with ``stats``, the
        solver's per-step statistics (``residual_dynamics``, ``iterations``, …)."""
        self._complete()
        out = {k: np.asarray(v) for k, v in self._sens.items()}
        if stats:
            out.update({k: np.asarray(v) for k, v in self._stats.items() if k not in out})
        return out

    def to_dataframe(self, stats: bool = False):
        """The histories as a pandas DataFrame indexed by ``time_s``.

        One column per scalar history; a history with several values per step
        (``(n_steps, k)``) gives columns ``name[0]`` … ``name[k-1]``.  Column names keep
        their unit suffix (``tip_z_m``).

        Parameters
        ----------
        stats : bool
            Also the solver's per-step statistics (residuals, iterations, step size).

        Raises
        ------
        ImportError
            Without pandas, naming the extra that installs it.
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError('Result.to_dataframe needs pandas: pip install "fem[notebook]" '
                              "(or use Result.histories(), a dict of arrays)") from None
        columns: dict[str, np.ndarray] = {}
        n = len(self)
        for name, arr in self.histories(stats).items():
            arr = np.asarray(arr)
            if arr.ndim == 0 or len(arr) != n or not np.issubdtype(arr.dtype, np.number):
                continue
            flat = arr.reshape(n, -1)
            if arr.ndim == 1:
                columns[name] = arr
            else:
                columns.update({f"{name}[{j}]": flat[:, j] for j in range(flat.shape[1])})
        index = pd.Index(np.asarray(self._rows["t"][:n], dtype=float), name="time_s")
        return pd.DataFrame(columns, index=index)

    def plot(self, name: str, ax=None):
        """A history against time, as a matplotlib Figure with labelled axes.

        The unit comes from the name's suffix (``tip_z_m`` → "tip z [m]",
        :func:`fem.core.units.axis_label`); a history with several values per step draws one
        line each.

        Parameters
        ----------
        name : str
            A sensor or a solver statistic (``residual_constraints``, ``iterations``).
        ax : matplotlib Axes, optional
            Draw into it (its figure is returned); default a new figure.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from ..core.units import axis_label

        hist = self.histories(stats=True)
        if name not in hist:
            raise ModelError(f"Result.plot: no history {name!r}; recorded: "
                             f"{', '.join(hist) or 'none'}")
        y = np.asarray(hist[name], dtype=float).reshape(len(self), -1)
        t = np.asarray(self._rows["t"][: len(self)], dtype=float)
        if ax is None:
            from matplotlib.figure import Figure

            fig = Figure(figsize=(6.4, 3.6), layout="constrained")
            ax = fig.add_subplot()
        else:
            fig = ax.figure
        if y.shape[1] == 1:
            ax.plot(t, y[:, 0])
        else:
            for j in range(y.shape[1]):
                ax.plot(t, y[:, j], label=f"[{j}]")
            ax.legend(title=name, fontsize="small")
        ax.set_xlabel("time [s]")
        ax.set_ylabel(axis_label(name))
        ax.grid(True, alpha=0.3)
        return fig

    # ------------------------------------------------------------ save/load
    def save(self, path: str | Path) -> Path:
        """Save as one compressed ``.npz``."""
        self.finish()
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")     # what numpy would write
        arrays = {k: getattr(self, k) for k in _STATE}
        arrays.update({f"stat:{k}": v for k, v in self.stats.items()})
        arrays.update({f"sensor:{k}": v for k, v in self.sensors.items()})
        _atomic_npz(path, arrays)      # complete under its name, or not there
        return path

    def save_folder(self, directory: str | Path) -> Path:
        """Save as a result folder — one chunk and ``meta.json``, what a streamed run
        leaves — so that every run folder's ``result/`` reads the same way
        (:meth:`load`).  Earlier chunks in the folder are removed.  Returns the folder."""
        self.finish()
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        for old in (*directory.glob("chunk_*.npz"), *directory.glob("chunk_*.part"),
                    directory / "part.json", directory / "modes.npz"):
            old.unlink(missing_ok=True)
        self.directory = directory
        self.save(directory / "chunk_00000.npz")
        self._write_meta(finished=True)
        self.directory = None
        return directory

    @classmethod
    def load(cls, path: str | Path) -> Result | Modes:
        """Load a saved ``.npz`` or a streamed folder (possibly of an interrupted run).

        In a folder, a chunk file that cannot be read is skipped with a warning (its
        records are missing, ``info["skipped_chunks"]`` names it) and the records of an
        unfinished chunk are taken from its ``.part`` file.

        ``info["status"]`` says how the run that wrote a folder ended: "finished",
        "running" (still writing), or "died" — unfinished, and the process that wrote it
        no longer exists (killed); a died run is also announced with a warning.

        A modal analysis's folder (``modes.npz``) or file loads as :class:`Modes`:
        frequencies and shapes, no times.

        Raises
        ------
        ModelError
            If ``path`` does not exist, or a single file is damaged or is not a result
            (a file with pickled objects is refused, never unpickled).
        """
        if not isinstance(path, str | os.PathLike):
            raise ModelError(f"Result.load: give the path of a result folder or .npz file; "
                             f"got {path!r:.60}")
        path = Path(path)
        try:
            exists, is_dir = path.exists(), path.is_dir()
        except OSError as err:
            raise ModelError(f"no result at {path}: {err.strerror or err}") from None
        if not exists:
            raise ModelError(f"no result at {path}: expected a result folder or a .npz file")
        if _holds_modes(path, is_dir):
            return Modes.load(path)
        r = cls()
        if not is_dir and path.suffix.lower() not in (".npz", ".npy") \
                and not _is_zip(path):
            folder = next((d for d in (path.parent / "result", path.parent)
                           if d.is_dir() and any(d.glob("chunk_*"))), None)
            hint = (f"; the run's result is the folder {folder}: Result.load({str(folder)!r})"
                    if folder is not None else "")
            raise ModelError(f"{path} is not a result: Result.load reads a result folder "
                             f"(chunk_*.npz and meta.json) or a .npz file, not a "
                             f"{path.suffix or 'suffix-less'} file{hint}")
        if not is_dir:
            try:
                r._read_chunk(path)
            except _NotAResult as err:
                raise ModelError(f"{path} is not a result file: {err}") from None
            except _UNREADABLE as err:
                raise ModelError(f"{path} is damaged or not a result file (a fem result is "
                                 f"a .npz archive of arrays t, q, v, a, lam): "
                                 f"{_reason(err)}") from None
            return r.finish()
        if (path / "meta.json").is_file():
            try:
                meta = json.loads((path / "meta.json").read_text())
                r.info = {**meta.get("info", {}), "finished": meta.get("finished", False)}
                r.info["status"] = _status(meta, path)
            except (OSError, ValueError, AttributeError) as err:
                r.info["unreadable_meta"] = True
                warnings.warn(f"{path / 'meta.json'} is unreadable ({err}); run metadata "
                              "lost", FemWarning, stacklevel=2)
        skipped = []
        chunks = {f.stem: f for f in path.glob("chunk_*.npz")}
        parts = {f.stem: f for f in path.glob("chunk_*.part")}
        if not chunks and not parts and r.info.get("unreadable_meta"):
            raise ModelError(f"no result in {path}: its meta.json is unreadable and it holds "
                             "no chunk_*.npz or chunk_*.part files (garbage, or not a result "
                             "folder); rerun the case")
        r.info.pop("unreadable_meta", None)
        if not chunks and not parts and not (path / "meta.json").is_file():
            hint = (f"; the run's records are in {path / 'result'}"
                    if (path / "result").is_dir() else "")
            raise ModelError(f"no result in {path}: a result folder holds chunk_*.npz, "
                             f"chunk_*.part and meta.json files (the result/ folder of a run)"
                             f"{hint}")
        for stem in sorted(set(chunks) | set(parts)):
            before = len(r._rows["t"])
            if stem in chunks:
                try:
                    r._read_chunk(chunks[stem])
                except (*_UNREADABLE, _NotAResult) as err:
                    if stem not in parts:
                        skipped.append(chunks[stem].name)
                        warnings.warn(f"skipped unreadable result chunk {chunks[stem]} (damaged): "
                                      f"{_reason(err)}", FemWarning, stacklevel=2)
                        continue
                else:
                    r._check_continues(before, chunks[stem])
                    continue
            r._read_part(parts[stem], path / "part.json")
            r._check_continues(before, parts[stem])
        if skipped and len(skipped) == len(set(chunks) | set(parts)):
            raise ModelError(f"no readable records in {path}: every chunk is damaged or not "
                             f"a result ({', '.join(skipped[:4])}"
                             f"{', …' if len(skipped) > 4 else ''}); rerun the case, or load "
                             "the folder that holds its chunks")
        if skipped:
            r.info["skipped_chunks"] = skipped
            r.info["finished"] = False
        if r.info.get("status") == "died":
            warnings.warn(f"{path}: the run that wrote it died before finishing (its process "
                          f"no longer exists); {len(r)} recorded steps loaded", FemWarning,
                          stacklevel=2)
        return r.finish()

    def _check_continues(self, before: int, f: Path) -> None:
        """The records read from ``f`` (from row ``before`` on) continue those before
        them: the same number of coordinates (one model) and time that does not go back
        (one run); else a :class:`ModelError` naming the file."""
        t, q = self._rows["t"], self._rows["q"]
        if before == 0 or len(t) == before:
            return
        n0, n1 = np.size(q[0]), np.size(q[before])
        if n1 != n0:
            raise ModelError(f"{f} holds {n1} coordinates, the chunks before it {n0}: a "
                             f"chunk of another model in {f.parent}; remove it (or load "
                             "the folder it came from)")
        if float(t[before]) < float(t[before - 1]):
            raise ModelError(f"{f} starts at t = {float(t[before]):g} s, before the end of "
                             f"the chunks before it (t = {float(t[before - 1]):g} s): "
                             f"{f.parent} mixes chunks of two runs; keep one run's chunks "
                             "(every run writes its folder afresh)")

    def _read_chunk(self, f: Path) -> None:
        arrays = _read_arrays(f)        # all read and checked before any is added
        for k in _STATE:
            self._rows[k].extend(list(arrays[k]))
        for k, v in arrays.items():
            if k.startswith("stat:"):
                self._stats.setdefault(k[5:], []).extend(list(v))
            elif k.startswith("sensor:"):
                self._sens.setdefault(k[7:], []).extend(list(v))

    def _read_part(self, f: Path, layout_file: Path) -> None:
        """Complete rows of a ``.part`` file (a row cut by a kill is dropped)."""
        try:
            layout = json.loads(layout_file.read_text())["fields"]
        except (OSError, ValueError, KeyError) as err:
            warnings.warn(f"cannot read {f} without {layout_file} ({err})", FemWarning,
                          stacklevel=3)
            return
        sizes = [int(np.prod(shape)) for _, shape in layout]
        raw = np.fromfile(f, dtype="<f8")
        width = sum(sizes)
        if width == 0:
            return
        rows = raw[: len(raw) // width * width].reshape(-1, width)
        cols = np.split(rows, np.cumsum(sizes)[:-1], axis=1)
        for (k, shape), c in zip(layout, cols, strict=True):
            vals = [x.reshape(shape) for x in c]
            if k in _STATE:
                self._rows[k].extend(float(x) if k == "t" else x for x in vals)
            elif k.startswith("stat:"):
                self._stats.setdefault(k[5:], []).extend(vals)
            elif k.startswith("sensor:"):
                self._sens.setdefault(k[7:], []).extend(vals)


@dataclass
class Modes:
    """The modes of a modal analysis as a run folder keeps them (``result/modes.npz``):
    what :func:`fem.modes` returns (a :class:`fem.ModalResult`), with the state they are
    about.

    Attributes
    ----------
    frequencies_hz : (k,) ascending; negative for ω² < 0 (see :class:`fem.ModalResult`)
    omega2 : (k,) eigenvalues ω² [rad²/s²]
    shapes : (n, k) mode shapes, one column per mode (M-normalized for :func:`fem.modes`)
    q : (n,) the configuration the modes are about (None: not recorded)
    info : run metadata (``analysis``, ``status`` when loaded from a run folder)
    """

    frequencies_hz: np.ndarray
    omega2: np.ndarray
    shapes: np.ndarray
    q: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    kind = "modal"

    # the display and the stability count of fem.ModalResult (imported late: the
    # solvers import this module)
    @property
    def unstable(self) -> int:
        """Number of modes with ω² < 0 beyond round-off (see :class:`fem.ModalResult`)."""
        from .modal import ModalResult

        return ModalResult.unstable.fget(self)

    def _overview(self) -> list[tuple[str, str]]:
        from .modal import ModalResult

        return ModalResult._overview(self)

    def __repr__(self) -> str:
        from .modal import ModalResult

        return ModalResult.__repr__(self).replace("fem ModalResult", "fem Modes", 1)

    def _repr_html_(self) -> str:
        from .modal import ModalResult

        return ModalResult._repr_html_(self).replace("fem ModalResult", "fem Modes", 1)

    @classmethod
    def of(cls, modal, q: np.ndarray | None = None, info: dict | None = None) -> Modes:
        """A :class:`fem.ModalResult` with the state ``q`` it is about."""
        return cls(np.asarray(modal.frequencies_hz, float), np.asarray(modal.omega2, float),
                   np.asarray(modal.shapes, float), None if q is None else np.asarray(q, float),
                   {"analysis": "modal", **(info or {})})

    def __len__(self) -> int:
        return int(np.size(self.frequencies_hz))

    def save(self, directory: str | Path) -> Path:
        """Write ``directory/modes.npz`` and ``meta.json`` (kind ``"modal"``); earlier
        time-series chunks there are removed.  Returns the folder."""
        from ..core.files import writer

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        for old in (*directory.glob("chunk_*.npz"), *directory.glob("chunk_*.part"),
                    directory / "part.json"):
            old.unlink(missing_ok=True)
        arrays = {"frequencies_hz": np.asarray(self.frequencies_hz, float),
                  "omega2": np.asarray(self.omega2, float),
                  "shapes": np.asarray(self.shapes, float)}
        if self.q is not None:
            arrays["q"] = np.asarray(self.q, float)
        _atomic_npz(directory / "modes.npz", arrays)
        _atomic_text(directory / "meta.json", json.dumps(
            {"kind": self.kind, "info": jsonable(self.info), "finished": True,
             "records": len(self), "writer": writer()}, indent=1))
        return directory

    @classmethod
    def load(cls, path: str | Path) -> Modes:
        """Read a folder written by :meth:`save` (or its ``modes.npz``)."""
        path = Path(path)
        folder = path if path.is_dir() else path.parent
        file = path / "modes.npz" if path.is_dir() else path
        try:
            _sniff(file)
            with np.load(file, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (*_UNREADABLE, _NotAResult) as err:
            raise ModelError(f"{file} is damaged or not a modal result (a .npz archive of "
                             f"arrays frequencies_hz, omega2, shapes): {_reason(err)}") from None
        missing = [k for k in ("frequencies_hz", "shapes") if k not in arrays]
        bad = [k for k, v in arrays.items() if v.dtype.kind not in "biufc"]
        k = np.size(arrays.get("frequencies_hz", ()))
        if missing or bad or np.ndim(arrays.get("shapes")) != 2 or \
                np.shape(arrays["shapes"])[1] != k:
            raise ModelError(f"{file} is not a modal result: it needs frequencies_hz (k,) and "
                             f"shapes (n, k) arrays of numbers; it has "
                             f"{', '.join(f'{n} {np.shape(v)}' for n, v in arrays.items())}")
        f = np.asarray(arrays["frequencies_hz"], float)
        w2 = arrays.get("omega2")
        w2 = np.sign(f) * (2 * np.pi * f) ** 2 if w2 is None else np.asarray(w2, float)
        info: dict = {"analysis": "modal"}
        meta = folder / "meta.json"
        if path.is_dir() and meta.is_file():
            try:
                info.update(json.loads(meta.read_text()).get("info", {}))
            except (OSError, ValueError, AttributeError) as err:
                warnings.warn(f"{meta} is unreadable ({err}); run metadata lost", FemWarning,
                              stacklevel=2)
            info["status"] = "finished"
        return cls(f, w2, np.asarray(arrays["shapes"], float),
                   np.asarray(arrays["q"], float) if "q" in arrays else None, info)


def _holds_modes(path: Path, is_dir: bool) -> bool:
    """A modal result: a folder with ``modes.npz``, or an archive with mode arrays."""
    if is_dir:
        return (path / "modes.npz").is_file()
    if path.suffix != ".npz":
        return False
    try:
        with np.load(path, allow_pickle=False) as data:
            names = set(getattr(data, "files", ()))
    except (*_UNREADABLE, _NotAResult):
        return False
    return "frequencies_hz" in names and "shapes" in names and "t" not in names


_UNREADABLE = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile)


def _short_repr(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_zip(path: Path) -> bool:
    """Whether ``path`` is a zip archive (an ``.npz`` under another name)."""
    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


class _NotAResult(Exception):
    """A readable file that is not a result (other arrays, pickled objects)."""


def _reason(err: BaseException) -> str:
    """A damaged file's reason, in our words where numpy's would advise unsafe loading."""
    text = str(err)
    if isinstance(err, _NotAResult):
        return text
    if "pickle" in text.lower():
        return ("it is not an archive of number arrays: reading it would need unpickling, "
                "which is refused for safety (a result never needs it)")
    if isinstance(err, zipfile.BadZipFile | EOFError) or "zip" in text.lower():
        return f"not a readable .npz archive (truncated or overwritten?): {text}"
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _read_arrays(f: Path) -> dict[str, np.ndarray]:
    """The arrays of a result ``.npz``, checked: the state arrays present, one row per
    record, numbers only (``allow_pickle`` stays off)."""
    _sniff(f)
    with np.load(f, allow_pickle=False) as data:
        if not hasattr(data, "files"):      # a lone .npy array
            raise _NotAResult("it is a single array (.npy), not a result archive")
        arrays = {}
        for k in data.files:
            try:
                arrays[k] = data[k]
            except ValueError as err:
                raise _NotAResult(_reason(err)) from None
    return _checked_arrays(arrays)


def _sniff(f: Path) -> None:
    """Refuse a file that is not an ``.npz``/``.npy`` by its first bytes (garbage, an
    empty or pickled file) with its own reason, before numpy would try to unpickle it."""
    try:
        with open(f, "rb") as fh:
            head = fh.read(6)
    except OSError as err:
        raise _NotAResult(f"cannot read it: {err.strerror or err}") from None
    if not head:
        raise _NotAResult("it is empty (0 bytes): truncated or never written")
    if head[:1] == b"\x80":
        raise _NotAResult("it holds pickled Python objects, not number arrays; reading it "
                          "would need unpickling, which is refused for safety (a result "
                          "never needs it)")
    if not head.startswith((b"PK", b"\x93NUMPY")):
        raise _NotAResult(f"it is not a .npz archive: its first bytes {head!r} are neither "
                          "a zip archive's nor numpy's (garbage, overwritten or another kind "
                          "of file)")


def _checked_arrays(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``arrays`` if they are a result's (:func:`_read_arrays`)."""
    missing = [k for k in _STATE if k not in arrays]
    if missing:
        have = ", ".join(sorted(arrays)[:6]) or "no arrays"
        raise _NotAResult(f"it lacks the arrays {missing} of a result (it has {have})")
    n = len(np.atleast_1d(arrays["t"]))
    for k, v in arrays.items():
        if v.dtype.kind not in "biufc":
            raise _NotAResult(f"array {k!r} holds {v.dtype} values, not numbers")
        if k != "t" and not k.startswith("stat:") and (v.ndim == 0 or len(v) != n):
            raise _NotAResult(f"array {k!r} has {0 if v.ndim == 0 else len(v)} rows for "
                              f"{n} times: damaged or not a result")
    return arrays


def _atomic_npz(path: Path, arrays: dict) -> None:
    """``np.savez_compressed`` to a private temporary file, renamed when complete."""
    from ..core.files import temporary_path

    tmp = temporary_path(path)
    try:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _status(meta: dict, folder: Path) -> str:
    """"finished", "running" or "died" for a streamed result folder: its ``meta.json``
    (writer identity), else the run's ``summary.json`` one folder up."""
    from ..core.files import process_alive, run_status

    if meta.get("finished"):
        return "finished"
    summary = run_status(folder.parent)
    if summary["status"] in ("died", "failed", "interrupted"):
        return summary["status"]
    alive = process_alive(meta.get("writer") or {})
    return "died" if alive is False else "running"


def _atomic_text(path: Path, text: str) -> None:
    """Write a text file so a reader (or a kill) never leaves it half-written."""
    from ..core.files import atomic_write_text

    atomic_write_text(path, text)


_F64 = np.dtype(np.float64)


def _copy(x) -> np.ndarray:
    """A float copy of ``x`` (a record owns its arrays)."""
    if type(x) is np.ndarray and x.dtype is _F64:
        return x.copy()
    return np.array(x, dtype=float)


def jsonable(obj):
    """Plain JSON types: numpy scalars and arrays converted, non-finite floats as strings,
    paths as strings, anything else unknown as its ``str``."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return jsonable(obj.item())
    if isinstance(obj, float) and not np.isfinite(obj):
        return str(obj)
    if isinstance(obj, str | int | float | bool | type(None)):
        return obj
    return str(obj)
