"""Bad input to the newest code (issue 43): one test per class, parametrized over its
inputs.  Each input must end in a clear :class:`fem.ModelError` (or a
:class:`fem.FemWarning` where running on is right) naming the argument, the value, the
file or function — never a numpy traceback, a silent acceptance or a misleading cause.

The classes: reduced bodies (their arrays and :func:`fem.reduction.reduce_body`'s
arguments), reduction files, a damaged reduction cache entry (rebuilt), sizes, result
folders, the solvers' entry points, sensors, sweep resume, ``fem validate``'s arguments
and the three misleading answers of the earlier audit (an element group named by an
integer, garbage in a result folder, a zero path direction).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import fem
import fem.core.validate
from fem.bodies import Reduction
from fem.cli import main
from fem.model.builders import straight_beam
from fem.reduction import cached_reduction, reduce_body, rigid

STEEL = fem.Material(2.1e11, 0.3, 7850)


def _beam(n: int = 4):
    m = fem.Model("beam", gravity=(0.0, 0.0, 0.0))
    _, nodes = straight_beam(m, (0, 0, 0), (1.0, 0, 0), n, fem.Material(2.1e11, 0.3, 7800),
                             section="circle", radius=0.01)
    return m, nodes


@pytest.fixture(scope="module")
def beam():
    return _beam()


@pytest.fixture(scope="module")
def reduction(beam):
    m, nodes = beam
    return reduce_body(m, {"root": rigid([nodes[0]]), "tip": m.point(nodes[-1])}, n_modes=2)


def _cable():
    m = fem.Model("cable", gravity=(0, 0, -9.81))
    _, nodes = fem.straight_cable(m, (0, 0, 0), (1, 0, 0), 4, STEEL, 1e-4, 1e-9)
    m.fix(nodes[0])
    return m, nodes


# ---------------------------------------------------------------------------------------
# Reduced bodies: the arrays of a Reduction against each other, and reduce_body's arguments
def _changed(red: Reduction, **arrays) -> Reduction:
    return dataclasses.replace(red, interfaces=dict(red.interfaces), **arrays)


def _asymmetric(red):
    K = red.K.copy()
    K[0, 1] += 1e-3 * np.abs(K).max()
    return _changed(red, K=K)


REDUCED = {
    "K of other size": (lambda red, m, n: _changed(red, K=red.K[:2, :2]),
                        r"K \(for \d+ slots and 5 modes\) must be a 5×5 array"),
    "W of other size": (lambda red, m, n: _changed(red, W=red.W[:5, :5]),
                        r"W \(for \d+ slots and 5 modes\) must be a 19×19 array"),
    "C of other size": (lambda red, m, n: _changed(red, C=np.zeros((2, 2))),
                        "C .* must be a 5×5 array"),
    "modes not (S, 3, m)": (lambda red, m, n: _changed(red, modes=red.modes[:, 0, :]),
                            r"modes must be an \(S, 3, m\) array"),
    "modes of fewer modes than K": (lambda red, m, n: _changed(red, modes=red.modes[:, :, :3]),
                                    "for .* slots and 3 modes"),
    "non-symmetric K": (lambda red, m, n: _asymmetric(red), "K must be symmetric"),
    "indefinite K": (lambda red, m, n: _changed(red, K=-red.K),
                     "K must be positive semidefinite.*lowest eigenvalue"),
    "NaN in the modes": (lambda red, m, n: _changed(red, modes=red.modes * np.nan),
                         "modes .* must be finite"),
    "node ids as floats": (lambda red, m, n: reduce_body(m, {"root": rigid([0.7])}),
                           r"rigid\(nodes\): nodes must be integer node indices.*never rounded"),
    "node ids as names": (lambda red, m, n: reduce_body(m, {"root": rigid(["a"])}),
                          "nodes must be integer node indices; got"),
    "node of another model": (lambda red, m, n: reduce_body(m, {"root": rigid([99])}),
                              "node 99 does not exist"),
    "map of another model": (lambda red, m, n: reduce_body(
        m, {"root": rigid([n[0]]), "tip": _beam(8)[0].point(8)}),
        "interface 'tip' .* beyond the FE model's 60 coordinates"),
    "interfaces as a list": (lambda red, m, n: reduce_body(m, [rigid([n[0]])]),
                             "interfaces must be a dict"),
    "interface name not a str": (lambda red, m, n: reduce_body(m, {1: rigid([n[0]])}),
                                 "interface names must be non-empty str"),
    "derivatives past the basis": (lambda red, m, n: reduce_body(
        m, {"root": rigid([n[0]])}, n_modes=2, derivatives=50),
        "derivatives=50 asks .* more modes than the basis has"),
    "cubic_tol 1.5": (lambda red, m, n: reduce_body(
        m, {"root": rigid([n[0]])}, n_modes=2, nonlinear=True, cubic_tol=1.5),
        r"cubic_tol must lie in \[0, 1\); got 1.5"),
    "cubic_tol NaN": (lambda red, m, n: reduce_body(
        m, {"root": rigid([n[0]])}, n_modes=2, cubic_tol=float("nan")),
        "cubic_tol must be finite"),
    "NaN origin": (lambda red, m, n: reduce_body(m, {"root": rigid([n[0]])},
                                                 origin=(np.nan, 0, 0)),
                   "origin must be finite"),
    "cached, an interface a number": (lambda red, m, n: cached_reduction(m, {"a": 5}),
                                      "cached_reduction: interface 'a' must be a "
                                      "fem.LinearMap"),
    "cached, a state of another size": (lambda red, m, n: cached_reduction(
        m, {"root": rigid([n[0]])}, state=[1.0, 2.0]),
        "cached_reduction: state must have the model's 60 coordinates"),
    "free with n_modes 0": (lambda red, m, n: reduce_body(m, n_modes=0, method="free"),
                            "method='free' with n_modes=0"),
}


@pytest.mark.parametrize("case", list(REDUCED))
def test_reduced_body_input_is_refused(case, beam, reduction):
    """A reduction whose arrays disagree, whose K is no stiffness, or reduce_body's bad
    arguments: a ModelError naming the array or argument (never numpy's reshape error,
    a silent cast, a clipped count or a late divergence)."""
    make, match = REDUCED[case]
    m, nodes = beam

    def attempt():
        red = make(reduction, m, nodes)
        fem.Model("x").add_reduced_body("b", red)

    with pytest.raises(fem.ModelError, match=match):
        attempt()


# ---------------------------------------------------------------------------------------
# Reduction files
def _other_format(path):
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["format"] = "fem.reduction/1"
    arrays["meta"] = np.array(json.dumps(meta))
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


FILES = {
    "empty": (lambda p: p.write_bytes(b""), "damaged, truncated .*EOFError"),
    "truncated": (lambda p: p.write_bytes(p.read_bytes()[:300]), "damaged, truncated"),
    "garbage": (lambda p: p.write_bytes(b"not a zip at all"), "damaged, truncated"),
    "another format version": (_other_format,
                               r"another file format \('fem.reduction/1'.*reduce_body"),
    "a result, not a reduction": (lambda p: np.savez(p, t=np.zeros(2)),
                                  "cannot read a reduced body"),
}


@pytest.mark.parametrize("case", list(FILES))
def test_damaged_reduction_file_is_named(case, reduction, tmp_path):
    """A reduction file that is empty, truncated, garbage, of another format version or
    not a reduction: a ModelError naming the file and what to do."""
    damage, match = FILES[case]
    path = reduction.save(tmp_path / "red.npz")
    damage(path)
    with pytest.raises(fem.ModelError, match=match) as err:
        Reduction.load(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("damage", ["empty", "truncated", "garbage"])
def test_damaged_cache_entry_is_rebuilt(damage, beam, tmp_path, monkeypatch):
    """Issue 43 item 2: a damaged file in the reduction cache is made again, with a
    warning — never a crash, and later runs read the new one."""
    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    m, nodes = beam
    first = cached_reduction(m, {"root": rigid([nodes[0]])}, n_modes=2)
    assert first.info["cached"] is False
    (entry,) = (tmp_path / "reductions").glob("*.npz")
    FILES[damage][0](entry)
    with pytest.warns(fem.FemWarning, match="could not be read and is made again"):
        again = cached_reduction(m, {"root": rigid([nodes[0]])}, n_modes=2)
    assert again.info["cached"] is False
    np.testing.assert_array_equal(again.K, first.K)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cached_reduction(m, {"root": rigid([nodes[0]])}, n_modes=2).info["cached"]


# ---------------------------------------------------------------------------------------
# Sizes: refused before the memory or the time is spent
def _huge_link():
    from fem.elements.floating_frame import FloatingFrameLink

    return FloatingFrameLink(1.0, "bezier", 120, 1.0, 1e6, 1e3, 1e3, GJ=1.0,
                             polar_inertia_per_length=1.0)


def _many_segments():
    from fem.robots.rrru3_flexible_links import build_flexible_links_robot

    return build_flexible_links_robot(link_model="floating_frame", link_segments=100_000)


def _spin_reference_past_its_range():
    from fem.cases import load_case
    from fem.references.beams import rotating_beam_frequency

    p = load_case("spinup_beam").PARAMS           # the spin-up beam's own section
    return rotating_beam_frequency(1000.0, p["length_m"], p["E_Pa"] * p["inertia_m4"],
                                   p["rho_kgm3"] * p["area_m2"])


def _million_point_sweep():
    from fem.parametric.grid import expand

    return expand({"a": list(range(100)), "b": list(range(100)), "c": list(range(100))},
                  {"a": 0, "b": 0, "c": 0})


def _ten_million_steps():
    m = fem.Model()
    grp, _ = fem.straight_cable(m, (0, 0, 0), (1, 0, 0), 4, STEEL, 1e-4, 1e-9)
    return fem.simulate(m, 10.0, 1e-6)


def _frames_past_the_disk():
    import shutil
    import tempfile
    from unittest import mock

    m = fem.Model()
    fem.straight_cable(m, (0, 0, 0), (1, 0, 0), 4, STEEL, 1e-4, 1e-9)
    out = Path(tempfile.mkdtemp())
    usage = shutil.disk_usage(out)._replace(free=100_000)     # a disk with 100 kB free
    try:
        with mock.patch("shutil.disk_usage", return_value=usage):
            fem.simulate(m, 1.0, 1e-3, result=fem.io.output.stream(out, m, every=1))
    finally:
        shutil.rmtree(out, ignore_errors=True)


SIZES = {
    "VTK frames past the disk's free space": (
        _frames_past_the_disk, r"--every: 1001 VTK frames of about .* would need .* of disk"),
    "simulate 10^7 steps on 1 GiB": (
        _ten_million_steps, r"recorded steps .* = 10000001 would need about .* GiB"),
    "cable of 10^6 elements on 1 GiB": (
        lambda: fem.straight_cable(fem.Model(), (0, 0, 0), (1, 0, 0), 10**6, STEEL, 1e-4,
                                   1e-9),
        "cable 'cable': n_elements = 1000000 would need about 46.6 GiB"),
    "sweep of 10^6 points": (_million_point_sweep,
                             "has 1,000,000 points .*more than 100,000"),
    "spin-up reference at 1000 rad/s": (_spin_reference_past_its_range,
                                        "Ω = 1000 rad/s is past the power series' range"),
    "floating-frame link of 120 functions on 1 GiB": (
        _huge_link, r"n \(functions per field.*\) = 120 would need about .* GiB of memory; "
                    r"this machine has 1 GiB available"),
    "link_segments 100000": (_many_segments, "link_segments = 100000 would build 300000 "
                                             "floating-frame bodies.*at most 1000"),
}


@pytest.mark.parametrize("case", list(SIZES))
def test_size_past_the_machine_is_refused_first(case, monkeypatch):
    """A size that grows with a user's number is estimated and refused before anything is
    allocated or built (the machine's memory pretended to be 1 GiB)."""
    monkeypatch.setattr(fem.core.validate, "available_memory", lambda: 2**30)
    make, match = SIZES[case]
    with pytest.raises(fem.ModelError, match=match):
        make()


# ---------------------------------------------------------------------------------------
# Result folders
def _run(folder, n, t0=0.0, steps=5):
    r = fem.Result(directory=folder, chunk=2)
    for i in range(steps):
        z = np.zeros(n)
        r.record(t0 + 0.1 * i, z, z, z, np.zeros(1))
    r.finish()
    return folder


def _two_runs(tmp):
    a, b = _run(tmp / "a", 4), _run(tmp / "b", 4)
    shutil.copy(b / "chunk_00000.npz", a / "chunk_00005.npz")
    return a


def _other_model(tmp):
    a, c = _run(tmp / "a", 4), _run(tmp / "c", 6)
    shutil.copy(c / "chunk_00001.npz", a / "chunk_00007.npz")
    return a


def _summary(tmp):
    (tmp / "run").mkdir()
    (tmp / "run" / "summary.json").write_text(json.dumps({"case": "x"}))
    _run(tmp / "run" / "result", 4)
    return tmp / "run" / "summary.json"


RESULTS = {
    "chunks of two runs": (_two_runs, "chunk_00005.npz starts at t = 0 s, before the end "
                                      ".*mixes chunks of two runs"),
    "chunk of another model": (_other_model, "chunk_00007.npz holds 6 coordinates, the "
                                             "chunks before it 4: a chunk of another model"),
    "summary.json": (_summary, r"summary.json is not a result: .* the run's result is the "
                               r"folder .*result"),
}


@pytest.mark.parametrize("case", list(RESULTS))
def test_result_folder_mixup_is_named(case, tmp_path):
    """Result.load of a folder mixing runs or models, or of a run's summary: a
    ModelError naming the file (never a history with time going back, a bare
    ValueError or advice about unpickling)."""
    make, match = RESULTS[case]
    with pytest.raises(fem.ModelError, match=match):
        Result_load(make(tmp_path))


def Result_load(path):         # noqa: N802 - the call under test, by its name
    return fem.Result.load(path)


# ---------------------------------------------------------------------------------------
# Entry points: the solvers take a model; a floating-frame link needs its twist
def _twist_free_link():
    from fem.elements.floating_frame import FloatingFrameLink

    link = FloatingFrameLink(1.0, "bezier", 4, 2.0, 1e6, 1e3, 1e3)     # GJ = ρI_p = 0
    fem.Model("ff").add_floating_frame("arm", link)


def _twist_free_chain():
    from fem.elements.floating_frame import FloatingFrameLink
    from fem.model.chains import SpatialChain

    SpatialChain([FloatingFrameLink(1.0, "bezier", 3, 2.0, 1e6, 1e3, 1e3)], [0.0])


def _coupling_as_text():
    from fem.elements.floating_frame import FloatingFrameLink

    FloatingFrameLink(1.0, "bezier", 4, 2.0, 1e6, 1e3, 1e3, GJ=1.0, coupling="no")


ENTRY = {
    "floating-frame coupling as text": (_coupling_as_text,
                                        "coupling must be True or False; got 'no'"),
    "solve_static of a name": (lambda: fem.solve_static("arm"),
                               "solve_static: model must be a fem.Model; got 'arm'"),
    "simulate of None": (lambda: fem.simulate(None, 1.0, 0.1),
                         "simulate: model must be a fem.Model; got None"),
    "modes of a list": (lambda: fem.modes([1, 2]), r"modes: model must be a fem.Model; got "
                                                   r"\[1, 2\]"),
    "floating frame without twist": (_twist_free_link,
                                     "floating frame 'arm': the link's twist has no stiffness "
                                     r"\(GJ = 0.*and no inertia"),
    "spatial chain without twist": (_twist_free_chain,
                                    "SpatialChain: link 1's twist has no stiffness"),
}


@pytest.mark.parametrize("case", list(ENTRY))
def test_entry_point_input_is_named(case):
    """A solver given a name, None or a list; a floating-frame link left at GJ = 0: a
    ModelError naming the argument (never AttributeError, never an LU pivot)."""
    call, match = ENTRY[case]
    with pytest.raises(fem.ModelError, match=match):
        call()


# ---------------------------------------------------------------------------------------
# User functions: their output checked at the step that gives it
def _hub_angle_nan():
    from fem.elements.floating_frame import FloatingFrameLink
    from fem.model.chains import HubLink

    link = FloatingFrameLink(1.0, "bezier", 3, 2.0, 1e6, 1e3, 1e3, GJ=1e3,
                             polar_inertia_per_length=1e-3)
    hub = HubLink(link, hub_angle=lambda t: (np.nan if t > 0.02 else 0.5 * t * t, t, 1.0))
    return fem.simulate(hub, 0.05, 0.01)


def _force_nan():
    m, nodes = _cable()
    m.add_force(m.point(nodes[-1]), lambda t: (0.0, 0.0, np.nan if t > 0.02 else 1.0))
    return fem.simulate(m, 0.05, 0.01)


def _sensor(fn):
    m, _ = _cable()
    return fem.simulate(m, 0.05, 0.01, sensors={"s": fn})


USER = {
    "hub angle NaN": (_hub_angle_nan, r"HubLink: hub_angle\(t\) at t = 0.03 s: the value is "
                                      "not finite", 3),
    "force function NaN": (_force_nan, "at t = 0.03 s \\(its function's value\\) must be "
                                       "finite", 3),
    "sensor output grows": (lambda: _sensor(lambda t, q, v, a, lam: np.zeros(
        2 if t < 0.025 else 3)), r"sensor 's' returned shape \(3,\) at t = 0.03 s; its "
                                 r"first sample had shape \(2,\)", 3),
    "sensor output not numbers": (lambda: _sensor(
        lambda t, q, v, a, lam: "high" if t > 0.015 else 1.0),
        "sensor 's' returned <U4 values at t = 0.02 s", 2),
}


@pytest.mark.parametrize("case", list(USER))
def test_user_function_output_stops_the_run_at_its_step(case):
    """A function of time that returns NaN, or a sensor whose output changes shape or is
    not numbers: the run stops at that step naming the function and the time (not a
    'finished' run full of NaN, not a result lost at the end), and the records before it
    are kept on the error (``.result``)."""
    run, match, kept = USER[case]
    with pytest.raises(fem.ModelError, match=match) as err:
        run()
    assert len(err.value.result) == kept
    assert err.value.result.info["status"] == "failed"
    assert np.all(np.isfinite(np.asarray(err.value.result.q)))


@pytest.mark.parametrize("EI, warns", [(4e3, True), (4e6, False)])
def test_chain_past_its_kinematics_range_warns(EI, warns):
    """A chain of floating-frame links that falls far past its kinematics' small-slope
    range (a soft link: 39 % of its length at the tip) finishes with a FemWarning that
    says so; a stiff one (0.07 %) finishes silently."""
    from fem.elements.floating_frame import FloatingFrameLink
    from fem.model.chains import PlanarChain

    chain = PlanarChain([FloatingFrameLink(7.1, "bezier", 4, 45.0, 3e7, EI, EI, GJ=3e6,
                                           polar_inertia_per_length=0.45)
                         for _ in range(2)], [0.0, 0.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fem.simulate(chain, 0.5, 0.01)
    said = [str(w.message) for w in caught if issubclass(w.category, fem.FemWarning)]
    if warns:
        assert any("link 1 deflects 39% of its length at its tip, past the range of its "
                   "kinematics 'paper'" in m for m in said), said
        assert "past_kinematics_range" in res.info
    else:
        assert not said and "past_kinematics_range" not in res.info


# ---------------------------------------------------------------------------------------
# Sweep resume: the folder's case must be this one
CASE = '''"""Test case {name}: y = 2 x."""
import fem

PARAMS = {{"x": 1.0}}


def build(**params):
    raise fem.ModelError("this case has no model")


def run(out=None, **params):
    return {{"y": 2 * {{**PARAMS, **params}}["x"]}}
'''


@pytest.mark.parametrize("intruder", ["another case", "points without sweep.json"])
def test_sweep_resume_into_another_folder_is_refused(intruder, tmp_path, monkeypatch):
    """Resuming into a folder of another case (same parameter names and values) is
    refused before any point is skipped as 'complete before'."""
    cases = tmp_path / "cases"
    cases.mkdir()
    for name in ("alpha", "beta"):
        (cases / f"{name}.py").write_text(CASE.format(name=name))
    monkeypatch.setenv("FEM_CASES", str(cases))
    out = tmp_path / "sweep"
    if intruder == "another case":
        fem.sweep("alpha", {"x": [1.0, 2.0]}, "serial", out=out, progress=False)
        match = "holds a sweep of case 'alpha'; this sweep is of 'beta'"
    else:
        (out / "points" / "x=1").mkdir(parents=True)
        match = "holds points/ but no sweep.json"
    with pytest.raises(fem.ModelError, match=match):
        fem.sweep("beta", {"x": [1.0, 2.0]}, "serial", out=out, progress=False)


# ---------------------------------------------------------------------------------------
# fem validate's arguments: checked before any check runs
@pytest.mark.parametrize("args, match", [
    (["--only", ""], "--only names no check"),
    (["--only", ","], "--only names no check"),
    (["--only", "no_such_check"], "unknown check.*no_such_check"),
    (["-o", "FILE", "--only", "beam_elastica"], "is a file, not a folder"),
])
def test_validate_arguments_refused_before_running(args, match, tmp_path, capsys):
    """``fem validate`` with an empty ``--only``, an unknown check or an output folder
    that is a file: refused at once (no check has run: nothing printed as pass/FAIL)."""
    (tmp_path / "FILE").write_text("x")
    args = [str(tmp_path / a) if a == "FILE" else a for a in args]
    assert main(["validate", *args]) != 0
    err = capsys.readouterr()
    assert "pass " not in err.out and "FAIL" not in err.out
    import re

    assert re.search(match, err.err), err.err


# ---------------------------------------------------------------------------------------
# The earlier audit's three misleading answers
def _group_by_integer():
    m, _ = _cable()
    m.group(0)


def _mesh_group_by_integer():
    from fem.model.mesh import Mesh

    mesh = Mesh(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]), np.array([[0, 1, 2]]),
                groups={"physical_1": {"triangle": np.array([0])}})
    mesh.group_vertices(1)


def _garbage_chunk(tmp):
    d = tmp / "garbage"
    d.mkdir()
    (d / "chunk_00000.npz").write_bytes(b"garbage, not an archive")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fem.FemWarning)
        fem.Result.load(d)


def _garbage_meta(tmp):
    d = tmp / "garbage"
    d.mkdir()
    (d / "meta.json").write_text("garbage{")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fem.FemWarning)
        fem.Result.load(d)


def _garbage_file(tmp):
    (tmp / "r.npz").write_bytes(b"\x00\x01garbage")
    fem.Result.load(tmp / "r.npz")


def _zero_line_direction(tmp):
    from fem.robots.rrru3 import paper_line_path

    paper_line_path(direction=(0, 0, 0))


def _zero_direction_parameter(tmp):
    from fem.cases import load_case, parse_params

    parse_params(load_case("parallel_robot_flexible_platform"),
                 {"line_direction": [0, 0, 0]})


MISLEADING = {
    "element group by integer": (lambda tmp: _group_by_integer(),
                                 r"an element group is looked up by its name \(a str\); got "
                                 r"0 \(int\); model.groups\[0\] is the group named 'cable'"),
    "mesh group by integer": (lambda tmp: _mesh_group_by_integer(),
                              "a group is named by a str; got 1 .*gmsh's physical group 1 "
                              "without a name is 'physical_1'"),
    "garbage chunk in a result folder": (_garbage_chunk, "no readable records in .*every "
                                                         "chunk is damaged"),
    "garbage meta.json, no chunks": (_garbage_meta, "its meta.json is unreadable and it "
                                                    "holds no chunk"),
    "garbage result file": (_garbage_file, "its first bytes .* are neither a zip archive's "
                                           "nor numpy's"),
    "zero line direction": (_zero_line_direction, "paper_line_path: direction .* must be a "
                                                  "non-zero 3-vector"),
    "zero line_direction parameter": (_zero_direction_parameter,
                                      "'line_direction' is a direction and must not be zero"),
}


@pytest.mark.parametrize("case", list(MISLEADING))
def test_earlier_misleading_answers_now_name_the_cause(case, tmp_path):
    """The earlier audit's misleading answers: each now names its real cause (no
    'unpickling' advice for garbage, no 'p1 must be finite' for a zero direction)."""
    make, match = MISLEADING[case]
    with pytest.raises(fem.ModelError, match=match) as err:
        make(tmp_path)
    assert "pickl" not in str(err.value)
