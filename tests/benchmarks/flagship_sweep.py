"""Benchmark: the flagship E × payload sweep (seed 000 §5.4 grid, issue 13).

The circle (1.6 s at 5 ms, flexible platform and its two rigid references) for
E ∈ {2e8, 6.9e8, 7e10, 2e11} Pa × payload {6, 10} kg: 8 points, run one after another in
this process (``client="serial"``) and on a LocalCluster of 2 worker processes, both with
every point's outputs written (``--out``) and both in memory.  Prints one JSON line per
configuration.  Run: ``python tests/benchmarks/flagship_sweep.py [mesh]``.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import time

import fem


def main(mesh: str = "hexagon_6") -> None:
    grid = {"analysis": "circle", "mesh": mesh, "E_Pa": [2e8, 6.9e8, 7e10, 2e11],
            "payload_kg": [6.0, 10.0]}
    for write in (True, False):
        for client, workers in (("serial", None), (None, 2)):
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                res = fem.sweep("parallel_robot_flexible_platform", grid, client,
                                workers=workers, out=tmp if write else None, progress=False)
                wall = time.perf_counter() - t0
            print(json.dumps({"mesh": mesh, "points": len(res.points),
                              "executor": "serial" if client else f"LocalCluster({workers})",
                              "outputs_written": write, "wall_s": round(wall, 2),
                              "counts": res.counts, "load_avg_1min": os.getloadavg()[0],
                              "cpus": os.cpu_count(), "python": platform.python_version()}),
                  flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
