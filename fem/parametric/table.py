"""The sweep's tables — one row per point (swept parameters, status, scalar figures) and,
for cases that report histories over ``time_s``, one row per point and time — and plots
of figures against swept parameters."""

from __future__ import annotations

import csv
import importlib.util
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..core.errors import ModelError
from .grid import format_value

__all__ = ["table_rows", "history_rows", "write_table", "plot_figure", "parse_plot"]

_NOT_FIGURES = ("case", "parameters", "files", "status", "error", "references")


def _cell(value):
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return format_value(value)


def table_rows(points: Sequence, swept: Sequence[str]) -> list[dict]:
    """One dict per point: ``point``, ``status``, the swept parameters, every scalar
    figure (numbers, booleans, strings; lists and histories stay in ``summary.json``),
    ``wall_s`` and ``error``."""
    rows = []
    for pt in points:
        row = {"point": pt.name, "status": pt.status}
        row.update({k: _cell(pt.params.get(k)) for k in swept})
        for k, v in (pt.figures or {}).items():
            if k not in _NOT_FIGURES and k not in row and isinstance(v, bool | int | float
                                                                      | str):
                row[k] = v
        row.setdefault("wall_s", pt.wall_s)
        row["error"] = pt.error or ""
        rows.append(row)
    return rows


def history_rows(points: Sequence, swept: Sequence[str]) -> list[dict]:
    """Long table of the histories: for every completed point whose figures hold
    ``time_s``, one row per time with ``point``, the swept values, ``time_s`` and every
    figure listing one value per time (a row of c values per time gives columns
    ``name[0]`` … ``name[c-1]``)."""
    rows = []
    for pt in points:
        fig = pt.figures or {}
        t = fig.get("time_s")
        if pt.status == "failed" or not isinstance(t, list) or len(t) < 2:
            continue
        columns: dict[str, list] = {"time_s": t}
        for k, v in fig.items():
            if k == "time_s" or not isinstance(v, list) or len(v) != len(t):
                continue
            try:
                arr = np.asarray(v, dtype=float)
            except (TypeError, ValueError):
                continue
            if arr.ndim == 1:
                columns[k] = arr.tolist()
            elif arr.ndim == 2:
                columns.update({f"{k}[{j}]": arr[:, j].tolist() for j in range(arr.shape[1])})
        head = {"point": pt.name, **{k: _cell(pt.params.get(k)) for k in swept}}
        rows += [{**head, **{k: c[i] for k, c in columns.items()}} for i in range(len(t))]
    return rows


def write_table(rows: list[dict], out: Path, histories: list[dict] | None = None
                ) -> list[Path]:
    """``table.csv`` (always), ``table.parquet`` and, when there are histories,
    ``histories.parquet`` (these two when pandas and pyarrow are installed:
    ``pip install "fem[dask]"``)."""
    from ..core.files import temporary_path

    def complete(path: Path, write) -> Path:
        # a table appears under its name only when complete (never half a table)
        tmp = temporary_path(path, keep_suffix=True)
        try:
            write(tmp)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return path

    def csv_to(path: Path) -> None:
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=columns)
            w.writeheader()
            w.writerows(rows)

    columns = list(dict.fromkeys(k for r in rows for k in r))
    written = [complete(out / "table.csv", csv_to)]
    if not all(importlib.util.find_spec(m) for m in ("pandas", "pyarrow")):
        return written
    written.append(complete(out / "table.parquet", lambda p: to_frame(rows, columns).to_parquet(
        p, index=False)))
    if histories:
        written.append(complete(out / "histories.parquet",
                                lambda p: to_frame(histories).to_parquet(p, index=False)))
    return written


def to_frame(rows: list[dict], columns: list[str] | None = None):
    """The rows as a pandas DataFrame; a column mixing numbers and text (a figure a failed
    point lacks is empty, not text) is stored as text so Parquet accepts it."""
    import pandas as pd

    df = pd.DataFrame(rows, columns=columns)
    for c in df.columns:
        kinds = {type(v) for v in df[c] if v is not None and not (isinstance(v, float)
                                                                  and math.isnan(v))}
        if len(kinds) > 1 and not kinds <= {int, float}:
            df[c] = df[c].map(lambda v: None if v is None else str(v))
    return df


def parse_plot(spec: str | tuple[str, str]) -> tuple[str, str]:
    """``"torque_max_Nm:E_Pa"`` -> ``("torque_max_Nm", "E_Pa")``."""
    if isinstance(spec, tuple | list):
        fig, param = spec
        return str(fig), str(param)
    if spec.count(":") != 1:
        raise ModelError(f"--plot takes FIGURE:PARAMETER (e.g. torque_max_Nm:E_Pa); "
                         f"got {spec!r}")
    fig, param = (s.strip() for s in spec.split(":"))
    return fig, param


def plot_figure(rows: list[dict], figure: str, param: str, swept: Sequence[str],
                path: Path) -> Path:
    """``figure`` against ``param``, one line per combination of the other swept
    parameters; completed points only."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ok = [r for r in rows if r["status"] != "failed" and isinstance(r.get(figure), int | float)]
    if not ok:
        raise ModelError(f"no completed point has a numeric figure {figure!r}; figures: "
                         + ", ".join(k for k in (rows[0] if rows else {})
                                     if k not in ("point", "status", "error")))
    others = [k for k in swept if k != param]
    groups: dict[tuple, list] = {}
    for r in ok:
        groups.setdefault(tuple(r.get(k) for k in others), []).append(r)
    numeric = all(isinstance(r.get(param), int | float) for r in ok)
    categories = list(dict.fromkeys(str(r.get(param)) for r in ok))
    fig = Figure(figsize=(7.0, 4.0), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for key, grp in groups.items():
        grp = sorted(grp, key=lambda r: r[param] if numeric else categories.index(
            str(r[param])))
        x = [r[param] if numeric else categories.index(str(r[param])) for r in grp]
        label = ", ".join(f"{k}={format_value(v)}" for k, v in zip(others, key, strict=True))
        ax.plot(x, [r[figure] for r in grp], "o-", label=label or None)
    if numeric:
        xs = np.array([r[param] for r in ok], float)
        if xs.min() > 0 and xs.max() / xs.min() >= 100:
            ax.set_xscale("log")
    else:
        ax.set_xticks(range(len(categories)), categories)
    ax.set_xlabel(param)
    ax.set_ylabel(figure)
    ax.set_title(f"{figure} vs {param}")
    ax.grid(True, alpha=0.3)
    if len(groups) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    return path
