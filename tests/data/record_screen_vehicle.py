"""Record the headline figures of the vibrating screen and the vehicle manipulator.

Run once before a rebuild of the two cases (issue 40) and kept as the reference of
``tests/test_screen_vehicle_figures.py`` (and of the vehicle's tests that compare the
runs they make themselves with it, in test_vehicle_manipulator.py and
test_vehicle_large_motion.py)::

    FEM_JIT=numpy python tests/data/record_screen_vehicle.py [screen|vehicle]

Every analysis the cases' tests use, with the numbers of the summary dict ``run()``
returns (or of the analysis function the tests call).  Long lists are kept at a stride
(at most 51 entries, first and last included), so that the file stays small.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("FEM_JIT", "numpy")
ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "cases")]

HERE = Path(__file__).resolve().parent
SKIP = ("wall", "timing", "plots", "paper", "time_full_s", "time_cms_s")  # clocks, text


def numbers(value, limit: int = 51):
    """The numeric leaves of a figures dict (lists at a stride)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if any(s in str(k) for s in SKIP):
                continue
            x = numbers(v, limit)
            if x is not None:
                out[str(k)] = x
        return out or None
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, int | float | np.integer | np.floating):
        return float(value)
    arr = np.asarray(value)
    if arr.dtype.kind not in "fiu" or arr.size == 0:
        if isinstance(value, list | tuple):
            items = [numbers(v, limit) for v in value]
            return items if all(i is not None for i in items) else None
        return None
    if arr.ndim >= 1 and arr.shape[0] > limit:
        idx = np.unique(np.linspace(0, arr.shape[0] - 1, limit).round().astype(int))
        arr = arr[idx]
    return arr.astype(float).tolist()


def screen() -> dict:
    import vibrating_screen_1t2r as case

    return {"default": numbers(case.run()),
            "t_end_1": numbers(case.run(t_end_s=1.0)),
            "hold_crank": numbers(case.run(hold_crank=True, t_end_s=5.0, dt_s=0.25))}


def vehicle_parts() -> dict:
    """The vehicle's analyses by name, each a function returning its figures."""
    import vehicle_manipulator_cms as vm

    def large_motion_04() -> dict:
        runs = vm.large_motion(t_end=0.4)
        iG = vm.ARM_POINTS.index("G")
        return numbers({
            **{f"gripper_{k}_m": r["points"][:, iG] for k, r in runs.items()},
            **{f"lift_force_{k}_N": r["lift_force_N"] for k, r in runs.items()},
            **{f"coordinates_{k}": r["arm"].info["coordinates"] for k, r in runs.items()}})

    return {
        "modal_cms": lambda: numbers(vm.run()),
        "modal_full": lambda: numbers(vm.run(method="full")),
        "convergence": lambda: numbers(vm.run(analysis="convergence")),
        "dynamic": lambda: numbers(vm.run(analysis="dynamic")),
        "dynamic_0.3": lambda: numbers(vm.dynamic(t_end_s=0.3)),
        "sweep_2": lambda: numbers(vm.run(analysis="sweep", sweep_points=2)),
        "start_pose_frequencies": lambda: numbers(vm.start_pose_frequencies(n_frequencies=6)),
        "large_motion_short": lambda: numbers(vm.run(analysis="large_motion",
                                                     swing_time_s=0.1, swing_deg=1.0,
                                                     dt_s=5e-3)),
        "large_motion_0.4": large_motion_04,
    }


def vehicle(parts=None) -> dict:
    """The vehicle's figures (``parts``: a subset of :func:`vehicle_parts`' names)."""
    return {k: f() for k, f in vehicle_parts().items() if parts is None or k in parts}


if __name__ == "__main__":
    which = sys.argv[1:] or ["screen", "vehicle"]
    for name in which:
        data = {"screen": screen, "vehicle": vehicle}[name]()
        path = HERE / {"screen": "vibrating_screen_figures.json",
                       "vehicle": "vehicle_manipulator_figures.json"}[name]
        path.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
        print("wrote", path, path.stat().st_size, "bytes")
