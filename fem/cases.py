"""Finding, loading and running cases (the user's robot and benchmark modules).

A case is a plain module in a ``cases/`` folder with ``PARAMS`` (defaults), ``build``
and ``run(out=None, **params) -> dict``; optionally ``LIMITS`` (allowed values),
``DOCS`` (each parameter's meaning and unit), ``REFERENCES`` (the papers it
reproduces, keys of :mod:`fem.references.citations`) and ``resolve(params) -> dict``
(the values its ``"auto"`` defaults stand for, which ``summary.json`` records:
:func:`resolve_params`).  Folders searched, in order: the ``FEM_CASES``
environment variable (``os.pathsep``-separated), ``./cases`` and the ``cases/`` folder
beside the installed ``fem`` package (a source checkout).

What the cases share is here too: the rule and meaning of the parameters many cases
take (:data:`STANDARD`, :data:`CHAIN_FALL`), the dynamic run of a case (:func:`simulate_case`),
the end of a run (:func:`finish_run`) and the analyses two cases run alike
(:func:`chain_fall`, :func:`cantilever_analysis`).
"""

from __future__ import annotations

import importlib.util
import json
import math
import numbers
import os
import re
import shutil
import stat
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from .core.errors import ModelError

__all__ = ["case_dirs", "available_cases", "load_case", "parse_params", "check_params",
           "resolve_params",
           "describe", "shorten", "references", "parameter_table", "output_folder",
           "write_summary", "add_files_to_summary", "previous_run_files", "start_in_folder",
           "run_case", "SharedParameters", "STANDARD", "CHAIN_FALL",
           "simulate_case", "finish_run", "ChainFall", "chain_fall",
           "cantilever_analysis", "clock", "WARMUPS", "compile_kernels"]


def case_dirs() -> list[Path]:
    dirs = [Path(p) for p in os.environ.get("FEM_CASES", "").split(os.pathsep) if p]
    from .core.bundled import bundled_candidates

    dirs += [Path.cwd() / "cases", *bundled_candidates("cases")]
    seen, out = set(), []
    for d in dirs:
        r = d.resolve()
        if r.is_dir() and r not in seen:
            seen.add(r)
            out.append(r)
    return out


def available_cases() -> dict[str, Path]:
    """Case name -> module file: the modules of the case folders that assign ``PARAMS``
    at their top level.  Other modules there (a user's helpers, shared by several
    cases) are not cases; a case imports them by name while it loads."""
    found: dict[str, Path] = {}
    for d in case_dirs():
        for f in sorted(d.glob("*.py")):
            if not f.name.startswith("_") and f.stem not in found and _defines_params(f):
                found[f.stem] = f
    return found


def _case_file(name: str) -> Path | None:
    """The file of case ``name``, as :func:`available_cases` would find it (the first case
    folder whose ``name.py`` assigns ``PARAMS``), reading only the files of that name."""
    if name.startswith(("_", ".")) or Path(name).name != name or "\\" in name:
        return None
    for d in case_dirs():
        f = d / f"{name}.py"
        if f.is_file() and _defines_params(f):
            return f
    return None


def _defines_params(path: Path) -> bool:
    """Whether a module assigns ``PARAMS`` at its top level (read, not run).  A file
    that does not parse is listed, so that loading it says what is wrong."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return True
    except OSError:
        return False
    for node in tree.body:
        targets = (node.targets if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign) else [])
        if any(isinstance(t, ast.Name) and t.id == "PARAMS" for t in targets):
            return True
    return False


class _CaseFinder:
    """Finds the modules ``fem_case_<name>`` of :func:`load_case` for the import system."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not fullname.startswith(_CASE_PREFIX):
            return None
        name = fullname.removeprefix(_CASE_PREFIX)
        if _case_file(name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _CaseLoader(name))


class _CaseLoader:
    """Loads a case by :func:`load_case` (which registers it) for the import system."""

    def __init__(self, name: str) -> None:
        self.name = name

    def create_module(self, spec: Any) -> ModuleType:
        return load_case(self.name)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing: :func:`load_case` has run it."""


_CASE_PREFIX = "fem_case_"


def import_cases_on_demand() -> None:
    """Let ``import fem_case_<name>`` load case ``name`` (:func:`load_case`): a function of
    a case handed by reference to another process (the worker beside ``fem run``) loads
    its case there when it arrives, and only then."""
    if not any(isinstance(f, _CaseFinder) for f in sys.meta_path):
        sys.meta_path.append(_CaseFinder())


def load_case(name: str) -> ModuleType:
    """Import a case module by name; a ModelError lists the known cases.

    A case file that cannot be imported (a syntax error, a missing import, an exception
    at import), or that lacks ``PARAMS`` (a dict) or ``run`` (a function), is a
    :class:`~fem.ModelError` naming the file and line — never a traceback.
    """
    if not isinstance(name, str) or not name:
        raise ModelError(f"a case is named by a str (see `fem list`); got {name!r:.80}")
    path = _case_file(name)
    if path is None:
        helpers = [d / f"{name}.py" for d in case_dirs() if (d / f"{name}.py").is_file()]
        if helpers:
            raise ModelError(f"{helpers[0]} is not a case: it assigns no PARAMS (a module "
                             f"that cases import); a case defines PARAMS and run")
        raise ModelError(f"unknown case {name!r}; available cases: "
                         f"{', '.join(sorted(available_cases())) or '(none found)'} "
                         f"(searched {', '.join(str(d) for d in case_dirs())})")
    mod_name = f"{_CASE_PREFIX}{name}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    # registered before it runs, as an import would: dataclasses (and anything else that
    # looks its module up while the module runs) need it
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as err:
        sys.modules.pop(mod_name, None)
        raise ModelError(f"case {name!r} cannot be loaded: {err.filename or path}:{err.lineno}: "
                         f"syntax error: {err.msg}") from None
    except (Exception, SystemExit) as err:     # a missing import, an error at import
        sys.modules.pop(mod_name, None)
        raise ModelError(f"case {name!r} cannot be loaded: {where_raised(err, path)}: "
                         f"{type(err).__name__}: {err}") from None
    finally:
        sys.path.remove(str(path.parent))
    try:
        check_case_module(module, name, path)
    except ModelError:
        sys.modules.pop(mod_name, None)
        raise
    return module


def where_raised(err: BaseException, path: str | Path) -> str:
    """``file:line`` of the innermost frame of ``err``'s traceback in ``path`` (the case
    file), or of the innermost frame at all."""
    import traceback

    frames = traceback.extract_tb(err.__traceback__)
    mine = [f for f in frames if Path(f.filename) == Path(path)]
    frame = mine[-1] if mine else (frames[-1] if frames else None)
    return f"{frame.filename}:{frame.lineno}" if frame is not None else str(path)


def check_case_module(module: ModuleType, name: str, path: Path) -> None:
    """A case defines ``PARAMS`` (a dict of str keys), ``run`` (a function) and optionally
    ``build`` (a function) and ``LIMITS`` (a dict)."""
    what = f"case {name!r} ({path})"
    for attr in ("PARAMS", "run"):
        if not hasattr(module, attr):
            raise ModelError(f"{what} has no {attr}; a case defines PARAMS, "
                             "build(**params) and run(out=None, **params)")
    params = module.PARAMS
    if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
        raise ModelError(f"{what}: PARAMS must be a dict of parameter names (str) to default "
                         f"values; got {type(params).__name__} {params!r:.60}")
    for attr in ("run", "build", "resolve"):
        if hasattr(module, attr) and not callable(getattr(module, attr)):
            raise ModelError(f"{what}: {attr} must be a function; got "
                             f"{type(getattr(module, attr)).__name__}")
    limits = getattr(module, "LIMITS", {})
    if not isinstance(limits, dict):
        raise ModelError(f"{what}: LIMITS must be a dict of parameter -> rule; got "
                         f"{type(limits).__name__}")
    unknown = [k for k in limits if k not in params]
    if unknown:
        raise ModelError(f"{what}: LIMITS names parameters {unknown} that PARAMS lacks")
    docs = getattr(module, "DOCS", {})
    if not isinstance(docs, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                             for k, v in docs.items()):
        raise ModelError(f"{what}: DOCS must be a dict of parameter -> meaning (str), e.g. "
                         f'{{"dt_s": "time step"}}; got {docs!r:.60}')
    unknown = [k for k in docs if k not in params]
    if unknown:
        raise ModelError(f"{what}: DOCS names parameters {unknown} that PARAMS lacks")
    refs = getattr(module, "REFERENCES", ())
    from .references.citations import ALL

    if (not isinstance(refs, tuple | list)
            or not all(isinstance(k, str) and k in ALL for k in refs)):
        raise ModelError(f"{what}: REFERENCES must be a tuple of citation keys of "
                         f"fem.references.citations ({', '.join(sorted(ALL))}); got {refs!r:.80}")


_ABBREVIATIONS = ("e.g.", "i.e.", "al.", "Fig.", "Figs.", "eq.", "eqs.", "Eq.", "No.", "vs.",
                  "cf.", "ch.", "ed.")


def _first_sentence(text: str) -> str:
    words, out = text.split(), []
    for w in words:
        out.append(w)
        if w[-1:] in ".!?" and w not in _ABBREVIATIONS and len(out) < len(words):
            break
    return " ".join(out)


def shorten(text: str, width: int) -> str:
    """``text`` cut at a word boundary to at most ``width`` characters, with an
    ellipsis where something was cut (unchanged when it fits)."""
    if len(text) <= width:
        return text
    cut = text[: max(width - 1, 1)]
    if " " in cut.strip():
        cut = cut[: cut.rstrip().rfind(" ")]
    return cut.rstrip(" ,;:–—(") + "…"


def describe(module: ModuleType, width: int | None = None) -> str:
    """One line about the case: the first sentence of its docstring (``fem list``).

    Parameters
    ----------
    module : the case module
    width : int, optional
        Longest line wanted; a longer sentence is shortened at a word boundary with an
        ellipsis (:func:`shorten`).  None: the whole sentence.
    """
    doc = (module.__doc__ or "").strip()
    if not doc:
        return "(no description)"
    line = _first_sentence(" ".join(doc.split("\n\n")[0].split()))
    return line if width is None else shorten(line, width)


def references(module: ModuleType) -> list[str]:
    """The full references of the papers the case declares in ``REFERENCES``."""
    from .references.citations import cite

    return [cite(k) for k in getattr(module, "REFERENCES", ())]


def _auto_number(default, rule) -> bool:
    """A parameter whose default is ``"auto"`` and whose ``LIMITS`` rule is a range
    (``">0"``, ``"[0, 1]"``): it takes ``"auto"`` (the case's :func:`resolve_params`
    says what that stands for) or a number within the range."""
    return (default == "auto" and isinstance(rule, str)
            and rule.strip() not in ("3-vector", "direction"))


def _allowed(default, rule) -> str:
    if _auto_number(default, rule):
        return "auto, " + rule.strip().replace(" ", "")
    if isinstance(rule, tuple | list):
        return ", ".join(str(v) for v in rule)
    if isinstance(rule, str):
        return rule.strip().replace(" ", "")
    if isinstance(default, bool):
        return "true, false"
    if isinstance(default, int | float):
        return "finite" if isinstance(default, float) else "integer"
    if isinstance(default, list) and all(isinstance(x, int | float) for x in default):
        return "list of finite numbers"
    return ""


def _format_default(value) -> str:
    """A default as it is typed after ``-p name=``: numbers short, text bare, JSON else."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return repr(value) if value.is_integer() and abs(value) < 1e6 else format(value, ".6g")
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_format_default(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def parameter_table(module: ModuleType) -> list[dict[str, str]]:
    """One row per parameter of ``PARAMS``: ``name``, ``default``, ``unit``, ``allowed``
    and ``meaning``.

    The meaning and unit come from the case's optional ``DOCS`` (``"meaning [unit]"``;
    ``[-]`` marks a dimensionless number); without a unit there, the unit the name's
    suffix gives (``E_Pa``: Pa, :func:`fem.core.units.unit_of`).  ``allowed`` is the rule of
    ``LIMITS`` (a range or the allowed values) or, without one, what the default's type
    admits.
    """
    from .core.units import unit_of

    docs = getattr(module, "DOCS", {})
    limits = getattr(module, "LIMITS", {})
    rows = []
    for name, default in module.PARAMS.items():
        meaning, unit = docs.get(name, "").strip(), ""
        m = re.search(r"\s*\[([^\[\]]*)\]$", meaning)
        if m:
            meaning, unit = meaning[: m.start()], m.group(1).strip()
        unit = unit or unit_of(name)
        rows.append({"name": name, "default": _format_default(default),
                     "unit": "–" if unit in ("-", "") else unit,
                     "allowed": _allowed(default, limits.get(name)), "meaning": meaning})
    return rows


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
            # 1e400 is inf and nan is no number: never an integer (nor an overflow)
            if not math.isfinite(f) or f != int(f):
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


OLD_VALUES = {"seed": "paper"}
"""Former names of parameter values, still accepted where the new name is one of the
allowed values (``LIMITS``): ``-p kinematics=seed`` runs as ``kinematics=paper``, and the
summary records the new name.  Silent: the run is the same, and ``fem info`` lists only
the new names."""


def _renamed(value, rule):
    if (isinstance(value, str) and isinstance(rule, tuple | list) and value not in rule
            and OLD_VALUES.get(value) in rule):
        return OLD_VALUES[value]
    return value


def parse_params(module: ModuleType, items: list[str] | dict) -> dict:
    """``["E_Pa=2e8", ...]`` (or a dict) -> typed parameters, checked against PARAMS (a
    former value name, :data:`OLD_VALUES`, given as its new one)."""
    params = module.PARAMS
    limits = getattr(module, "LIMITS", {})
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
        if isinstance(v, str) and _auto_number(params[k], limits.get(k)):
            v = v.strip()
            if v != "auto":
                try:
                    v = float(v)
                except ValueError:
                    raise ModelError(f"parameter {k!r} is 'auto' or a number "
                                     f"({limits[k].strip()}); got {v!r}") from None
        out[k] = _renamed(_convert(v, params[k], k) if isinstance(v, str) else v,
                          limits.get(k))
    return check_params(module, out)


_RULE = re.compile(r"^\s*(>=|<=|>|<)\s*(\S+)\s*$")
_INTERVAL = re.compile(r"^\s*([\[(])\s*(\S+)\s*,\s*(\S+)\s*([\])])\s*$")


def _within(value: int | float, rule: str, key: str) -> None:
    x = float(value)
    m = _RULE.match(rule)
    if m:
        op, bound = m.group(1), float(m.group(2))
        ok = {">": x > bound, ">=": x >= bound, "<": x < bound, "<=": x <= bound}[op]
        if not ok:
            raise ModelError(f"parameter {key!r} must be {op} {m.group(2)}; got {value!r}")
        return
    m = _INTERVAL.match(rule)
    if not m:
        raise ModelError(f"case LIMITS for {key!r}: cannot read rule {rule!r} (write '>0', "
                         "'>=1', '[0, 1]' or a tuple of allowed values)")
    lo, hi = float(m.group(2)), float(m.group(3))
    ok_lo = x >= lo if m.group(1) == "[" else x > lo
    ok_hi = x <= hi if m.group(4) == "]" else x < hi
    if not (ok_lo and ok_hi):
        raise ModelError(f"parameter {key!r} must lie in {rule.strip()}; got {value!r}")


def check_params(module: ModuleType, params: dict) -> dict:
    """Check parameter values against the case's ``PARAMS`` and optional ``LIMITS``.

    Without any declaration: a number given for a float default must be finite, one for
    an int default integral, and a list whose default is a list of numbers must hold
    finite numbers.
    ``LIMITS`` (optional, in the case module) maps a parameter to a rule: ``">0"``,
    ``">=1"``, ``"<=90"``, an interval ``"[0, 1]"``/``"(0, 1]"``, ``"3-vector"``,
    ``"direction"`` (a non-zero 3-vector), or a tuple of allowed values.  A parameter
    whose default is ``"auto"`` and whose rule is a range takes ``"auto"`` or a finite
    number within the range.  Returns ``params`` (values unchanged).
    """
    defaults = module.PARAMS
    limits = getattr(module, "LIMITS", {})
    unknown = [k for k in params if k not in defaults]
    if unknown:
        raise ModelError(f"unknown parameter {unknown[0]!r}; this case takes: "
                         + ", ".join(f"{p}={defaults[p]!r}" for p in defaults))
    for key, value in params.items():
        default = defaults.get(key)
        number = (isinstance(value, numbers.Real)
                  and not isinstance(value, bool | np.bool_))      # numpy numbers too
        if isinstance(default, bool) and not (isinstance(value, bool | np.bool_)
                                              or (number and value in (0, 1))):
            raise ModelError(f"parameter {key!r} is a bool (true/false); got {value!r:.60}")
        if (isinstance(default, int | float) and not isinstance(default, bool)
                and not number and not (key in limits and isinstance(limits[key], tuple))):
            raise ModelError(f"parameter {key!r} is a number like its default {default!r}; "
                             f"got {value!r:.60}")
        if isinstance(default, float) and number and not math.isfinite(value):
            raise ModelError(f"parameter {key!r} must be finite; got {value!r}")
        if (isinstance(default, int) and not isinstance(default, bool) and number
                and not float(value).is_integer()):
            raise ModelError(f"parameter {key!r} is an integer; got {value!r}")
        elif (isinstance(default, list) and default
              and all(isinstance(x, int | float) for x in default)):
            if not (isinstance(value, list | tuple) and len(value) > 0
                    and all(isinstance(x, int | float) and not isinstance(x, bool)
                            and math.isfinite(x) for x in value)):
                raise ModelError(f"parameter {key!r} takes a list of finite numbers like "
                                 f"its default {default}; got {value!r}")
        rule = limits.get(key)
        if rule is None:
            continue
        if _auto_number(default, rule):
            if value == "auto":
                continue
            if not number or not math.isfinite(value):
                raise ModelError(f"parameter {key!r} is 'auto' or a finite number "
                                 f"({rule.strip()}); got {value!r:.60}")
        if isinstance(rule, str) and rule.strip() == "3-vector":
            if not (isinstance(value, list | tuple) and len(value) == 3):
                raise ModelError(f"parameter {key!r} is a 3-vector [x, y, z]; got {value!r}")
            continue
        if isinstance(rule, str) and rule.strip() == "direction":
            if not (isinstance(value, list | tuple) and len(value) == 3):
                raise ModelError(f"parameter {key!r} is a 3-vector [x, y, z] (a direction); "
                                 f"got {value!r}")
            if not any(x != 0 for x in value):
                raise ModelError(f"parameter {key!r} is a direction and must not be zero; "
                                 f"got {value!r} (e.g. {key}=[0,1,0])")
            continue
        if isinstance(rule, tuple | list):
            if value not in rule:
                raise ModelError(f"parameter {key!r} must be one of "
                                 f"{', '.join(map(repr, rule))}; got {value!r}")
        elif isinstance(value, int | float) and not isinstance(value, bool):
            _within(value, rule, key)
    return params



def resolve_params(module: ModuleType, params: dict) -> dict:
    """All the parameters of a run of the case, as it uses them.

    Parameters
    ----------
    module : ModuleType
        The case (:func:`load_case`).
    params : dict
        Its checked overrides (:func:`parse_params`); the defaults of ``PARAMS`` fill the
        rest.

    Returns
    -------
    dict
        ``{**PARAMS, **params}`` passed through the case's optional ``resolve(params)``,
        which replaces an ``"auto"`` that stands for a number by that number (a time step
        that follows the drive, say).  ``summary.json`` records these values, so that a
        run made again from its summary's ``parameters`` is the same run.
    """
    p = {**module.PARAMS, **params}
    resolve = getattr(module, "resolve", None)
    if resolve is None:
        return p
    out = resolve(p)
    if not isinstance(out, dict):
        raise ModelError(f"case {module.__name__!r}: resolve(params) must return the dict of "
                         f"parameters; got {type(out).__name__}")
    return out


def output_folder(arg: str | Path | None, case: str) -> Path:
    """A run's output folder (default ``results/CASE``), made and checked writable *before*
    anything is solved."""
    out = Path(arg) if arg else Path("results") / case
    try:
        if out.exists() and not out.is_dir():
            raise ModelError(f"--out {out} is a file, not a folder; choose a folder name")
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".fem_write_test"
        probe.write_text("ok")
        probe.unlink(missing_ok=True)       # another run may have removed it
    except OSError as err:      # read-only, no space, a name too long for the filesystem
        raise ModelError(f"cannot write results to {_short(out)}: {err.strerror or err}; "
                         "choose another --out folder") from None
    return out


def _short(path: Path) -> str:
    s = str(path)
    return s if len(s) <= 120 else s[:60] + " … " + s[-40:]


_PAD = 4096
"""Bytes a "running" summary.json is padded to: on a full disk the final status is
written over them in place (:func:`fem.core.files.overwrite_in_place`), needing no new block."""

_BEFORE: dict[str, dict[str, tuple]] = {}
"""Per output folder (resolved path): the files that were in it when the current run
started, after the previous run's were removed (:func:`start_in_folder`), with their
state; :func:`write_summary` lists only files that are new or changed since."""


def _folder_files(out: Path) -> dict[str, tuple]:
    """The folder's files (hidden ones and summary.json left out), relative name →
    (modification time, size, inode): what tells a file this run wrote."""
    found = {}
    # os.walk, not rglob: hidden folders are not entered (a previous run's files, moved
    # aside, are being deleted beside the run: a folder that vanishes while rglob lists
    # it raised FileNotFoundError and ended the run), and errors are skipped
    for folder, dirs, files in os.walk(out):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel_folder = Path(folder).relative_to(out)
        for name in files:
            rel = (rel_folder / name).as_posix()
            if name.startswith(".") or rel == "summary.json":
                continue
            try:
                st = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                found[rel] = (st.st_mtime_ns, st.st_size, st.st_ino)
    return found


def previous_run_files(out: Path) -> list[str]:
    """The files of the run recorded in ``out/summary.json`` (relative names, summary.json
    itself left out): those its summary lists — or, for a run that died before its final
    summary ("running"), every file that was not in the folder when it started (its
    ``files_before``) —, and only files inside the folder.  Empty without a summary."""
    try:
        summary = json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        return []
    if not isinstance(summary, dict) or not isinstance(summary.get("files"), list):
        return []
    if summary.get("status") == "running":
        before = summary.get("files_before", summary["files"])
        before = set(before) if isinstance(before, list) else set()
        names = [f for f in _folder_files(out) if f not in before]
    else:
        names = [f for f in summary["files"] if isinstance(f, str)]
    root = out.resolve()
    own = []
    for name in names:
        if name == "summary.json" or any(p.startswith(".") for p in Path(name).parts):
            continue
        path = out / name
        try:
            inside = path.parent.resolve().is_relative_to(root)
        except OSError:
            continue
        if inside and (path.is_file() or path.is_symlink()):
            own.append(name)
    return own


_TRASH = ".previous-run."
"""Prefix of the hidden folder a previous run's files are moved to before deletion."""


def _remove_tree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def start_in_folder(out: Path) -> list[str]:
    """Make ``out`` this run's: remove the previous run's files (:func:`previous_run_files`)
    and its summary, and the folders that leaves empty — nothing the user put there —,
    then note what stays (:data:`_BEFORE`).  Returns the names removed."""
    # moved aside into a hidden folder, then deleted beside the run (below; at once
    # elsewhere): a rename frees no disk block, where a deletion can wait for the disk
    # (2–3 ms a file on a disk mounted with `discard`: 0.5 s for the main job's 170
    # files, on the run's start)
    trash = out / f"{_TRASH}{os.getpid()}"
    removed, made = [], set()
    for name in previous_run_files(out):
        target = trash / name
        try:
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            os.rename(out / name, target)
            removed.append(name)
        except FileNotFoundError:
            pass
    (out / "summary.json").unlink(missing_ok=True)
    root = out.resolve()
    for folder in sorted({(out / n).parent for n in removed}, key=lambda d: -len(d.parts)):
        while folder.resolve() != root:
            try:
                folder.rmdir()          # only if empty
            except OSError:
                break
            folder = folder.parent
    from .core import beside

    old = [str(d) for d in sorted(out.glob(f"{_TRASH}*"))]   # this run's, and leftovers
    if old and beside.allowed():
        # under `fem run`: deleted by a thread of the run's own process — the deletions
        # wait on the disk, not the processor (and release the interpreter lock), so the
        # worker beside the run stays free for the run's references; what a run that
        # ends first leaves is deleted by the next run into the folder
        import threading

        threading.Thread(target=lambda: [_remove_tree(d) for d in old], daemon=True,
                         name="fem: previous run's files").start()
    else:
        for d in old:
            _remove_tree(d)
    _BEFORE[str(root)] = _folder_files(out)
    return removed


def write_summary(out: Path, summary: dict, *, pad: bool = False) -> None:
    """``summary.json`` with the list of this run's files, written atomically.

    ``files`` lists the files the run wrote into the folder (new or changed since
    :func:`start_in_folder`; every file when the folder was not started so), never what
    else is there.  If the disk is full the status is still recorded: written over the
    old summary in place, with as much of the summary as fits.  Raises OSError only if
    even that fails.
    """
    from .core.files import atomic_write_text, overwrite_in_place
    from .io.output import jsonable

    before = _BEFORE.get(str(out.resolve()), {})
    summary["files"] = sorted(name for name, state in _folder_files(out).items()
                              if before.get(name) != state) + ["summary.json"]
    if summary.get("status") == "running":     # what a dead run's successor keeps
        summary["files_before"] = sorted(before)
    else:
        summary.pop("files_before", None)
    text = json.dumps(jsonable(summary), indent=1)
    if pad and len(text) < _PAD:
        text += " " * (_PAD - len(text))        # room for the final status (see _PAD)
    try:
        atomic_write_text(out / "summary.json", text)
        return
    except OSError as err:
        first = err
    # a full disk: the essentials over the old file's bytes, smaller and smaller
    keep = {k: summary[k] for k in ("case", "status", "error", "interrupted_by", "wall_s",
                                    "pid", "host") if k in summary}
    for extra in ({"parameters": summary.get("parameters")}, {}):
        small = {**keep, **extra, "note": f"summary shortened: {first.strerror or first}"}
        for limit in (2000, 300):
            if "error" in small:
                small["error"] = str(summary["error"])[:limit]
            if overwrite_in_place(out / "summary.json", json.dumps(jsonable(small))):
                return
    raise first


def add_files_to_summary(out: str | Path, paths) -> None:
    """List files written into a finished run's folder afterwards (``fem render``'s movie,
    ``fem view``'s page) among the run's ``files``, so that the next run into the folder
    replaces them too.  Files outside the folder, and a folder without a readable
    summary, are left alone; a write error is ignored (the files stay unlisted)."""
    from .core.files import atomic_write_text

    out = Path(out)
    try:
        summary = json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        return
    if not isinstance(summary, dict) or not isinstance(summary.get("files"), list):
        return
    root = out.resolve()
    names = set(summary["files"]) - {"summary.json"}
    for p in paths:
        path = Path(p).resolve()
        if path.is_file() and path.is_relative_to(root):
            names.add(path.relative_to(root).as_posix())
    if names == set(summary["files"]) - {"summary.json"}:
        return
    summary["files"] = sorted(names) + ["summary.json"]
    try:
        atomic_write_text(out / "summary.json", json.dumps(summary, indent=1))
    except OSError:
        pass


def run_case(name: str, params: list[str] | dict | None = None, out: str | Path | None = None,
             *, render: bool = True, every: int = 0, progress: bool = True) -> dict:
    """Run one case the way ``fem run`` does; ``fem sweep`` runs each point through this.

    Parameters
    ----------
    name : str
        Case name (see :func:`available_cases`).
    params : list of "key=value" strings or dict, optional
        Overrides of the case's ``PARAMS``, parsed and checked by :func:`parse_params`
        (a bad value raises :class:`~fem.ModelError` before anything runs).
    out : str or Path, optional
        Output folder, checked writable first and locked against a second run
        (:class:`fem.core.files.OutputLock`); the case writes its files there and
        ``summary.json`` is written at the start ("running", with the writer's pid and
        host, so a run that dies is recognisable) and at the end, also when the run
        fails or is interrupted.  Without it nothing is written.
    render, every, progress : output options of this run (``fem.io.options.OPTIONS``).
        Pictures are deferred: ``fem.io.pictures.render_pending()`` makes them afterwards.

    Returns
    -------
    dict
        The summary: ``case``, ``status`` ("finished"; "failed" with ``error`` — whatever
        ``run()`` raised, a write error such as a full disk, or a ``run()`` that returned
        no dict of figures —; or "interrupted" by Ctrl-C or SIGTERM), ``parameters`` (all of
        them as the run used them, :func:`resolve_params`), the
        figures (for a failed or interrupted run, those the case had written), ``wall_s``
        (compiling excluded), ``kernels`` (the path that ran: "compiled" or "numpy",
        :func:`fem.core.jit.path`), ``compile_s`` (seconds spent compiling kernels),
        ``references`` (the full citations of the case's ``REFERENCES``, when it declares
        any) and, with ``out``, ``files``.
    """
    import time
    import traceback

    from .core import beside, jit
    from .core.errors import Interrupted
    from .core.files import OutputLock, writer
    from .core.threads import single_thread_blas
    from .io import options

    module = load_case(name)
    params = parse_params(module, params or [])
    recorded = resolve_params(module, params)   # the values used, "auto" resolved
    kernels = getattr(module, "KERNELS", "auto")
    if kernels not in ("auto", "numpy"):
        raise ModelError(f"case {name!r}: KERNELS must be 'auto' or 'numpy' (a run too "
                         f"short to repay loading the compiled kernels), got {kernels!r}")
    if kernels == "numpy":
        jit.prefer_numpy(f"case {name!r} declares KERNELS = 'numpy': its runs are too short "
                         "to repay loading the compiled kernels")
    if isinstance(every, bool) or not isinstance(every, int) or every < 0:
        raise ModelError(f"--every must be ≥ 0 (an integer; 0: about 200 frames), got "
                         f"{every!r}")
    lock = None
    if out is not None:
        out = output_folder(out, name)
        lock = OutputLock(out).acquire()
    try:
        if out is not None:     # one run per folder: the previous run's files go
            start_in_folder(out)
        options.OPTIONS.render = render
        options.OPTIONS.every = every
        options.OPTIONS.progress = progress
        options.OPTIONS.defer_render = True
        options.OPTIONS.pending.clear()
        options.TIMING.update(run=0.0, writing=0.0, rendering=0.0, compiling=0.0)
        compiled_before = jit.compile_seconds()
        t0 = time.perf_counter()
        status, error, extra = "finished", None, {}
        run_file = Path(getattr(module, "__file__", "") or "")
        if out is not None:     # what a killed run leaves: its parameters, "running", its pid
            try:
                write_summary(out, {"case": name, "status": "running",
                                    "parameters": recorded,
                                    "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                                    **writer()}, pad=True)
            except OSError as err:
                raise ModelError(f"cannot write results to {out}: "
                                 f"{err.strerror or err}") from None
        figures = None
        try:
            with single_thread_blas():
                figures = module.run(out=out, **params)
            if beside.pending():        # work beside the run (plots): all done and written
                options.TIMING["writing"] += beside.drain()
            if not isinstance(figures, dict):
                line = getattr(getattr(module.run, "__code__", None), "co_firstlineno", "?")
                status, error = "failed", (
                    f"case {name!r}: run() returned {type(figures).__name__} "
                    f"{'' if figures is None else repr(figures)[:60] + ' '}instead of a dict "
                    f"of figures ({run_file}:{line}: def run must end with `return figures`)")
        except KeyboardInterrupt as err:
            status = "interrupted"
            if isinstance(err, Interrupted):
                extra["interrupted_by"] = err.signal_name
        except ModelError as err:
            status, error = "failed", str(err)
        except OSError as err:      # a full disk, a folder removed under the run
            status = "failed"
            error = (f"cannot write results: {err.strerror or err}"
                     + (f": {err.filename}" if getattr(err, "filename", None) else "")
                     + (f" (raised at {where_raised(err, run_file)})" if run_file.name else ""))
        except (Exception, SystemExit) as err:   # a bug in the case or below: named, kept
            status = "failed"
            error = (f"case {name!r} failed: {type(err).__name__}: {err} (raised at "
                     f"{where_raised(err, run_file)})")
            extra["traceback"] = traceback.format_exc()
        if status != "finished":
            beside.abandon()       # an interrupted or failed run: work not done goes
        compile_s = jit.compile_seconds() - compiled_before
        wall = time.perf_counter() - t0 - compile_s
        options.TIMING["run"] = wall + compile_s
        options.TIMING["compiling"] = compile_s
        if status != "finished":
            # keep what finished: the figures the case wrote, the streamed series and chunks
            figures = {}
            if out is not None and (out / "figures.json").is_file():
                try:
                    figures = json.loads((out / "figures.json").read_text())
                except (json.JSONDecodeError, OSError):
                    figures = {}
                if not isinstance(figures, dict):
                    figures = {}
            options.OPTIONS.pending.clear()
        summary = {"case": name, "status": status, "parameters": recorded,
                   **figures}
        if error:
            summary["error"] = error
        if getattr(module, "REFERENCES", ()):     # the papers it reproduces, cited
            summary.setdefault("references", references(module))
        summary.update(extra)
        summary.setdefault("wall_s", wall)
        # which path ran (fem.core.jit.path: a process that asked for no kernel ran only
        # NumPy forms) and the compiling, apart from every wall time
        summary["kernels"] = jit.decided() or "numpy"
        if jit.why():
            summary["kernels_why"] = jit.why()
        summary["compile_s"] = compile_s
        if out is not None:
            try:
                write_summary(out, summary)
            except OSError as err:
                summary["summary_error"] = f"summary.json not updated: {err.strerror or err}"
        return summary
    finally:
        if lock is not None:
            lock.release()


# What the cases share ------------------------------------------------------------------

def clock() -> float:
    """The clock of a case's wall times (``wall_s``, ``real_time_factor``): seconds that
    exclude compiling kernels (:func:`fem.core.jit.clock`), which ``summary.json``
    reports apart (``compile_s``)."""
    from .core.jit import clock as _clock

    return _clock()


class SharedParameters:
    """Parameters several cases take under the same names: name -> (``LIMITS`` rule,
    ``DOCS`` meaning).  A case picks them into its ``LIMITS`` and ``DOCS``
    (``{..., **STANDARD.limits("E_Pa", "nu")}``) and writes its own where it means
    something more particular."""

    def __init__(self, table: dict[str, tuple]) -> None:
        self.table = table

    def limits(self, *names: str) -> dict:
        """The ``LIMITS`` rules of these parameters (none named: all)."""
        return {n: self.table[n][0] for n in names or self.table}

    def docs(self, *names: str) -> dict[str, str]:
        """The ``DOCS`` meanings of these parameters (none named: all)."""
        return {n: self.table[n][1] for n in names or self.table}


STANDARD = SharedParameters({
    "E_Pa": (">0", "Young's modulus"),
    "nu": ("(-1, 0.5)", "Poisson's ratio [-]"),
    "t_end_s": (">0", "duration"),
    "dt_s": (">0", "time step"),
    "rho_inf": ("[0, 1]", "spectral radius at infinity of generalized-α (1: no numerical "
                          "damping, 0: most) [-]"),
    "n_modes": (">=1", "modes computed by the modal analysis"),
    "load_steps": (">=1", "first load increment of the static solve is 1/load_steps (cut "
                          "adaptively when it fails)"),
})
"""The parameters many cases take under the same name."""

CHAIN_FALL = SharedParameters({
    "length_m": (">0", "length of each link"),
    "mass_kg": (">0", "mass of each link"),
    "EA_N": (">0", "axial stiffness of each link"),
    "basis": (("modes", "fe", "bezier", "bspline"),
              "deformation basis of the floating-frame links (fem.bases)"),
    "n_coordinates": (">=1", "deformation functions per field and link"),
    **{n: STANDARD.table[n] for n in ("t_end_s", "dt_s", "rho_inf")},
})
"""The parameters of a chain of equal floating-frame links falling (:func:`chain_fall`)."""


def simulate_case(model, p: dict, out: str | Path | None = None, sensors: dict | None = None,
                  **options):
    """The dynamic run of a case: :func:`fem.simulate` over ``p["t_end_s"]`` with step
    ``p["dt_s"]`` and ``p["rho_inf"]``, streamed to ``out`` (:func:`fem.io.output.stream`,
    with the progress line of the run's options when it writes); ``options`` go to
    :func:`fem.simulate`.  Returns the :class:`~fem.Result`."""
    from .io import output
    from .io.options import OPTIONS
    from .solvers import simulate

    return simulate(model, p["t_end_s"], p["dt_s"], rho_inf=p["rho_inf"], **options,
                    progress=out is not None and OPTIONS.progress,
                    result=output.stream(out, model, sensors))


def servo_run(robot, p: dict, out: str | Path | None = None):
    """The servo run of a robot case (:class:`fem.Robot` whose motors follow motions)
    from static equilibrium at its start pose — the links sag under their weight before
    anything moves — with its sensors (:func:`simulate_case`).  Returns ``(result,
    efforts)``: the motors' efforts (n_motors, n_records) [N·m], in the order the motors
    were added."""
    res = simulate_case(robot.model, p, out, robot.sensors(), q0=robot.rest().q)
    return res, np.array([res.sensors[f"{m} effort_Nm"] for m in robot.motors])


def rigid_comparison(tau: np.ndarray, rigid: np.ndarray) -> dict:
    """The figures that compare a robot's motor torques ``tau`` (n_motors, n_records)
    with those of the same robot with rigid links: the rigid peak torques [N·m] and the
    largest difference in percent of each motor's rigid torque range."""
    return {"rigid_peak_torque_Nm": np.abs(rigid).max(axis=1).round(4).tolist(),
            "torque_difference_pct": round(float(
                (100 * np.abs(tau - rigid).max(axis=1) / np.ptp(rigid, axis=1)).max()), 4)}


def finish_run(out: str | Path | None, model, result, figures: dict, wall: float,
               plot=None, **write) -> dict:
    """The end of a case's run: with ``out``, ``plot(Path(out), figures, model.name)``
    (when given) and :func:`fem.write_outputs` (``write``: its keyword arguments).
    Returns the figures with the wall time ``wall_s`` (run metadata, ``summary.json``,
    not a result)."""
    if out is not None:
        from .io.output import write_outputs

        if plot is not None:
            plot(Path(out), figures, model.name)
        write_outputs(out, model, result, figures, **write)
    return {**figures, "wall_s": wall}


class ChainFall:
    """A chain of floating-frame links simulated (:func:`chain_fall`) and its histories,
    one entry a record: ``centrelines`` (each link's centre line by its two ends),
    ``deflections`` (each link's tip deflections in its own frame), ``energies`` (the
    chain's energy dicts) and ``kinetic`` (their kinetic part); ``result`` and the wall
    time of the simulation ``wall``."""

    def __init__(self, model, result, wall: float) -> None:
        self.result, self.wall = result, wall
        self.centrelines = [model.centrelines(q, 2) for q in result.q]
        self.deflections = np.array([model.tip_deflections(q) for q in result.q])
        self.energies = [model.energy(q, v) for q, v in zip(result.q, result.v, strict=True)]
        self.kinetic = np.array([e["kinetic"] for e in self.energies])


def chain_fall(model, p: dict, out: str | Path | None = None) -> ChainFall:
    """Simulate a chain of floating-frame links (:func:`simulate_case`, timed) and take
    its histories (:class:`ChainFall`)."""
    t0 = clock()
    res = simulate_case(model, p, out)
    return ChainFall(model, res, clock() - t0)


def cantilever_analysis(model, p: dict, out: str | Path | None, figures: dict,
                        tip_z_reference: float, modal, *,
                        dynamic_reference: bool = False) -> dict:
    """The analysis ``p["analysis"]`` of a bar clamped at one end whose free end is the
    node ``"tip"``, its figures added to ``figures`` and written to ``out``.

    ``"static"``: the tip's equilibrium beside ``tip_z_reference`` (``p["load_steps"]``);
    ``"modal"``: ``p["n_modes"]`` modes about the straight bar, their figures
    ``modal(modes)`` (a dict); ``"dynamic"``: the drop from rest (:func:`simulate_case`,
    the tip's z as a sensor ``tip_z_m``), with ``tip_z_reference`` as
    ``tip_z_static_reference_m`` when ``dynamic_reference``.  Returns ``figures``.
    """
    from .io.output import write_outputs
    from .solvers import modes, solve_static

    tip = model.node_dofs(model.node("tip"))
    if p["analysis"] == "static":
        st = solve_static(model, load_steps=p["load_steps"])
        x = st.q[tip]
        figures.update({"tip_x_m": float(x[0]), "tip_z_m": float(x[2]),
                        "tip_z_reference_m": tip_z_reference,
                        "newton_iterations": st.iterations,
                        "residual_relative": st.residual})
        result, state = None, st
    elif p["analysis"] == "modal":
        mr = modes(model, n_modes=p["n_modes"])
        figures.update(modal(mr))
        result, state = mr, model.q0      # the modes about the straight bar
    elif p["analysis"] == "dynamic":
        res = simulate_case(model, p, out, sensors={
            "tip_z_m": lambda t, q, v, a, lam: q[tip[2]]})
        reference = {"tip_z_static_reference_m": tip_z_reference} if dynamic_reference else {}
        figures.update({"tip_x_m": float(res.q[-1, tip[0]]), "tip_z_m": float(res.q[-1, tip[2]]),
                        "tip_z_min_m": float(res.q[:, tip[2]].min()), **reference,
                        "time_s": res.t.tolist(), "tip_z_history_m": res.q[:, tip[2]].tolist(),
                        "steps": len(res.t) - 1,
                        "max_residual_dynamics": float(res.stats["residual_dynamics"].max()),
                        "max_residual_constraints": float(
                            res.stats["residual_constraints"].max())})
        result, state = res, None
    else:
        raise ModelError(f"analysis must be 'static', 'dynamic' or 'modal', "
                         f"got {p['analysis']!r}")
    if out is not None:
        write_outputs(out, model, result, figures, state=state)
    return figures


# `fem compile` ---------------------------------------------------------------------------
# A run takes the compiled path only when the compiled code of every kernel is in the
# cache (fem.core.jit.kernels_ready); otherwise it runs the NumPy forms at once and starts
# `fem compile` in the background when it ends.  numba compiles a kernel for the types it
# is called with, so compiling means running: short versions of the shipped cases (the
# same models, a few steps) on the compiled path, then the cache is marked ready.

WARMUPS: tuple[tuple[str, dict], ...] = (
    # the platform at its own step: at 0.05 s its Newton iterations diverge (measured)
    ("parallel_robot_flexible_platform", {}),
    ("parallel_robot_flexible_platform", {"platform": "reduced"}),
    # the paper's problem (P prescribed), no longer the default
    ("parallel_robot_flexible_platform", {"drive": "path"}),
    ("spinup_beam", {"t_end_s": 0.05}),
    ("two_link_arm_fall", {"t_end_s": 0.02}),
    ("five_link_arm_fall", {"t_end_s": 0.03}),
    ("cantilever_cable", {"analysis": "dynamic", "t_end_s": 0.005}),
    ("cantilever_cable", {"analysis": "dynamic", "t_end_s": 0.005, "n_elements": 16}),
    ("cantilever_beam", {"analysis": "dynamic", "t_end_s": 0.005}),
    ("parallel_robot_flexible_links", {"analysis": "inverse", "dt_s": 0.05}),
    # the paper's problem (P prescribed), no longer the default
    ("parallel_robot_flexible_links", {"analysis": "inverse", "dt_s": 0.05, "drive": "path",
                                       "n_elements_per_link": 8}),
    ("vibrating_screen_1t2r", {"t_end_s": 0.05}),
    # floating-frame links: the batch's compiled residual (fem.bodies.frame_kernels)
    ("parallel_robot_flexible_links", {"analysis": "inverse", "dt_s": 0.05,
                                       "link_model": "floating_frame", "link_segments": 2}),
    # reduced links evaluated together, general rows on their points: the kernels of
    # fem.bodies.reduced_kernels and fem.constraints.general_kernels (20 steps of the
    # swing, about 2 s)
    ("vehicle_manipulator_cms", {"analysis": "large_motion", "body_model": "reduced",
                                 "swing_time_s": 0.02}),
)
"""The short runs whose kernels ``fem compile`` compiles: (case, parameters)."""


def compile_kernels(verbose: bool = True) -> tuple[bool, float]:
    """Run :data:`WARMUPS` on the compiled path (compiling what the cache lacks) and, if
    every one finished, mark the cache ready; returns ``(ready, compile seconds)``.
    Holds the cache's compile lock: a second ``fem compile`` waits for none, it returns
    at once (False) while another one runs."""
    import time

    from .core import jit

    def say(text: str) -> None:
        if verbose:
            print(text, file=sys.stderr, flush=True)

    with jit.compile_lock() as mine:
        if not mine:
            say("fem compile: another process is compiling the kernels")
            return False, 0.0
        if jit.kernels_ready():
            say(f"fem compile: the kernels are compiled already ({jit.cache_dir()})")
            return True, 0.0
        ok = True
        c0 = jit.compile_seconds()
        with jit.use_path("compiled"):
            for name, params in WARMUPS:
                t0 = time.perf_counter()
                c1 = jit.compile_seconds()
                summary = run_case(name, dict(params), None, render=False, progress=False)
                took = jit.compile_seconds() - c1
                say(f"fem compile: {name} {params}: {summary['status']}, compiling "
                    f"{took:.1f} s of {time.perf_counter() - t0:.1f} s")
                if summary["status"] != "finished":
                    ok = False
                    say(f"  {summary.get('error', '')}"[:400])
        total = jit.compile_seconds() - c0
        for kernel, took in jit.compile_report().items():
            if took >= 0.5:
                say(f"  {took:7.1f} s  {kernel}")
        if not ok:
            jit.mark_failed("a warm-up run failed; see compile.log or run `fem compile`")
        if ok:
            mark = jit.mark_ready()
            say(f"fem compile: kernels ready ({total:.1f} s compiling), in {mark.parent.parent}")
        return ok, total
