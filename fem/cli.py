"""The ``fem`` command: list, run and render cases.

    fem list
    fem info CASE
    fem run CASE [-p key=value ...] [--out DIR] [--json] [--no-render] [--every N]
    fem render DIR
    fem view DIR [--frames LIST] [--field NAME] [-o PAGE]
    fem sweep CASE -p key=v1,v2,... [--grid|--zip] [--scheduler ADDRESS] [--workers N]
              [--out DIR] [--plot FIGURE:PARAMETER] [--serial]
    fem validate [--quick] [-o DIR] [--only NAME,...] [--docs]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path

from .core.errors import Interrupted, ModelError

__all__ = ["main"]


def _scalar_lines(figures: dict) -> list[str]:
    lines = []
    for k, v in figures.items():
        if isinstance(v, bool | int | float | str):
            lines.append(f"  {k:<40s} {v:.6g}" if isinstance(v, float) else f"  {k:<40s} {v}")
        elif isinstance(v, list) and v and len(v) <= 8 and all(
                isinstance(x, int | float) for x in v):
            lines.append(f"  {k:<40s} " + ", ".join(f"{x:.6g}" for x in v))
        elif isinstance(v, list):
            lines.append(f"  {k:<40s} [{len(v)} values in summary.json]")
    return lines


def cmd_list(_args) -> int:
    import shutil

    from .cases import available_cases, describe, load_case, shorten
    from .references.citations import short

    names = sorted(available_cases())
    if not names:
        from .core.bundled import bundled_candidates

        looked = [str(p) for p in ([Path.cwd() / "cases", *bundled_candidates("cases")])]
        print("fem list: no cases found; looked in " + ", ".join(looked)
              + " (and the folders of FEM_CASES)", file=sys.stderr)
        return 1
    pad = max((len(n) for n in names), default=0) + 1
    # on a terminal a line fits its width (shortened at a word, with an ellipsis);
    # piped (`fem list | grep …`) every sentence is whole
    width = (max(40, shutil.get_terminal_size((120, 24)).columns - pad - 1)
             if sys.stdout.isatty() else None)
    for name in names:
        try:
            mod = load_case(name)
            desc = describe(mod)
            refs = getattr(mod, "REFERENCES", ())
            if refs:        # the paper it reproduces, as the reader cites it
                desc = f"{desc.rstrip('.')} — {short(refs[0])}."
            desc = desc if width is None else shorten(desc, width)
        except Exception as err:  # a broken case must not hide the others
            desc = f"(cannot load: {err})"
            desc = desc if width is None else shorten(desc, width)
        print(f"{name:<{pad}s} {desc}")
    return 0


def _table(rows: list[dict[str, str]], columns: list[tuple[str, str, int]]) -> list[str]:
    """Rows as a text table; ``columns`` are ``(key, heading, widest)``: a longer cell
    wraps inside its column."""
    import textwrap

    widths = [min(widest, max([len(head)] + [len(r[key]) for r in rows]))
              for key, head, widest in columns]
    out = ["  ".join(f"{head:<{w}s}" for (_, head, _), w in zip(columns, widths,
                                                                strict=True)).rstrip(),
           "  ".join("-" * w for w in widths)]
    for r in rows:
        cells = [textwrap.wrap(r[key], w, break_on_hyphens=False) or [""]
                 for (key, _, _), w in zip(columns, widths, strict=True)]
        for i in range(max(len(c) for c in cells)):
            out.append("  ".join(f"{(c[i] if i < len(c) else ''):<{w}s}"
                                 for c, w in zip(cells, widths, strict=True)).rstrip())
    return out


def cmd_info(args) -> int:
    import shutil
    import textwrap

    from .cases import describe, load_case, parameter_table, references

    mod = load_case(args.case)          # a broken case file: a ModelError naming file:line
    print(f"{args.case}: {describe(mod)}\n")
    doc = (mod.__doc__ or "").strip()
    body = doc.split("\n\n", 1)[1].strip() if "\n\n" in doc else ""
    if body:
        print(body + "\n")
    columns = shutil.get_terminal_size((120, 24)).columns
    refs = references(mod)
    if refs:
        print("references (docs/references.md):")
        for r in refs:
            print(textwrap.fill(r, max(60, columns - 2), initial_indent="  ",
                                subsequent_indent="    "))
        print()
    print(f"parameters (fem run {args.case} -p name=value ...):")
    rows = parameter_table(mod)
    fixed = [("name", "name", 26), ("default", "default", 22), ("unit", "unit", 8),
             ("allowed", "allowed", 24)]
    used = sum(min(w, max([len(h)] + [len(r[k]) for r in rows])) + 2 for k, h, w in fixed)
    lines = _table(rows, [*fixed, ("meaning", "meaning", max(30, columns - used - 2))])
    print("\n".join("  " + line for line in lines))
    return 0


def _process_age() -> float:
    """Seconds since this process started (Linux: from ``/proc``; elsewhere 0, and the
    command's clock starts at :func:`main`).  For the terminal only."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(0.0, uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


_STARTED = time.perf_counter() - _process_age()
"""When the process started, on the ``perf_counter`` clock (the "finished in" of
``fem run`` is the whole command's wall time, interpreter start-up included)."""


def _timing() -> dict[str, float]:
    """The command's wall time so far and its parts [s]: ``solve`` (the case's ``run()``
    less the writing measured in it), ``writing`` (series frames, result arrays, plots of
    :func:`fem.write_outputs`), ``rendering`` (pictures), ``compiling`` (kernels compiled
    during the run, apart from the solve) and ``other`` (start-up, imports,
    ``summary.json``); the parts add up to ``total``."""
    from .io.options import TIMING

    total = time.perf_counter() - _STARTED
    compiling = TIMING.get("compiling", 0.0)
    parts = {"solve": max(0.0, TIMING["run"] - TIMING["writing"] - compiling),
             "writing": TIMING["writing"], "rendering": TIMING["rendering"],
             "compiling": compiling}
    return {"total": total, **parts, "other": max(0.0, total - sum(parts.values()))}


def _timing_line(timing: dict[str, float], kernels: str = "numpy") -> str:
    """The final line of ``fem run``: the wall time without compiling, its parts, the
    path the run took and, when kernels were compiled in it, that time apart."""
    compiling = timing.get("compiling", 0.0)
    path = "compiled kernels" if kernels == "compiled" else "NumPy forms"
    extra = f", compiling kernels {compiling:.2f} s apart" if compiling else ""
    return (f"finished in {timing['total'] - compiling:.2f} s: solve {timing['solve']:.2f} s, "
            f"writing {timing['writing']:.2f} s, rendering {timing['rendering']:.2f} s, "
            f"start-up and other {timing['other']:.2f} s — {path}{extra}")


def cmd_run(args) -> int:
    import functools

    from .core import beside

    # plots and reference runs done by a worker beside the run where a second core is
    # free; only within this command (a test or notebook that calls main() goes on alone)
    beside.allow(True, preload=functools.partial(_preload, args.case, not args.no_render))
    try:
        return _run_command(args)
    finally:
        beside.abandon()
        beside.allow(False)


def _preload(case: str, render: bool) -> list:
    """What the worker beside a run loads while the run builds and solves: the VTK writer
    and, when the run will make pictures, the renderer (:func:`fem.io.render.prepare`);
    returned, what it loads next while the run does not wait for it (after the plots'
    matplotlib, :func:`fem.core.beside._start_child`): a movie's encoder and hull.  The
    case is loaded when work handed to the worker names one of its functions
    (:func:`fem.cases.import_cases_on_demand`), not before: most cases hand on only plots,
    frames and pictures, and a snapshot's worker is ready sooner without it."""
    from .cases import import_cases_on_demand
    from .io import vtk  # noqa: F401 - the frames of a series (meshio)

    import_cases_on_demand()
    if not render:
        return []
    from .io import movies, pictures  # noqa: F401
    from .io.render import load_movie_tools, prepare

    return [load_movie_tools] if prepare(movie_tools=False) else []


def _run_command(args) -> int:
    from .cases import load_case, output_folder, parse_params, run_case, write_summary
    from .core import beside
    from .core.files import OutputLock
    from .io import options, output, pictures

    parse_params(load_case(args.case), args.param or [])   # bad input: nothing created
    out = output_folder(args.out, args.case)           # README's default: results/CASE
    with OutputLock(out):      # a second `fem run` into this folder is refused, not mixed
        summary = run_case(args.case, args.param or [], out, render=not args.no_render,
                           every=args.every, progress=not args.json)
        if summary.get("summary_error"):
            print(f"fem: warning: {summary['summary_error']}", file=sys.stderr)
        if summary["status"] == "failed":
            print(f"fem: error: {summary['error']}", file=sys.stderr)
            print(f"(what finished is in {out}/: summary.json, streamed steps)", file=sys.stderr)
            return 2
        if summary["status"] == "interrupted":
            by = summary.get("interrupted_by")
            print(f"fem: interrupted{f' by {by}' if by else ''} — completed steps and "
                  f"summary.json are in {out}/", file=sys.stderr)
            return 143 if by == "SIGTERM" else 130
        if options.OPTIONS.pending and not args.json:
            kinds = sorted({kind for _, kind in options.OPTIONS.pending})
            print(f"rendering the {' and '.join(kinds)} of {out}/ …", file=sys.stderr,
                  flush=True)
        try:
            pictures.render_pending()
        except KeyboardInterrupt as err:
            by = getattr(err, "signal_name", None)
            print(f"fem: rendering interrupted{f' by {by}' if by else ''} — results and "
                  f"summary.json are complete in {out}/; `fem render {out}` makes the "
                  f"pictures", file=sys.stderr)
            _final_summary(write_summary, out, summary)
            return 143 if by == "SIGTERM" else 130
        if beside.pending():                  # anything handed on after the run: done
            options.TIMING["writing"] += beside.drain()
        summary["timing_s"] = _timing()        # metadata: never part of a result
        _final_summary(write_summary, out, summary)
    if args.json:
        print(json.dumps(output.jsonable(summary)))
        return 0
    print(f"case {args.case} finished — results in {out}/")
    print("\n".join(_scalar_lines({k: v for k, v in summary.items()
                                   if k not in ("parameters", "files", "status",
                                                "references", "timing_s", "kernels",
                                                "compile_s")})))
    print(f"\nfiles in {out}/:")
    groups: dict[str, int] = {}
    for f in summary["files"]:
        head = f.split("/")[0] if "/" in f else f
        groups[head] = groups.get(head, 0) + 1
    for head, count in groups.items():
        print(f"  {head}/ ({count} files)" if count > 1 or head not in summary["files"]
              else f"  {head}")
    for anim in sorted(out.glob("*.mp4")) + sorted(out.glob("*.gif")):
        print(f"\nanimation: {anim}")
    pvd = sorted(out.glob("*.pvd"))
    if pvd:
        print(f"\nopen {pvd[0]} in ParaView (File > Open), `fem view {out}` for a web "
              f"page, or `fem render {out}`")
    print(f"\n{_timing_line(_timing(), summary.get('kernels', 'numpy'))}")
    return 0


def _final_summary(write_summary, out: Path, summary: dict) -> None:
    """The summary after the pictures (their files listed); a write error (a full disk)
    is a warning: the summary written before the pictures stays."""
    try:
        write_summary(out, summary)
    except OSError as err:
        print(f"fem: warning: summary.json not updated after rendering "
              f"({err.strerror or err}); the one written before rendering stays",
              file=sys.stderr)


def cmd_render(args) -> int:
    from .cases import add_files_to_summary
    from .core.files import run_status
    from .core.validate import integer
    from .io import pictures

    fps = integer(args.fps, "--fps (frames per second)", minimum=1, maximum=240)
    directory = Path(args.dir)
    state = run_status(directory) if directory.is_dir() else {"status": None}
    if state["status"] in ("died", "running", "failed", "interrupted"):
        note = state["detail"] or f"the run {state['status']}"
        print(f"fem: note: {state['status']}: {note} — rendering what it recorded",
              file=sys.stderr)
    written = pictures.render_directory(directory, fps=fps)
    add_files_to_summary(directory, written)    # the next run into the folder replaces them
    for w in written:
        print(f"wrote {w}")
    return 0


def cmd_view(args) -> int:
    from .cases import add_files_to_summary
    from .io.web import write_view

    page = write_view(args.dir, args.output, frames=args.frames, field=args.field,
                      progress=not args.quiet)
    add_files_to_summary(args.dir, [page])     # a page inside the run's folder is its file
    print(f"wrote {page} — open it in a web browser (no network needed)")
    return 0


def cmd_sweep(args) -> int:
    from .parametric import SweepInterrupted, sweep
    from .parametric.grid import values_from_strings

    out = Path(args.out) if args.out else Path("results") / f"{args.case}_sweep"
    client = "serial" if args.serial else args.scheduler
    try:
        res = sweep(args.case, values_from_strings(args.param or []), client, out=out,
                    mode="zip" if args.zip else "grid", workers=args.workers,
                    plot=args.plot or [], progress=not args.quiet)
    except SweepInterrupted as err:
        print(f"fem: sweep interrupted{f' by {err.signal_name}' if err.signal_name else ''}"
              f" — {err.message}", file=sys.stderr)
        return 143 if err.signal_name == "SIGTERM" else 130
    n = res.counts
    print(f"sweep {args.case}: {len(res.points)} points over {', '.join(res.swept) or '-'} "
          f"— ran {n['done']}, skipped {n['skipped']} (complete before), failed "
          f"{n['failed']} — {res.wall_s:.1f} s")
    for pt in res.failures:
        print(f"  failed {pt.name}: {pt.error}")
    for note in res.notes:
        print(f"  {note}")
    print(f"points in {out / 'points'}/; table: "
          + ", ".join(str(f) for f in res.files if f.suffix in (".csv", ".parquet")))
    for f in res.files:
        if f.suffix == ".png":
            print(f"plot: {f}")
    return 1 if res.failures else 0


def cmd_compile(args) -> int:
    from .cases import compile_kernels
    from .core import jit

    if args.status:
        ready = jit.kernels_ready()
        print(f"kernels {'ready' if ready else 'not compiled'} for these sources in "
              f"{jit.cache_dir()}")
        return 0 if ready else 1
    try:
        import numba  # noqa: F401
    except ImportError:
        print("fem: error: numba is not installed: runs use the NumPy forms",
              file=sys.stderr)
        return 2
    ok, _ = compile_kernels(verbose=True)
    return 0 if ok else 1


def cmd_validate(args) -> int:
    from .validation import validate

    only = None if args.only is None else \
        [n.strip() for item in args.only for n in item.split(",") if n.strip()]
    return validate(quick=args.quick, only=only, out=args.out, docs=args.docs)


@contextlib.contextmanager
def _signals_as_interrupts():
    """SIGTERM (and SIGHUP) stop a command as Ctrl-C does: the run records "interrupted"
    and keeps what it computed (a second signal while it stops is ignored)."""
    def handler(signum, _frame):
        for sig in caught:
            signal.signal(sig, signal.SIG_IGN)      # already stopping
        raise Interrupted(signal.Signals(signum).name)

    caught = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
    try:
        previous = {s: signal.signal(s, handler) for s in caught}
    except ValueError:          # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def _unexpected(err: BaseException) -> str:
    """One line for an error nothing else explains (a bug): its type, message and where."""
    import traceback

    frames = traceback.extract_tb(err.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return (f"unexpected {type(err).__name__}: {err}{where}; set FEM_TRACEBACK=1 for the "
            "traceback")


def _int_arg(text: str) -> int:
    """An integer command-line value ("5", "5.0"); the range is checked by the command."""
    from .core.validate import integer

    try:
        return int(text)
    except ValueError:
        pass
    try:
        return integer(float(text), "value")
    except (ValueError, OverflowError):          # ModelError is a ValueError
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fem", description="Finite elements for "
                                     "rigid–flexible multibody robots.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the cases").set_defaults(fn=cmd_list)
    p = sub.add_parser("info", help="describe a case and its parameters")
    p.add_argument("case")
    p.set_defaults(fn=cmd_info)
    p = sub.add_parser("run", help="run a case")
    p.add_argument("case")
    p.add_argument("-p", "--param", action="append", metavar="KEY=VALUE",
                   help="override a parameter (repeatable)")
    p.add_argument("--out", help="output folder (default results/CASE)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--no-render", action="store_true", help="skip the animation")
    p.add_argument("--every", type=_int_arg, default=0,
                   help="write every N-th step to VTK (default: about 200 frames)")
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser("render", help="animate a saved (possibly partial) result")
    p.add_argument("dir")
    p.add_argument("--fps", type=_int_arg, default=20,
                   help="frames per second of the movie (1..240, default 20)")
    p.set_defaults(fn=cmd_render)
    p = sub.add_parser("view", help="write a run's series as an interactive web page")
    p.add_argument("dir", help="the --out folder of a run")
    p.add_argument("--frames", metavar="LIST",
                   help="frame numbers (0-based; -1 the last), ranges start:stop[:step], "
                        "or 'all' (default: at most 50, evenly spread)")
    p.add_argument("--field", metavar="NAME",
                   help="point or cell data to colour by (default: the deformation's "
                        "magnitude)")
    p.add_argument("-o", "--output", metavar="PAGE",
                   help="the page to write (default DIR/view.html)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(fn=cmd_view)
    p = sub.add_parser("sweep", help="run a case over a grid of parameters (Dask)")
    p.add_argument("case")
    p.add_argument("-p", "--param", action="append", metavar="KEY=V1,V2,...",
                   help="values of a parameter (repeatable); one value fixes it")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--grid", action="store_true", help="every combination (default)")
    mode.add_argument("--zip", action="store_true", help="the i-th values together")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="an existing Dask scheduler (tcp://host:8786)")
    where.add_argument("--serial", action="store_true",
                       help="run the points here, one after another (no Dask)")
    p.add_argument("--workers", type=_int_arg,
                   help="local worker processes (default or 0: cores)")
    p.add_argument("--out", help="sweep folder (default results/CASE_sweep)")
    p.add_argument("--plot", action="append", metavar="FIGURE:PARAMETER",
                   help="plot a figure against a swept parameter (repeatable)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(fn=cmd_sweep)
    p = sub.add_parser("compile", help="compile the kernels now, for the runs after")
    p.add_argument("--status", action="store_true",
                   help="only say whether the kernels are compiled (exit 1 if not)")
    p.add_argument("--background", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(fn=cmd_compile)
    p = sub.add_parser("validate", help="run the reference checks and write the report")
    p.add_argument("--quick", action="store_true",
                   help="small sizes; paper pages from the stored figures (CI)")
    p.add_argument("-o", "--out", default="results/validation",
                   help="report folder (default results/validation)")
    p.add_argument("--only", action="append", metavar="NAME[,NAME...]",
                   help="run only these checks (repeatable)")
    p.add_argument("--docs", action="store_true",
                   help="also write docs/validation.md, its plots and docs/papers/")
    p.set_defaults(fn=cmd_validate)
    args = parser.parse_args(argv)
    try:
        with _signals_as_interrupts():
            return args.fn(args)
    except ModelError as err:
        print(f"fem: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as err:
        by = getattr(err, "signal_name", None)
        print(f"fem: interrupted{f' by {by}' if by else ''} — partial results stay in the "
              "output folder", file=sys.stderr)
        return 143 if by == "SIGTERM" else 130
    except BrokenPipeError:          # `fem list | head`
        sys.stderr.close()
        return 0
    except OSError as err:           # a full disk, a vanished folder: said, not a traceback
        print(f"fem: error: {err.strerror or err}"
              + (f": {err.filename}" if getattr(err, "filename", None) else ""),
              file=sys.stderr)
        return 2
    except Exception as err:         # noqa: BLE001 - a bug: one line, traceback on request
        if os.environ.get("FEM_TRACEBACK"):
            raise
        print(f"fem: error: {_unexpected(err)}", file=sys.stderr)
        return 3


def entry() -> None:
    """The ``fem`` command (and ``python -m fem``): :func:`main`, then the process ends at
    once with its exit code.

    By then every file of the command is written and closed, and the worker beside a run
    is stopped; what is left is the interpreter's teardown — freeing each of the ~1400
    modules a run imports, and numba's compiler when the run used compiled kernels —
    which took 0.6 s (NumPy path) to 1.5 s (compiled kernels) after the main job's last
    line and changes nothing on disk.  Exit handlers still run (``atexit``: a virtual
    display is stopped, logs are flushed); an exception that escapes :func:`main` ends the
    process the usual way."""
    try:
        code = main()
    except SystemExit as done:         # argparse: --help, a usage error
        code = done.code
        if not (code is None or isinstance(code, int)):
            raise
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`fem list | head`), a closed stream
            pass
    os._exit(code or 0)


if __name__ == "__main__":
    entry()
