"""Results of a time integration: states, multipliers, residuals and named sensors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

__all__ = ["Result"]


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
    """

    def __init__(self, sensors: dict[str, Callable] | None = None, info: dict | None = None):
        self._sensor_fns = dict(sensors or {})
        self.info = dict(info or {})
        self._rows: dict[str, list] = {"t": [], "q": [], "v": [], "a": [], "lam": []}
        self._stats: dict[str, list] = {}
        self._sens: dict[str, list] = {k: [] for k in self._sensor_fns}
        self._finished = False

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
        self._finished = False

    def finish(self) -> Result:
        for k in ("t", "q", "v", "a", "lam"):
            setattr(self, k, np.asarray(self._rows[k]))
        self.stats = {k: np.asarray(v) for k, v in self._stats.items()}
        self.sensors = {k: np.asarray(v) for k, v in self._sens.items()}
        self._finished = True
        return self

    def __len__(self) -> int:
        return len(self._rows["t"])

    def save(self, path: str | Path) -> Path:
        """Save as a compressed ``.npz``."""
        self.finish()
        path = Path(path)
        arrays = {"t": self.t, "q": self.q, "v": self.v, "a": self.a, "lam": self.lam}
        arrays.update({f"stat:{k}": v for k, v in self.stats.items()})
        arrays.update({f"sensor:{k}": v for k, v in self.sensors.items()})
        np.savez_compressed(path, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Result:
        data = np.load(path)
        r = cls()
        for k in ("t", "q", "v", "a", "lam"):
            r._rows[k] = list(data[k])
        r._stats = {k[5:]: list(data[k]) for k in data.files if k.startswith("stat:")}
        r._sens = {k[7:]: list(data[k]) for k in data.files if k.startswith("sensor:")}
        return r.finish()
