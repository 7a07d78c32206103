"""Words a newcomer reads carry no development history: no "issue N" and no pointer
outside the repository in the README, the user docs (the developer page
docs/performance.md excepted), the cases' descriptions and parameter texts (`fem info`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fem.cases import available_cases, describe, load_case, parameter_table

ROOT = Path(__file__).resolve().parents[1]
HISTORY = re.compile(r"\bissues? \d+|\.\./shared", re.I)
DEVELOPER_PAGES = {"docs/performance.md"}


def _pages() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [p for p in pages if p.relative_to(ROOT).as_posix() not in DEVELOPER_PAGES]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_user_docs_carry_no_history(page):
    text = page.read_text(encoding="utf-8")
    found = [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in HISTORY.finditer(text)]
    assert not found, f"{page.name}: {found[:5]}"


def test_case_texts_carry_no_history():
    bad = []
    for name in sorted(available_cases()):
        mod = load_case(name)
        texts = [describe(mod), *(r["meaning"] for r in parameter_table(mod))]
        bad += [(name, t[:80]) for t in texts if HISTORY.search(t)]
    assert not bad, bad


def test_the_check_can_fail():
    assert HISTORY.search("as issue 19 says") and HISTORY.search("see ../shared/docs")
