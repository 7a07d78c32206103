"""The literature the cases reproduce and the methods rest on, as data.

Every text the program shows a user (``fem info``, ``fem list``, ``summary.json``, the
docs and the validation report) cites a paper through this table — authors, title,
journal, year, DOI — never through a file name.  ``docs/references.md`` lists the same
entries.

>>> from fem.validation.citations import cite
>>> cite("liu2023")[:40]
'Liu L., Wang B., Feng J., Zhao X. (2023)'
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Citation:
    """One publication.

    Attributes
    ----------
    key : str
        Short handle used in code and docs (``"liu2023"``).
    authors : tuple of str
        Family name and initials, in the paper's order.
    title : str
        English title as printed in the paper's English abstract.
    journal : str
        Journal, volume(issue) and pages where known.
    year : int
    doi : str or None
        ``None`` where the paper prints none; ``article`` then identifies it.
    article : str
        The journal's article number, where it prints one.
    note : str
        What the framework takes from it.
    """

    key: str
    authors: tuple[str, ...]
    title: str
    journal: str
    year: int
    doi: str | None = None
    article: str = ""
    note: str = ""

    def text(self) -> str:
        """One-line reference: ``Authors (year). Title. Journal. DOI``."""
        ident = f"doi:{self.doi}" if self.doi else (f"article {self.article}"
                                                     if self.article else "")
        tail = f" {ident}." if ident else ""
        return (f"{', '.join(self.authors)} ({self.year}). {self.title}. "
                f"{self.journal}.{tail}")

    def short(self) -> str:
        """Author–year handle: ``Liu et al. (2023)``."""
        first = self.authors[0].split()[0]
        more = " et al." if len(self.authors) > 2 else (
            f" and {self.authors[1].split()[0]}" if len(self.authors) == 2 else "")
        return f"{first}{more} ({self.year})"


_CSAM = "Transactions of the Chinese Society for Agricultural Machinery"

PAPERS: dict[str, Citation] = {c.key: c for c in (
    Citation("liu2023", ("Liu L.", "Wang B.", "Feng J.", "Zhao X."),
             "Dynamic modeling method of parallel robot with flexible moving platform",
             f"{_CSAM}, 54(12): 417-430", 2023,
             doi="10.6041/j.issn.1000-1298.2023.12.041",
             note="3-RRRU robot with a Bézier-triangle ANCF thick-plate platform "
                  "(the flagship case)"),
    Citation("liu2018", ("Liu L.", "Zhao X.", "Zhou H.", "Wang J."),
             "Dynamic solution for spatial rigid-flexible parallel robot",
             f"{_CSAM}, 49(2): 376-384", 2018, article="1000-1298(2018)02-0376-09",
             note="3-RRRU robot with flexible ANCF links; transient kinematic "
                  "correction"),
    Citation("fan2016", ("Fan J.", "Zhang D."),
             "Dynamic modeling and simulation of flexible robots based on different "
             "discretization methods",
             "Chinese Journal of Theoretical and Applied Mechanics, 48(4): 843-856", 2016,
             doi="10.6052/0459-1879-16-163",
             note="floating-frame links with assumed-mode, FE, Bézier and B-spline "
                  "bases; spin-up beam and falling arms"),
    Citation("ma2010", ("Ma Z.", "Mei T."),
             "Study on the dynamic modeling of a complex flexible hydraulic robot system "
             "carried by vehicle",
             "China Mechanical Engineering, 21(2): 131-136", 2010,
             article="1004-132X(2010)02-0131-06",
             note="vehicle manipulator by component-mode synthesis"),
    Citation("shen2021", ("Shen H.", "Xiao S.", "You J.", "Yang T."),
             "Dynamic modeling and precision analysis of parallel vibrating screen with "
             "one-translation and two-rotation",
             f"{_CSAM}, 52(2): 394-400", 2021,
             doi="10.6041/j.issn.1000-1298.2021.02.039",
             note="1T2R parallel vibrating screen; Newton-Euler against Lagrange"),
)}

LITERATURE: dict[str, Citation] = {c.key: c for c in (
    Citation("chung1993", ("Chung J.", "Hulbert G. M."),
             "A time integration algorithm for structural dynamics with improved "
             "numerical dissipation: the generalized-alpha method",
             "Journal of Applied Mechanics, 60(2): 371-375", 1993,
             doi="10.1115/1.2900803", note="generalized-α time integration"),
    Citation("craig1968", ("Craig R. R.", "Bampton M. C. C."),
             "Coupling of substructures for dynamic analyses",
             "AIAA Journal, 6(7): 1313-1319", 1968, doi="10.2514/3.4741",
             note="component modes of the reduced bodies"),
    Citation("arnold2007", ("Arnold M.", "Brüls O."),
             "Convergence of the generalized-α scheme for constrained mechanical systems",
             "Multibody System Dynamics, 18(2): 185-202", 2007,
             doi="10.1007/s11044-007-9084-0",
             note="the index-3 generalized-α scheme of the dynamic solver"),
    Citation("kane1987", ("Kane T. R.", "Ryan R. R.", "Banerjee A. K."),
             "Dynamics of a cantilever beam attached to a moving base",
             "Journal of Guidance, Control, and Dynamics, 10(2): 139-151", 1987,
             note="the spin-up beam (the first example of Fan and Zhang, 2016)"),
    Citation("idelsohn1985", ("Idelsohn S. R.", "Cardona A."),
             "A reduction method for nonlinear structural dynamic analysis",
             "Computer Methods in Applied Mechanics and Engineering, 49(3): 253-279",
             1985, doi="10.1016/0045-7825(85)90125-2",
             note="modal derivatives (not implemented; cited for the reduced spinning "
                  "beam)"),
)}

ALL: dict[str, Citation] = {**PAPERS, **LITERATURE}

USES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "liu2023": (("parallel_robot_flexible_platform", "plate_benchmark"),
                ("fem/robots/rrru3.py", "fem/robots/rrru3_model.py",
                 "fem/elements/bezier_plate/", "fem/model/trajectory.py",
                 "fem/model/actuators.py")),
    "liu2018": (("parallel_robot_flexible_links", "cantilever_beam"),
                ("fem/robots/rrru3_flexible_links.py", "fem/elements/ancf_beam.py",
                 "fem/solvers/dynamic.py (kinematic correction)")),
    "fan2016": (("spinup_beam", "two_link_arm_fall", "five_link_arm_fall"),
                ("fem/bases/", "fem/bodies/chains.py", "fem/bodies/floating_frame.py",
                 "fem/elements/floating_frame.py")),
    "ma2010": (("vehicle_manipulator_cms",),
               ("fem/reduction/", "fem/bodies/frames.py")),
    "shen2021": (("vibrating_screen_1t2r",), ("fem/rigid/",)),
    "chung1993": ((), ("fem/solvers/dynamic.py",)),
    "arnold2007": ((), ("fem/solvers/dynamic.py",)),
    "kane1987": (("spinup_beam",), ("fem/references/beams.py",)),
    "craig1968": (("vehicle_manipulator_cms",),
                  ("fem/reduction/craig_bampton.py", "fem/bodies/reduced.py")),
    "idelsohn1985": ((), ("docs/reduced_bodies.md",)),
}
"""Where each entry is used: ``key -> (cases, library files)``; ``docs/references.md``
lists them, and a case that cites a paper (its ``REFERENCES``) is among its cases."""


def cite(key: str) -> str:
    """Full one-line reference of ``key`` (see :data:`ALL`).

    Raises
    ------
    KeyError
        With the known keys, when ``key`` is not one of them.
    """
    try:
        return ALL[key].text()
    except KeyError:
        raise KeyError(f"unknown citation {key!r}; known: {sorted(ALL)}") from None


def short(key: str) -> str:
    """Author–year handle of ``key``: ``short("liu2023") == "Liu et al. (2023)"``.

    Raises
    ------
    KeyError
        With the known keys, when ``key`` is not one of them.
    """
    try:
        return ALL[key].short()
    except KeyError:
        raise KeyError(f"unknown citation {key!r}; known: {sorted(ALL)}") from None


def _entry(c: Citation) -> list[str]:
    cases, code = USES.get(c.key, ((), ()))
    link = (f" [doi:{c.doi}](https://doi.org/{c.doi})" if c.doi
            else (f" Article number {c.article}." if c.article else ""))
    lines = [f'### <a id="{c.key}"></a>{c.short()}', "",
             f"{', '.join(c.authors)} ({c.year}). *{c.title}*. {c.journal}.{link}", "",
             f"Key `{c.key}`. {c.note[:1].upper()}{c.note[1:]}."]
    if cases:
        lines.append("Cases: " + ", ".join(f"`{x}`" for x in cases) + ".")
    if code:
        lines.append("Code: " + ", ".join(f"`{x}`" for x in code) + ".")
    return lines + [""]


def markdown() -> str:
    """The text of ``docs/references.md``: every entry of :data:`PAPERS` and
    :data:`LITERATURE` with its citation, what the framework takes from it and where
    (:data:`USES`).  ``tests/test_citations.py`` checks the committed page against it;
    regenerate with ``python -c "import fem.citations as c; print(c.markdown(), end='')"
    > docs/references.md``."""
    lines = ["# References", "",
             "<!-- generated by fem.citations.markdown(); edit fem/validation/citations.py -->", "",
             "The cases reproduce the examples of five papers; the docs, `fem info` and "
             "each run's `summary.json` (`references`) cite them by author and year, "
             "e.g. \"eq. 45 of Liu et al. (2023)\". In code the key (`liu2023`) names "
             "an entry: `fem.citations.cite(\"liu2023\")` gives the full reference.", "",
             "## Papers the cases reproduce", ""]
    for c in PAPERS.values():
        lines += _entry(c)
    lines += ["## Method literature", ""]
    for c in LITERATURE.values():
        lines += _entry(c)
    return "\n".join(lines).rstrip("\n") + "\n"
