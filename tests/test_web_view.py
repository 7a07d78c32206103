"""``fem view``: a run's series as a self-contained web page, opened in a real browser.

A short dynamic run of the cantilever cable (clamped, so it deforms) is written with
``fem run``; ``fem view`` turns it into a page; headless Chromium (Debian's ``chromium``,
installed by ``.ci/run`` when missing) opens it with no network and takes screenshots.
The reference for "it renders" is the blank page: a page whose WebGL canvas drew nothing
is one colour in its centre; a drawn cable coloured over a colour range gives many.  The
slider is checked by two frames far apart giving different pictures (the cable swings).

Without Chromium the browser test is skipped with the reason, except in CI (``CI`` set),
where it fails: CI must run it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest

from fem.core.errors import ModelError
from fem.io.web import parse_frames

# one test process runs this module: its module-scoped fixture runs once (pytest-xdist)
pytestmark = pytest.mark.xdist_group("web_view")

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)


def _fem(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fem.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def _main(*args: str) -> subprocess.CompletedProcess:
    """``fem ARGS`` through the CLI's entry point in this process (what it printed kept as
    a process's would be): the module's run and page without two interpreters' start-up
    and imports (about 3 s of CPU); the command as a process: test_cli_errors_name_the_problem."""
    import contextlib
    import io

    from fem.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return subprocess.CompletedProcess(args, rc, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("view") / "cable"
    proc = _main("run", "cantilever_cable", "-p", "analysis=dynamic", "-p", "t_end_s=0.2",
                 "--no-render", "--json", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def page(run_dir) -> Path:
    proc = _main("view", str(run_dir), "--quiet", "-o", str(run_dir / "cable.html"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "wrote" in proc.stdout
    return run_dir / "cable.html"


def test_page_is_self_contained(page):
    text = page.read_text(encoding="utf-8")
    assert len(text) > 500_000              # vtk.js (about 1 MB) and the scene are inside
    for ref in ('src="http', "src='http", 'href="http', "href='http", "@import"):
        assert ref not in text, f"the page loads {ref}…: it would need the network"
    assert "OfflineLocalView.load" in text and '"counts"' in text


def _screenshot(page: Path, frame: int, tmp: Path) -> np.ndarray:
    shot = tmp / f"frame{frame}.png"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
           f"--user-data-dir={tmp / 'profile'}", f"--screenshot={shot}",
           "--window-size=800,600", "--virtual-time-budget=10000",
           f"{page.resolve().as_uri()}#frame={frame}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert shot.is_file(), f"chromium wrote no screenshot: {proc.stderr[-2000:]}"
    return iio.imread(shot)[..., :3]


def test_browser_draws_the_model(page, tmp_path):
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it (apt-get install "
                        "chromium) and CI must run this test")
        pytest.skip("chromium not installed (apt-get install chromium)")
    first = _screenshot(page, 0, tmp_path)
    last = _screenshot(page, 10_000, tmp_path)          # past the end: the last frame
    h, w = first.shape[:2]
    centre = (slice(h // 6, 5 * h // 6), slice(w // 10, 7 * w // 10))   # the 3D view
    colours = len(np.unique(first[centre].reshape(-1, 3), axis=0))
    # a blank canvas is 1 colour (white); the drawn, coloured cable gives dozens at least
    assert colours > 20, f"only {colours} colours in the 3D view: nothing drawn"
    drawn = np.any(first[centre] < 200, axis=-1).mean()
    assert drawn > 0.001, f"only {drawn:.2%} of the 3D view is not background"
    # the slider: the last frame (the swinging cable) is another picture
    assert np.any(first[centre] != last[centre])


def test_default_frames_and_field(run_dir, tmp_path):
    from fem.io.vtk import series_entries
    from fem.io.web import MAX_FRAMES, write_view

    n = len(series_entries(run_dir / "cantilever_cable.pvd"))
    picked = parse_frames(None, n)
    assert picked[0] == 0 and picked[-1] == n - 1 and len(picked) <= MAX_FRAMES + 1
    out = write_view(run_dir, tmp_path / "v.html", frames="0,-1", field="velocity")
    text = out.read_text(encoding="utf-8")
    assert '"frames": [0, ' + str(n - 1) + "]" in text
    assert "velocity magnitude [m/s]" in text             # the legend's title and unit


def test_modal_view_is_normalized_and_titled_once(tmp_path):
    """Mode shapes are drawn at an arbitrary scale: their legend is the shape normalized
    to its largest value (0–1, no unit), and the header says so.  The title names the
    case once in its default folder (named after it) and adds any other folder's name."""
    import json
    import re

    from fem.cli import main
    from fem.io.web import MODE_SHAPE, write_view

    out = tmp_path / "cantilever_cable"
    assert main(["run", "cantilever_cable", "-p", "analysis=modal", "-p", "n_elements=4",
                 "--no-render", "--out", str(out)]) == 0
    text = write_view(out, tmp_path / "modes.html").read_text(encoding="utf-8")
    fem = json.loads(re.search(r"const FEM = (\{.*?\});\n", text).group(1))
    assert fem["legend"]["title"] == MODE_SHAPE and "[mm]" not in text
    assert fem["legend"]["range"] == pytest.approx([0.0, 1.0], abs=1e-12)
    assert "arbitrary scale" in fem["note"]
    assert fem["title"] == "cantilever_cable"
    shutil.copytree(out, tmp_path / "study")
    assert json.loads(re.search(r"const FEM = (\{.*?\});\n", write_view(
        tmp_path / "study").read_text(encoding="utf-8")).group(1))["title"] == \
        "cantilever_cable — study"


@pytest.mark.parametrize("spec, n, expected", [
    ("all", 4, [0, 1, 2, 3]),
    ("0,2", 5, [0, 2]),
    ("-1", 5, [4]),
    ("1:4", 6, [1, 2, 3]),
    ("::2", 5, [0, 2, 4]),
    (":", 3, [0, 1, 2]),
    (None, 3, [0, 1, 2]),
    (None, 101, list(range(0, 101, 3)) + [100]),
])
def test_parse_frames(spec, n, expected):
    assert parse_frames(spec, n) == expected


@pytest.mark.parametrize("spec, message", [
    ("7", "frame 7 does not exist; the series has 5 frames, numbered 0…4"),
    ("-6", "frame -6 does not exist"),
    ("a", "cannot read 'a'"),
    ("1:2:0", "step of '1:2:0' must not be 0"),
    ("3:3", "holds no frame"),
    ("2:9", "reaches beyond the series"),
])
def test_bad_frames_are_named(spec, message):
    with pytest.raises(ModelError, match=message):
        parse_frames(spec, 5)


def test_cli_errors_name_the_problem(run_dir, tmp_path):
    proc = _fem("view", str(tmp_path / "nowhere"))
    assert proc.returncode == 2 and "no folder" in proc.stderr and "Traceback" not in proc.stderr
    (tmp_path / "empty").mkdir()
    proc = _fem("view", str(tmp_path / "empty"))
    assert proc.returncode == 2 and "no ParaView series (.pvd)" in proc.stderr
    proc = _fem("view", str(run_dir), "--field", "temperature", "-o", str(tmp_path / "x.html"))
    assert proc.returncode == 2 and "--field 'temperature'" in proc.stderr
    assert "deformation" in proc.stderr                  # what the series has
    proc = _fem("view", str(run_dir), "--frames", "99999", "-o", str(tmp_path / "x.html"))
    assert proc.returncode == 2 and "frame 99999 does not exist" in proc.stderr
    assert not (tmp_path / "x.html").exists()
