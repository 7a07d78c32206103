"""Interleaved peer comparison on the cable benchmark: this project against Exudyn.

For each element count, ``R`` rounds (default 3) each run this project's
``cable_cantilever.run(n)`` and Exudyn's ``peer_exudyn_cable.run(n)`` in fresh
processes, alternating, so both see the same machine load.  Each process first does
a tiny warm-up run, so imports and the numba cache load are not timed. Only the time
integration is timed. Prints one JSON line per n: median and minimum walls, their
ratio, both tip deflections and their relative difference.

Run: ``python tests/benchmarks/peer_compare.py [--rounds R] [--exudyn-tol 1e-6] n ...``
(needs ``pip install exudyn``; without it only this project's side is measured).
"""

from __future__ import annotations

import importlib.util
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

OURS = """
import json, sys
sys.path.insert(0, {here!r})
import cable_cantilever as c
c.run(4, steps=3)
print(json.dumps(c.run({n})))
"""
PEER = """
import json, sys
sys.path.insert(0, {here!r})
import peer_exudyn_cable as p
p.run(2, steps=3)
print(json.dumps(p.run({n}, tol={tol})))
"""


def _one(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def compare(n: int, rounds: int = 3, tol: float = 1e-6) -> dict:
    have_peer = importlib.util.find_spec("exudyn") is not None
    ours, peer = [], []
    for _ in range(rounds):
        ours.append(_one(OURS.format(here=str(HERE), n=n)))
        if have_peer:
            peer.append(_one(PEER.format(here=str(HERE), n=n, tol=tol)))
    w_o = [r["wall_s"] for r in ours]
    row = {"elements": n, "rounds": rounds, "fem_wall_median_s": statistics.median(w_o),
           "fem_wall_min_s": min(w_o), "fem_tip_z_m": ours[-1]["tip_z_m"],
           "fem_newton_iterations_per_step": ours[-1]["newton_iterations_per_step"],
           "fem_tol": 1e-6,
           "machine": f"{platform.machine()}, python {sys.version.split()[0]}"}
    if have_peer:
        w_p = [r["wall_s"] for r in peer]
        tip_o, tip_p = ours[-1]["tip_z_m"], peer[-1]["tip_z_m"]
        row.update({"peer": peer[-1]["code"], "peer_tol": tol,
                    "peer_completed": all(r["completed"] for r in peer),
                    "peer_wall_median_s": statistics.median(w_p), "peer_wall_min_s": min(w_p),
                    "ratio_median": round(statistics.median(w_o) / statistics.median(w_p), 3),
                    "peer_tip_z_m": tip_p,
                    "tip_relative_difference": abs(tip_o - tip_p) / abs(tip_p)})
    else:
        row["peer"] = "exudyn not installed (pip install exudyn)"
    return row


if __name__ == "__main__":
    args = sys.argv[1:]
    opts = {"--rounds": 3, "--exudyn-tol": 1e-6}
    for key in list(opts):
        if key in args:
            i = args.index(key)
            opts[key] = type(opts[key])(args[i + 1])
            del args[i:i + 2]
    for n in [int(a) for a in args] or [8, 16, 64, 256]:
        print(json.dumps(compare(n, int(opts["--rounds"]), float(opts["--exudyn-tol"]))),
              flush=True)
