"""Sweep points: from ``-p key=v1,v2`` lists (or a dict, or explicit points) to a list of
parameter dicts, each with a folder name made of its swept values."""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from ..core.errors import ModelError

__all__ = ["split_values", "values_from_strings", "expand", "varying", "point_names",
           "format_value"]


def split_values(raw: str) -> list[str]:
    """``"2e8,6.9e8"`` -> ``["2e8", "6.9e8"]``; commas inside brackets or braces do not
    split, so ``"[1,0,0],[0,1,0]"`` gives two 3-vectors."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(raw):
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(raw[start:i])
            start = i + 1
    items.append(raw[start:])
    items = [s.strip() for s in items]
    if any(s == "" for s in items):
        raise ModelError(f"empty value in {raw!r}: write key=v1,v2,...")
    return items


def values_from_strings(items: Sequence[str]) -> dict[str, list[str]]:
    """``["E_Pa=2e8,7e10", "payload_kg=6"]`` -> ``{"E_Pa": ["2e8", "7e10"], ...}``."""
    out: dict[str, list[str]] = {}
    for item in items:
        if "=" not in item:
            raise ModelError(f"malformed parameter {item!r}: write key=v1,v2,...")
        key, raw = (s.strip() for s in item.split("=", 1))
        if key in out:
            raise ModelError(f"parameter {key!r} given twice; list its values once: "
                             f"{key}=v1,v2,...")
        out[key] = split_values(raw)
    return out


def _as_values(key: str, value, default) -> list:
    """A grid entry as a list of values (a scalar is one value).  For a parameter whose
    default is a list, one list is one value and a list of lists is several."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, str) or not isinstance(value, list | tuple):
        return [value]
    value = list(value)
    if isinstance(default, list) and not all(isinstance(v, list | tuple) for v in value):
        return [value]
    if not value:
        raise ModelError(f"parameter {key!r} has an empty list of values")
    return value


MAX_POINTS = 100_000
"""A sweep of more points is refused before they are listed (each is a run and a folder:
at a second each, more than a day of work on one machine)."""


def expand(grid: Mapping | Sequence[Mapping], defaults: Mapping, mode: str = "grid"
           ) -> list[dict]:
    """All points of a sweep and the names of the parameters that vary.

    Parameters
    ----------
    grid : dict or list of dicts
        ``{name: values}``: every combination (``mode="grid"``) or the i-th value of each
        list together (``mode="zip"``; single values are shared by all points).  A list
        of dicts gives the points explicitly.
    defaults : dict
        The case's ``PARAMS``: unknown names raise :class:`~fem.ModelError`.
    mode : "grid" or "zip"

    Returns
    -------
    list of dict
        One parameter dict per point (values as given: strings from the command line are
        converted later, per point, so that one bad value fails only its point).
    """
    if isinstance(grid, Mapping):
        _check_names(grid, defaults)
        lists = {k: _as_values(k, v, defaults[k]) for k, v in grid.items()}
        if mode == "grid":
            count = math.prod(len(v) for v in lists.values())
            if count > MAX_POINTS:
                raise ModelError(
                    f"sweep: the grid {' × '.join(f'{k}: {len(v)}' for k, v in lists.items())}"
                    f" has {count:,} points (every combination), more than {MAX_POINTS:,} "
                    "this sweep accepts (each point is a run with its own folder); sweep "
                    "fewer values, or pair them with --zip")
            points = [dict(zip(lists, combo, strict=True))
                      for combo in itertools.product(*lists.values())]
        elif mode == "zip":
            lengths = {len(v) for v in lists.values() if len(v) > 1}
            if len(lengths) > 1:
                raise ModelError("--zip pairs the i-th values of every list, so the lists "
                                 "must have the same length; got "
                                 + ", ".join(f"{k}: {len(v)}" for k, v in lists.items()))
            n = lengths.pop() if lengths else 1
            points = [{k: (v[i] if len(v) > 1 else v[0]) for k, v in lists.items()}
                      for i in range(n)]
        else:
            raise ModelError(f"sweep mode must be 'grid' or 'zip', got {mode!r}")
    else:
        if isinstance(grid, str | bytes) or not isinstance(grid, Sequence) \
                or not all(isinstance(p, Mapping) for p in grid):
            raise ModelError(f"sweep: grid must be a dict {{parameter: [values]}} or a list of "
                             f"dicts (one per point); got {grid!r:.80}")
        points = [dict(p) for p in grid]
        for p in points:
            _check_names(p, defaults)
    if not points:
        raise ModelError("the sweep has no points")
    return points


def varying(points: Sequence[Mapping]) -> list[str]:
    """Names of the parameters that differ between points, in order of appearance."""
    keys = list(dict.fromkeys(k for p in points for k in p))
    return [k for k in keys if len({repr(p.get(k)) for p in points}) > 1]


def _check_names(params: Mapping, defaults: Mapping) -> None:
    for k in params:
        if k not in defaults:
            raise ModelError(f"unknown parameter {k!r}; this case takes: "
                             + ", ".join(f"{p}={defaults[p]!r}" for p in defaults))


def format_value(value) -> str:
    """Short text of a parameter value for folder names: ``2e+08``, ``6``, ``circle``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        short = f"{value:.6g}"
        return short if float(short) == value else repr(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(format_value(v) for v in value) + "]"
    return str(value)


_UNSAFE = re.compile(r"[^A-Za-z0-9._+=-]+")


def point_names(points: Sequence[Mapping], swept: Sequence[str]) -> list[str]:
    """One folder name per point from its swept values (``E_Pa=2e+08__payload_kg=6``);
    long names are shortened with a hash, clashes get a numeric suffix."""
    names, seen = [], set()
    for p in points:
        parts = [f"{k}={format_value(p[k])}" for k in swept if k in p]
        name = _UNSAFE.sub("_", "__".join(parts)) or "point"
        if len(name) > 120:
            digest = hashlib.sha1(name.encode()).hexdigest()[:10]
            name = f"{name[:100]}__{digest}"
        base, i = name, 1
        while name in seen:
            i += 1
            name = f"{base}__{i}"
        seen.add(name)
        names.append(name)
    return names
