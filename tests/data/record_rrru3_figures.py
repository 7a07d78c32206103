"""Record the headline figures of the 3-RRRU cases (run once, before their rebuild in
robot words, issue 40): ``python tests/data/record_rrru3_figures.py OUT.json [case ...]``.

Each parameter set is one ``run()`` of the case (its summary dict, without the wall
time, the seed's quotes and the time axis); ``tests/test_robot_rrru3.py`` compares the
rebuilt cases with ``rrru3_headline_figures.json``.  Sets already in ``OUT`` are kept.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

SETS = {
    "parallel_robot_flexible_links": {
        "static_n2": {"analysis": "static", "n_elements_per_link": 2},
        "static_n2_stiff": {"analysis": "static", "n_elements_per_link": 2, "E_Pa": 6.9e14},
        "static_ff_S1_joints": {"analysis": "static", "link_model": "floating_frame",
                                "link_segments": 1, "drive": "joints"},
        "inverse_n2": {"analysis": "inverse", "n_elements_per_link": 2},
        "forward_n2_inverse": {"analysis": "forward", "n_elements_per_link": 2,
                               "forward_torques": "inverse"},
        "inverse_joints_n4": {"analysis": "inverse", "drive": "joints",
                              "n_elements_per_link": 4},
        "default": {},
        "inverse_ff_joints": {"analysis": "inverse", "drive": "joints",
                              "link_model": "floating_frame"},
    },
    "parallel_robot_flexible_platform": {
        "circle_rigid": {"analysis": "circle", "platform": "rigid"},
        "line_rigid": {"analysis": "line", "platform": "rigid"},
        "static": {"analysis": "static"},
        "static_plain": {"analysis": "static", "shear_factor": "1.0"},
        "line": {"analysis": "line"},
        "default": {},
        "static_reduced": {"analysis": "static", "platform": "reduced"},
    },
}
DROP = ("wall_s", "paper", "time_s")


def clean(x):
    """The figures as JSON values (NumPy scalars and arrays as floats and lists)."""
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items() if k not in DROP}
    if isinstance(x, list | tuple):
        return [clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return clean(x.tolist())
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x


def main(out: Path, cases: list[str]) -> None:
    os.environ.setdefault("FEM_JIT", "numpy")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cases"))
    data = json.loads(out.read_text()) if out.exists() else {}
    for case, sets in SETS.items():
        if cases and case not in cases:
            continue
        mod = __import__(case)
        for name, params in sets.items():
            if name in data.get(case, {}):
                continue
            t0 = time.perf_counter()
            fig = mod.run(None, **params)
            wall = time.perf_counter() - t0
            data.setdefault(case, {})[name] = {"params": params, "figures": clean(fig),
                                               "wall_s": round(wall, 2)}
            out.write_text(json.dumps(data, separators=(",", ":")))
            print(case, name, f"{wall:.1f} s", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
