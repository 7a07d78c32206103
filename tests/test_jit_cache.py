"""Stale numba disk caches are dropped when the package's sources change
(:func:`fem.core.jit.drop_stale_caches`): numba keys a cached kernel on its own file
only, so a kernel that inlines another file's kernel would keep its old code."""

from __future__ import annotations

import os

from fem.core.jit import STAMP, drop_stale_caches


def _caches(root):
    cache = root / "sub" / "__pycache__"
    cache.mkdir(parents=True, exist_ok=True)
    for name in ("k.evaluate-10.py311.nbi", "k.evaluate-10.py311.1.nbc"):
        (cache / name).write_bytes(b"x")
    (cache / "k.cpython-311.pyc").write_bytes(b"x")       # not numba's: kept


def test_caches_go_when_a_source_changes_and_stay_otherwise(tmp_path):
    (tmp_path / "sub").mkdir()
    src = tmp_path / "sub" / "k.py"
    src.write_text("x = 1\n")
    _caches(tmp_path)
    assert drop_stale_caches(tmp_path) == 2           # no stamp yet: unknown age
    assert (tmp_path / "__pycache__" / STAMP).is_file()
    assert (tmp_path / "sub" / "__pycache__" / "k.cpython-311.pyc").is_file()
    _caches(tmp_path)
    assert drop_stale_caches(tmp_path) == 0           # nothing changed: kept
    assert len(list(tmp_path.rglob("*.nb[ic]"))) == 2
    st = src.stat()
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))   # an edit
    assert drop_stale_caches(tmp_path) == 2
    assert not list(tmp_path.rglob("*.nb[ic]"))
    (tmp_path / "sub" / "new.py").write_text("y = 2\n")                  # a new file
    _caches(tmp_path)
    assert drop_stale_caches(tmp_path) == 2
