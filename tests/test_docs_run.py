"""Every ```python block of the user guide, the sweep page and the README runs as written:
each is saved as a script and executed in a fresh interpreter (so a missing
``if __name__ == "__main__":`` guard fails as it would for a reader), in a temporary
folder (what a block writes stays there).  A block that must not run is marked
```python no-run, and the text beside it says why."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["docs/user-guide.md", "docs/sweep.md", "docs/your-robot.md", "docs/your-urdf-robot.md",
         "docs/control.md",
         "README.md"]
FENCE = re.compile(r"^```python([^\n`]*)\n(.*?)^```\s*$", re.M | re.S)


def blocks(page: str) -> list[tuple[int, str, str]]:
    """``(line, info, code)`` of every ```python block of a page."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 1, m.group(1).strip(), m.group(2))
            for m in FENCE.finditer(text)]


RUN = [pytest.param(page, line, code, id=f"{page}:{line}")
       for page in PAGES for line, info, code in blocks(page) if info != "no-run"]


def test_blocks_are_found_and_marked():
    found = {page: blocks(page) for page in PAGES}
    assert len(found["docs/user-guide.md"]) >= 3 and found["README.md"]
    for page, bs in found.items():
        for line, info, _ in bs:
            assert info in ("", "no-run"), f"{page}:{line}: unknown marker {info!r}"
    assert any(info == "no-run" for _, info, _ in found["docs/sweep.md"])
    assert len(RUN) >= 5


@pytest.mark.parametrize("page, line, code", RUN)
def test_block_runs_as_a_script(page, line, code, tmp_path):
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "MPLBACKEND": "Agg",
           # this checkout's fem (an installed one may be another checkout)
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, script.name], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (f"{page}:{line} fails when run as a script:\n{code}\n"
                                  f"--- stderr ---\n{proc.stderr[-3000:]}")


def test_a_failing_block_is_caught(tmp_path):
    """The check can fail: a block that raises exits non-zero.  (The sweep block without
    its main guard fails so too: RuntimeError: Nanny failed to start.)"""
    bad = "import fem\nfem.Model('x').node('tip')\n"
    script = tmp_path / "block.py"
    script.write_text(bad)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, script.name], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "ModelError" in proc.stderr
