"""Benchmark: wall time of `import fem` in fresh interpreters (issue 12: under 0.3 s).

Prints one JSON line: the median and minimum over N processes (default 9) of
`import fem`, and of `import numpy` as the floor.  Run:
``python tests/benchmarks/import_time.py [N]``.
"""

from __future__ import annotations

import json
import platform
import statistics
import subprocess
import sys


def _times(module: str, n: int) -> list[float]:
    code = (f"import time; t = time.perf_counter(); import {module}; "
            "print(time.perf_counter() - t)")
    return [float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                 text=True, check=True).stdout) for _ in range(n)]


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    fem_t, np_t = _times("fem", n), _times("numpy", n)
    print(json.dumps({"import_fem_median_s": round(statistics.median(fem_t), 3),
                      "import_fem_min_s": round(min(fem_t), 3),
                      "import_numpy_median_s": round(statistics.median(np_t), 3),
                      "processes": n,
                      "machine": f"{platform.machine()}, python {sys.version.split()[0]}"}))
