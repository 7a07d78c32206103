"""Bad input by class (issue 22): every entry below is one distinct bad input, and each must
end in a clear :class:`fem.ModelError` — naming the argument, the value or the cause — never
a traceback from numpy, a silent acceptance or a misleading diagnosis.

The classes: API arguments (types, shapes, finiteness, ranges, orthonormality, integer
indices), solver options (tolerances and iteration limits everywhere), causes named before
a solve (non-finite inputs, zero axes), damaged result files, mesh files, case modules and
command-line values.  The faults (signals, full disks, locks) are in ``test_faults.py``.
"""

from __future__ import annotations

import json
import sys
import textwrap
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import fem
import fem.model.actuators
import fem.model.trajectory
from fem.cli import main

STEEL = fem.Material(2.1e11, 0.3, 7850)


def _cable(n_el: int = 4):
    m = fem.Model("cable", gravity=(0, 0, -9.81))
    grp, nodes = fem.straight_cable(m, (0, 0, 0), (1, 0, 0), n_el, STEEL, 1e-4, 1e-9)
    m.fix(nodes[0])
    return m, grp, nodes


def _three_nodes():
    m = fem.Model("bars")
    for x in ((0, 0, 0), (1, 0, 0), (1, 1, 0)):
        m.add_node(r=x)
    return m


def _bar(mass=1.0, **kw):
    return _three_nodes().add_elements("rigid_bar", [[0, 1]], mass=mass, **kw)


def _profile():
    from fem.model.trajectory import CosineAccelerationProfile

    return CosineAccelerationProfile(1.0, 0.1)


def _drive(axis=(0, 0, 1), zero=(1, 0, 0)):
    m, _, nodes = _cable()
    return fem.AngleDrive(fem.constant((0, 0, 0)), m.point(nodes[1]), axis, zero,
                          lambda t: (0.0, 0.0, 0.0))


def _with(add):
    """A cable with one more thing added by ``add(model, nodes)``, then solved."""
    m, _, nodes = _cable()
    add(m, nodes)
    return fem.solve_static(m)


# ---------------------------------------------------------------------------------------
# API arguments: types, shapes, finiteness, ranges, rotations, integer indices
API = {
    # nodes and vectors
    "node position text": (lambda: fem.Model().add_node(r="abc"), "field r must be a 3-vector"),
    "node position 4-vector": (lambda: fem.Model().add_node(r=(0, 0, 0, 0)),
                               r"3-vector .*shape \(4,\)"),
    "node position None": (lambda: fem.Model().add_node(r=None), "field r must be a 3-vector"),
    "node position inf": (lambda: fem.Model().add_node(r=(0, np.inf, 0)), "must be finite"),
    "node name not a str": (lambda: fem.Model().add_node(5, r=(0, 0, 0)), "name must be"),
    "node without fields": (lambda: fem.Model().add_node("a"), "at least one field"),
    "nodes names too few": (lambda: fem.Model().add_nodes(names=["a"], r=np.zeros((2, 3))),
                            "names must be a list of 2 names"),
    "nodes field (n, 2)": (lambda: fem.Model().add_nodes(r=np.zeros((2, 2))),
                           r"shape \(n, 3\)"),
    "nodes fields of different n": (lambda: fem.Model().add_nodes(r=np.zeros((2, 3)),
                                                                 r_x=np.zeros((3, 3))),
                                    "same n"),
    "gravity 4-vector": (lambda: fem.Model(gravity=(0, 0, -9.81, 0)), "gravity must be a 3-"),
    "model name None": (lambda: fem.Model(None), "name must be a non-empty str"),
    "constant 2-vector": (lambda: fem.constant((1, 2)), "must be a 3-vector"),
    "map times text": (lambda: _cable()[0].point(1) * "2", "unsupported|number"),
    "map times inf": (lambda: _cable()[0].point(1) * np.inf, "must be finite"),
    "body point 2-vector": (lambda: fem.Model().add_rigid_body("b", 1.0, (0, 0, 0))
                            .point((1, 2)), "x_body .* must be a 3-vector"),
    "body vector text": (lambda: fem.Model().add_rigid_body("b", 1.0, (0, 0, 0))
                         .vector("x"), "v_body .* must be a 3-vector"),
    "body axis 3": (lambda: fem.Model().add_rigid_body("b", 1.0, (0, 0, 0)).axis(3),
                    "axis index must be an integer ≤ 2"),
    "force 2-vector": (lambda: (lambda m, n: m.add_force(m.point(n[-1]), (0, 1)))(
        *_cable()[::2]), "force on .* must be a 3-vector"),
    "force on a tuple point": (lambda: _cable()[0].add_force((1, 0, 0), (0, 0, 1)),
                               "must be a fem.LinearMap"),
    # builders
    "beam start 2-vector": (lambda: fem.straight_beam(fem.Model(), (0, 0), (1, 0, 0), 2, STEEL,
                                                      section="circle", radius=0.01),
                            "start must be a 3-vector"),
    "beam 2.5 elements": (lambda: fem.straight_beam(fem.Model(), (0, 0, 0), (1, 0, 0), 2.5,
                                                    STEEL, section="circle", radius=0.01),
                          "n_elements must be an integer"),
    "beam up zero": (lambda: fem.straight_beam(fem.Model(), (0, 0, 0), (1, 0, 0), 2, STEEL,
                                               up=(0, 0, 0), section="circle", radius=0.01),
                     "'up' .* zero or parallel"),
    "beam radius list": (lambda: fem.straight_beam(fem.Model(), (0, 0, 0), (1, 0, 0), 2, STEEL,
                                                   section="circle", radius=[0.01, 0.02]),
                         "radius must be a positive number"),
    "cable material a number": (lambda: fem.straight_cable(fem.Model(), (0, 0, 0), (1, 0, 0), 2,
                                                           2.1e11, 1e-4, 1e-9),
                                "material must be a fem.Material .*fem.Material\\(E="),
    "cable end text": (lambda: fem.straight_cable(fem.Model(), (0, 0, 0), "end", 2, STEEL,
                                                  1e-4, 1e-9), "end must be a 3-vector"),
    "section width bool": (lambda: fem.rectangle_section(True, 0.02), "width must be a number"),
    "circle radius list": (lambda: fem.circle_section([1, 2]), "radius must be a number"),
    # materials
    "material E text": (lambda: fem.Material("2e11"), "Young's modulus .* must be a number"),
    "material nu text": (lambda: fem.Material(1e9, "0.3"), "Poisson's ratio .* must be a"),
    "material rho inf": (lambda: fem.Material(1e9, 0.3, np.inf), "density .* must be finite"),
    "material E negative": (lambda: fem.Material(-1e9), "Young's modulus E must be > 0"),
    # element groups: material, section data, node indices
    "add_elements material a number": (
        lambda: (lambda m: m.add_elements("ancf_cable", [[0, 1]], 2.1e11, area=1e-4,
                                          inertia=1e-9))(_cable()[0]),
        "material must be a fem.Material"),
    "cable area inf": (lambda: fem.straight_cable(fem.Model(), (0, 0, 0), (1, 0, 0), 2, STEEL,
                                                  np.inf, 1e-9), "section area must be finite"),
    "cable inertia NaN": (lambda: fem.straight_cable(fem.Model(), (0, 0, 0), (1, 0, 0), 2,
                                                     STEEL, 1e-4, np.nan),
                          "section inertia must be finite"),
    "cable area text": (lambda: fem.straight_cable(fem.Model(), (0, 0, 0), (1, 0, 0), 2, STEEL,
                                                   "1e-4", 1e-9), "area must be a number"),
    "cable area per element wrong count": (
        lambda: fem.straight_cable(fem.Model(), (0, 0, 0), (1, 0, 0), 3, STEEL,
                                   [1e-4, 1e-4], 1e-9), "one per element"),
    "cable n_gauss 0": (lambda: fem.straight_cable(fem.Model(), (0, 0, 0), (1, 0, 0), 2, STEEL,
                                                   1e-4, 1e-9, n_gauss=0),
                        "n_gauss must be an integer ≥ 1"),
    "bar mass negative": (lambda: _bar(-1.0), "mass must be ≥ 0"),
    "bar mass text": (lambda: _bar("1"), "mass must be a number"),
    "bar section key misspelt": (lambda: _bar(1.0, mas=2.0),
                                 "unknown section data 'mas' \\(did you mean 'mass'\\?\\)"),
    "cable section key misspelt": (lambda: fem.straight_cable(
        fem.Model(), (0, 0, 0), (1, 0, 0), 2, STEEL, 1e-4, 1e-9, n_gaus=3),
        "unknown section data 'n_gaus'"),
    "element nodes 0.0 and 1.7": (lambda: _three_nodes().add_elements(
        "rigid_bar", [[0.0, 1.7]], mass=1.0), r"integer node ids.*1\.7.*never rounded"),
    "element nodes text": (lambda: _three_nodes().add_elements("rigid_bar", [["a", 1]],
                                                               mass=1.0), "integer node ids"),
    "element nodes bool": (lambda: _three_nodes().add_elements("rigid_bar", [[True, False]],
                                                               mass=1.0), "integer node ids"),
    "element nodes 3 per bar": (lambda: _three_nodes().add_elements("rigid_bar", [[0, 1, 2]],
                                                                    mass=1.0),
                                r"shape \(m, 2\)"),
    "element nodes unknown": (lambda: _three_nodes().add_elements("rigid_bar", [[0, 7]],
                                                                  mass=1.0),
                              r"node ids \[7\] do not exist"),
    "element nodes empty": (lambda: _three_nodes().add_elements("rigid_bar", [], mass=1.0),
                            r"shape \(m, 2\)"),
    "element family not a str": (lambda: _three_nodes().add_elements(5, [[0, 1]]),
                                 "element is a family name"),
    "element point at 1.5": (lambda: _cable()[1].material_point(1.5, [0.0]),
                             "element index must be an integer"),
    "element point xi text": (lambda: _cable()[1].material_point(1, "a"),
                              "xi must be numbers"),
    # rigid bodies
    "rotation 2·I": (lambda: fem.Model().add_rigid_body("b", 1.0, (0, 0, 0),
                                                        rotation=2 * np.eye(3)),
                     r"rotation must be a rotation matrix .*RᵀR"),
    "rotation sheared": (lambda: fem.Model().add_rigid_body(
        "b", 1.0, (0, 0, 0), rotation=[[1, 0.1, 0], [0, 1, 0], [0, 0, 1]]),
        "rotation must be a rotation matrix"),
    "rotation a reflection": (lambda: fem.Model().add_rigid_body(
        "b", 1.0, (0, 0, 0), rotation=np.diag([1.0, 1.0, -1.0])), "det R = \\+1"),
    "rotation 2×2": (lambda: fem.Model().add_rigid_body("b", 1.0, (0, 0, 0),
                                                        rotation=np.eye(2)), "3×3"),
    "body mass text": (lambda: fem.Model().add_rigid_body("b", "x", (0, 0, 0)),
                       "mass must be a number"),
    "body com 2-vector": (lambda: fem.Model().add_rigid_body("b", 1.0, (0, 0, 0), com=(0, 0)),
                          "com must be a 3-vector"),
    "body inertia 2×2": (lambda: fem.Model().add_rigid_body("b", 1.0, (0, 0, 0),
                                                            inertia=np.eye(2)),
                         "inertia must be a 3×3"),
    "body sketch (k, 2)": (lambda: fem.Model().add_rigid_body("b", 1.0, (0, 0, 0),
                                                              sketch=np.zeros((3, 2))),
                           "sketch must be points"),
    "body name not a str": (lambda: fem.Model().add_rigid_body(3, 1.0, (0, 0, 0)),
                            "name must be a non-empty str"),
    # constraints
    "distance length -1": (lambda: fem.Distance(_cable()[0].point(1), _cable()[0].point(2),
                                                length=-1.0), "length must be > 0 m"),
    "distance length NaN": (lambda: fem.Distance(_cable()[0].point(1), _cable()[0].point(2),
                                                 length=np.nan), "length must be finite"),
    "distance to a tuple": (lambda: fem.Distance(_cable()[0].point(1), (0, 0, 0)),
                            "p2 must be a point .* fem.constant"),
    "dot value text": (lambda: fem.Dot(fem.constant((1, 0, 0)), _cable()[0].point(1), "0"),
                       "value must be a number"),
    "coincident with a tuple": (lambda: fem.Coincident((0, 0, 0), _cable()[0].point(1)),
                                "p1 must be a point"),
    "coincident component 3": (lambda: fem.Coincident(_cable()[0].point(1), fem.constant(
        (0, 0, 0)), components=(0, 3)), r"components \[3\] do not exist"),
    "coincident component twice": (lambda: fem.Coincident(_cable()[0].point(1), fem.constant(
        (0, 0, 0)), components=(1, 1)), "components must be distinct"),
    "fixed dofs 0.5": (lambda: fem.Fixed([0.5, 1]), "integer coordinate indices"),
    "fixed dofs empty": (lambda: fem.Fixed([]), "no coordinates to fix"),
    "fixed values wrong count": (lambda: fem.Fixed([0, 1], values=[0.0]),
                                 "values must have the model's 2"),
    "fixed dof beyond the model": (lambda: _cable()[0].add_constraint(fem.Fixed([9999])),
                                   "refers to coordinates \\[9999\\]"),
    "point of another model": (lambda: _cable()[0].add_constraint(fem.Distance(
        _cable(8)[0].point(8), _cable()[0].point(1))), "a point of another model"),
    "linear A text": (lambda: fem.Linear("abc"), "A must be a matrix of numbers"),
    "linear b wrong length": (lambda: fem.Linear(np.eye(2), [1, 2, 3]), "b .* must have"),
    "linear A NaN": (lambda: fem.Linear([[np.nan, 1.0]]), "finite numbers"),
    "prescribed motion not callable": (lambda: fem.PrescribedPoint(_cable()[0].point(1),
                                                                   (0, 0, 0)),
                                       "motion .* must be a function"),
    "prescribed coordinates dofs text": (lambda: fem.PrescribedCoordinates(
        "x", lambda t: (0, 0, 0)), "integer coordinate indices"),
    "angle drive zero axis": (lambda: _drive(axis=(0, 0, 0)),
                              "axis must be a non-zero 3-vector"),
    "angle drive axis NaN": (lambda: _drive(axis=(0, np.nan, 1)), "axis must be finite"),
    "angle drive zero direction along the axis": (lambda: _drive(zero=(0, 0, 2)),
                                                  "parallel to the axis"),
    "angle drive angle not callable": (lambda: fem.AngleDrive(
        fem.constant((0, 0, 0)), _cable()[0].point(1), (0, 0, 1), (1, 0, 0), 0.0),
        "angle .* must be a function"),
    "revolute normals not a list": (lambda: (lambda m, n: m.revolute(
        m.point(n[1]), m.point(n[2]), m.point(n[2]), 5))(*_cable()[::2]),
        "normals1 must be a list"),
    "constraint name not a str": (lambda: fem.Fixed([0], name=5), "name must be a str"),
    "fix fields not names": (lambda: (lambda m, n: m.fix(n[1], 5))(*_cable()[::2]),
                             "fields are field names"),
    "node_dofs fields not names": (lambda: _cable()[0].node_dofs(1, [1]),
                                   "fields are field names"),
    "damping beta text": (lambda: (lambda m, g: m.add_damping(g, "x"))(*_cable()[:2]),
                          "beta must be a number"),
    "damping of a name": (lambda: _cable()[0].add_damping("cable", 1e-3),
                          "expects an ElementGroup"),
    # actuators, trajectories
    "motor zero axis": (lambda: fem.model.actuators.RevoluteActuator(
        fem.constant((0, 0, 0)), _cable()[0].point(1), (0, 0, 0)),
        "axis must be a non-zero 3-vector"),
    "linear drive direction text": (lambda: fem.model.actuators
                                    .LinearActuator(_cable()[0].point(1), "z"),
                                    "direction must be a 3-vector"),
    "add_actuator a number": (lambda: _cable()[0].add_actuator(5), "expects a fem.model.actuators"),
    "profile duration 0": (lambda: fem.model.trajectory
                           .CosineAccelerationProfile(0.0, 1.0), "duration must be > 0"),
    "profile accel fraction 0.7": (lambda: fem.model.trajectory
                                   .SCurveProfile(1.0, 1.0, 0.7),
                                   r"accel_fraction must lie in \(0, 0.5\]"),
    "circle path zero normal": (lambda: fem.model.trajectory.circle_path(
        (0, 0, 0), 0.1, (0, 0, 0), 0.0, _profile()), "normal must be a non-zero"),
    "circle path radius text": (lambda: fem.model.trajectory.circle_path(
        (0, 0, 0), "0.1", (0, 0, 1), 0.0, _profile()), "radius must be a number"),
    "line path 2-vector": (lambda: fem.model.trajectory.line_path(
        (0, 0), (1, 0, 0), _profile()), "p0 must be a 3-vector"),
    "line path profile a number": (lambda: fem.model.trajectory.line_path(
        (0, 0, 0), (1, 0, 0), 2.0), "profile must be a motion profile"),
    # results and outputs
    "Result chunk 0": (lambda: fem.Result(chunk=0), "chunk .* must be an integer ≥ 1"),
    "Result sensors a list": (lambda: fem.Result(sensors=[1, 2]), "sensors must be a dict"),
    "Result.load of a number": (lambda: fem.Result.load(5), "give the path"),
    "write_outputs figures text": (lambda: fem.write_outputs("unused", _cable()[0], None, "f"),
                                   "figures must be a dict"),
    # meshes
    "mesh vertices text": (lambda: fem.Mesh.from_arrays([["a", 0, 0]], [[0, 0, 0]]),
                           "vertices must be an"),
    "mesh triangle indices float": (lambda: fem.Mesh.from_arrays(np.eye(3), [[0, 1.5, 2]]),
                                    "integer array"),
    "read_mesh of a number": (lambda: fem.read_mesh(5), "named by a path"),
    # reference formulas (the inputs of closed forms)
    "cantilever frequencies rho_A = 0": (
        lambda: __import__("fem.references.beams").references.beams.cantilever_frequencies(
            1.0, 1.0, 0.0), "rho_A must be > 0"),
    "rod frequencies L text": (
        lambda: __import__("fem.references.beams").references.beams
        .fixed_free_rod_frequencies("1", 100.0), "L must be a number"),
}


# ---------------------------------------------------------------------------------------
# solver options: tolerances and iteration limits, everywhere, by the same rule
def _sim(**kw):
    return fem.simulate(_cable()[0], 0.01, 1e-3, **kw)


SOLVER = {
    "simulate rho_inf 'high'": (lambda: _sim(rho_inf="high"), "rho_inf must be a number"),
    "simulate rho_inf 1.5": (lambda: _sim(rho_inf=1.5), r"rho_inf must lie in \[0, 1\]"),
    "simulate tol 0": (lambda: _sim(tol=0.0), "tol must be > 0"),
    "simulate tol -1 (was: every step accepted)": (lambda: _sim(tol=-1.0), "tol must be > 0"),
    "simulate tol 1": (lambda: _sim(tol=1.0), "tol must be < 1"),
    "simulate tol NaN": (lambda: _sim(tol=np.nan), "tol must be finite"),
    "simulate constraint_tol -1": (lambda: _sim(constraint_tol=-1.0),
                                   "constraint_tol must be > 0"),
    "simulate max_iter 0": (lambda: _sim(max_iter=0), "max_iter must be an integer ≥ 1"),
    "simulate max_iter 2.5": (lambda: _sim(max_iter=2.5), "max_iter must be an integer"),
    "simulate max_iter 1e9": (lambda: _sim(max_iter=10**9), "max_iter must be an integer ≤"),
    "simulate reuse 'x'": (lambda: _sim(reuse="x"), "reuse must be one of"),
    "simulate correction 'full'": (lambda: _sim(correction="full"), "correction must be one"),
    "simulate predictor 1": (lambda: _sim(predictor=1), "predictor must be one of"),
    "simulate corotate 'yes'": (lambda: _sim(corotate="yes"), "corotate must be True or"),
    "simulate record_every 0": (lambda: _sim(record_every=0), "record_every must be an"),
    "simulate force_scale -1": (lambda: _sim(force_scale=-1.0), "force_scale must be ≥ 0"),
    "simulate factor_cost 0": (lambda: _sim(factor_cost=0.0), "factor_cost must be > 0"),
    "simulate sensor not callable": (lambda: _sim(sensors={"a": 5}),
                                     r"sensors\['a'\] must be a function"),
    "simulate on_step not callable": (lambda: _sim(on_step=3), "on_step must be a function"),
    "simulate q0 text": (lambda: _sim(q0="abc"), "q0 must be a vector"),
    "simulate result not a Result": (lambda: _sim(result={}), "result must be a fem.Result"),
    "simulate t0 text": (lambda: _sim(t0="0"), "t0 .* must be a number"),
    "GeneralizedAlpha tol -1": (lambda: fem.GeneralizedAlpha(_cable()[0], tol=-1.0),
                                "GeneralizedAlpha: tol must be > 0"),
    "GeneralizedAlpha step h < 0": (lambda: fem.GeneralizedAlpha(_cable()[0]).step(-1e-3),
                                    "step h must be a finite number > 0"),
    "static tol 0": (lambda: fem.solve_static(_cable()[0], tol=0.0), "tol must be > 0"),
    "static tol 2": (lambda: fem.solve_static(_cable()[0], tol=2.0), "tol must be < 1"),
    "static max_iter -1": (lambda: fem.solve_static(_cable()[0], max_iter=-1),
                           "max_iter must be an integer ≥ 1"),
    "static load_steps 1e12": (lambda: fem.solve_static(_cable()[0], load_steps=10**12),
                               "load_steps must be an integer ≤"),
    "static min_increment 2": (lambda: fem.solve_static(_cable()[0], min_increment=2.0),
                               r"min_increment must lie in \(0, 1\]"),
    "static adaptive 'no'": (lambda: fem.solve_static(_cable()[0], adaptive="no"),
                             "adaptive must be True or False"),
    "static t inf": (lambda: fem.solve_static(_cable()[0], t=np.inf), "t .* must be finite"),
    "project_positions tol -1": (lambda: fem.project_positions(_cable()[0], _cable()[0].q0,
                                                               tol=-1.0), "tol must be > 0"),
    "project_positions max_iter 0": (lambda: fem.project_positions(
        _cable()[0], _cable()[0].q0, max_iter=0), "max_iter must be an integer ≥ 1"),
    "project_positions q short": (lambda: fem.project_positions(_cable()[0], np.zeros(3)),
                                  "q must have the model's"),
    "modes n_modes '3'": (lambda: fem.modes(_cable()[0], n_modes="3"),
                          "n_modes must be an integer"),
    "modes lam text": (lambda: fem.modes(_cable()[0], lam="x"), "lam .* must be a vector"),
    "driven tol 0": (lambda: fem.driven_inverse_dynamics(_cable()[0], [0.0], tol=0.0),
                     "tol must be > 0"),
    "driven max_iter 0.5": (lambda: fem.driven_inverse_dynamics(_cable()[0], [0.0],
                                                                max_iter=0.5),
                            "max_iter must be an integer"),
    "driven times decreasing": (lambda: fem.driven_inverse_dynamics(_cable()[0], [1.0, 0.0]),
                                "times must increase strictly"),
    "driven times empty": (lambda: fem.driven_inverse_dynamics(_cable()[0], []),
                           "times is empty"),
    "consistent state t0 NaN": (lambda: fem.consistent_initial_state(_cable()[0], t0=np.nan),
                                "t0 .* must be finite"),
    "sweep workers -1 (was: hangs)": (lambda: fem.sweep("cantilever_cable",
                                                        {"n_elements": [2, 3]}, workers=-1),
                                      "workers .* must be an integer ≥ 0"),
    "sweep scheduler not an address": (lambda: fem.sweep("cantilever_cable",
                                                         {"n_elements": [2, 3]},
                                                         "not-an-address"),
                                       "must be a Dask scheduler address"),
    "sweep mode 'cross'": (lambda: fem.sweep("cantilever_cable", {"n_elements": [2]},
                                             "serial", mode="cross"),
                           "mode must be one of"),
    "sweep grid a string": (lambda: fem.sweep("cantilever_cable", "n_elements=2", "serial"),
                            "grid must be a dict"),
}


# ---------------------------------------------------------------------------------------
# causes named before a solve: never "buckling" or "redundant constraints" for bad input
def _distance_nan_after_build():
    m, _, nodes = _cable()
    d = fem.Distance(m.point(nodes[1]), m.point(nodes[3]))
    d.length = np.nan          # slipped past the constructor: the solver still names it
    m.add_constraint(d)
    return fem.solve_static(m)


def _area_inf_after_build():
    m, grp, _ = _cable()
    grp.family.A[:] = np.inf   # idem, for the section area
    grp.family.EA[:] = np.inf
    return fem.solve_static(m)


CAUSES = {
    "load function NaN": (lambda: _with(lambda m, n: m.add_force(m.point(n[-1]),
                                                                 lambda t: (0, 0, np.nan))),
                          "its function's value\\) must be finite"),
    "load function text": (lambda: _with(lambda m, n: m.add_force(m.point(n[-1]),
                                                                  lambda t: "x")),
                           "its function's value\\) must be a 3-vector"),
    "prescribed motion NaN": (lambda: _with(lambda m, n: m.add_constraint(fem.PrescribedPoint(
        m.point(n[-1]), lambda t: (np.full(3, np.nan), np.zeros(3), np.zeros(3)),
        components=(2,)))), "motion function at t = 0 s: the value is not finite"),
    "prescribed motion two values": (lambda: _with(lambda m, n: m.add_constraint(
        fem.PrescribedCoordinates([4], lambda t: (0.0, 0.0)))),
        "must return \\(value, rate, acceleration\\)"),
    "distance NaN set after building": (_distance_nan_after_build,
                                        "non-finite values .* constraint rows"),
    "area inf set after building": (_area_inf_after_build,
                                    "non-finite values .*element group \\['cable'\\]"),
}


@pytest.mark.parametrize("case", list(API))
def test_api_arguments(case):
    fn, match = API[case]
    with pytest.raises(fem.ModelError, match=match):
        fn()


@pytest.mark.parametrize("case", list(SOLVER))
def test_solver_options(case):
    fn, match = SOLVER[case]
    with pytest.raises(fem.ModelError, match=match):
        fn()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")      # numpy on the inf it is given
@pytest.mark.parametrize("case", list(CAUSES))
def test_causes_are_named_before_solving(case):
    fn, match = CAUSES[case]
    with pytest.raises(fem.ModelError, match=match) as info:
        fn()
    msg = str(info.value)
    assert "buckling" not in msg and "redundant" not in msg and "singular" not in msg


def test_zero_load_is_the_reference_state_not_a_limit_point():
    # rho = 0: the cantilever carries no load at all (was: "a limit point (buckling)")
    m = fem.Model("massless")
    _, nodes = fem.straight_cable(m, (0, 0, 0), (1, 0, 0), 4, fem.Material(2e11, 0.3, 0.0),
                                  1e-4, 1e-9)
    m.fix(nodes[0])
    st = fem.solve_static(m)
    assert st.converged and st.info["no_load"]
    np.testing.assert_array_equal(st.q, m.q0)


def test_rotation_within_round_off_is_accepted():
    from scipy.spatial.transform import Rotation

    R = Rotation.from_euler("xyz", [0.3, -1.1, 2.0]).as_matrix()
    body = fem.Model().add_rigid_body("b", 1.0, (0, 0, 0), rotation=R + 1e-9)
    assert body.name == "b"


# ---------------------------------------------------------------------------------------
# damaged results: named, never the advice to unpickle
def _npz(path: Path, **arrays) -> Path:
    np.savez(path, **arrays)
    return path


RESULT_FILES = {
    "truncated archive": lambda p: p.write_bytes(b"PK\x03\x04garbage"),
    "text file": lambda p: p.write_text("hello, not a result"),
    "empty file": lambda p: p.write_bytes(b""),
    "pickled object array": lambda p: np.save(p.with_suffix(".npy"),
                                              np.array([{}], dtype=object)),
    "archive of other arrays": lambda p: _npz(p, x=np.zeros(3)),
    "archive with object arrays": lambda p: np.savez(p, t=np.zeros(2), q=np.array(
        [{}, {}], dtype=object), v=np.zeros((2, 1)), a=np.zeros((2, 1)), lam=np.zeros((2, 0))),
    "archive with rows for other times": lambda p: _npz(p, t=np.zeros(3), q=np.zeros((2, 4)),
                                                        v=np.zeros((3, 4)), a=np.zeros((3, 4)),
                                                        lam=np.zeros((3, 0))),
    "zip of text": lambda p: zipfile.ZipFile(p, "w").writestr("t.npy", "not an array"),
}


@pytest.mark.parametrize("case", list(RESULT_FILES))
def test_damaged_result_files(case, tmp_path):
    p = tmp_path / "r.npz"
    RESULT_FILES[case](p)
    if not p.exists():
        p = p.with_suffix(".npy")
    with pytest.raises(fem.ModelError, match="damaged or not a result|not a result") as info:
        fem.Result.load(p)
    msg = str(info.value).lower()
    assert "allow_pickle" not in msg and "if you trust" not in msg and "pickle.load" not in msg


def test_result_load_of_a_folder_without_records(tmp_path):
    (tmp_path / "run" / "result").mkdir(parents=True)
    with pytest.raises(fem.ModelError, match="no result in .*records are in .*result"):
        fem.Result.load(tmp_path / "run")


def test_a_saved_result_round_trips(tmp_path):
    r = fem.simulate(_cable()[0], 0.003, 1e-3)
    loaded = fem.Result.load(r.save(tmp_path / "r.npz"))
    np.testing.assert_array_equal(loaded.q, r.q)
    assert not list(tmp_path.glob(".*"))       # no temporary file left


# ---------------------------------------------------------------------------------------
# mesh files
OBJ_HEAD = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\n"
MESH_FILES = {
    "obj face cut to two vertices (was: element dropped)": (OBJ_HEAD + "f 1 3\n",
                                                            "only 2 vertices"),
    "obj face with a vertex that does not exist": (OBJ_HEAD + "f 1 3 9\n",
                                                   "outside 0..3"),
    "obj face with text": (OBJ_HEAD + "f 1 3 x\n", "not valid obj"),
    "obj vertex with two coordinates": ("v 0 0 0\nv 1 0 0\nv 1 1\nf 1 2 3\n",
                                        "not valid obj"),
    "obj quad beside triangles (was: left out)": (OBJ_HEAD + "f 1 3 4\nf 1 2 3 4\n",
                                                  "would be left out"),
    "obj face with vertex 0 (indices start at 1)": (OBJ_HEAD + "f 0 1 2\n", "outside 0..3"),
    "obj collinear face": ("v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n", "degenerate"),
    "obj empty": ("", "points have shape \\(0,\\)|not valid obj"),
}


@pytest.mark.parametrize("case", list(MESH_FILES))
def test_mesh_files(case, tmp_path):
    text, match = MESH_FILES[case]
    path = tmp_path / "m.obj"
    path.write_text(text)
    with pytest.raises(fem.ModelError, match=match):
        mesh = fem.read_mesh(path)
        fem.Model().add_mesh(mesh, "bezier_plate_shared", STEEL, thickness=0.01)


# ---------------------------------------------------------------------------------------
# case modules: `fem: error` lines naming the file and line
CASE_FILES = {
    "syntax error": ("PARAMS = {'a': 1\ndef run(out=None, **p):\n    return {}\n",
                     r"\.py:1: syntax error"),
    "missing import": ("import fem_no_such_module\nPARAMS = {}\n"
                       "def run(out=None, **p):\n    return {}\n",
                       r"\.py:1: ModuleNotFoundError"),
    "error at import": ("PARAMS = {'a': 1}\nx = 1 / 0\n", r"\.py:2: ZeroDivisionError"),
    "exit at import": ("import sys\nsys.exit(3)\nPARAMS = {}\n", r"\.py:2: SystemExit"),
    "PARAMS a list": ("PARAMS = [1, 2]\ndef run(out=None, **p):\n    return {}\n",
                      "PARAMS must be a dict"),
    "PARAMS with a number key": ("PARAMS = {1: 2}\ndef run(out=None, **p):\n    return {}\n",
                                 "PARAMS must be a dict of parameter names"),
    "no run": ("PARAMS = {}\n", "has no run"),
    "run a number": ("PARAMS = {}\nrun = 5\n", "run must be a function"),
    "LIMITS a list": ("PARAMS = {'a': 1}\nLIMITS = ['>0']\ndef run(out=None, **p):\n"
                      "    return {}\n", "LIMITS must be a dict"),
    "LIMITS of an unknown parameter": ("PARAMS = {'a': 1}\nLIMITS = {'b': '>0'}\n"
                                       "def run(out=None, **p):\n    return {}\n",
                                       "LIMITS names parameters \\['b'\\]"),
}

RUN_FAILURES = {
    "run returns None": ("PARAMS = {'a': 1}\ndef run(out=None, **p):\n    x = 1\n",
                         r"run\(\) returned NoneType .*\.py:2"),
    "run returns a list": ("PARAMS = {'a': 1}\ndef run(out=None, **p):\n    return [1]\n",
                           r"run\(\) returned list"),
    "run raises ZeroDivisionError": ("PARAMS = {'a': 1}\ndef run(out=None, **p):\n"
                                     "    return {'x': 1 / 0}\n",
                                     r"ZeroDivisionError: division by zero \(raised at .*\.py:3"),
    "run raises KeyError": ("PARAMS = {'a': 1}\ndef run(out=None, **p):\n"
                            "    return {'x': {}['k']}\n", r"KeyError: 'k' \(raised at"),
    "run raises ModelError": ("import fem\nPARAMS = {'a': 1}\ndef run(out=None, **p):\n"
                              "    raise fem.ModelError('the robot cannot reach')\n",
                              "the robot cannot reach"),
}


def _case_dir(tmp_path, monkeypatch, name, text):
    d = tmp_path / "cases"
    d.mkdir(exist_ok=True)
    (d / f"{name}.py").write_text(textwrap.dedent(text))
    monkeypatch.setenv("FEM_CASES", str(d))
    monkeypatch.delitem(sys.modules, f"fem_case_{name}", raising=False)


@pytest.mark.parametrize("case", list(CASE_FILES))
def test_broken_case_modules(case, tmp_path, monkeypatch, capsys):
    text, match = CASE_FILES[case]
    name = "broken_" + "".join(c if c.isalnum() else "_" for c in case)
    _case_dir(tmp_path, monkeypatch, name, text)
    for command in (["info", name], ["run", name, "--out", str(tmp_path / "o")]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.startswith("fem: error: ") and "Traceback" not in err, err
        assert name in err and __import__("re").search(match, err), err
    assert not (tmp_path / "o").exists()          # refused before anything was created
    main(["list"])                                # the others are still listed
    assert "cannot load" in capsys.readouterr().out


@pytest.mark.parametrize("case", list(RUN_FAILURES))
def test_failing_runs_are_recorded_as_failed(case, tmp_path, monkeypatch, capsys):
    text, match = RUN_FAILURES[case]
    name = "failing_" + "".join(c if c.isalnum() else "_" for c in case)
    _case_dir(tmp_path, monkeypatch, name, text)
    out = tmp_path / "o"
    assert main(["run", name, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "fem: error:" in err and "Traceback" not in err
    assert __import__("re").search(match, err), err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "failed" and __import__("re").search(match, summary["error"])
    assert not (out / ".fem.lock").exists()


# ---------------------------------------------------------------------------------------
# command-line values at the edges
CLI = {
    **{f"int parameter {v}": (["run", "cantilever_cable", "-p", f"n_elements={v}"],
                              f"'n_elements' is an integer; got '{v}'")
       for v in ("1e400", "nan", "-inf", "2.5")},
    "float parameter text": (["run", "cantilever_cable", "-p", "E_Pa=steel"],
                             "'E_Pa' is a number"),
    "float parameter 1e400": (["run", "cantilever_cable", "-p", "E_Pa=1e400"],
                              "'E_Pa' must be finite"),
    "bool parameter 2": (["run", "cantilever_cable", "-p", "gravity=2"], "'gravity' is a bool"),
    "parameter without =": (["run", "cantilever_cable", "-p", "n_elements"],
                            "malformed parameter"),
    "unknown parameter": (["run", "cantilever_cable", "-p", "n_element=3"],
                          "unknown parameter 'n_element'"),
    "unknown case": (["run", "no_such_case"], "unknown case 'no_such_case'"),
    "render fps -5": (["render", "{dp}", "--fps", "-5"], "--fps .* must be an integer ≥ 1"),
    "render fps 0 (was: 16 fps written)": (["render", "{dp}", "--fps", "0"],
                                           "--fps .* must be an integer ≥ 1"),
    "render fps 10000": (["render", "{dp}", "--fps", "10000"], "must be an integer ≤ 240"),
    "render a file": (["render", "{dp}/summary.json"], "is not a folder"),
    "render a folder without a series": (["render", "{tmp}"], "no .pvd series"),
    "every -1": (["run", "cantilever_cable", "--every", "-1"], "--every must be ≥ 0"),
    "out a file": (["run", "cantilever_cable", "--out", "{dp}/summary.json"],
                   "is a file, not a folder"),
    "out name too long": (["run", "cantilever_cable", "--out", "{tmp}/" + "x" * 300],
                          "cannot write results to .*(too long|File name)"),
    "sweep workers -1 (was: hangs)": (["sweep", "cantilever_cable", "-p", "n_elements=2,3",
                                       "--workers", "-1", "--out", "{tmp}/s"],
                                      "workers .* must be an integer ≥ 0"),
    "sweep scheduler not an address": (["sweep", "cantilever_cable", "-p", "n_elements=2,3",
                                        "--scheduler", "not-an-address", "--out", "{tmp}/s"],
                                       "--scheduler must be a Dask scheduler address"),
    "sweep scheduler port 99999": (["sweep", "cantilever_cable", "-p", "n_elements=2,3",
                                    "--scheduler", "tcp://localhost:99999", "--out",
                                    "{tmp}/s"], "--scheduler must be"),
    "sweep out a file": (["sweep", "cantilever_cable", "-p", "n_elements=2,3", "--serial",
                          "--out", "{dp}/summary.json"], "sweep --out .* is a file"),
    "sweep out name too long": (["sweep", "cantilever_cable", "-p", "n_elements=2,3",
                                 "--serial", "--out", "{tmp}/" + "y" * 300],
                                "cannot write into"),
    "sweep plot of an unswept parameter": (["sweep", "cantilever_cable", "-p",
                                            "n_elements=2,3", "--serial", "--plot",
                                            "tip_z_m:E_Pa", "--out", "{tmp}/s2"],
                                           "not a swept parameter"),
}


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dp") / "dp"
    assert main(["run", "double_pendulum", "-p", "t_end_s=0.02", "--no-render", "--out",
                 str(out)]) == 0
    return out


@pytest.mark.parametrize("case", list(CLI))
def test_command_line_values(case, finished_run, tmp_path, capsys):
    argv, match = CLI[case]
    argv = [a.format(dp=finished_run, tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("fem: error: ") and "Traceback" not in err, err
    assert __import__("re").search(match, err), err


def test_rho_zero_is_not_a_division_by_zero(tmp_path, capsys):
    # was: ZeroDivisionError in the reference frequencies; now the static run finishes and
    # the modal run says why it cannot (no mass), naming the cause
    assert main(["run", "cantilever_cable", "-p", "rho_kgm3=0", "--no-render", "--out",
                 str(tmp_path / "s")]) == 0
    s = json.loads((tmp_path / "s" / "summary.json").read_text())
    assert s["status"] == "finished" and s["reference_bending_frequencies_hz"] is None \
        if "reference_bending_frequencies_hz" in s else s["status"] == "finished"
    assert main(["run", "cantilever_cable", "-p", "rho_kgm3=0", "-p", "analysis=modal",
                 "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert "carry no mass" in err and "ZeroDivision" not in err


def test_sweep_without_dask_names_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)      # as after `pip install -e .`
    assert main(["sweep", "cantilever_cable", "-p", "n_elements=2,3", "--quiet", "--out",
                 str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert 'pip install -e ".[dask]"' in err and "--serial" in err and "Traceback" not in err


def test_unexpected_errors_are_one_line(monkeypatch, capsys):
    import fem.cli as cli

    def boom(_args):
        raise TypeError("a bug")

    monkeypatch.setattr(cli, "cmd_list", boom)
    monkeypatch.delenv("FEM_TRACEBACK", raising=False)
    assert main(["list"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("fem: error: unexpected TypeError: a bug (at ") and "FEM_TRACEBACK" in err


def test_the_count_of_bad_inputs():
    """The note of issue 22 reports this count: every entry is a distinct bad input."""
    n = (len(API) + len(SOLVER) + len(CAUSES) + len(RESULT_FILES) + len(MESH_FILES)
         + len(CASE_FILES) + len(RUN_FAILURES) + len(CLI))
    assert n >= 200
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        print(f"\n{n} distinct bad inputs")
