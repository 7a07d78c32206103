"""``fem sweep`` and ``fem.sweep`` on a real Dask LocalCluster of 2 worker processes.

| check | reference | tolerance |
|---|---|---|
| 2×2 grid of cantilever statics | four sequential ``fem run``s | 1e-12 rel. (same code) |
| a worker killed mid-point | all points complete, that point rerun elsewhere | exact |
| rerun after Ctrl-C | only points without a done marker run again | exact counts |
| a bad value, a failing run, a crash | reported per point, the others complete | exact |
| ``import fem`` | no dask/pandas/pyarrow imported | exact |
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

import fem
from fem.cases import load_case
from fem.cli import main
from fem.parametric.grid import expand, split_values, values_from_strings


def _default_ctrl_c() -> None:
    """In the child, before it starts: Ctrl-C (SIGINT) back to its default, so that it
    reaches the child whatever this test process inherited — a job started in the
    background of a non-interactive shell ignores SIGINT, and so would its children."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


ROOT = Path(__file__).resolve().parents[1]

# one test process runs this module: its module-scoped fixtures run once (pytest-xdist)
pytestmark = pytest.mark.xdist_group("sweep")

# A case written for these tests: y = 2x after sleeping; x = -1 fails inside the run (on
# the worker), x = -2 kills its worker process, x <= -10 fails the LIMITS check; every
# start is logged with its pid.
SLEEPY = '''"""Test case: y = 2 x after sleep_s seconds."""
import os
import time
from pathlib import Path

import fem

PARAMS = {"x": 1.0, "sleep_s": 0.0, "log": ""}
LIMITS = {"x": "> -10"}


def build(**params):
    raise fem.ModelError("this case has no model")


def run(out=None, **params):
    p = {**PARAMS, **params}
    if p["log"]:
        with open(p["log"], "a") as fh:
            fh.write(f"{p['x']} {os.getpid()}\\n")
    if out is not None:
        (Path(out) / "started").write_text(str(os.getpid()))
    time.sleep(p["sleep_s"])
    if p["x"] == -2:
        os._exit(3)                 # the worker process dies: every time, on every worker
    if p["x"] == -1:
        raise fem.ModelError("x = -1 is where this case fails")
    return {"y": 2 * p["x"], "pid": os.getpid()}
'''


@pytest.fixture(scope="module")
def cases_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep_cases")
    (d / "sleepy.py").write_text(SLEEPY)
    old = os.environ.get("FEM_CASES")
    os.environ["FEM_CASES"] = str(d)
    yield d
    if old is None:
        os.environ.pop("FEM_CASES", None)
    else:
        os.environ["FEM_CASES"] = old


class _Cluster:
    """Two worker processes.  A point is declared a killer (``KilledWorker``) after it
    took down 2 workers, not Dask's default 4: the same verdict with half the worker
    deaths and restarts (each costs seconds, and a burst of them is what Dask's nanny
    handles worst)."""

    def __init__(self) -> None:
        self.cluster = self.client = None
        self.start()

    def start(self) -> None:
        # imported here, not at collection: the test process that runs none of this
        # module's tests need not load Dask's distributed (0.8 s of CPU)
        import dask
        from distributed import Client, LocalCluster

        env = {"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
            self.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                        dashboard_address=None, env=env)
        self.client = Client(self.cluster)
        assert self.cluster.scheduler.allowed_failures == 1

    def close(self) -> None:
        for part in (self.client, self.cluster):
            try:
                part.close()
            except Exception:     # noqa: BLE001 - a cluster half gone after the kill tests
                pass

    def ready(self):
        """The client with its two workers there.  A worker a test killed is restarted by
        its nanny; after the worker-killing tests on a loaded machine a nanny sometimes
        closed instead, and the next sweep waited for a worker for ever (seen: an hour;
        in every CI run since, after the kill tests): then the cluster is made anew."""
        try:       # a nanny's restart takes a few seconds; a closed nanny never comes
            self.client.wait_for_workers(2, timeout=15)
        except Exception:         # noqa: BLE001 - distributed's WorkerStartTimeoutError
            self.close()
            self.start()
            self.client.wait_for_workers(2, timeout=120)
        return self.client


@pytest.fixture(scope="module")
def _cluster_client(cases_dir):
    cluster = _Cluster()
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def client(_cluster_client):
    """The module's client, its two workers there (:meth:`_Cluster.ready`)."""
    return _cluster_client.ready()


def _cli(*args) -> int:
    return main([str(a) for a in args])


def test_grid_of_four_matches_four_sequential_runs(tmp_path, client):
    """On the module's cluster (``--scheduler``): a cluster of its own (``--workers``)
    started two more worker processes (a bare one costs 2.5 s of CPU); the CLI's own
    cluster is :func:`test_rerun_after_interruption_runs_only_the_missing_points`'s,
    which checks that its workers import this same fem."""
    grid = {"E_Pa": ["2.1e11", "7e10"], "n_elements": ["4", "8"]}
    rc = _cli("sweep", "cantilever_cable", "-p", "E_Pa=2.1e11,7e10", "-p", "n_elements=4,8",
              "-p", "analysis=static", "--scheduler", client.scheduler.address,
              "--out", tmp_path / "sweep", "--plot", "tip_z_m:E_Pa", "--quiet")
    assert rc == 0
    table = pd.read_parquet(tmp_path / "sweep" / "table.parquet")
    assert len(table) == 4 and set(table["status"]) == {"done"}
    assert (tmp_path / "sweep" / "plots" / "tip_z_m_vs_E_Pa.png").stat().st_size > 1000
    csv = pd.read_csv(tmp_path / "sweep" / "table.csv")
    assert list(csv["point"]) == list(table["point"])
    for E in grid["E_Pa"]:
        for n in grid["n_elements"]:
            seq = tmp_path / f"run_{E}_{n}"
            assert _cli("run", "cantilever_cable", "-p", f"E_Pa={E}", "-p", f"n_elements={n}",
                        "--out", seq, "--json", "--no-render") == 0
            ref = json.loads((seq / "summary.json").read_text())
            folder = tmp_path / "sweep" / "points" / f"E_Pa={float(E):g}__n_elements={n}"
            got = json.loads((folder / "summary.json").read_text())
            done = json.loads((folder / "done.json").read_text())
            assert done["pid"] != os.getpid()                 # ran on a worker process
            assert done["fem"] == str(Path(fem.__file__).parent)   # of this same fem
            assert got["parameters"] == ref["parameters"]
            assert sorted(got["files"]) == sorted(ref["files"])
            for key in ("tip_x_m", "tip_z_m", "newton_iterations", "n_coordinates"):
                assert got[key] == pytest.approx(ref[key], rel=1e-12, abs=0)
            row = table[table["point"] == folder.name].iloc[0]
            assert row["tip_z_m"] == pytest.approx(ref["tip_z_m"], rel=1e-12, abs=0)


def test_killed_worker_does_not_lose_the_sweep(tmp_path, client):
    out = tmp_path / "sweep"
    killed = {}

    def kill_first_started_point():
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not killed:
            for started in out.glob("points/*/started"):
                pid = int(started.read_text() or 0)
                if pid:
                    os.kill(pid, signal.SIGKILL)
                    killed.update(pid=pid, point=started.parent.name)
                    return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_first_started_point)
    killer.start()
    res = fem.sweep("sleepy", {"x": [1.0, 2.0, 3.0, 4.0], "sleep_s": 1.5}, client, out=out,
                    progress=False)
    killer.join()
    assert killed, "no point started: nothing was killed"
    assert res.counts == {"done": 4, "skipped": 0, "failed": 0}
    assert [p.figures["y"] for p in res.points] == [2.0, 4.0, 6.0, 8.0]
    redone = json.loads((out / "points" / killed["point"] / "done.json").read_text())
    assert redone["pid"] != killed["pid"]


def test_rerun_after_interruption_runs_only_the_missing_points(tmp_path, client, cases_dir):
    out, log = tmp_path / "sweep", tmp_path / "starts.log"
    args = ["sweep", "sleepy", "-p", "x=1,2,3,4,5,6", "-p", "sleep_s=0.4", "-p", f"log={log}",
            "--workers", "2", "--out", str(out), "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FEM_CASES": str(cases_dir)}
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from fem.cli import main; "
                             "sys.exit(main())", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_default_ctrl_c)
    deadline = time.monotonic() + 60
    while len(list(out.glob("points/*/done.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)                      # Ctrl-C
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()[-2000:]
    complete = len(list(out.glob("points/*/done.json")))
    assert 2 <= complete < 6
    for done in out.glob("points/*/done.json"):     # the CLI's cluster: this same fem
        assert json.loads(done.read_text())["fem"] == str(Path(fem.__file__).parent)
    starts_before = len(log.read_text().splitlines())
    res = fem.sweep("sleepy", {"x": ["1", "2", "3", "4", "5", "6"], "sleep_s": "0.4",
                               "log": str(log)}, client, out=out, progress=False)
    assert res.counts == {"done": 6 - complete, "skipped": complete, "failed": 0}
    assert len(log.read_text().splitlines()) - starts_before == 6 - complete
    assert [p.figures["y"] for p in res.points] == [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
    again = fem.sweep("sleepy", {"x": ["1", "2", "3", "4", "5", "6"], "sleep_s": "0.4",
                                 "log": str(log)}, client, out=out, progress=False)
    assert again.counts == {"done": 0, "skipped": 6, "failed": 0}


def test_bad_points_are_reported_and_the_others_finish(tmp_path, client):
    out = tmp_path / "sweep"
    res = fem.sweep("sleepy", {"x": [1.0, -1.0, -20.0, -2.0, 3.0]}, client, out=out,
                    progress=False)
    assert res.counts == {"done": 2, "skipped": 0, "failed": 3}
    by_x = {p.params["x"]: p for p in res.points}
    assert "x = -1 is where this case fails" in by_x[-1.0].error        # on the worker
    assert "must be > -10" in by_x[-20.0].error                         # LIMITS, here
    assert by_x[-2.0].error.startswith("KilledWorker")          # killed every worker it met
    assert by_x[3.0].figures["y"] == 6.0
    for x in (-1.0, -20.0, -2.0):
        err = json.loads((by_x[x].folder / "error.json").read_text())
        assert err["parameters"]["x"] == x
    table = pd.read_csv(out / "table.csv")
    assert list(table["status"]) == ["done", "failed", "failed", "failed", "done"]
    assert table["error"].fillna("").str.contains("Error|KilledWorker").tolist() == [
        False, True, True, True, False]


def test_cli_on_an_existing_scheduler_with_zip(tmp_path, client):
    out = tmp_path / "sweep"
    rc = _cli("sweep", "sleepy", "-p", "x=1,2,3", "-p", "sleep_s=0,0.01,0.02", "--zip",
              "--scheduler", client.scheduler.address, "--out", out, "--quiet")
    assert rc == 0
    table = pd.read_csv(out / "table.csv")
    assert list(table["x"]) == [1.0, 2.0, 3.0] and list(table["y"]) == [2.0, 4.0, 6.0]
    worker_pids = set(client.run(os.getpid).values())
    for folder in (out / "points").iterdir():
        assert json.loads((folder / "done.json").read_text())["pid"] in worker_pids


def test_serial_sweep_matches_run_case():
    from fem.cases import run_case

    res = fem.sweep("cantilever_cable", {"E_Pa": [2.1e11, 7e10]}, "serial", progress=False)
    for pt in res.points:
        ref = run_case("cantilever_cable", {"E_Pa": pt.params["E_Pa"]})
        assert pt.figures["tip_z_m"] == ref["tip_z_m"]
    assert res.figures(E_Pa=7e10)["tip_z_m"] < res.figures(E_Pa=2.1e11)["tip_z_m"] < 0


def test_flagship_sweep_analysis_runs_through_fem_sweep(tmp_path):
    """The case's sweep analysis at E_Pa = 2e8: the payload line's 2e8 Pa / 6 kg point is
    the modulus line's first, run once and read by both (two points, two flexible runs
    instead of three: the sharing is checked as well as the table, the histories and the
    plot).  The points' static figures on the run's own mesh (``static_mesh="hexagon_6"``):
    the default's hexagon_96 solve and its hexagon_24 companion, at each point's modulus,
    were 3 of this test's 15 s of CPU and none of what it checks."""
    case = load_case("parallel_robot_flexible_platform")
    fig = case.run(out=tmp_path, analysis="sweep", sweep_E_Pa=[2e8, 7e10], E_Pa=2e8,
                   sweep_payload_kg=[6.0], dt_s=0.01, rho_inf=0.8,  # 160 steps: same order
                   static_mesh="hexagon_6")
    assert [r["E_Pa"] for r in fig["modulus_sweep"]] == [2e8, 7e10]
    assert set(fig["modulus_sweep"][0]) == {"E_Pa", "max_torque_dev_vs_rigid_Nm",
                                            "torque_min_Nm", "torque_max_Nm",
                                            "sag_range_mm", "wall_s"}
    assert fig["deviation_falls_with_E"]
    assert fig["payload_sweep"][0]["payload_kg"] == 6.0
    # the shared point: one folder, its figures in both lines
    assert len(list(tmp_path.glob("points/*/done.json"))) == 2
    assert fig["payload_sweep"][0]["torque_min_Nm"] == fig["modulus_sweep"][0]["torque_min_Nm"]
    assert fig["payload_sweep"][0]["torque_max_Nm"] == fig["modulus_sweep"][0]["torque_max_Nm"]
    assert (tmp_path / "deviation_vs_E.png").is_file()
    rows = pd.read_csv(tmp_path / "table.csv")
    assert len(rows) == 2 and set(rows["status"]) == {"done"}
    hist = pd.read_parquet(tmp_path / "histories.parquet")        # one row per point and time
    first = json.loads(next(tmp_path.glob("points/*/summary.json")).read_text())
    assert len(hist) == 2 * len(first["time_s"]) == 2 * 161
    mine = hist[hist["point"] == rows["point"][0]]
    torque = json.loads((tmp_path / "points" / rows["point"][0] / "summary.json").read_text())[
        "torque_Nm"]
    assert mine["torque_Nm[2]"].tolist() == [tau[2] for tau in torque]


def test_import_fem_stays_light():
    code = ("import sys, fem; heavy = sorted({m.split('.')[0] for m in sys.modules} & "
            "{'dask', 'distributed', 'pandas', 'pyarrow'}); "
            "print(heavy, 'fem.parametric' in sys.modules, fem.sweep.__module__)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert out.stdout.split() == ["[]", "False", "fem.parametric.runner"]


def test_values_grid_and_zip():
    assert split_values("[1,0,0],[0,1,0]") == ["[1,0,0]", "[0,1,0]"]
    assert values_from_strings(["E_Pa=2e8,7e10", "analysis=static"]) == {
        "E_Pa": ["2e8", "7e10"], "analysis": ["static"]}
    defaults = {"a": 1.0, "b": 2.0, "v": [0.0, 1.0, 0.0]}
    pts = expand({"a": [1, 2], "b": [3, 4, 5]}, defaults)
    assert len(pts) == 6 and pts[1] == {"a": 1, "b": 4}
    pts = expand({"a": [1, 2], "b": [3, 4], "v": [1.0, 0.0, 0.0]}, defaults, "zip")
    assert pts == [{"a": 1, "b": 3, "v": [1.0, 0.0, 0.0]}, {"a": 2, "b": 4, "v": [1.0, 0.0, 0.0]}]
    assert len(expand({"v": [[1, 0, 0], [0, 0, 1]]}, defaults)) == 2
    with pytest.raises(fem.ModelError, match="same length"):
        expand({"a": [1, 2], "b": [3, 4, 5]}, defaults, "zip")
    with pytest.raises(fem.ModelError, match="unknown parameter 'c'"):
        expand({"c": [1]}, defaults)
    with pytest.raises(fem.ModelError, match="empty value"):
        split_values("1,,2")


def test_cli_bad_input_exits_2(tmp_path, capsys):
    assert _cli("sweep", "cantilever_cable", "-p", "E_Paa=1,2", "--out", tmp_path) == 2
    assert "unknown parameter 'E_Paa'" in capsys.readouterr().err
    assert _cli("sweep", "cantilever_cable", "-p", "E_Pa=1e9,2e9", "--plot", "tip_z_m",
                "--out", tmp_path) == 2
    assert not (tmp_path / "points").exists()
