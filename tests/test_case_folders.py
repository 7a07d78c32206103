"""A user's case folder: a case module is registered before it runs (dataclasses with
postponed annotations work), and helper modules without ``PARAMS`` are not listed as
cases but are importable by the cases beside them."""

import sys
import textwrap

from fem.cases import available_cases, load_case
from fem.cli import main

CASE = '''
from __future__ import annotations

from dataclasses import dataclass

import shared_geometry

PARAMS = {"length_m": 1.0}


@dataclass
class Arm:
    length: float
    links: int = 2


def run(out=None, **params):
    p = {**PARAMS, **params}
    arm = Arm(p["length_m"])
    return {"reach_m": shared_geometry.reach(arm.length, arm.links)}
'''

HELPER = '''
def reach(length, links):
    return length * links
'''


def test_dataclass_case_and_helper_module(tmp_path, monkeypatch, capsys):
    d = tmp_path / "cases"
    d.mkdir()
    (d / "my_arm.py").write_text(textwrap.dedent(CASE))
    (d / "shared_geometry.py").write_text(textwrap.dedent(HELPER))
    monkeypatch.setenv("FEM_CASES", str(d))
    monkeypatch.delitem(sys.modules, "fem_case_my_arm", raising=False)
    monkeypatch.delitem(sys.modules, "shared_geometry", raising=False)
    cases = available_cases()
    assert "my_arm" in cases and "shared_geometry" not in cases
    module = load_case("my_arm")
    assert module.run() == {"reach_m": 2.0}
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    assert "my_arm" in listed and "shared_geometry" not in listed
