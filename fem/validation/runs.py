"""Case runs shared by the checks and the paper pages: each distinct run once per process.

``run(name, **params)`` is ``fem.cases.load_case(name).run(**params)`` memoized on the
parameters (lists become tuples for the key), so a figure a check measures and the
reproduction page prints come from the same run.
"""

from __future__ import annotations

from typing import Any

__all__ = ["run", "clear"]

_RUNS: dict[tuple, dict] = {}


def _key(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_key(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _key(v)) for k, v in value.items()))
    return value


def run(name: str, **params: Any) -> dict:
    """The figures of ``cases/<name>.py`` ``run(**params)`` (no output folder), memoized."""
    from ..cases import load_case

    key = (name, _key(params))
    if key not in _RUNS:
        _RUNS[key] = load_case(name).run(**params)
    return _RUNS[key]


def clear() -> None:
    """Forget the memoized runs."""
    _RUNS.clear()
