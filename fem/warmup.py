"""``fem compile``: compile every kernel the shipped cases use, ahead of the runs.

A run takes the compiled path only when the compiled code of every kernel is in the
cache (:func:`fem.core.jit.kernels_ready`); otherwise it runs the NumPy forms at once
and starts this command in the background.  Compiling means running: numba compiles a
kernel for the types it is called with, so the warm-up runs short versions of the
shipped cases (:data:`WARMUPS`: the same models, a few steps) on the compiled path, then
marks the cache ready.  Containers and CI run ``fem compile`` once after installing.
"""

from __future__ import annotations

import sys
import time

__all__ = ["WARMUPS", "compile_kernels"]

WARMUPS: tuple[tuple[str, dict], ...] = (
    ("parallel_robot_flexible_platform", {"dt_s": 0.05}),
    ("parallel_robot_flexible_platform", {"platform": "reduced", "dt_s": 0.05}),
    ("spinup_beam", {"t_end_s": 0.05}),
    ("two_link_arm_fall", {"t_end_s": 0.02}),
    ("five_link_arm_fall", {"t_end_s": 0.03}),
    ("cantilever_cable", {"analysis": "dynamic", "t_end_s": 0.005}),
    ("cantilever_cable", {"analysis": "dynamic", "t_end_s": 0.005, "n_elements": 16}),
    ("cantilever_beam", {"analysis": "dynamic", "t_end_s": 0.005}),
    ("parallel_robot_flexible_links", {"analysis": "inverse", "dt_s": 0.05}),
    ("vibrating_screen_1t2r", {"t_end_s": 0.05}),
)
"""The short runs whose kernels ``fem compile`` compiles: (case, parameters)."""


def compile_kernels(verbose: bool = True) -> tuple[bool, float]:
    """Run :data:`WARMUPS` on the compiled path (compiling what the cache lacks) and, if
    every one finished, mark the cache ready; returns ``(ready, compile seconds)``.
    Holds the cache's compile lock: a second ``fem compile`` waits for none, it returns
    at once (False) while another one runs."""
    from .cases import run_case
    from .core import jit

    def say(text: str) -> None:
        if verbose:
            print(text, file=sys.stderr, flush=True)

    with jit.compile_lock() as mine:
        if not mine:
            say("fem compile: another process is compiling the kernels")
            return False, 0.0
        if jit.kernels_ready():
            say(f"fem compile: the kernels are compiled already ({jit.cache_dir()})")
            return True, 0.0
        ok = True
        c0 = jit.compile_seconds()
        with jit.use_path("compiled"):
            for name, params in WARMUPS:
                t0 = time.perf_counter()
                c1 = jit.compile_seconds()
                summary = run_case(name, dict(params), None, render=False, progress=False)
                took = jit.compile_seconds() - c1
                say(f"fem compile: {name} {params}: {summary['status']}, compiling "
                    f"{took:.1f} s of {time.perf_counter() - t0:.1f} s")
                if summary["status"] != "finished":
                    ok = False
                    say(f"  {summary.get('error', '')}"[:400])
        total = jit.compile_seconds() - c0
        for kernel, took in jit.compile_report().items():
            if took >= 0.5:
                say(f"  {took:7.1f} s  {kernel}")
        if not ok:
            jit.mark_failed("a warm-up run failed; see compile.log or run `fem compile`")
        if ok:
            mark = jit.mark_ready()
            say(f"fem compile: kernels ready ({total:.1f} s compiling), in {mark.parent.parent}")
        return ok, total
