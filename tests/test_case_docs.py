"""`fem list` and `fem info` from the cases' declarations: one whole sentence per case,
and for every parameter its default, meaning, unit and allowed values."""

import re
import types

import pytest

from fem.cases import (
    available_cases,
    check_case_module,
    describe,
    load_case,
    parameter_table,
    shorten,
)
from fem.cli import main
from fem.core.errors import ModelError
from fem.core.units import axis_label, split_unit, unit_of

CASES = sorted(available_cases())


@pytest.mark.parametrize("name", CASES)
def test_every_parameter_has_a_meaning_and_a_unit(name):
    mod = load_case(name)
    docs = getattr(mod, "DOCS", {})
    missing = [k for k in mod.PARAMS if not docs.get(k, "").strip()]
    assert not missing, f"{name}: DOCS gives no meaning for {missing}"
    rows = {r["name"]: r for r in parameter_table(mod)}
    for key, default in mod.PARAMS.items():
        numbers = (isinstance(default, float) or (
            isinstance(default, list) and default
            and all(isinstance(x, float) for x in default)))
        if numbers:     # a measured quantity: a unit, or declared dimensionless ([-])
            assert rows[key]["unit"] != "–" or docs[key].rstrip().endswith("[-]"), (
                f"{name}: {key} has no unit (name it with a unit suffix or end its "
                "DOCS entry with [unit], [-] if dimensionless)")
        assert not rows[key]["meaning"].endswith("]"), f"{name}: {key}: stray bracket"


@pytest.mark.parametrize("name", CASES)
def test_fem_info_prints_the_table(name, capsys):
    assert main(["info", name]) == 0
    out = capsys.readouterr().out
    mod = load_case(name)
    table = out[out.index("parameters (fem run"):]
    assert re.search(r"name\s+default\s+unit\s+allowed\s+meaning", table)
    for row in parameter_table(mod):
        # the name, then its default, on one line of the table
        assert re.search(rf"^\s+{re.escape(row['name'])}\s+{re.escape(row['default'][:12])}",
                         table, re.M), (name, row)
        assert row["meaning"].split()[0] in table
    limits = getattr(mod, "LIMITS", {})
    for key, rule in limits.items():
        if isinstance(rule, tuple):
            assert ", ".join(map(str, rule)) == next(
                r["allowed"] for r in parameter_table(mod) if r["name"] == key)


def test_fem_list_one_whole_sentence_per_case(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines] == CASES
    for ln in lines:
        assert ln.rstrip().endswith(".") and "…" not in ln, ln
    for name in CASES:
        sentence = describe(load_case(name))
        assert sentence.endswith(".") and len(sentence) <= 100, sentence


def test_describe_takes_the_first_sentence_across_lines():
    mod = types.ModuleType("m")
    mod.__doc__ = ("Five-link arm falling (example 3 of Fan and Zhang, 2016, e.g. its\n"
                   "Fig. 9 pose).  More text.\n\nBody.")
    assert describe(mod) == ("Five-link arm falling (example 3 of Fan and Zhang, 2016, "
                             "e.g. its Fig. 9 pose).")
    short = describe(mod, width=30)
    assert short.endswith("…") and len(short) <= 30
    assert short == "Five-link arm falling…"


def test_shorten_cuts_at_a_word():
    assert shorten("short enough.", 20) == "short enough."
    assert shorten("one two three four", 12) == "one two…"
    assert shorten("abcdefghijklmnop", 8) == "abcdefg…"


def test_declarations_are_checked():
    mod = types.ModuleType("bad")
    mod.PARAMS = {"dt_s": 0.1}
    mod.run = lambda out=None, **p: {}
    mod.DOCS = {"dt": "time step"}
    with pytest.raises(ModelError, match="DOCS names parameters"):
        check_case_module(mod, "bad", "bad.py")
    mod.DOCS = {"dt_s": 3}
    with pytest.raises(ModelError, match="DOCS must be a dict"):
        check_case_module(mod, "bad", "bad.py")
    mod.DOCS = {"dt_s": "time step"}
    mod.REFERENCES = ("seed000",)
    with pytest.raises(ModelError, match="citation keys"):
        check_case_module(mod, "bad", "bad.py")
    mod.REFERENCES = ("liu2023",)
    check_case_module(mod, "bad", "bad.py")


def test_table_units_come_from_docs_or_the_name():
    mod = types.ModuleType("m")
    mod.PARAMS = {"E_Pa": 2e11, "nu": 0.3, "gap": 1.0, "mesh": "fine", "on": True,
                  "n": 3, "xs_m": [1.0, 2.0]}
    mod.LIMITS = {"nu": "(-1, 0.5)", "mesh": ("fine", "coarse")}
    mod.DOCS = {"E_Pa": "Young's modulus", "nu": "Poisson's ratio [-]",
                "gap": "clearance [mm]"}
    rows = {r["name"]: r for r in parameter_table(mod)}
    assert rows["E_Pa"]["unit"] == "Pa" and rows["E_Pa"]["default"] == "2e+11"
    assert rows["nu"]["unit"] == "–" and rows["nu"]["allowed"] == "(-1,0.5)"
    assert rows["nu"]["meaning"] == "Poisson's ratio"
    assert rows["gap"]["unit"] == "mm" and rows["gap"]["meaning"] == "clearance"
    assert rows["mesh"]["allowed"] == "fine, coarse" and rows["mesh"]["default"] == "fine"
    assert rows["on"]["allowed"] == "true, false" and rows["on"]["default"] == "true"
    assert rows["xs_m"]["default"] == "[1.0, 2.0]" and rows["xs_m"]["unit"] == "m"
    assert rows["n"]["meaning"] == ""


def test_an_auto_number_takes_auto_or_a_number_and_the_case_says_what_auto_is():
    # a default "auto" beside a range rule: -p takes auto or a number in the range; the
    # case's resolve() gives the number auto stands for, the values a run used
    from fem.cases import parse_params, resolve_params

    mod = types.ModuleType("m")
    mod.PARAMS = {"fast": False, "dt_s": "auto", "label": "auto"}
    mod.LIMITS = {"dt_s": ">0"}
    mod.DOCS = {"dt_s": "time step; auto: 0.01, or 0.1 when fast",
                "fast": "a coarse run", "label": "a name"}
    rows = {r["name"]: r for r in parameter_table(mod)}
    assert (rows["dt_s"]["default"], rows["dt_s"]["allowed"]) == ("auto", "auto, >0")
    assert parse_params(mod, ["dt_s=0.5"]) == {"dt_s": 0.5}
    assert parse_params(mod, ["dt_s= auto"]) == {"dt_s": "auto"}
    assert parse_params(mod, ["label=0.5"]) == {"label": "0.5"}      # no rule: text
    for bad, match in ((["dt_s=0"], "'dt_s' must be > 0"),
                       (["dt_s=soon"], r"'dt_s' is 'auto' or a number \(>0\)"),
                       (["dt_s=inf"], "'dt_s' is 'auto' or a finite number"),
                       ({"dt_s": [0.1]}, "'dt_s' is 'auto' or a finite number")):
        with pytest.raises(ModelError, match=match):
            parse_params(mod, bad)
    assert resolve_params(mod, {"fast": True}) == {"fast": True, "dt_s": "auto",
                                                   "label": "auto"}
    mod.resolve = lambda p: {**p, "dt_s": (0.1 if p["fast"] else 0.01)
                             if p["dt_s"] == "auto" else p["dt_s"]}
    assert resolve_params(mod, {"fast": True})["dt_s"] == 0.1
    assert resolve_params(mod, {"fast": True, "dt_s": 0.2})["dt_s"] == 0.2
    assert resolve_params(mod, {})["dt_s"] == 0.01
    mod.run = lambda out=None, **p: {}
    check_case_module(mod, "m", "m.py")
    mod.resolve = 3
    with pytest.raises(ModelError, match="resolve must be a function"):
        check_case_module(mod, "m", "m.py")


@pytest.mark.parametrize("key, label", [
    ("torque_Nm", "torque [N·m]"), ("tip_z_m", "tip z [m]"),
    ("omega0_rad_s", "omega0 [rad/s]"), ("time_s", "time [s]"),
    ("energy_J", "energy [J]"), ("frequencies_hz", "frequencies [Hz]"),
    ("rho_kgm3", "rho [kg/m³]"), ("n_elements", "n elements"),
    ("torque_Nm[2]", "torque [2] [N·m]"), ("m", "m")])
def test_axis_labels_from_key_suffixes(key, label):
    assert axis_label(key) == label


def test_unit_helpers():
    assert split_unit("max_torque_dev_vs_rigid_Nm") == ("max_torque_dev_vs_rigid", "N·m")
    assert unit_of("residual_dynamics") == ""
