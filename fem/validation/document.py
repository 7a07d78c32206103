"""A small document model rendered twice: Markdown (the docs pages) and HTML (the report).

Blocks are headings, paragraphs, tables and images; text may use the Markdown subset
``code``, ``**bold**``, ``*italic*`` and ``[text](url)``, which the HTML renderer
translates.  Images are :class:`~fem.validation.registry.Plot` s: the Markdown links a PNG
file beside the page, the HTML embeds it as base64.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .registry import Plot

__all__ = ["Document", "slug", "inline_html"]


def slug(text: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces → '-'."""
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def _cell(value: Any) -> str:
    text = str(value).replace("\n", " ").replace("|", "\\|")
    return text if text else " "


@dataclass
class Document:
    """An ordered list of blocks (see the module docstring)."""

    title: str
    blocks: list[tuple] = field(default_factory=list)

    def heading(self, text: str, level: int = 2, anchor: str | None = None) -> None:
        """A heading (level 2 or deeper; the title is level 1)."""
        self.blocks.append(("h", level, text, anchor or slug(text)))

    def para(self, text: str) -> None:
        """A paragraph."""
        self.blocks.append(("p", text))

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[Any]],
              css_class: str | None = None) -> None:
        """A table; cells are converted with ``str``; ``css_class`` names it in HTML."""
        self.blocks.append(("table", list(headers), [list(r) for r in rows], css_class))

    def records(self, rows: Sequence[dict]) -> None:
        """A table from a list of dicts (the union of their keys, in first-seen order)."""
        if not rows:
            return
        headers = list(dict.fromkeys(k for r in rows for k in r))
        self.table(headers, [[r.get(h, "") for h in headers] for r in rows])

    def image(self, plot: Plot, file: str) -> None:
        """A plot; ``file`` is its path relative to the Markdown page."""
        self.blocks.append(("img", plot, file))

    def raw_markdown(self, text: str) -> None:
        """Markdown kept verbatim (a table produced elsewhere); HTML gets a <pre>."""
        self.blocks.append(("raw", text))

    # ---------------------------------------------------------------- renderers
    def markdown(self, header: str = "") -> str:
        """The page as Markdown; ``header`` goes right under the title."""
        out = [f"# {self.title}", ""]
        if header:
            out += [header, ""]
        for b in self.blocks:
            if b[0] == "h":
                out += ["#" * b[1] + " " + b[2], ""]
            elif b[0] == "p":
                out += [b[1], ""]
            elif b[0] == "table":
                out.append("| " + " | ".join(_cell(h) for h in b[1]) + " |")
                out.append("|" + "---|" * len(b[1]))
                out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in b[2]]
                out.append("")
            elif b[0] == "img":
                out += [f"![{b[1].caption}]({b[2]})", "", f"*{b[1].caption}*", ""]
            elif b[0] == "raw":
                out += [b[1], ""]
        return "\n".join(out).rstrip() + "\n"

    def html_body(self, link: Callable[[str], str] | None = None) -> str:
        """The blocks as an HTML fragment; ``link`` rewrites link targets."""
        out = []
        for b in self.blocks:
            if b[0] == "h":
                lvl = min(b[1] + 0, 6)
                out.append(f'<h{lvl} id="{html.escape(b[3])}">{_inline(b[2], link)}</h{lvl}>')
            elif b[0] == "p":
                out.append(f"<p>{_inline(b[1], link)}</p>")
            elif b[0] == "table":
                head = "".join(f"<th>{_inline(str(h), link)}</th>" for h in b[1])
                body = "".join("<tr>" + "".join(f"<td{_status_class(c)}>"
                                                f"{_inline(str(c), link)}</td>" for c in r)
                               + "</tr>" for r in b[2])
                css = f' class="{html.escape(b[3])}"' if len(b) > 3 and b[3] else ""
                out.append(f"<table{css}><thead><tr>{head}</tr></thead><tbody>{body}"
                           "</tbody></table>")
            elif b[0] == "img":
                data = base64.b64encode(b[1].png).decode("ascii")
                out.append(f'<figure><img alt="{html.escape(b[1].caption)}" '
                           f'src="data:image/png;base64,{data}"><figcaption>'
                           f"{_inline(b[1].caption, link)}</figcaption></figure>")
            elif b[0] == "raw":
                out.append(_markdown_table_html(b[1], link))
        return "\n".join(out)


def _status_class(cell: Any) -> str:
    text = str(cell)
    if text.startswith("**pass**") or text == "pass":
        return ' class="pass"'
    if text.startswith("**FAIL**") or text == "FAIL":
        return ' class="fail"'
    return ""


def _inline(text: str, link: Callable[[str], str | None] | None) -> str:
    """Markdown inline subset → HTML (escaped).  Code spans are set aside first, so that
    bold, italic and links may contain them (``**not rerun by `fem validate`**``);
    ``link`` rewrites a link's target, or returns None to keep only its text."""
    codes: list[str] = []
    pieces = []
    for part in re.split(r"(`[^`]*`)", text):
        if part.startswith("`") and part.endswith("`") and len(part) >= 2:
            codes.append(f"<code>{html.escape(part[1:-1])}</code>")
            pieces.append(f"\x00{len(codes) - 1}\x00")
        else:
            pieces.append(html.escape(part.replace("\x00", ""), quote=False))
    s = "".join(pieces)
    s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", s)

    def anchor(m: re.Match) -> str:
        target = html.unescape(m.group(2))
        target = link(target) if link else target
        if target is None:
            return m.group(1)
        return f'<a href="{html.escape(target)}">{m.group(1)}</a>'

    s = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", anchor, s)
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], s)


inline_html = _inline
"""The Markdown inline subset of a line of text as HTML (``link`` as for
:meth:`Document.html_body`)."""


def _markdown_table_html(text: str, link: Callable[[str], str] | None) -> str:
    """A Markdown pipe table (as the audit prints it) → an HTML table; other text → <p>."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) >= 2 and lines[0].startswith("|") and set(lines[1]) <= set("|-: "):
        def cells(ln: str) -> list[str]:
            return [c.strip() for c in re.split(r"(?<!\\)\|", ln.strip())[1:-1]]
        head = "".join(f"<th>{_inline(c, link)}</th>" for c in cells(lines[0]))
        body = "".join("<tr>" + "".join(f"<td>{_inline(c, link)}</td>" for c in cells(ln))
                       + "</tr>" for ln in lines[2:])
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return "".join(f"<p>{_inline(ln, link)}</p>" for ln in lines)
