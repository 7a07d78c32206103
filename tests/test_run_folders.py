"""One run per output folder: a run into a folder that holds another run's files replaces
them — the files that run's ``summary.json`` lists (or, for a run that died before its
final summary, every file that was not there when it started) — and nothing else the user
put there; ``summary.json`` lists only the files of its own run (``docs/output.md``).

Reference: the folder's contents before and after, file by file."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from fem.cases import add_files_to_summary
from fem.cli import main

STATIC = ["run", "cantilever_cable", "-p", "analysis=static", "-p", "n_elements=4",
          "--no-render"]


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and not p.name.startswith(".")}


def _summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


def _users_files(folder: Path) -> dict[str, str]:
    mine = {"notes.txt": "my notes", "mine/sketch.txt": "a sketch"}
    for name, text in mine.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return mine


def test_a_static_run_replaces_a_dynamic_runs_files_and_keeps_the_users(tmp_path):
    out = tmp_path / "run"
    assert main(["run", "double_pendulum", "-p", "t_end_s=0.05", "--every", "5",
                 "--no-render", "--out", str(out)]) == 0
    # the movie `fem render` would add: listed among the run's files as it does
    (out / "double_pendulum.mp4").write_bytes(b"a movie")
    add_files_to_summary(out, [out / "double_pendulum.mp4", tmp_path / "elsewhere.mp4"])
    dynamic = _summary(out)["files"]
    assert "double_pendulum.mp4" in dynamic and "double_pendulum.pvd" in dynamic
    assert "result/meta.json" in dynamic and not any("elsewhere" in f for f in dynamic)
    mine = _users_files(out)

    assert main([*STATIC, "--out", str(out)]) == 0
    summary = _summary(out)
    assert summary["case"] == "cantilever_cable" and summary["status"] == "finished"
    # the previous run's files are gone, the user's stay untouched
    left = _files(out)
    assert not [f for f in left if "double_pendulum" in f], left
    for name, text in mine.items():
        assert (out / name).read_text() == text
    # summary.json lists exactly this run's files: everything but the user's
    assert set(summary["files"]) == left - set(mine)
    assert "cantilever_cable.pvd" in summary["files"] and "files_before" not in summary
    assert not (out / "double_pendulum").exists()       # the emptied frames folder too

    # a second static run replaces the first one's files, lists the same
    assert main([*STATIC, "--out", str(out)]) == 0
    assert _summary(out)["files"] == summary["files"]
    assert _files(out) == left


def test_a_dead_runs_files_are_replaced_and_the_users_kept(tmp_path):
    """A run killed before its final summary leaves "running" and the files that were in
    the folder when it started (``files_before``): everything else is that run's."""
    out = tmp_path / "run"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    mine = _users_files(out)
    for name in ("old.pvd", "old/old_000000.vtu", "result/chunk_00000.npz", "plot.png"):
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text("the dead run's")
    (out / "summary.json").write_text(json.dumps({
        "case": "double_pendulum", "status": "running", "pid": int(dead.stdout),
        "host": socket.gethostname(), "files": ["summary.json"],
        "files_before": sorted(mine)}))
    assert main([*STATIC, "--out", str(out)]) == 0
    summary = _summary(out)
    assert summary["status"] == "finished"
    assert not (out / "old.pvd").exists() and not (out / "old").exists()
    assert not (out / "plot.png").exists()
    for name, text in mine.items():
        assert (out / name).read_text() == text
    assert set(summary["files"]) == _files(out) - set(mine)


def test_a_summary_never_removes_files_outside_its_folder(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    outside = tmp_path / "precious.txt"
    outside.write_text("keep")
    (out / "summary.json").write_text(json.dumps({
        "case": "x", "status": "finished",
        "files": ["../precious.txt", str(outside), "summary.json"]}))
    assert main([*STATIC, "--out", str(out)]) == 0
    assert outside.read_text() == "keep"
