"""Every case in ``fem list`` runs with its default parameters through the CLI and leaves
``summary.json`` (issue 8: a broken default path must never land again).

Cases whose default run is long get a quick variant: only the *length* of the run is cut
(end time, step), never the analysis, so the same output path — plots, ParaView series,
the animation or the snapshot — is exercised.  New cases are picked up automatically; one
whose default run takes more than a few seconds should get an entry in ``QUICK``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fem.cases import available_cases

ROOT = Path(__file__).resolve().parents[1]

QUICK: dict[str, list[str]] = {
    "double_pendulum": ["t_end_s=0.1"],
    "vibrating_screen_1t2r": ["t_end_s=0.3"],
    "parallel_robot_flexible_platform": ["analysis=line"],
    "spinup_beam": ["t_end_s=2"],
    "two_link_arm_fall": ["t_end_s=1"],
    "five_link_arm_fall": ["t_end_s=0.5"],
}
"""Shorter runs of the same default analysis (the flagship's default circle is exercised
by test_parallel_robot.py; here the shorter line, same code path)."""


def _run(case: str, out: Path, extra: list[str]) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "fem.cli", "run", case, "--out", str(out), "--json"]
    for item in QUICK.get(case, []) + extra:
        cmd += ["-p", item]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("case", sorted(available_cases()))
def test_default_run_through_the_cli_writes_summary(case, tmp_path):
    out = tmp_path / case
    proc = _run(case, out, [])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["case"] == case and summary["status"] == "finished"
    assert (out / "figures.json").is_file()
    files = set(summary["files"])
    assert "summary.json" in files and "figures.json" in files
    pvds = list(out.glob("*.pvd"))
    if pvds:   # a ParaView series was written: its picture too (animation or snapshot)
        pictures = list(out.glob("*.mp4")) + list(out.glob("*.gif")) + list(out.glob("*.png"))
        assert pictures, f"{case}: a series but no picture; files {sorted(files)}"
    for f in files:
        assert (out / f).is_file(), f"{case}: summary lists {f}, which is missing"
