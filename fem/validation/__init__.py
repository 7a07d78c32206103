"""``fem validate``: the reference suite and its report (issue 21, items 3 and 4).

* :mod:`.registry` — a check is data (subject, reference and its kind and source, limits
  and why) plus a function that measures; the limits decide pass or fail;
* :mod:`.checks` — the checks (beams, reduced bodies, plates, time integration, flexible
  links, rigid inverse dynamics, parallel robots), registered on import;
* :mod:`.papers` — one reproduction page per paper of :data:`fem.references.citations.PAPERS`;
* :mod:`.audit` — the convergence audit's table from its stored output;
* :mod:`.report`, :mod:`.document` — Markdown (``docs/validation.md``) and HTML.

:func:`validate` runs it all; ``import fem`` does not import this package.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ..core.lazy import lazy_exports

__all__ = ["validate"]


def validate(quick: bool = False, only: list[str] | None = None,
             out: str | Path = "results/validation", docs: bool = False,
             stream=None) -> int:
    """Run the checks, write the report; 0 if every check passes, 1 otherwise.

    Parameters
    ----------
    quick : bool
        Small sizes and the quick subset; the paper pages print the stored figures of the
        last full run instead of running the cases.
    only : list of str, optional
        Run just these checks (names as in the report); paper pages from stored figures.
    out : path
        Report folder: ``validation.html``, ``validation.md``, ``validation.json``,
        ``validation/*.png``, ``papers/*.md``.
    docs : bool
        Also write the Markdown twin, its PNGs and the paper pages into the source tree's
        ``docs/`` (and, after a full run, the figures the quick pages read,
        ``fem/validation/data/papers.json``).
    stream : file, optional
        Where progress lines go (default stdout).
    """
    from ..core.errors import ModelError
    from ..core.files import writable_folder
    from .checks import run_check, selected
    from .papers import PAPER_PAGES, collect, page, store
    from .report import machine, write_report

    if only is not None:
        if isinstance(only, str) or not all(isinstance(n, str) for n in only):
            raise ModelError(f"fem validate: only must be a list of check names; got "
                             f"{only!r:.80}")
        if not [n for n in only if n.strip()]:
            raise ModelError("fem validate: --only names no check (an empty name); give "
                             "check names, e.g. --only beam_elastica, or leave --only out to "
                             "run the whole set")
    if docs and only:
        raise ModelError("fem validate: --docs writes the whole report; run it without "
                         "--only")
    selected(quick, only)                   # an unknown name: refused before any work
    writable_folder(out, "fem validate -o")     # the report's folder: before the checks
    stream = stream or sys.stdout
    t0 = time.perf_counter()
    checks = selected(quick, only)
    outcomes = []
    for chk in checks:
        o = run_check(chk, quick)
        outcomes.append(o)
        print(f"  {'pass' if o.passed else 'FAIL'}  {chk.name:<32s} {o.seconds:6.1f} s"
              + ("" if o.passed else "  " + "; ".join(o.failures)), file=stream, flush=True)
    command = "fem validate" + (" --quick" if quick else "") + (
        " --only " + ",".join(only) if only else "") + (" --docs" if docs else "")
    figures, pmeta = collect(quick or bool(only))
    if pmeta["source"] == "run":
        print(f"  ran the papers' cases: {sum(pmeta['seconds'].values()):.0f} s",
              file=stream, flush=True)
        if docs:
            store(figures, {**pmeta, "command": command})
    repo_docs = Path(__file__).resolve().parents[2] / "docs"
    warnings: list[str] = []
    documents = {k: page(PAPER_PAGES[k], figures[k], pmeta,
                         repo_docs if repo_docs.is_dir() else None, warnings)
                 for k in PAPER_PAGES}
    for w in warnings:
        print(f"  warning: {w}", file=stream)
    meta = {"set": "quick" if quick else "full", "seconds": time.perf_counter() - t0,
            "date": time.strftime("%Y-%m-%d"), "machine": machine(), "command": command}
    if only:
        meta["set"] += f" ({len(outcomes)} selected)"
    files = write_report(outcomes, Path(out), meta,
                         {"documents": documents, "meta": pmeta, "warnings": warnings},
                         repo_docs if docs else None)
    n_fail = sum(not o.passed for o in outcomes)
    print(f"{len(outcomes) - n_fail}/{len(outcomes)} checks pass in "
          f"{time.perf_counter() - t0:.0f} s; report: {files['html']} "
          f"(Markdown: {files['markdown']})" + (f"; docs: {repo_docs}/validation.md"
                                                if docs else ""), file=stream)
    return 1 if n_fail else 0

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
