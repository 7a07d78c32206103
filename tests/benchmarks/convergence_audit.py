"""Convergence audit of every case's defaults.

For every case of ``fem list`` (the case contract: ``cases/*.py`` with ``PARAMS``,
``build``, ``run``), run the defaults, then the defaults with the time step halved and,
separately, with the mesh or basis refined once, and report how far each headline figure
moves:

* a scalar: ``|Δ| / |value|`` (the absolute change where the value is below 1e-12);
* a list of values (frequencies, extremes): the largest ``|Δ|`` relative to the largest
  ``|value|``, over the common length;
* a history (a list as long as the case's ``time_s``): the largest absolute difference
  on the coarser run's time grid (the finer run interpolated linearly; halved steps hit
  the coarse grid exactly), relative to the history's range ``max − min`` (per
  component for histories of vectors), or to 1 % of its largest magnitude where the
  range is smaller (a conserved quantity such as a total energy).

The time step is the case's ``dt_s``; the refinement is the first of the case's
element-count or basis parameters (:data:`REFINE`): integers doubled, a platform mesh
``hexagon_N`` replaced by ``hexagon_4N``.  Bookkeeping figures (wall times, iteration
counts, residuals, sizes, the references a case prints beside its results) are not
headline figures (:func:`headline`).  Each run is a fresh process with a time limit
(``--limit``, default 180 s); a variant that passes it is reported as skipped.  Cases
whose default analysis is static or modal are also audited in their time-domain
analysis where they have one (:data:`EXTRA`).

Run::

    python tests/benchmarks/convergence_audit.py [case ...] [--limit S] [--markdown]
    python tests/benchmarks/convergence_audit.py CASE -p dt_s=0.0025   # a candidate
    python tests/benchmarks/convergence_audit.py --table audit.jsonl   # table only
    python tests/benchmarks/convergence_audit.py CASE ... --store     # rerun some cases

``--store`` writes the records into the stored output
(``fem/validation/data/convergence_audit.jsonl``, which ``docs/validation.md`` shows):
a rerun record replaces the stored one of the same case and overrides, the records of
the cases not rerun stay as they were, and the first comment line gets today's date and
the cases rerun.

Prints one JSON line per configuration, with the moves of every numeric figure and the
names of the headline ones (``--markdown``: the table of ``docs/validation.md``,
"Convergence of defaults", after the JSON lines).  The whole audit took 5–8 minutes on
the project's 2-core machine before the two-link fall's converged defaults (h = 0.3 ms):
its three runs alone take 5–7 minutes each on the loaded machine, so a full audit needs
``--limit 900``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# what is a headline figure, and the docs table: kept with the validation report, which
# prints the table from this script's stored output (fem validate)
from fem.validation.audit import STORED, markdown, summarize  # noqa: E402

REFINE = ("n_elements", "n_elements_per_link", "divisions", "mesh", "n_coordinates",
          "n_modes")
"""Element-count or basis parameters, in order of preference; the first one a case has
is refined.  (``n_modes`` is the Craig–Bampton basis of the vehicle manipulator.)"""

EXTRA = {"cantilever_cable": [{"analysis": "dynamic"}],
         "cantilever_beam": [{"analysis": "dynamic"}]}
"""Further configurations audited beside the defaults: the time-domain analysis of cases
whose default analysis does not depend on the time step."""

SCALES = {"spinup_beam": {"after_spinup_mean_m": "after_spinup_amplitude_m"},
          "vibrating_screen_1t2r": {"reaction_moment_Nmm.R3.max": "reaction_moment_Nmm.R1.max"},
          "parallel_robot_flexible_links": {"tilt_end_deg": "tilt_max_deg",
                                            "tilt_start_deg": "tilt_max_deg"}}
"""Scalars that are zero by physics (a vibration's mean, the moment a universal joint
cannot carry) are compared with a related figure's magnitude, not with themselves; so
are samples of a history at one instant where it sweeps fast through a small value (the
links robot's platform tilt at the stop: 1.7° falling at 58°/s, against its 13.2°
peak)."""

def _finer_hexagon(name: str) -> str:
    return f"hexagon_{4 * int(name.split('_')[1])}"


def refined(params: dict, auto: dict | None = None) -> tuple[str, object] | None:
    """The case's refinement parameter and its refined value, or None.  A mesh ``"auto"``
    stands for the meshes of the case's ``AUTO`` (``auto``): each is refined once, and
    the value is the parameters that say so (the flagship: its path run on hexagon_24,
    its static figures on hexagon_384)."""
    for key in REFINE:
        if key not in params:
            continue
        value = params[key]
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return key, 2 * value
        if value == "auto" and auto:
            return key, {k: _finer_hexagon(v) for k, v in auto.items()}
        if isinstance(value, str) and value.startswith("hexagon_"):
            return key, _finer_hexagon(value)
        if isinstance(value, list | tuple) and all(isinstance(v, int) for v in value):
            return key, [2 * v for v in value]
    return None


WORKER = """
import json, sys
import fem
name, params, path = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
summary = fem.cases.run_case(name, params, None, render=False, progress=False)
with open(path, "w") as f:
    json.dump(fem.io.output.jsonable(summary), f)
"""


def run(name: str, params: dict, limit: float) -> tuple[dict | None, float, str]:
    """Run a case in a fresh process; ``(summary or None, wall [s], note)``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "summary.json"
        t0 = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, "-c", WORKER, name, json.dumps(params),
                                   str(path)], env=env, cwd=ROOT, capture_output=True,
                                  text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            return None, time.perf_counter() - t0, f"skipped: over {limit:g} s"
        wall = time.perf_counter() - t0
        if proc.returncode or not path.is_file():
            return None, wall, "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
        summary = json.loads(path.read_text())
    if summary.get("status") != "finished":
        return None, wall, f"{summary.get('status')}: {summary.get('error', '')}"
    return summary, wall, ""


def _numeric(x) -> np.ndarray | None:
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return None
    return a if a.size and np.all(np.isfinite(a)) else None


def _flatten(figures: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in figures.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        elif isinstance(value, bool | str) or value is None:
            continue
        else:
            out[name] = value
    return out


def move(base, other, t_base=None, t_other=None, scale=None) -> float | None:
    """How far a figure moves from ``base`` to ``other`` (see the module docstring);
    ``scale``: the magnitude a scalar's change is measured against (default its own)."""
    a, b = _numeric(base), _numeric(other)
    if a is None or b is None:
        return None
    if a.ndim == 0:
        if b.ndim != 0:
            return None
        scale = abs(float(a)) if scale is None else abs(float(scale))
        d = abs(float(b) - float(a))
        return d / scale if scale > 1e-12 else d
    history = (t_base is not None and t_other is not None and a.shape[0] == len(t_base)
               and b.shape[0] == len(t_other))
    if history:
        tb, to = np.asarray(t_base, float), np.asarray(t_other, float)
        if tb[-1] > to[-1] + 1e-9 or a.shape[1:] != b.shape[1:]:
            return None
        a2 = a.reshape(a.shape[0], -1)
        b2 = b.reshape(b.shape[0], -1)
        worst = 0.0
        for j in range(a2.shape[1]):
            bj = np.interp(tb, to, b2[:, j])
            size = float(np.abs(a2[:, j]).max())
            rng = max(float(a2[:, j].max() - a2[:, j].min()), 0.01 * size)
            d = float(np.abs(bj - a2[:, j]).max())
            if rng <= 1e-12 * max(1.0, size):
                continue        # a component that is zero throughout
            worst = max(worst, d / rng)
        return worst
    n = min(a.shape[0], b.shape[0])
    if a.shape[1:] != b.shape[1:] or n == 0:
        return None
    a, b = a[:n], b[:n]
    scale = float(np.abs(a).max())
    d = float(np.abs(b - a).max())
    return d / scale if scale > 1e-12 else d


def audit(name: str, overrides: dict, limit: float) -> dict:
    """Defaults (with ``overrides``), halved step and refined mesh/basis of one case."""
    sys.path.insert(0, str(ROOT))
    import fem

    module = fem.cases.load_case(name)
    params = fem.cases.resolve_params(module, overrides)     # "auto" steps as used
    variants = {"default": dict(overrides)}
    if "dt_s" in params:
        variants["dt/2"] = {**overrides, "dt_s": params["dt_s"] / 2}
    ref = refined(params, getattr(module, "AUTO", None))
    if isinstance(ref, tuple) and isinstance(ref[1], dict):     # "auto": several meshes
        variants[", ".join(f"{k}={v}" for k, v in ref[1].items())] = {**overrides, **ref[1]}
        ref = (ref[0], [module.AUTO, ref[1]])
    elif ref is not None:
        variants[f"{ref[0]}={ref[1]}"] = {**overrides, ref[0]: ref[1]}
    runs, walls, notes = {}, {}, {}
    for label, p in variants.items():
        summary, wall, note = run(name, p, limit)
        walls[label] = round(wall, 1)
        if note:
            notes[label] = note
        if summary is not None:
            runs[label] = summary
        if label == "default" and summary is None:
            break
    record = {"case": name, "overrides": overrides, "dt_s": params.get("dt_s"),
              "refined": None if ref is None else {ref[0]: ref[1] if isinstance(ref[1], list)
                                                   else [params[ref[0]], ref[1]]},
              "wall_s": walls, "notes": notes, "moves": {}}
    if "default" not in runs:
        return record
    skip = ("case", "status", "parameters", "files", "time_s")
    base = _flatten({k: v for k, v in runs["default"].items() if k not in skip})
    t_base = runs["default"].get("time_s")
    for label, summary in runs.items():
        if label == "default":
            continue
        other = _flatten(summary)
        t_other = summary.get("time_s")
        scales = SCALES.get(name, {})
        for key, value in base.items():
            if key not in other:
                continue
            scale = base.get(scales[key]) if key in scales else None
            m = move(value, other[key], t_base, t_other, scale)
            if m is not None:
                record["moves"].setdefault(key, {})[label] = float(f"{m:.3g}")
    return summarize(record)


def store(records: list[dict], path: Path = STORED) -> None:
    """Merge ``records`` into the stored audit output ``path``: each replaces the stored
    record of the same case and overrides (or is added), the others stay, ordered by
    case.  Every record carries the date of its run (``date``; a stored record without
    one, the date of the first comment line), and the first comment line says which
    cases were run when."""
    import re

    def key(r: dict) -> tuple[str, str]:
        return r["case"], json.dumps(r["overrides"], sort_keys=True)

    lines = path.read_text().splitlines() if path.is_file() else []
    found = re.search(r"run (\d{4}-\d\d-\d\d)", lines[0]) if lines else None
    before = found.group(1) if found else "an earlier date"
    old = [{"date": before, **json.loads(ln)} for ln in lines if ln.startswith("{")]
    today = time.strftime("%Y-%m-%d")
    new = {key(r): {"date": today, **r} for r in records}
    merged = sorted([r for r in old if key(r) not in new] + list(new.values()),
                    key=lambda r: (r["case"], key(r)[1] != "{}"))
    dates = sorted({r["date"] for r in merged}, reverse=True)
    when = [dates[0]] + [
        f"{d} for {', '.join(sorted({r['case'] for r in merged if r['date'] == d}))}"
        for d in dates[1:]]
    head = (f"# python tests/benchmarks/convergence_audit.py, run {'; '.join(when)}, on the "
            "project's 2-core machine (shared with other jobs; wall times vary with the load)")
    path.write_text("\n".join([head, *(json.dumps(r) for r in merged)]) + "\n")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help="cases to audit (default: every case)")
    ap.add_argument("--limit", type=float, default=180.0,
                    help="time limit of one run [s] (default 180)")
    ap.add_argument("--markdown", action="store_true", help="print the docs table too")
    ap.add_argument("--table", metavar="JSONL",
                    help="only print the docs table of an earlier run's JSON lines")
    ap.add_argument("--store", action="store_true",
                    help="merge the records into the stored output "
                         "(fem/validation/data/convergence_audit.jsonl)")
    ap.add_argument("-p", dest="params", action="append", default=[], metavar="KEY=VALUE",
                    help="audit these parameters instead of the defaults (a candidate "
                         "default; values parsed as the case's own)")
    args = ap.parse_args(argv)
    if args.table:
        lines = Path(args.table).read_text().splitlines()
        print(markdown([summarize(json.loads(ln)) for ln in lines if ln.startswith("{")]))
        return
    sys.path.insert(0, str(ROOT))
    import fem

    names = args.cases or sorted(fem.cases.available_cases())
    records = []
    for name in names:
        given = fem.cases.parse_params(fem.cases.load_case(name), args.params) \
            if args.params else {}
        for overrides in [given] if given else [{}] + EXTRA.get(name, []):
            record = audit(name, overrides, args.limit)
            records.append(record)
            print(json.dumps(record), flush=True)
    if args.store:
        store(records)
    if args.markdown:
        print(markdown(records))


if __name__ == "__main__":
    main()
