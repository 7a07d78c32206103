"""Where the folders that ship beside the package are: ``cases/`` and ``meshes/``.

In a checkout (or an editable install) they sit next to the ``fem`` package; an
installed wheel puts them in the installation's data folder, ``<prefix>/share/fem/``
(``[tool.setuptools.data-files]`` of ``pyproject.toml``).
"""

from __future__ import annotations

import site
import sys
import sysconfig
from pathlib import Path

__all__ = ["bundled_dir", "bundled_candidates"]


def bundled_candidates(name: str) -> list[Path]:
    """The places a shipped folder ``name`` may be, in order: beside the package, then
    the data folders of this Python's installation schemes."""
    out = [Path(__file__).resolve().parents[2] / name]
    prefixes = [sysconfig.get_path("data"), sys.prefix, sys.base_prefix,
                getattr(site, "USER_BASE", None)]
    for p in prefixes:
        if p:
            d = Path(p) / "share" / "fem" / name
            if d not in out:
                out.append(d)
    return out


def bundled_dir(name: str) -> Path:
    """The first existing of :func:`bundled_candidates` (the first candidate when none
    exists, for messages)."""
    cands = bundled_candidates(name)
    for d in cands:
        if d.is_dir():
            return d
    return cands[0]
