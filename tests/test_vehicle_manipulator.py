"""Seed 003 vehicle manipulator: CMS against the full model, trends against the seed.

References: the unreduced finite-element model of the same frame (CMS accuracy), the
seed's Fig. 4 ranges and trends (Ma & Mei, China Mech. Eng. 21 (2010) 131–136), and an
independent recomputation of the written ``frame.json`` with plain dense linear algebra
(cubic Hermite beam + bar matrices written out here, not fem.frames).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla

import fem

_PATH = Path(__file__).resolve().parents[1] / "cases" / "vehicle_manipulator_cms.py"
_spec = importlib.util.spec_from_file_location("_test_vehicle_manipulator_cms", _PATH)
vm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vm)


def _f(**kw):
    return vm.frequencies(**{"n_frequencies": 3, **kw})


def test_cms_matches_full_model_and_error_falls_with_modes():
    conv = vm.convergence(max_modes=6)
    err = np.array([r["error_percent"] for r in conv["rows"]])
    assert np.all(err > -1e-7)                              # from above (Rayleigh–Ritz)
    assert np.all(np.diff(err, axis=0) <= 1e-7)             # monotonic in n_modes
    assert err[0, 2] > 1.0                                  # Guyan alone misses f3
    k = [r["n_modes"] for r in conv["rows"]].index(4)
    assert np.all(err[k] < 0.1)                             # default 4 modes: < 0.1 %


def test_frequencies_follow_the_seed_trends():
    # rocker (seed Fig. 4a): f1 4.4 -> 8.4 Hz over 50 -> 150 mm then nearly flat; f2 rises
    r50, r150, r200 = (_f(rocker_section_m=s) for s in (0.05, 0.15, 0.20))
    assert r150[0] > 1.8 * r50[0]
    assert r200[0] - r150[0] < 0.15 * (r150[0] - r50[0])
    assert r150[1] > 1.5 * r50[1] and r200[1] > r150[1]
    for f, seed in ((r50[0], 4.4), (r150[0], 8.4)):
        assert 1 / 1.5 < f / seed < 1.5
    # rod (Fig. 4c): f1 rises over 50 -> 100 mm (6.1 -> 9.1), f2 and f3 rise
    d50, d100 = _f(rod_section_m=0.05), _f(rod_section_m=0.10)
    assert d100[0] > 1.15 * d50[0] and d100[1] > d50[1] and d100[2] > 1.3 * d50[2]
    for f, seed in ((d50[0], 6.1), (d100[0], 9.1)):
        assert 1 / 1.5 < f / seed < 1.5
    # gripper rods (Fig. 4d): little effect
    g20, g50 = _f(gripper_section_m=0.02), _f(gripper_section_m=0.05)
    assert np.all(np.abs(g50 / g20 - 1) < 0.1)


def _hermite_frame(data):
    """Planar frame matrices written out independently from frame.json."""
    ids = {n["id"]: k for k, n in enumerate(data["nodes"])}
    X = np.array([[n["x"], n["z"]] for n in data["nodes"]])
    n = 3 * len(X)
    K, M = np.zeros((n, n)), np.zeros((n, n))
    for m in data["members"]:
        i, j = ids[m["i"]], ids[m["j"]]
        d = X[j] - X[i]
        L = np.hypot(*d)
        c, s = d / L
        EA, EI, rA = m["E"] * m["A"], m["E"] * m["I"], m["rho"] * m["A"]
        # local (u1, w1, t1, u2, w2, t2) with t = dw/dx
        k = np.zeros((6, 6))
        k[np.ix_([0, 3], [0, 3])] = EA / L * np.array([[1, -1], [-1, 1]])
        k[np.ix_([1, 2, 4, 5], [1, 2, 4, 5])] = EI / L**3 * np.array(
            [[12, 6 * L, -12, 6 * L], [6 * L, 4 * L**2, -6 * L, 2 * L**2],
             [-12, -6 * L, 12, -6 * L], [6 * L, 2 * L**2, -6 * L, 4 * L**2]])
        mm = np.zeros((6, 6))
        mm[np.ix_([0, 3], [0, 3])] = rA * L / 6 * np.array([[2, 1], [1, 2]])
        mm[np.ix_([1, 2, 4, 5], [1, 2, 4, 5])] = rA * L / 420 * np.array(
            [[156, 22 * L, 54, -13 * L], [22 * L, 4 * L**2, 13 * L, -3 * L**2],
             [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L**2, -22 * L, 4 * L**2]])
        rel = [2] * m["hinge_i"] + [5] * m["hinge_j"]
        keep = [a for a in range(6) if a not in rel]
        T = np.eye(6)[:, keep]
        if rel:
            T[rel] = -np.linalg.solve(k[np.ix_(rel, rel)], k[np.ix_(rel, keep)])
        k, mm = T.T @ k @ T, T.T @ mm @ T
        # global (x, z, ry) with ry = -t; local w along (-s, c)
        R = np.zeros((6, 6))
        for b in (0, 3):
            R[b, b:b + 2] = (c, s)
            R[b + 1, b:b + 2] = (-s, c)
            R[b + 2, b + 2] = -1.0
        R = R[keep]
        dofs = np.r_[3 * i + np.arange(3), 3 * j + np.arange(3)]
        K[np.ix_(dofs, dofs)] += R.T @ k @ R
        M[np.ix_(dofs, dofs)] += R.T @ mm @ R
    for ms in data["masses"]:
        a = ids[ms["node"]]
        M[3 * a, 3 * a] += ms["kg"]
        M[3 * a + 1, 3 * a + 1] += ms["kg"]
    fixed = [3 * ids[s["node"]] + ("x", "z", "ry").index(f) for s in data["supports"]
             for f in s["fix"]]
    live = (np.abs(np.diag(K)) > 0) | (np.abs(np.diag(M)) > 0)
    free = [a for a in range(n) if a not in fixed and live[a]]
    # lowest modes as the largest of L⁻¹ M L⁻ᵀ (K = L Lᵀ): plain eigh(K, M) loses ~1e-4
    # on the lowest here, the stiffness spanning ~14 decades of ω²
    L = sla.cholesky(K[np.ix_(free, free)], lower=True)
    X = sla.solve_triangular(L, M[np.ix_(free, free)], lower=True)
    A = sla.solve_triangular(L, X.T, lower=True)
    mu = np.sort(sla.eigh((A + A.T) / 2, eigvals_only=True))[::-1]
    return np.sqrt(1 / mu[mu > 0]) / (2 * np.pi)


def test_run_writes_frame_json_that_reproduces_the_frequencies(tmp_path):
    figs = vm.run(out=tmp_path, method="full")
    data = json.loads((tmp_path / "frame.json").read_text())
    assert data["plane"] == "xz"
    for key in ("nodes", "members", "supports", "masses", "frequencies_hz"):
        assert key in data
    m = data["members"][0]
    assert {"id", "i", "j", "E", "rho", "A", "I", "hinge_i", "hinge_j"} <= set(m)
    assert sorted(x["kg"] for x in data["masses"]) == [0.553, 0.84]
    f = _hermite_frame(data)[:3]
    np.testing.assert_allclose(f, figs["frequencies_hz"][:3], rtol=1e-8)
    assert (tmp_path / "modes.pvd").is_file() and (tmp_path / "figures.json").is_file()


def test_dynamic_run_of_the_reduced_arm_matches_the_full_model():
    d = vm.dynamic(t_end_s=0.3)
    assert d["n_coordinates_cms"] < d["n_coordinates_full"] / 3
    assert d["tip_z_peak_m"] > 1e-3
    assert d["tip_z_max_difference_m"] < 0.01 * d["tip_z_peak_m"]


@pytest.mark.parametrize("params", [{"wall_m": 0.03}, {"method": "modal"},
                                    {"rocker_section_m": -0.1}, {"n_modes": 1.5},
                                    {"lift_cylinder_base_m": [1.0]},
                                    {"sleeve_cylinder_at_m": 0.9}])
def test_bad_parameters_raise_model_error(params):
    with pytest.raises(fem.ModelError):
        vm.frequencies(**params)


def test_sweep_and_convergence_runs_write_their_tables(tmp_path):
    figs = vm.run(out=tmp_path / "s", analysis="sweep", sweep_points=2)
    for key in ("rocker", "sleeve", "rod", "gripper"):
        t = figs[f"sweep_{key}"]
        assert len(t["section_mm"]) == 2 and len(t["f1_hz"]) == 2
    grid = json.loads((tmp_path / "s" / "sweep.json").read_text())["rocker_x_rod"]
    assert np.array(grid["f_hz"]).shape == (2, 2, 3)
    np.testing.assert_allclose(grid["f_hz"][0][0],
                               _f(rocker_section_m=0.05, rod_section_m=0.05), rtol=1e-12)
    conv = vm.run(out=tmp_path / "c", analysis="convergence")
    assert len(conv["convergence"]) == 9
    assert (tmp_path / "c" / "figures.json").is_file()
    # and their figures are the recorded ones (tests/test_screen_vehicle_figures.py, which
    # leaves these two analyses to this test: each run once, 8 s of CPU)
    from test_screen_vehicle_figures import (
        RTOL,
        VEHICLE_EXPLAINED,
        _compare,
        record,
        recorded_vehicle,
    )

    now = {"sweep_2": record.numbers(figs), "convergence": record.numbers(conv)}
    assert _compare(recorded_vehicle(now), now, VEHICLE_EXPLAINED) <= RTOL
