"""The validation report: ``validation.md`` (the Markdown twin, ``docs/validation.md``),
``validation.html`` (plots embedded), ``validation.json`` (every check's status and
values), the PNGs beside the Markdown, and one reproduction page per paper."""

from __future__ import annotations

import html
import json
import platform
import posixpath
import re
import shutil
from collections.abc import Sequence
from pathlib import Path

from .audit import STORED as AUDIT_STORED
from .audit import markdown as audit_markdown
from .audit import stored as audit_records
from .document import Document, inline_html, slug
from .registry import Outcome

__all__ = ["GROUPS", "report_document", "write_report", "NOTES_PAGE"]

GROUPS = ("Beams: static deflection", "Beams: frequency tables", "Reduced bodies", "Plates",
          "Time integration", "Flexible links (Fan and Zhang 2016)",
          "Rigid inverse dynamics (Shen et al. 2021)", "Parallel robots (Liu et al. 2023, 2018)")
"""Sections of the report, in order."""

NOTES_PAGE = "validation_notes.md"
"""The hand-kept companion page (docs/): what the test suite checks beyond this report,
the decisions taken on the convergence audit, the benchmarks."""


def _value(v: float) -> str:
    v = float(v)
    return f"{v:#.3g}" if 1e-3 <= abs(v) < 1e4 or v == 0 else f"{v:.2e}"


def _measured(o: Outcome) -> str:
    if o.measurement is None:
        return "—"
    keys = [lim.key for lim in o.check.limits]
    return "; ".join(f"{k} = {_value(o.measurement.values[k])}" for k in dict.fromkeys(keys)
                     if k in o.measurement.values)


def _status(o: Outcome) -> str:
    return "**pass**" if o.passed else "**FAIL**"


def plot_file(o: Outcome, name: str) -> str:
    """The PNG's path relative to the Markdown page."""
    return f"validation/{o.check.name}-{name}.png"


def report_document(outcomes: Sequence[Outcome], meta: dict, papers: dict) -> Document:
    """The validation page (checks, audit table, links to the paper pages)."""
    doc = Document("Validation report")
    n_pass = sum(o.passed for o in outcomes)
    doc.para(f"{len(outcomes)} checks, **{n_pass} pass**"
             + (f", **{len(outcomes) - n_pass} fail**" if n_pass < len(outcomes) else "")
             + f" ({meta['set']} set, {meta['seconds']:.0f} s on {meta['machine']}).")
    doc.para("Every check names its subject, its reference — what it is, of which kind "
             "(closed form, series, independent ODE, another method of the framework, the "
             "full model a reduction comes from, an invariant, a residual) and where it comes "
             "from —, "
             "its tolerance and why, and the measured values.  The check's function only "
             "measures; the verdict compares the printed values with the printed limits "
             "(`fem/validation/registry.py`).  What the test suite checks beyond this report, "
             f"and the benchmarks, are on the hand-kept page [{NOTES_PAGE}]({NOTES_PAGE}).")
    # the status second: it stays in sight however narrow the window
    doc.table(["check", "status", "subject", "reference (kind)", "tolerance", "measured"],
              [[f"[{o.check.name}](#{slug(o.check.name)})", _status(o), o.check.subject,
                f"{o.check.reference} (*{o.check.kind}*)",
                "; ".join(lim.text() for lim in o.check.limits), _measured(o)]
               for o in outcomes], css_class="summary")
    for group in [g for g in GROUPS if any(o.check.group == g for o in outcomes)] + sorted(
            {o.check.group for o in outcomes} - set(GROUPS)):
        doc.heading(group)
        for o in (o for o in outcomes if o.check.group == group):
            c = o.check
            doc.heading(c.name, 3)
            doc.para(f"{_status(o)} — {c.subject}.")
            doc.para(f"**Reference** ({c.kind}): {c.reference}.  *Source:* {c.source}.")
            doc.para("**Tolerance:** " + "; ".join(f"`{lim.text()}`" for lim in c.limits)
                     + f".  *Why:* {c.why}")
            if o.measurement is None:
                doc.para(f"**Measured:** nothing — the check raised: {o.failures[0]}")
                continue
            m = o.measurement
            doc.para("**Measured** (" + ("quick sizes" if o.quick else "full sizes")
                     + f", {o.seconds:.1f} s): "
                     + "; ".join(f"{k} = {_value(v)}" for k, v in m.values.items())
                     + (f".  {m.detail}" if m.detail else "."))
            if o.failures:
                doc.para("**Failed:** " + "; ".join(o.failures) + ".")
            doc.records(m.table)
            for p in m.plots:
                doc.image(p, plot_file(o, p.name))
    _audit_section(doc)
    doc.heading("Reproduction of the papers")
    doc.para("One page per paper: its reported figures beside ours, with the reason for every "
             "difference (" + ("our figures stored by the last full run of "
                               f"{papers['meta']['generated']}" if papers["meta"]["source"]
                               == "stored" else "our figures computed by this run") + ").")
    from ..references.citations import PAPERS

    doc.table(["paper", "page", "rows"],
              [[PAPERS[k].text(), f"[papers/{k}.md](papers/{k}.md)",
                len(papers["documents"][k].blocks[-1][2])] for k in papers["documents"]])
    return doc


def _audit_section(doc: Document) -> None:
    records = audit_records()
    doc.heading("Convergence of the defaults")
    doc.para("Does a case's default time step and mesh give its figures to 1 %? "
             "`tests/benchmarks/convergence_audit.py` runs every case of `fem list` at its "
             "defaults, then with `dt_s` halved and, separately, with its element-count or "
             "basis parameter refined once (integers doubled, `hexagon_N` → `hexagon_4N`; a "
             "mesh `auto` refines each mesh it stands for), "
             "each run a fresh process, and reports how far every headline figure moves: a "
             "scalar relative to itself; a list (frequencies, extremes) relative to its "
             "largest entry; a history on the coarser run's time grid relative to its range "
             "(or to 1 % of its magnitude where the range is smaller: a conserved energy).  "
             "Bookkeeping (counts, timings, residuals, inputs echoed, a rigid reference's "
             "figures) and error measures are not headline figures; the two cantilevers are "
             "also audited in their dynamic analysis.")
    if not records:
        doc.para("*No stored audit output* (`fem/validation/data/convergence_audit.jsonl` "
                 "is missing): run the audit to fill this table.")
        return
    first = AUDIT_STORED.read_text().splitlines()[0]
    when = first.lstrip("# ").strip() if first.startswith("#") else "stored output"
    doc.para(f"**Stored output, not rerun by `fem validate`** (the audit takes 20–30 minutes): "
             f"{when}.  Regenerate with `python tests/benchmarks/convergence_audit.py > "
             f"fem/validation/data/convergence_audit.jsonl` (keep the first comment line "
             f"with the date), or rerun some cases into it with `python "
             f"tests/benchmarks/convergence_audit.py CASE ... --store`.")
    doc.raw_markdown(audit_markdown(records))
    over = sorted({r["case"] + "".join(f", {k}={v}" for k, v in r["overrides"].items())
                   for r in records for v in r.get("worst", {}).values()
                   if v["move"] > 0.01})
    failed = sorted({r["case"] for r in records for n in r["notes"].values()
                     if n.startswith(("failed", "skipped"))})
    doc.para("Over 1 % (a headline figure moves more when the step is halved or the mesh "
             "refined): " + (", ".join(f"`{c}`" for c in over) or "none") + "; a variant that "
             "failed: " + (", ".join(f"`{c}`" for c in failed) or "none") + ".  Each is "
             f"documented in its case's docstring (`fem info`) and page; what was done "
             f"about them is in [{NOTES_PAGE}]({NOTES_PAGE}#convergence-of-the-defaults-"
             "what-was-done).")


# ------------------------------------------------------------------ files
_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.88em; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; vertical-align: top;
         overflow-wrap: anywhere; }
table.summary { width: 100%; table-layout: fixed; }
table.summary th:nth-child(1) { width: 19.5%; } table.summary th:nth-child(2) { width: 6%; }
table.summary th:nth-child(3) { width: 19.5%; } table.summary th:nth-child(4) { width: 18%; }
table.summary th:nth-child(5), table.summary th:nth-child(6) { width: 18.5%; }
th { background: #f2f2f2; }
td.pass { background: #e6f4e6; } td.fail { background: #f9dede; }
code { background: #f4f4f4; padding: 0 0.2em; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #555; }
h2 { border-bottom: 1px solid #ddd; margin-top: 2em; }
"""


def _html_link(target: str, docs: Path | None, paper: bool, pages: set[str]) -> str | None:
    """Rewrite a Markdown link of a docs page for the single HTML file: the report's own
    pages become anchors; another docs page becomes its path relative to the report's
    folder (it is copied there, :func:`_copy_pages`, and noted in ``pages``), so the
    links work wherever the folder is moved; a page that cannot be found keeps only its
    text (None)."""
    if re.match(r"^[a-z]+:", target) or target.startswith("#"):
        return target
    path, _, anchor = target.partition("#")
    m = re.match(r"^(?:\.\./)?papers/(\w+)\.md$", path) or (
        re.match(r"^(\w+)\.md$", path) if paper else None)
    if m and m.group(1) in _paper_keys():
        return f"#paper-{m.group(1)}" if not anchor else f"#{anchor}"
    if path in ("validation.md", "../validation.md"):
        return f"#{anchor}" if anchor else "#"
    rel = posixpath.normpath(posixpath.join("papers" if paper else "", path))
    if docs is None or rel.startswith("../") or not (docs / rel).is_file():
        return None
    pages.add(rel)
    return rel + (f"#{anchor}" if anchor else "")


def _copy_pages(pages: set[str], docs: Path | None, out: Path) -> None:
    """The docs pages the report links to, beside it (same relative paths as in docs/)."""
    if docs is None:
        return
    for rel in sorted(pages):
        source, target = docs / rel, out / rel
        if source.resolve() == target.resolve():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def _paper_keys() -> set[str]:
    from .papers import PAPER_PAGES

    return set(PAPER_PAGES)


def _html(doc: Document, papers: dict, header: str, docs: Path | None,
          pages: set[str]) -> str:
    """The report as one HTML page; the docs pages it links to are added to ``pages``."""
    def main(t):
        return _html_link(t, docs, False, pages)

    def paper(t):
        return _html_link(t, docs, True, pages)

    body = [f"<h1>{html.escape(doc.title)}</h1>",
            f"<p><em>{inline_html(header, main)}</em></p>",
            doc.html_body(main)]
    for key, pdoc in papers["documents"].items():
        body.append(f'<h2 id="paper-{key}">{html.escape(pdoc.title)}</h2>')
        # the page's own headings one level down
        body.append(pdoc.html_body(paper))
    return ("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><meta name='viewport' "
            "content='width=device-width, initial-scale=1'><title>fem validation "
            f"report</title><style>{_CSS}</style></head><body>\n" + "\n".join(body)
            + "\n</body></html>\n")


def write_report(outcomes: Sequence[Outcome], out: Path, meta: dict, papers: dict,
                 docs: Path | None = None) -> dict[str, Path]:
    """Write the report into ``out``; with ``docs`` also the Markdown twin, its PNGs and
    the paper pages into that docs folder.  Returns the main files written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    doc = report_document(outcomes, meta, papers)
    header = (f"Generated by `{meta['command']}` ({meta['set']} set) on {meta['date']}; "
              "do not edit by hand — the checks are data in `fem/validation/`, the "
              f"hand-kept part is [{NOTES_PAGE}]({NOTES_PAGE}).")
    paper_header = (f"Generated by `{meta['command']}` on {meta['date']}; do not edit by hand "
                    "— the rows are data in `fem/validation/papers.py`.")
    targets = [out] + ([Path(docs)] if docs is not None else [])
    for target in targets:
        images = target / "validation"
        if images.is_dir():
            shutil.rmtree(images)           # no stale plots of checks that are gone
        images.mkdir(parents=True)
        for o in outcomes:
            for p in (o.measurement.plots if o.measurement else []):
                (target / plot_file(o, p.name)).write_bytes(p.png)
        (target / "validation.md").write_text(doc.markdown(f"*{header}*"))
        (target / "papers").mkdir(exist_ok=True)
        for key, pdoc in papers["documents"].items():
            (target / "papers" / f"{key}.md").write_text(pdoc.markdown(f"*{paper_header}*"))
    source = Path(docs) if docs else _repo_docs()
    pages: set[str] = set()
    (out / "validation.html").write_text(_html(doc, papers, header, source, pages))
    _copy_pages(pages, source, out)     # the linked pages beside the report: links work
    record = {"date": meta["date"], "set": meta["set"], "seconds": round(meta["seconds"], 1),
              "machine": meta["machine"], "papers_source": papers["meta"]["source"],
              "checks": [o.summary() for o in outcomes], "warnings": papers["warnings"]}
    (out / "validation.json").write_text(json.dumps(record, indent=1) + "\n")
    return {"markdown": out / "validation.md", "html": out / "validation.html",
            "json": out / "validation.json"}


def _repo_docs() -> Path | None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    return docs if docs.is_dir() else None


def machine() -> str:
    """One line describing the machine and the numerical stack."""
    import numpy
    import scipy

    return (f"{platform.machine()}, {platform.system()}, Python {platform.python_version()}, "
            f"NumPy {numpy.__version__}, SciPy {scipy.__version__}")
