"""The vibrating screen and the vehicle manipulator rebuilt in robot words (issue 40):
their headline figures against the values recorded before the rebuild
(``tests/data/*_figures.json``, written by ``tests/data/record_screen_vehicle.py`` on the
commit before).

Every number equals its recorded value to 1e-8 of the largest magnitude of its list (or
of itself), except those listed in each ``EXPLAINED`` with the reason and what is
checked instead.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))

import record_screen_vehicle as record  # noqa: E402

RTOL = 1e-8


def _leaves(d, prefix=""):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _leaves(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(d, list) and d and isinstance(d[0], dict):
        for i, v in enumerate(d):
            yield from _leaves(v, f"{prefix}.{i}")
    else:
        yield prefix, d


def _compare(recorded: dict, now: dict, explained: dict) -> float:
    """Largest relative difference over the figures not in ``explained`` (a dict of
    regular expression → check(old, new)); every figure is present in both."""
    old, new = dict(_leaves(recorded)), dict(_leaves(now))
    assert set(old) == set(new), sorted(set(old) ^ set(new))
    worst = 0.0
    for key in old:
        a, b = np.asarray(old[key], float), np.asarray(new[key], float)
        rule = next((f for pat, f in explained.items() if re.fullmatch(pat, key)), None)
        if rule is not None:
            assert rule(a, b), f"{key}: recorded {a}, now {b}"
            continue
        assert a.shape == b.shape, f"{key}: shape {a.shape} → {b.shape}"
        scale = max(float(np.abs(a).max()), 1e-300) if a.size else 1.0
        rel = float(np.abs(a - b).max()) / scale if a.size else 0.0
        assert rel <= RTOL, f"{key}: relative difference {rel:.2e}"
        worst = max(worst, rel)
    return worst


# ------------------------------------------------------------------ vibrating screen
SCREEN_EXPLAINED = {
    # the DAE is now the robot (five Rigid links of 12 natural coordinates each) where it
    # was seven nodes shared by natural-coordinate bars
    r".*\.n_coordinates": lambda a, b: a == 21 and b == 60,
    # round-off of the DAE: its position Newton stops at 1e-13 m and its residuals are
    # round-off on either model; the robot's torque meets Newton–Euler to 3.5e-12 N·mm
    # (the bars' to 5.5e-10): these differences must stay round-off, 1e-9 of the torque
    r".*\.dae_max_constraint_residual": lambda a, b: b <= 1e-12,
    r".*\.dae_max_dynamics_residual_N": lambda a, b: b <= 1e-12,
    r".*\.(max_method_difference_Nmm|method_differences_Nmm\..*dae)":
        lambda a, b: b <= max(1e-9 * 65.62, float(a)),
}


def test_vibrating_screen_figures_equal_the_recorded_ones():
    recorded = json.loads((DATA / "vibrating_screen_figures.json").read_text())
    worst = _compare(recorded, record.screen(), SCREEN_EXPLAINED)
    assert worst <= RTOL
