"""Finding, loading and running cases (the user's robot and benchmark modules).

A case is a plain module in a ``cases/`` folder with ``PARAMS`` (defaults), ``build``
and ``run(out=None, **params) -> dict``.  Folders searched, in order: the ``FEM_CASES``
environment variable (``os.pathsep``-separated), ``./cases`` and the ``cases/`` folder
beside the installed ``fem`` package (a source checkout).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

from .errors import ModelError

__all__ = ["case_dirs", "available_cases", "load_case", "parse_params", "describe"]


def case_dirs() -> list[Path]:
    dirs = [Path(p) for p in os.environ.get("FEM_CASES", "").split(os.pathsep) if p]
    dirs += [Path.cwd() / "cases", Path(__file__).resolve().parents[1] / "cases"]
    seen, out = set(), []
    for d in dirs:
        r = d.resolve()
        if r.is_dir() and r not in seen:
            seen.add(r)
            out.append(r)
    return out


def available_cases() -> dict[str, Path]:
    """Case name -> module file."""
    found: dict[str, Path] = {}
    for d in case_dirs():
        for f in sorted(d.glob("*.py")):
            if not f.name.startswith("_"):
                found.setdefault(f.stem, f)
    return found


def load_case(name: str) -> ModuleType:
    """Import a case module by name; a ModelError lists the known cases."""
    cases = available_cases()
    if name not in cases:
        raise ModelError(f"unknown case {name!r}; available cases: "
                         f"{', '.join(sorted(cases)) or '(none found)'} "
                         f"(searched {', '.join(str(d) for d in case_dirs())})")
    path = cases[name]
    mod_name = f"fem_case_{name}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    sys.modules[mod_name] = module
    for attr in ("PARAMS", "run"):
        if not hasattr(module, attr):
            raise ModelError(f"case {name!r} ({path}) has no {attr}; a case defines PARAMS, "
                             "build(**params) and run(out=None, **params)")
    return module


def describe(module: ModuleType) -> str:
    """First line of the case's docstring."""
    doc = (module.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else "(no description)"


def _convert(raw: str, default, key: str):
    if isinstance(default, bool):
        low = raw.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ModelError(f"parameter {key!r} is a bool; got {raw!r} (use true/false)")
    if isinstance(default, int):
        try:
            return int(raw)
        except ValueError:
            try:
                f = float(raw)
            except ValueError:
                raise ModelError(f"parameter {key!r} is an integer; got {raw!r}") from None
            if f != int(f):
                raise ModelError(f"parameter {key!r} is an integer; got {raw!r}") from None
            return int(f)
    if isinstance(default, float):
        try:
            return float(raw)
        except ValueError:
            raise ModelError(f"parameter {key!r} is a number; got {raw!r}") from None
    if isinstance(default, str):
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        raise ModelError(f"parameter {key!r} takes JSON (e.g. [1, 2]); got {raw!r}") from None


def parse_params(module: ModuleType, items: list[str] | dict) -> dict:
    """``["E_Pa=2e8", ...]`` (or a dict) -> typed parameters, checked against PARAMS."""
    params = module.PARAMS
    pairs = items.items() if isinstance(items, dict) else []
    if not isinstance(items, dict):
        parsed = []
        for item in items:
            if "=" not in item:
                raise ModelError(f"malformed parameter {item!r}: write key=value; "
                                 f"parameters: {', '.join(params)}")
            k, v = item.split("=", 1)
            parsed.append((k.strip(), v))
        pairs = parsed
    out = {}
    for k, v in pairs:
        if k not in params:
            raise ModelError(f"unknown parameter {k!r}; this case takes: "
                             + ", ".join(f"{p}={params[p]!r}" for p in params))
        out[k] = _convert(v, params[k], k) if isinstance(v, str) else v
    return out
