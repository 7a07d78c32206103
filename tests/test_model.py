"""The model's own API: lookups by name (node, element group, constraint) and the camera
hint ``view`` — and the house rule they serve: a case keeps no state on the model."""

from __future__ import annotations

import importlib
import json

import pytest

import fem
from fem.core.validate import CAMERAS

STEEL = fem.Material(2.1e11, 0.3, 7850)


def _cable(n_el=3, **kw):
    m = fem.Model("cable")
    grp, nodes = fem.straight_cable(m, (0, 0, 0), (1, 0, 0), n_el, STEEL, 1e-4, 1e-9,
                                    name="bar", **kw)
    return m, grp, nodes


def _raise(match, fn, *args, **kw) -> str:
    with pytest.raises(fem.ModelError, match=match) as info:
        fn(*args, **kw)
    return str(info.value)


# ------------------------------------------------------------------------ node(name)
def test_node_finds_named_nodes_and_the_builder_names():
    m, _, nodes = _cable(end_names=("root", "tip"))
    assert m.node("tip") == nodes[-1] and isinstance(m.node("tip"), int)
    assert m.node("root") == nodes[0]
    assert m.node("bar node 1") == nodes[1]           # the builder's default names
    extra = m.add_node("pivot", r=(0, 1, 0))
    assert m.node("pivot") == extra


def test_node_error_names_the_missing_node_and_lists_known_ones():
    m, _, _ = _cable(n_el=10, end_names=(None, "tip"))
    msg = _raise("has no node named 'tipp'", m.node, "tipp")
    assert "did you mean 'tip'" in msg
    assert "'bar node 0'" in msg and "(11 nodes in all)" in msg
    msg = _raise("no node named 'free end'", m.node, "free end")
    assert "known nodes: 'bar node 0'" in msg
    _raise("it has no nodes", fem.Model("empty").node, "tip")
    _raise(r"looked up by its name \(a str\); got 3", m.node, 3)


def test_node_error_on_an_ambiguous_name():
    m = fem.Model("twins")
    m.add_nodes(r=[(0, 0, 0), (1, 0, 0)], names=["end", "end"])
    _raise(r"2 nodes are named 'end' \(node ids 0, 1\); the name is ambiguous", m.node, "end")


def test_builders_check_end_names():
    _raise("cable 'bar': end_names is", _cable, end_names="tip")
    _raise("cable 'bar': end_names is", _cable, end_names=("a", "b", "c"))
    _raise("non-empty str or None; got 7", _cable, end_names=(None, 7))
    _raise("names both ends 'x'", _cable, end_names=("x", "x"))
    m = fem.Model("beam")
    _, nodes = fem.straight_beam(m, (0, 0, 0), (1, 0, 0), 2, STEEL, name="b",
                                 end_names=("clamp", "tip"), section="circle", radius=0.01)
    assert (m.node("clamp"), m.node("b node 1"), m.node("tip")) == tuple(nodes)


# ----------------------------------------------------------------------- group(name)
def test_group_finds_a_group_by_name():
    m, grp, nodes = _cable()
    assert m.group("bar") is grp
    body = m.add_rigid_body("arm", 1.0, (0, 0, 0), inertia=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert m.group("arm").nodes[0, 0] == body.node


def test_group_errors_name_the_missing_and_the_ambiguous_group():
    m, _, _ = _cable()
    msg = _raise("has no element group named 'plate'", m.group, "plate")
    assert "known element groups: 'bar'" in msg
    _raise("did you mean 'bar'", m.group, "baz")
    m.add_elements("ancf_cable", [[0, 1]], STEEL, name="bar", area=1e-4, inertia=1e-9)
    _raise("2 element groups are named 'bar'", m.group, "bar")
    _raise("has no element group named 'x': it has no element groups",
           fem.Model("empty").group, "x")


# ------------------------------------------------------------------ constraint(name)
def test_constraint_finds_a_constraint_by_name():
    m, _, nodes = _cable()
    clamp = m.fix(nodes[0], name="clamp")
    drive = m.add_constraint(fem.Coincident(m.point(nodes[-1]), m.ground((1, 0, 0)),
                                            name="tip held"))
    assert m.constraint("clamp") is clamp
    assert m.constraint("tip held") is drive
    joint = m.revolute(m.point(nodes[1]), m.ground((1 / 3, 0, 0)), m.ground((0, 1, 0)),
                       [m.ground((1, 0, 0)), m.ground((0, 0, 1))], name="hinge")
    assert m.constraint("hinge point") is joint[0]
    assert m.constraint("hinge axis 1") is joint[2]


def test_constraint_errors_name_the_missing_and_the_ambiguous_constraint():
    m, _, nodes = _cable()
    m.fix(nodes[0], name="clamp")
    msg = _raise("has no constraint named 'drive'", m.constraint, "drive")
    assert "known constraints: 'clamp'" in msg
    m.fix(nodes[1], "r", name="clamp")
    _raise("2 constraints are named 'clamp'", m.constraint, "clamp")


# ------------------------------------------------------------------------------ view
def test_view_defaults_to_iso_and_takes_the_named_cameras():
    m = fem.Model("m")
    assert m.view == "iso"
    for camera in CAMERAS:
        m.view = camera
        assert m.view == camera
    assert set(CAMERAS) == {"iso", "xy", "xz", "yz"}


def test_a_bad_view_is_refused_at_the_assignment():
    m = fem.Model("m")
    msg = _raise(r"model 'm': view \(the camera of renderings\) must be one of", setattr, m,
                 "view", "top")
    assert "'iso', 'xy', 'xz', 'yz'" in msg and "'top'" in msg
    _raise("must be one of", setattr, m, "view", None)
    _raise("must be one of", setattr, m, "view", ["xz"])
    assert m.view == "iso"


def test_write_outputs_records_the_view_as_the_camera(tmp_path, monkeypatch):
    monkeypatch.setattr(fem.io.options.OPTIONS, "render", False)
    m, _, nodes = _cable()
    m.fix(nodes[0])
    m.view = "xz"
    fem.write_outputs(tmp_path, m, None, {}, state=m.q0)
    assert json.loads((tmp_path / "render.json").read_text()) == {"camera": "xz"}


# ------------------------------------------------------------- no state on the model
@pytest.mark.parametrize("case, params", [
    ("cantilever_cable", {}), ("cantilever_beam", {}), ("spinup_beam", {"basis": "ancf"}),
    ("plate_benchmark", {}), ("vibrating_screen_1t2r", {}), ("double_pendulum", {}),
])
def test_cases_add_no_attributes_to_the_model(case, params):
    model = importlib.import_module(case).build(**params)
    assert set(vars(model)) == set(vars(fem.Model())), \
        sorted(set(vars(model)) ^ set(vars(fem.Model())))


def test_cases_find_what_they_read_by_name():
    assert importlib.import_module("cantilever_cable").build(n_elements=2).node("tip") == 2
    assert importlib.import_module("cantilever_beam").build(n_elements=2).node("tip") == 2
    plate = importlib.import_module("plate_benchmark").build()
    assert plate.group("plate").family.name
    screen = importlib.import_module("vibrating_screen_1t2r")
    assert screen.build().constraint(screen.DRIVE).name == "crank drive R1"
    msg = _raise("has no constraint named 'crank'", screen.build().constraint, "crank")
    assert "'crank drive R1'" in msg                 # a name containing the one asked for


def test_undeclared_attributes_are_refused():
    m = fem.Model("bag")
    m.view = "xz"                       # declared attributes stay settable
    m.name = "renamed"
    with pytest.raises(fem.ModelError, match="no attribute 'tip_node'.*Model.node"):
        m.tip_node = 3
    assert not hasattr(m, "tip_node")
