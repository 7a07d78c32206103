"""Words a newcomer reads carry no development history: no "issue N" and no pointer
outside the repository in the README, the user docs (the developer page
docs/performance.md excepted), the cases' descriptions and parameter texts, everything
the command line prints for help (`fem --help`, each command's `--help`, `fem list`,
`fem info CASE` for every case) and the summaries of runs.  And "seed" never means the
paper: the paper's values, kinematics and functions are called "paper" (the former
names are still accepted); only a random generator's seed is a seed."""

from __future__ import annotations

import ast
import json
import re
import warnings
from pathlib import Path

import pytest

from fem.cases import available_cases, describe, load_case, parameter_table
from fem.cli import main

ROOT = Path(__file__).resolve().parents[1]
HISTORY = re.compile(r"\bissues? \d+|\.\./shared", re.I)
DEVELOPER_PAGES: set[str] = set()   # pages kept out of the check (none: every page is read)
SEED = re.compile(r"\bseed", re.I)
ALLOWED_SEED = re.compile(r"\b(?:fixed|random) seed\b|former name `seed`", re.I)
"""The one sense of "seed" a user may read, a random generator's, and where a page says
that the paper's kinematics were once called so."""
COMMANDS = ("list", "info", "run", "render", "view", "sweep", "compile", "validate")


def _pages() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [p for p in pages if p.relative_to(ROOT).as_posix() not in DEVELOPER_PAGES]


def word_problems(text: str) -> list[str]:
    """What a user must not read in ``text``: history, and "seed" for the paper."""
    bad = [m.group(0) for m in HISTORY.finditer(text)]
    allowed = {m.start() + m.group(0).lower().rindex("seed") for m in ALLOWED_SEED.finditer(text)}
    bad += [text[max(0, m.start() - 30):m.end() + 20] for m in SEED.finditer(text)
            if m.start() not in allowed]
    return bad


def summary_problems(summary: dict) -> list[str]:
    """:func:`word_problems` of a summary's text, and keys named "seed…"."""
    keys: list[str] = []

    def walk(x):
        if isinstance(x, dict):
            keys.extend(str(k) for k in x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(summary)
    text = json.dumps({k: v for k, v in summary.items() if k != "traceback"},
                      ensure_ascii=False)
    return word_problems(text) + [k for k in keys if SEED.match(k)]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_user_docs_carry_no_history(page):
    text = page.read_text(encoding="utf-8")
    found = [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in HISTORY.finditer(text)]
    assert not found, f"{page.name}: {found[:5]}"


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_user_docs_call_the_paper_the_paper(page):
    found = word_problems(page.read_text(encoding="utf-8"))
    assert not found, f"{page.name}: {found[:5]}"


def test_case_texts_carry_no_history():
    bad = []
    for name in sorted(available_cases()):
        mod = load_case(name)
        texts = [describe(mod), *(r["meaning"] for r in parameter_table(mod))]
        bad += [(name, t[:80]) for t in texts if HISTORY.search(t)]
    assert not bad, bad


def _cli_texts(capsys) -> dict[str, str]:
    texts = {}
    for argv in [["--help"], *([c, "--help"] for c in COMMANDS)]:
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 0
        texts["fem " + " ".join(argv)] = capsys.readouterr().out
    assert main(["list"]) == 0
    texts["fem list"] = capsys.readouterr().out
    for name in sorted(available_cases()):
        assert main(["info", name]) == 0
        texts[f"fem info {name}"] = capsys.readouterr().out
    return texts


def test_cli_texts_carry_no_history_and_no_seed(capsys):
    texts = _cli_texts(capsys)
    assert len(texts) > 2 + len(COMMANDS) and all(texts.values())
    assert "parameters (fem run spinup_beam" in texts["fem info spinup_beam"]
    bad = {where: word_problems(text) for where, text in texts.items()}
    assert not {k: v for k, v in bad.items() if v}


def test_summaries_carry_no_history_and_no_seed():
    """A run's summary (the vibrating screen: its figures name their paper) and, for
    every case, no string in its source that would make a summary key "seed…"."""
    from fem.cases import run_case

    summary = run_case("vibrating_screen_1t2r", {"t_end_s": 0.05}, render=False,
                       progress=False)
    assert summary["status"] == "finished" and summary["paper"] == "shen2021"
    assert not summary_problems(summary), summary_problems(summary)
    bad = []
    for path in sorted((ROOT / "cases").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and SEED.match(node.value):
                bad.append(f"{path.name}:{node.lineno}: {node.value[:40]!r}")
    assert not bad, bad


def test_former_names_still_work():
    """``kinematics='seed'`` is the paper's model under its former name: a
    DeprecationWarning from the API, silently renamed on the command line (the summary
    records "paper"); the paths and the continuity equations keep their former names."""
    from fem.cases import parse_params
    from fem.elements.bezier_plate import paper_continuity, seed_continuity
    from fem.elements.floating_frame import KINEMATICS, FloatingFrameLink
    from fem.robots import rrru3

    assert "paper" in KINEMATICS and "seed" not in KINEMATICS
    with pytest.warns(DeprecationWarning, match="now called 'paper'"):
        link = FloatingFrameLink(2.0, "bezier", 4, 1.0, 1e6, 10.0, 10.0, kinematics="seed")
    assert link.kinematics == "paper"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert FloatingFrameLink(2.0, "bezier", 4, 1.0, 1e6, 10.0, 10.0).kinematics == "paper"
        for case, key in (("spinup_beam", "kinematics"), ("two_link_arm_fall", "kinematics"),
                          ("parallel_robot_flexible_links", "link_kinematics")):
            assert parse_params(load_case(case), [f"{key}=seed"]) == {key: "paper"}
            assert parse_params(load_case(case), {key: "seed"}) == {key: "paper"}
    assert load_case("two_link_arm_fall").PARAMS["kinematics"] == "paper"
    assert seed_continuity is paper_continuity
    assert rrru3.seed_circle_path is rrru3.paper_circle_path
    assert rrru3.seed_line_path is rrru3.paper_line_path


def test_the_check_can_fail():
    assert HISTORY.search("as issue 19 says") and HISTORY.search("see ../shared/docs")
    assert word_problems("the seed's circle") and word_problems("kinematics=seed")
    assert not word_problems("Delaunay by edge flips (fixed seed)")
    assert summary_problems({"seed": {"x": 1}}) and summary_problems({"a": [{"seed_link": 1}]})
    assert not summary_problems({"paper": "shen2021", "note": "a random seed of 3"})
