"""Runs keep their results (issue 8): output folders checked before solving, failures and
interrupts still leave summary.json, damaged files skipped with a warning, not fatal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import fem
from fem.cli import main


def _default_ctrl_c() -> None:
    """In the child, before it starts: Ctrl-C (SIGINT) back to its default, so that it
    reaches the child whatever this test process inherited — a job started in the
    background of a non-interactive shell ignores SIGINT, and so would its children."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


ROOT = Path(__file__).resolve().parents[1]


def _cli(*argv, timeout=300):
    return subprocess.run([sys.executable, "-m", "fem", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_out_pointing_at_a_file_is_refused_before_solving(tmp_path, capsys):
    f = tmp_path / "afile"
    f.write_text("x")
    assert main(["run", "cantilever_cable", "--out", str(f)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_out_with_a_missing_parent_is_created(tmp_path):
    out = tmp_path / "a" / "b" / "c"
    assert main(["run", "cantilever_cable", "--no-render", "--out", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text())["status"] == "finished"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_out_read_only_is_refused_before_solving(tmp_path, capsys):  # pragma: no cover
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    assert main(["run", "cantilever_cable", "--out", str(ro / "x")]) == 2
    assert "cannot write results" in capsys.readouterr().err


def test_unwritable_out_is_refused_before_solving(tmp_path, capsys, monkeypatch):
    # root ignores permissions, so simulate the OS refusing the write probe
    real = Path.write_text

    def refuse(self, *a, **k):
        if self.name == ".fem_write_test":
            raise PermissionError(13, "Permission denied")
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "write_text", refuse)
    assert main(["run", "cantilever_cable", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "cannot write results" in err and "Permission denied" in err


def test_a_failing_run_still_writes_summary(tmp_path, capsys):
    # a load far beyond what the cable carries: the solver fails with a diagnosis and
    # summary.json records the failure and its message
    out = tmp_path / "fail"
    code = main(["run", "cantilever_cable", "--no-render", "--out", str(out),
                 "-p", "E_Pa=1", "-p", "load_steps=1"])
    assert code == 2
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "failed" and "static solve failed" in s["error"]
    assert "summary.json" in capsys.readouterr().err


def test_static_and_modal_default_runs_write_a_snapshot(tmp_path):
    for analysis in ("static", "modal"):
        out = tmp_path / analysis
        assert main(["run", "cantilever_cable", "-p", f"analysis={analysis}",
                     "--out", str(out)]) == 0
        s = json.loads((out / "summary.json").read_text())
        assert s["status"] == "finished" and (out / "figures.json").is_file()
    assert (tmp_path / "static" / "snapshot.png").stat().st_size > 1000


def test_rendering_failure_keeps_the_results(tmp_path, monkeypatch, capsys):
    from fem.io import movies

    def broken(*a, **k):
        raise RuntimeError("no OpenGL")

    monkeypatch.setattr(movies, "animate", broken)
    out = tmp_path / "r"
    with pytest.warns(fem.FemWarning, match="rendering .* failed .*no OpenGL"):
        code = main(["run", "double_pendulum", "-p", "t_end_s=0.05", "--out", str(out)])
    assert code == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "finished" and "energy_error_max_relative" in s


def test_ctrl_c_during_rendering_keeps_summary(tmp_path):
    # interrupt the real CLI while it renders: summary.json is already complete
    out = tmp_path / "int"
    env = dict(os.environ, FEM_TEST_SLOW_RENDER="1")
    proc = subprocess.Popen([sys.executable, "-c", (
        "import time, sys\n"
        "import fem.io.movies as r\n"
        "orig = r.animate\n"
        "def slow(*a, **k):\n"
        "    print('RENDERING', flush=True); time.sleep(60); return orig(*a, **k)\n"
        "r.animate = slow\n"
        "from fem.cli import main\n"
        f"sys.exit(main(['run', 'double_pendulum', '-p', 't_end_s=0.05', '--out', {str(out)!r}]))\n"
    )], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=_default_ctrl_c)
    deadline = time.time() + 120
    line = ""
    while time.time() < deadline and "RENDERING" not in line:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            break
    assert "RENDERING" in line, proc.stderr.read()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "rendering interrupted" in err and "Traceback" not in err
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "finished" and "energy_error_max_relative" in s


def test_truncated_last_chunk_does_not_hide_the_others(tmp_path):
    m = fem.Model("p", gravity=(0, 0, -9.81))
    _, nodes = fem.straight_cable(m, (0, 0, 0), (1, 0, 0), 2, fem.Material(2e11, 0.3, 7800),
                                  1e-4, 1e-8)
    m.fix(nodes[0])
    res = fem.Result(directory=tmp_path / "result", chunk=10)
    fem.simulate(m, 0.025, 1e-3, result=res)
    chunks = sorted((tmp_path / "result").glob("chunk_*.npz"))
    assert len(chunks) == 3
    data = chunks[-1].read_bytes()
    chunks[-1].write_bytes(data[: len(data) // 2])       # killed while writing
    with pytest.warns(fem.FemWarning, match="unreadable result chunk .*chunk_00002.npz"):
        loaded = fem.Result.load(tmp_path / "result")
    assert len(loaded.t) == 20 and loaded.info["finished"] is False
    np.testing.assert_allclose(loaded.t, res.t[:20])


def test_render_skips_unreadable_frames_and_a_corrupt_render_json(tmp_path, capsys):
    out = tmp_path / "dp"
    assert main(["run", "double_pendulum", "-p", "t_end_s=0.05", "--no-render",
                 "--out", str(out)]) == 0
    frames = sorted((out / "double_pendulum").glob("*.vtu"))
    frames[3].write_bytes(b"\x00garbage")
    (out / "render.json").write_text("{not json")
    with pytest.warns(fem.FemWarning) as w:
        assert main(["render", str(out)]) == 0
    messages = " ".join(str(x.message) for x in w)
    assert "unreadable" in messages and frames[3].name in messages
    assert "render.json" in messages
    assert any(out.glob("*.mp4")) or any(out.glob("*.gif"))


def test_fem_list_into_a_closed_pipe():
    proc = subprocess.run(f"{sys.executable} -m fem list | head -1", shell=True, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr and proc.stdout.strip()


def test_negative_every_is_refused(capsys):
    assert main(["run", "cantilever_cable", "--every", "-1"]) == 2
    assert "--every must be ≥ 0" in capsys.readouterr().err


def test_run_without_out_writes_results_case_in_the_working_folder(tmp_path):
    # the README's main command gives no --out: results/<case>/ below the working folder
    env = dict(os.environ, FEM_CASES=str(ROOT / "cases"))
    proc = subprocess.run([sys.executable, "-m", "fem", "run", "cantilever_cable",
                           "--no-render"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    s = json.loads((tmp_path / "results" / "cantilever_cable" / "summary.json").read_text())
    assert s["status"] == "finished" and "figures.json" in s["files"]
