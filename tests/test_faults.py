"""Faults survived (issue 22): each scenario keeps everything that was computed and leaves
a truthful status — SIGTERM like Ctrl-C, a killed run recognisable as dead, write errors
(a full disk) ending as "failed" with the reason, movies and tables under their names only
when complete, one run per output folder, a sweep's table on interruption, and "cannot
write" for a read-only folder.  Signals are sent to real ``fem`` processes; full disks
are a file-size limit (``RLIMIT_FSIZE``) on a real process or a patched write."""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import fem
from fem.cli import main
from fem.core.files import LOCK_NAME, OutputLock, process_alive, run_status, temporary_path

ROOT = Path(__file__).resolve().parents[1]
LONG_RUN = ["run", "double_pendulum", "-p", "t_end_s=200", "--no-render"]


def _start(argv, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "fem", *argv], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)


def _wait_for(condition, timeout: float = 90.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the run did not get going")
        time.sleep(0.05)


def _recording(out: Path) -> bool:
    return any((out / "result").glob("chunk_*.npz"))


def _dead_pid() -> int:
    p = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                       capture_output=True, text=True, check=True)
    return int(p.stdout)


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("faults") / "dp"
    assert main(["run", "double_pendulum", "-p", "t_end_s=0.05", "--no-render", "--out",
                 str(out)]) == 0
    return out


# ---------------------------------------------------------------------- signals
def test_sigterm_is_handled_like_ctrl_c(tmp_path):
    out = tmp_path / "run"
    proc = _start([*LONG_RUN, "--out", str(out)])
    try:
        _wait_for(lambda: _recording(out))
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143, err[-2000:]
    assert "interrupted by SIGTERM" in err and "Traceback" not in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["interrupted_by"] == "SIGTERM"
    assert not (out / LOCK_NAME).exists()
    loaded = fem.Result.load(out / "result")
    assert len(loaded) >= 200 and loaded.info["status"] == "interrupted"


def test_a_killed_run_is_recognisable_as_dead(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    proc = _start([*LONG_RUN, "--out", str(out)])
    try:
        _wait_for(lambda: _recording(out))
        summary = json.loads((out / "summary.json").read_text())
        assert summary["status"] == "running" and summary["pid"] == proc.pid
        assert summary["host"] == socket.gethostname()
        assert run_status(out)["status"] == "running"
        proc.kill()                                  # SIGKILL: no handler runs
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert json.loads((out / "summary.json").read_text())["status"] == "running"
    assert run_status(out)["status"] == "died"
    with pytest.warns(fem.FemWarning, match="died before finishing"):
        loaded = fem.Result.load(out / "result")
    assert len(loaded) >= 200 and loaded.info["status"] == "died"
    # `fem render` says so before rendering what was recorded
    monkeypatch.setattr(fem.io.pictures, "render_directory", lambda d, fps=20: [])
    assert main(["render", str(out)]) == 0
    assert "died" in capsys.readouterr().err
    # the dead run's lock does not block the folder
    assert (out / LOCK_NAME).exists()
    assert main(["run", "double_pendulum", "-p", "t_end_s=0.01", "--no-render", "--out",
                 str(out)]) == 0
    assert not (out / LOCK_NAME).exists()


# ---------------------------------------------------------------------- full disks
def _file_size_limit(limit: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_write_error_during_a_run_ends_as_failed_and_keeps_the_records(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "fem", "run", "double_pendulum", "-p",
                           "t_end_s=3", "--no-render", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          preexec_fn=_file_size_limit(50_000))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "fem: error: cannot write results: File too large" in proc.stderr
    assert "Traceback" not in proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "failed" and "File too large" in summary["error"]
    loaded = fem.Result.load(out / "result")
    assert len(loaded) > 10 and loaded.info["status"] == "failed"
    np.testing.assert_allclose(np.diff(loaded.t), 1e-3, rtol=1e-6)   # no gap, no repeat


def test_a_full_disk_still_records_the_failure(tmp_path, monkeypatch, capsys):
    import fem.core.files
    import fem.solvers.results

    full = {"on": False}
    real_text, real_part = fem.core.files.atomic_write_text, fem.solvers.results.Result._append_part

    def no_space(*_a, **_k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def text(path, content):
        if full["on"]:
            no_space()
        return real_text(path, content)

    def part(self):
        if len(self) > 50:
            full["on"] = True
        if full["on"]:
            no_space()
        return real_part(self)

    monkeypatch.setattr(fem.core.files, "atomic_write_text", text)
    monkeypatch.setattr(fem.solvers.results.Result, "_append_part", part)
    out = tmp_path / "run"
    assert main(["run", "double_pendulum", "-p", "t_end_s=1", "--no-render", "--out",
                 str(out)]) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "Traceback" not in err
    summary = json.loads((out / "summary.json").read_text())     # over the padded one
    assert summary["status"] == "failed" and "No space left" in summary["error"]
    assert "summary shortened" in summary["note"]
    full["on"] = False
    assert len(fem.Result.load(out / "result")) >= 50


def test_a_full_disk_while_rendering_leaves_no_broken_movie(finished):
    proc = subprocess.run([sys.executable, "-m", "fem", "render", str(finished)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          preexec_fn=_file_size_limit(3_000))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "fem: error: cannot write the movie" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not list(finished.glob("*.mp4")) and not list(finished.glob(".*partial*"))


def test_an_interrupted_rendering_leaves_no_movie(finished, monkeypatch):
    from fem.io import movies

    real = movies._open_writer

    def opener(path, fps):
        writer, written = real(path, fps)
        calls = {"n": 0}
        append = writer.append_data

        def interrupted(image):
            calls["n"] += 1
            if calls["n"] == 3:
                raise KeyboardInterrupt
            return append(image)

        writer.append_data = interrupted
        return writer, written

    monkeypatch.setattr(movies, "_open_writer", opener)
    with pytest.raises(KeyboardInterrupt):
        fem.io.pictures.render_directory(finished)
    assert not list(finished.glob("*.mp4")) and not list(finished.glob(".*partial*"))


def test_stale_partial_movies_of_dead_renderings_are_removed(tmp_path):
    dead = tmp_path / f".robot.{_dead_pid()}.partial.mp4"
    mine = tmp_path / f".robot.{os.getpid()}.partial.mp4"
    dead.write_bytes(b"half a movie")
    mine.write_bytes(b"being written")
    fem.io.pictures._remove_stale_partials(tmp_path)
    assert not dead.exists() and mine.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="as a user, the real read-only test runs")
def test_render_into_a_read_only_folder_says_cannot_write(finished, monkeypatch, capsys):
    real = Path.write_bytes

    def refuse(self, data):     # root ignores permissions: the OS refusal, simulated
        if ".fem_render_probe" in self.name:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", refuse)
    assert main(["render", str(finished)]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "Permission denied" in err and "Traceback" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_render_into_a_read_only_folder_says_cannot_write_as_a_user(finished, capsys
                                                                    ):  # pragma: no cover
    finished.chmod(0o500)
    try:
        assert main(["render", str(finished)]) == 2
    finally:
        finished.chmod(0o700)
    assert "cannot write" in capsys.readouterr().err


# ---------------------------------------------------------------------- one folder, one run
def test_a_second_run_into_the_same_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    proc = _start([*LONG_RUN, "--out", str(out)])
    try:
        _wait_for(lambda: (out / LOCK_NAME).exists() and _recording(out))
        assert main(["run", "double_pendulum", "-p", "t_end_s=0.01", "--no-render", "--out",
                     str(out)]) == 2
        err = capsys.readouterr().err
        assert f"is in use: another fem run (process {proc.pid}" in err
        assert "Traceback" not in err
        assert json.loads((out / "summary.json").read_text())["pid"] == proc.pid
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
        proc.kill()
    assert json.loads((out / "summary.json").read_text())["status"] == "interrupted"


def test_a_stale_lock_is_taken_over_and_a_live_one_is_not(tmp_path):
    (tmp_path / LOCK_NAME).write_text(json.dumps({"pid": _dead_pid(),
                                                  "host": socket.gethostname()}))
    with OutputLock(tmp_path):
        assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == os.getpid()
        with OutputLock(tmp_path):          # re-entrant within a process
            pass
        assert (tmp_path / LOCK_NAME).exists()
    assert not (tmp_path / LOCK_NAME).exists()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / LOCK_NAME).write_text(json.dumps({"pid": sleeper.pid,
                                                      "host": socket.gethostname()}))
        with pytest.raises(fem.ModelError, match="is in use"):
            OutputLock(tmp_path).acquire()
    finally:
        sleeper.kill()
        sleeper.wait()
    assert process_alive({"pid": sleeper.pid, "host": socket.gethostname()}) is False
    assert process_alive({"pid": os.getpid(), "host": "elsewhere"}) is None


def test_temporary_names_are_private_to_the_process(tmp_path):
    a = temporary_path(tmp_path / "summary.json")
    b = temporary_path(tmp_path / "robot.mp4", keep_suffix=True)
    assert str(os.getpid()) in a.name and a.name.startswith(".")
    assert b.suffix == ".mp4" and str(os.getpid()) in b.name
    out = subprocess.run([sys.executable, "-c", "from fem.core.files import temporary_path; "
                          f"print(temporary_path({str(tmp_path / 'summary.json')!r}))"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(out) != a


# ---------------------------------------------------------------------- sweeps
def test_an_interrupted_sweep_writes_the_table_of_its_finished_points(tmp_path, monkeypatch,
                                                                      capsys):
    import fem.parametric.runner as runner

    real = runner.run_point
    seen = []

    def run_point(task):
        seen.append(task.name)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(runner, "run_point", run_point)
    out = tmp_path / "sweep"
    argv = ["sweep", "cantilever_cable", "-p", "n_elements=2,3,4", "--serial", "--quiet",
            "--out", str(out)]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "1 of 3 points finished, 2 not run" in err and "table.csv" in err
    rows = (out / "table.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith(seen[0])
    assert not list(out.glob(".*partial*"))
    monkeypatch.setattr(runner, "run_point", real)
    assert main(argv) == 0                          # the rerun resumes
    assert "skipped 1" in capsys.readouterr().out
    assert len((out / "table.csv").read_text().splitlines()) == 4


def test_result_of_a_live_writer_is_running(tmp_path):
    res = fem.Result(directory=tmp_path / "result", chunk=5)
    for i in range(7):
        res.record(0.1 * i, np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", fem.FemWarning)
        loaded = fem.Result.load(tmp_path / "result")
    assert len(loaded) == 7 and loaded.info["status"] == "running"
