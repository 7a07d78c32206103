"""The first answer from a shell: ``fem run CASE --no-render`` in a fresh process, with an
empty cache and then again (warm), as a user waits for it.

Each run is a new process with its own empty cache folder (``XDG_CACHE_HOME``; no
background compile), so *empty* includes building any reduction and the NumPy path;
*warm* is the next run on the same cache.  Wall time is measured from outside (start-up
and exit included) beside the run's own report (solve, writing, start-up).  Prints one
JSON line per run and a table.

    python tests/benchmarks/first_answer.py [CASE ...] [--repeat N]

Defaults: the main job (``parallel_robot_flexible_platform``) and ``spinup_beam``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LINE = re.compile(r"finished in ([\d.]+) s: solve ([\d.]+) s, writing ([\d.]+) s, "
                  r"rendering ([\d.]+) s, start-up and other ([\d.]+) s — (.*)")


def one_run(case: str, cache: Path, out: Path) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "FEM_JIT_BACKGROUND": "0"}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("FEM_JIT", None)
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "fem.cli", "run", case, "--no-render",
                           "--out", str(out)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{case} failed:\n{proc.stderr[-2000:]}")
    m = LINE.search(proc.stdout)
    total, solve, writing, _, other = (float(x) for x in m.groups()[:5])
    return {"case": case, "wall_s": round(wall, 2), "reported_s": total, "solve_s": solve,
            "writing_s": writing, "startup_other_s": other, "path": m.group(6),
            "load": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*",
                    default=["parallel_robot_flexible_platform", "spinup_beam"])
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases:
            for r in range(args.repeat):
                cache = Path(tmp) / f"cache_{case}_{r}"
                for kind in ("empty", "warm"):
                    row = {"cache": kind, **one_run(case, cache, Path(tmp) / "out")}
                    print(json.dumps(row), flush=True)
                    rows.append(row)
    print("\n| case | cache | wall [s] | solve | writing | start-up | path | load |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['cache']} | {r['wall_s']:.2f} | {r['solve_s']:.2f} | "
              f"{r['writing_s']:.2f} | {r['startup_other_s']:.2f} | {r['path']} | "
              f"{r['load']:.1f} |")


if __name__ == "__main__":
    main()
