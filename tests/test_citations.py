"""Citations instead of file names: docs/references.md is generated from fem.references.citations,
every case cites its papers, and no text a user sees names a seed file or "seed 00N"."""

import re
from pathlib import Path

import pytest

from fem.cases import available_cases, load_case
from fem.cli import main
from fem.references import citations

ROOT = Path(__file__).resolve().parents[1]

#: What a user must never read: the internal handle of a paper or its text file's name.
FORBIDDEN = re.compile(r"seed[ _-]?0\d\d|\b0\d\d_[0-9a-f]{16}\.txt", re.IGNORECASE)


def test_references_page_is_the_generated_text():
    committed = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    assert committed == citations.markdown(), (
        "docs/references.md differs from fem.references.citations.markdown(); regenerate it with "
        "python -c \"import fem.references.citations as c; print(c.markdown(), end='')\" > "
        "docs/references.md")


def test_every_entry_is_complete_and_listed():
    page = citations.markdown()
    for key, c in citations.ALL.items():
        assert c.authors and c.title and c.journal and 1900 < c.year < 2100, key
        assert f'id="{key}"' in page and c.title in page
        if c.doi:
            assert f"https://doi.org/{c.doi}" in page
    assert set(citations.USES) == set(citations.ALL)
    assert citations.short("fan2016") == "Fan and Zhang (2016)"
    assert citations.short("liu2023") == "Liu et al. (2023)"
    with pytest.raises(KeyError, match="known"):
        citations.cite("seed000")


@pytest.mark.parametrize("name", sorted(available_cases()))
def test_case_references_agree_with_the_table(name):
    """A case's REFERENCES and the table's list of cases name each other."""
    declared = set(getattr(load_case(name), "REFERENCES", ()))
    listed = {k for k, (cases, _) in citations.USES.items() if name in cases}
    assert declared == listed


def test_the_five_papers_map_to_their_cases():
    expect = {"liu2023": "parallel_robot_flexible_platform",
              "liu2018": "parallel_robot_flexible_links", "fan2016": "spinup_beam",
              "ma2010": "vehicle_manipulator_cms", "shen2021": "vibrating_screen_1t2r"}
    assert set(citations.PAPERS) == set(expect)
    for key, case in expect.items():
        assert key in load_case(case).REFERENCES


def _user_texts(capsys) -> dict[str, str]:
    texts = {}
    assert main(["list"]) == 0
    texts["fem list"] = capsys.readouterr().out
    for name in sorted(available_cases()):
        texts[f"docstring of {name}"] = load_case(name).__doc__ or ""
        assert main(["info", name]) == 0
        texts[f"fem info {name}"] = capsys.readouterr().out
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        texts[str(page.relative_to(ROOT))] = page.read_text(encoding="utf-8")
    return texts


def test_no_user_visible_text_names_a_seed(capsys):
    texts = _user_texts(capsys)
    assert len(texts) > 20
    bad = {where: FORBIDDEN.findall(text) for where, text in texts.items()
           if FORBIDDEN.search(text)}
    assert not bad, f"cite the paper (fem.references.citations), not its file: {bad}"


def test_the_check_can_fail():
    assert FORBIDDEN.search("as in seed 000 eq 45")
    assert FORBIDDEN.search("Seed: `004_6d026c870d629843.txt`")
    assert FORBIDDEN.search("seed001_geometry")
    assert not FORBIDDEN.search("kinematics='paper' of Liu et al. (2023), eq. 45")


def test_summary_cites_the_paper():
    from fem.cases import run_case

    summary = run_case("vibrating_screen_1t2r", {"t_end_s": 0.05}, render=False,
                       progress=False)
    assert summary["status"] == "finished"
    assert summary["references"] == [citations.cite("shen2021")]
    assert summary["paper"] == "shen2021" and "seed" not in summary   # a citation key
    assert "references" not in run_case("cantilever_cable", {}, render=False,
                                        progress=False)
