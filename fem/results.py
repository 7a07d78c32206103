"""Results of a time integration: states, multipliers, residuals and named sensors.

A :class:`Result` can stream to a folder while it records: every ``chunk`` records are
written as ``chunk_NNNNN.npz`` (and the rest when the run finishes or fails), so a run
that is interrupted — Ctrl-C, an exception, a killed process — leaves everything up to
the last chunk readable with :meth:`Result.load`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

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
            for old in self.directory.glob("chunk_*.npz"):
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
        if self.on_record is not None:
            self.on_record(len(self) - 1, t, q, v, a, lam)
        if self.directory is not None and len(self) - self._flushed >= self.chunk:
            self.flush()

    def __len__(self) -> int:
        return len(self._rows["t"])

    def flush(self) -> None:
        """Write the records not yet on disk as one chunk file."""
        if self.directory is None or len(self) == self._flushed:
            return
        s = slice(self._flushed, len(self))
        arrays = {k: np.asarray(self._rows[k][s]) for k in _STATE}
        arrays.update({f"stat:{k}": np.asarray(v[s]) for k, v in self._stats.items()})
        arrays.update({f"sensor:{k}": np.asarray(v[s]) for k, v in self._sens.items()})
        tmp = self.directory / f".chunk_{self._n_chunks:05d}.npz"
        np.savez_compressed(tmp, **arrays)
        tmp.replace(self.directory / f"chunk_{self._n_chunks:05d}.npz")
        self._n_chunks += 1
        self._flushed = len(self)

    def _write_meta(self, finished: bool) -> None:
        meta = {"info": jsonable(self.info), "finished": finished, "records": len(self)}
        (self.directory / "meta.json").write_text(json.dumps(meta, indent=1))

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
        """Load a saved ``.npz`` or a streamed folder (possibly of an interrupted run)."""
        path = Path(path)
        files = sorted(path.glob("chunk_*.npz")) if path.is_dir() else [path]
        from .errors import ModelError
        from .validate import warn

        if not path.exists():
            raise ModelError(f"no result at {path}")
        r = cls()
        if path.is_dir() and (path / "meta.json").is_file():
            try:
                meta = json.loads((path / "meta.json").read_text())
                r.info = {**meta.get("info", {}), "finished": meta.get("finished", False)}
            except (json.JSONDecodeError, OSError, AttributeError) as err:
                warn(f"{path / 'meta.json'} is unreadable ({err}); loading the chunks alone")
                r.info = {"finished": False}
        for f in files:
            try:   # read a whole chunk before keeping any of it
                with np.load(f) as data:
                    chunk = {k: list(data[k]) for k in data.files}
                if any(k not in chunk for k in _STATE):
                    raise KeyError(f"missing arrays {[k for k in _STATE if k not in chunk]}")
            except Exception as err:   # noqa: BLE001 - truncated zip, bad header, ...
                if not path.is_dir():
                    raise ModelError(f"cannot read result {f}: {err}") from None
                warn(f"{f.name} is unreadable ({type(err).__name__}: {err}); it and any "
                     "later chunk are skipped (a run killed while writing it)")
                r.info["finished"] = False
                break
            for k in _STATE:
                r._rows[k].extend(chunk[k])
            for k, v in chunk.items():
                if k.startswith("stat:"):
                    r._stats.setdefault(k[5:], []).extend(v)
                elif k.startswith("sensor:"):
                    r._sens.setdefault(k[7:], []).extend(v)
        return r.finish()


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
