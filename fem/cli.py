"""The ``fem`` command: list, run and render cases.

    fem list
    fem info CASE
    fem run CASE [-p key=value ...] [--out DIR] [--json] [--no-render] [--every N]
    fem render DIR
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ._threads import single_thread_blas
from .errors import ModelError

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
    from .cases import available_cases, describe, load_case

    for name in sorted(available_cases()):
        try:
            desc = describe(load_case(name))
        except Exception as err:  # a broken case must not hide the others
            desc = f"(cannot load: {err})"
        print(f"{name:<32s} {desc}")
    return 0


def cmd_info(args) -> int:
    from .cases import describe, load_case

    mod = load_case(args.case)
    print(f"{args.case}: {describe(mod)}\n")
    print((mod.__doc__ or "").strip())
    print("\nparameters (defaults):")
    for k, v in mod.PARAMS.items():
        print(f"  {k} = {v!r}")
    return 0


def _output_folder(arg: str | None, case: str) -> Path:
    """The run's output folder, made and checked writable *before* anything is solved."""
    out = Path(arg) if arg else Path("results") / case
    if out.exists() and not out.is_dir():
        raise ModelError(f"--out {out} is a file, not a folder; choose a folder name")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".fem_write_test"
        probe.write_text("ok")
        probe.unlink()
    except OSError as err:
        raise ModelError(f"cannot write results to {out}: {err.strerror or err}; choose "
                         "another --out folder") from None
    return out


def _write_summary(out: Path, summary: dict) -> None:
    from .output import jsonable

    summary["files"] = sorted(str(p.relative_to(out)) for p in out.rglob("*")
                              if p.is_file() and not p.name.startswith(".")
                              and p.name != "summary.json") + ["summary.json"]
    tmp = out / ".summary.json.tmp"
    tmp.write_text(json.dumps(jsonable(summary), indent=1))
    tmp.replace(out / "summary.json")


def cmd_run(args) -> int:
    from . import output
    from .cases import load_case, parse_params

    mod = load_case(args.case)
    params = parse_params(mod, args.param or [])
    out = _output_folder(args.out, args.case)
    every = args.every
    if every < 0:
        raise ModelError(f"--every must be ≥ 0, got {every}")
    output.OPTIONS.render = not args.no_render
    output.OPTIONS.every = every
    output.OPTIONS.progress = not args.json
    output.OPTIONS.defer_render = True
    output.OPTIONS.pending.clear()
    stale = out / "summary.json"
    if stale.is_file():
        stale.unlink()
    t0 = time.perf_counter()
    status, error, code = "finished", None, 0
    try:
        with single_thread_blas():
            figures = mod.run(out=out, **params)
    except KeyboardInterrupt:
        status, code = "interrupted", 130
    except ModelError as err:
        status, error, code = "failed", str(err), 2
    wall = time.perf_counter() - t0
    if status != "finished":
        # keep what finished: the figures the case wrote, the streamed series and chunks
        figures = {}
        if (out / "figures.json").is_file():
            try:
                figures = json.loads((out / "figures.json").read_text())
            except (json.JSONDecodeError, OSError):
                figures = {}
        output.OPTIONS.pending.clear()
    summary = {"case": args.case, "status": status, "parameters": {**mod.PARAMS, **params},
               **figures}
    if error:
        summary["error"] = error
    summary.setdefault("wall_s", wall)
    _write_summary(out, summary)
    if status == "failed":
        print(f"fem: error: {error}", file=sys.stderr)
        print(f"(what finished is in {out}/: summary.json, streamed steps)", file=sys.stderr)
        return code
    if status == "interrupted":
        print(f"fem: interrupted — completed steps and summary.json are in {out}/",
              file=sys.stderr)
        return code
    try:
        output.render_pending()
    except KeyboardInterrupt:
        print(f"fem: rendering interrupted — results and summary.json are complete in "
              f"{out}/; `fem render {out}` makes the pictures", file=sys.stderr)
        _write_summary(out, summary)
        return 130
    _write_summary(out, summary)
    if args.json:
        print(json.dumps(output.jsonable(summary)))
    else:
        print(f"case {args.case} finished in {wall:.2f} s — results in {out}/")
        print("\n".join(_scalar_lines({k: v for k, v in summary.items()
                                       if k not in ("parameters", "files", "status")})))
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
            print(f"\nopen {pvd[0]} in ParaView (File > Open), or: fem render {out}")
    return 0


def cmd_render(args) -> int:
    from . import output

    written = output.render_directory(Path(args.dir), fps=args.fps)
    for w in written:
        print(f"wrote {w}")
    return 0


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
    p.add_argument("--every", type=int, default=0,
                   help="write every N-th step to VTK (default: about 400 frames)")
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser("render", help="animate a saved (possibly partial) result")
    p.add_argument("dir")
    p.add_argument("--fps", type=int, default=20)
    p.set_defaults(fn=cmd_render)
    args = parser.parse_args(argv)
    try:
        return args.fn(args)
    except ModelError as err:
        print(f"fem: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fem: interrupted — partial results stay in the output folder", file=sys.stderr)
        return 130
    except BrokenPipeError:          # `fem list | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
