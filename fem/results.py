"""Results of a time integration: states, multipliers, residuals and named sensors.

A :class:`Result` can stream to a folder while it records: every ``chunk`` records are
written as ``chunk_NNNNN.npz`` (and the rest when the run finishes or fails).  Between two
chunks each record is also appended, as one raw float64 row, to ``chunk_NNNNN.part``
(its layout in ``part.json``), which is deleted once the chunk is written.  So a run that
is interrupted — Ctrl-C, an exception, even SIGKILL — leaves every recorded step readable
with :meth:`Result.load`; a damaged chunk file (a truncated copy, a full disk) is skipped
with a warning and the other chunks are still read.
"""

from __future__ import annotations

import json
import os
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .validate import FemWarning

__all__ = ["Result", "jsonable"]

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
        self._sensor_fns = dict(sensors or {})
        self.info = dict(info or {})
        self.directory = None if directory is None else Path(directory)
        self.chunk = int(chunk)
        self.on_record = on_record
        self._rows: dict[str, list] = {k: [] for k in _STATE}
        self._stats: dict[str, list] = {}
        self._sens: dict[str, list] = {k: [] for k in self._sensor_fns}
        self._flushed = 0          # records already on disk
        self.expected_records = 0  # set by the solver when it knows (for output pacing)
        self._n_chunks = 0
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
            for old in (*self.directory.glob("chunk_*.npz"),
                        *self.directory.glob("chunk_*.part")):
                old.unlink()
            self._write_meta(finished=False)

    # ------------------------------------------------------------- recording
    def record(self, t: float, q, v, a, lam, **stats) -> None:
        self._rows["t"].append(float(t))
        self._rows["q"].append(np.array(q, copy=True))
        self._rows["v"].append(np.array(v, copy=True))
        self._rows["a"].append(np.array(a, copy=True))
        self._rows["lam"].append(np.array(lam, copy=True))
        for k, val in stats.items():
            self._stats.setdefault(k, []).append(val)
        for k, fn in self._sensor_fns.items():
            self._sens[k].append(np.asarray(fn(t, q, v, a, lam)))
        if self.directory is not None:
            self._append_part()
        if self.on_record is not None:
            self.on_record(len(self) - 1, t, q, v, a, lam)
        if self.directory is not None and len(self) - self._flushed >= self.chunk:
            self.flush()

    def _row_arrays(self, i: int) -> dict[str, np.ndarray]:
        """Record ``i`` as named float arrays (the same names as in a chunk file)."""
        out = {k: np.asarray(self._rows[k][i], dtype=float) for k in _STATE}
        out.update({f"stat:{k}": np.asarray(v[i]) for k, v in self._stats.items()})
        out.update({f"sensor:{k}": np.asarray(v[i]) for k, v in self._sens.items()})
        return out

    def _append_part(self) -> None:
        """Append the newest record to the current ``.part`` file (survives SIGKILL)."""
        arrays = self._row_arrays(len(self) - 1)
        layout = [[k, list(np.shape(v))] for k, v in arrays.items()
                  if np.issubdtype(np.asarray(v).dtype, np.number)
                  or np.asarray(v).dtype == bool]
        if layout != getattr(self, "_part_layout", None):
            if len(self) - 1 > self._flushed:    # the layout changed mid-chunk: close it
                self._part_layout = None
                self.flush(upto=len(self) - 1)
            self._part_layout = layout
            _atomic_text(self.directory / "part.json", json.dumps({"fields": layout}))
        row = np.concatenate([np.asarray(arrays[k], dtype=float).ravel() for k, _ in layout])
        with open(self.directory / f"chunk_{self._n_chunks:05d}.part", "ab") as fh:
            fh.write(row.astype("<f8").tobytes())

    def __len__(self) -> int:
        return len(self._rows["t"])

    def flush(self, upto: int | None = None) -> None:
        """Write the records not yet in a chunk file as one chunk file."""
        end = len(self) if upto is None else upto
        if self.directory is None or end == self._flushed:
            return
        s = slice(self._flushed, end)
        arrays = {k: np.asarray(self._rows[k][s]) for k in _STATE}
        arrays.update({f"stat:{k}": np.asarray(v[s]) for k, v in self._stats.items()})
        arrays.update({f"sensor:{k}": np.asarray(v[s]) for k, v in self._sens.items()})
        tmp = self.directory / f".chunk_{self._n_chunks:05d}.npz"
        np.savez_compressed(tmp, **arrays)
        tmp.replace(self.directory / f"chunk_{self._n_chunks:05d}.npz")
        part = self.directory / f"chunk_{self._n_chunks:05d}.part"
        self._n_chunks += 1
        self._flushed = end
        if part.exists():
            part.unlink()
        if end < len(self):   # records after `upto` start the next part file
            rows = [self._row_arrays(i) for i in range(end, len(self))]
            layout = getattr(self, "_part_layout", None) or []
            with open(self.directory / f"chunk_{self._n_chunks:05d}.part", "ab") as fh:
                for r in rows:
                    fh.write(np.concatenate([np.asarray(r[k], dtype=float).ravel()
                                             for k, _ in layout]).astype("<f8").tobytes())

    def _write_meta(self, finished: bool) -> None:
        meta = {"info": jsonable(self.info), "finished": finished, "records": len(self)}
        _atomic_text(self.directory / "meta.json", json.dumps(meta, indent=1))

    def finish(self) -> Result:
        """Turn the records into arrays (and flush the last chunk when streaming)."""
        if self.directory is not None:
            self.flush()
            self._write_meta(finished=True)
        for k in _STATE:
            setattr(self, k, np.asarray(self._rows[k]))
        self.stats = {k: np.asarray(v) for k, v in self._stats.items()}
        self.sensors = {k: np.asarray(v) for k, v in self._sens.items()}
        return self

    # ------------------------------------------------------------ save/load
    def save(self, path: str | Path) -> Path:
        """Save as one compressed ``.npz``."""
        self.finish()
        path = Path(path)
        arrays = {k: getattr(self, k) for k in _STATE}
        arrays.update({f"stat:{k}": v for k, v in self.stats.items()})
        arrays.update({f"sensor:{k}": v for k, v in self.sensors.items()})
        np.savez_compressed(path, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Result:
        """Load a saved ``.npz`` or a streamed folder (possibly of an interrupted run).

        In a folder, a chunk file that cannot be read is skipped with a warning (its
        records are missing, ``info["skipped_chunks"]`` names it) and the records of an
        unfinished chunk are taken from its ``.part`` file.

        Raises
        ------
        ModelError
            If ``path`` does not exist or a single ``.npz`` file cannot be read.
        """
        from .errors import ModelError

        path = Path(path)
        if not path.exists():
            raise ModelError(f"no result at {path}: expected a result folder or a .npz file")
        r = cls()
        if not path.is_dir():
            try:
                r._read_chunk(path)
            except _UNREADABLE as err:
                raise ModelError(f"cannot read result file {path}: {err}") from None
            return r.finish()
        if (path / "meta.json").is_file():
            try:
                meta = json.loads((path / "meta.json").read_text())
                r.info = {**meta.get("info", {}), "finished": meta.get("finished", False)}
            except (OSError, ValueError) as err:
                warnings.warn(f"{path / 'meta.json'} is unreadable ({err}); run metadata "
                              "lost", FemWarning, stacklevel=2)
        skipped = []
        chunks = {f.stem: f for f in path.glob("chunk_*.npz")}
        parts = {f.stem: f for f in path.glob("chunk_*.part")}
        for stem in sorted(set(chunks) | set(parts)):
            if stem in chunks:
                try:
                    r._read_chunk(chunks[stem])
                    continue
                except _UNREADABLE as err:
                    if stem not in parts:
                        skipped.append(chunks[stem].name)
                        warnings.warn(f"skipped unreadable result chunk {chunks[stem]}: {err}",
                                      FemWarning, stacklevel=2)
                        continue
            r._read_part(parts[stem], path / "part.json")
        if skipped:
            r.info["skipped_chunks"] = skipped
            r.info["finished"] = False
        return r.finish()

    def _read_chunk(self, f: Path) -> None:
        with np.load(f) as data:
            arrays = {k: data[k] for k in data.files}     # read all before adding any
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


_UNREADABLE = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile)


def _atomic_text(path: Path, text: str) -> None:
    """Write a text file so a reader (or a kill) never leaves it half-written."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


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
