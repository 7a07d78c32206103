"""Benchmark: every shipped case on both kernel paths, as a user runs it.

``fem run CASE --no-render`` in a fresh process on the NumPy path (``FEM_JIT=numpy``) and
on the compiled path (``FEM_JIT=compiled``, the kernels compiled and cached before: run
``fem compile`` first, or the first compiled run includes its compiling), the two paths
alternating over ``-r`` rounds (the order flips each round).  For each run: the wall
time measured from outside, the CPU seconds of the run and the processes it waited for
(``RUSAGE_CHILDREN``: the worker beside the run included), the run's own solve time and
the seconds it spent compiling (``compile_s`` of its ``summary.json``: a kernel the cache
lacked).
Prints one JSON line per case with the medians and the ratio compiled ÷ NumPy of the CPU
seconds (the honest measure on a shared machine), then the machine.  The issue it
checks: a warm compiled run is never slower than the NumPy path.

    python tests/benchmarks/kernel_paths.py                    # every shipped case
    python tests/benchmarks/kernel_paths.py spinup_beam delta_robot -r 3
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchtools import machine, one_thread_env

ROOT = Path(__file__).resolve().parents[2]
SOLVE = re.compile(r"finished in ([\d.]+) s: solve ([\d.]+) s")


def cases() -> list[str]:
    """The shipped cases (the modules of ``cases/``)."""
    return sorted(p.stem for p in (ROOT / "cases").glob("*.py") if not p.stem.startswith("_"))


def one(case: str, path: str) -> dict:
    """One ``fem run`` of ``case`` on ``path``: wall, CPU and solve seconds."""
    env = {**one_thread_env(), "FEM_JIT": path, "FEM_JIT_BACKGROUND": "0"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "fem", "run", case, "--no-render",
                              "--out", out], capture_output=True, text=True, env=env,
                             cwd=ROOT)
        wall = time.perf_counter() - t0
        try:
            summary = json.loads((Path(out) / "summary.json").read_text())
        except (OSError, ValueError):
            summary = {}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    m = SOLVE.search(run.stderr + run.stdout)
    return {"rc": run.returncode, "wall_s": wall, "cpu_s": cpu,
            "solve_s": float(m.group(2)) if m else None,
            "compile_s": float(summary.get("compile_s") or 0.0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases", nargs="*")
    ap.add_argument("-r", "--rounds", type=int, default=2)
    a = ap.parse_args()
    for case in a.cases or cases():
        runs: dict = {"numpy": [], "compiled": []}
        for r in range(a.rounds):
            for path in (("numpy", "compiled") if r % 2 == 0 else ("compiled", "numpy")):
                runs[path].append(one(case, path))
        row: dict = {"case": case}
        for path, rs in runs.items():
            ok = [x for x in rs if x["rc"] == 0]
            row[path] = {k: (round(statistics.median(x[k] for x in ok), 3) if ok and all(
                x[k] is not None for x in ok) else None)
                         for k in ("wall_s", "cpu_s", "solve_s", "compile_s")}
            row[path]["failed"] = len(rs) - len(ok)
        c, n = row["compiled"]["cpu_s"], row["numpy"]["cpu_s"]
        row["cpu_compiled_over_numpy"] = round(c / n, 3) if c and n else None
        print(json.dumps(row), flush=True)
    print(json.dumps({"machine": machine(), "rounds": a.rounds}), flush=True)


if __name__ == "__main__":
    main()
