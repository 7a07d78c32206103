"""Rendering beside solving: ``fem run CASE`` for every shipped case at its defaults, the
solve and the rendering (pictures and movies) read from the run's final line.

Each run is a fresh process on the warm kernel cache (a first run of a case compiles its
kernels; that time is reported apart and left out here).  ``--src`` runs another copy of
the code (e.g. an exported earlier commit), so that two versions can be timed
interleaved on the same cases: with several ``--src`` every case is run once by each,
the order flipping every repeat (:func:`benchtools.interleaved`).  Besides the times a
line holds the movie's frame count and size and the one-minute load average at the end
of the run.  Prints one JSON line per run (the first line names the machine and the
``fem`` each ``--src`` imported; runs start outside any checkout, where ``python -m``
would import the checkout's own code first) and a table.

    python tests/benchmarks/render_time.py [CASE ...] [--src DIR ...] [--repeat N]

Defaults: every case of ``fem list``, this checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import ROOT, interleaved, machine  # noqa: E402

LINE = re.compile(r"finished in ([\d.]+) s: solve ([\d.]+) s, writing ([\d.]+) s, "
                  r"rendering ([\d.]+) s, start-up and other ([\d.]+) s")


def env_for(src: Path) -> dict:
    """A child's environment: ``src``'s ``fem`` first, one BLAS thread."""
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = "1"
    env["PYTHONPATH"] = str(src)
    return env


def shipped_cases(src: Path) -> list[str]:
    """The names ``fem list`` prints."""
    proc = subprocess.run([sys.executable, "-m", "fem.cli", "list"], env=env_for(src),
                          capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]


def movie_frames(path: Path) -> int | None:
    """Frames of an MP4 (counted by decoding), or None."""
    try:
        import imageio_ffmpeg

        n, _ = imageio_ffmpeg.count_frames_and_secs(str(path))
        return int(n)
    except Exception:  # noqa: BLE001 - no count
        return None


def one_run(case: str, src: Path, out: Path, params: list[str]) -> dict:
    """One ``fem run`` of ``case`` with the code in ``src``; its times and movies."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "fem.cli", "run", case, "--out", str(out)]
    for p in params:
        cmd += ["-p", p]
    t0 = time.perf_counter()
    # run from outside any checkout: ``python -m`` puts the working folder first on the
    # path, ahead of PYTHONPATH, and would run the code there instead of ``src``'s
    proc = subprocess.run(cmd, env=env_for(src), capture_output=True, text=True, cwd=out.parent)
    wall = time.perf_counter() - t0
    load = os.getloadavg()[0]
    if proc.returncode != 0:
        return {"case": case, "src": str(src), "error": proc.stderr[-800:], "load": load}
    m = LINE.search(proc.stdout)
    total, solve, writing, rendering, other = (float(x) for x in m.groups())
    movies = sorted(out.glob("*.mp4")) + sorted(out.glob("*.gif"))
    pictures = sorted(out.glob("*.png"))
    return {"case": case, "src": str(src), "wall_s": round(wall, 2), "reported_s": total,
            "solve_s": solve, "writing_s": writing, "rendering_s": rendering,
            "startup_other_s": other,
            "movies": {f.name: {"frames": movie_frames(f), "bytes": f.stat().st_size}
                       for f in movies},
            "pictures": [f.name for f in pictures],
            "warnings": [ln for ln in proc.stderr.splitlines() if "warning" in ln][:5],
            "load": round(load, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help="default: every case of `fem list`")
    ap.add_argument("--src", action="append", type=Path,
                    help="root of the code to run (repeatable; default: this checkout)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("-p", "--param", action="append", default=[],
                    help="a case parameter KEY=VALUE, for every case")
    args = ap.parse_args()
    srcs = [s.resolve() for s in (args.src or [ROOT])]
    cases = args.cases or shipped_cases(srcs[0])
    used = {str(s): subprocess.run([sys.executable, "-c", "import fem; print(fem.__file__)"],
                                   env=env_for(s), capture_output=True, text=True,
                                   cwd=tempfile.gettempdir()).stdout.strip() for s in srcs}
    print(json.dumps({"machine": machine(), "fem_imported": used, "cases": cases}),
          flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            def run(src, case=case):
                row = one_run(case, src, Path(tmp) / "out", args.param)
                print(json.dumps(row), flush=True)
                rows.append(row)
                return row

            interleaved(srcs, args.repeat, run)
    print("\n| case | src | solve [s] | rendering [s] | rendering / solve | movie frames | "
          "load |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['case']} | {Path(r['src']).name} | failed | | | | {r['load']:.1f} |")
            continue
        frames = ", ".join(str(m["frames"]) for m in r["movies"].values()) or "–"
        ratio = r["rendering_s"] / r["solve_s"] if r["solve_s"] > 0 else float("inf")
        print(f"| {r['case']} | {Path(r['src']).name} | {r['solve_s']:.2f} | "
              f"{r['rendering_s']:.2f} | {ratio:.2f} | {frames} | {r['load']:.1f} |")


if __name__ == "__main__":
    main()
