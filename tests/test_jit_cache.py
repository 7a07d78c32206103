"""The kernels' path and cache (:mod:`fem.core.jit`): one path per process, decided by
whether the kernels are compiled already; compiled code in the user's cache, keyed on
the content of the sources a kernel compiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fem
import fem.cases
from fem.core import jit


@pytest.fixture
def fresh_state(monkeypatch, tmp_path):
    """An undecided process with an empty cache of its own and no background compile."""
    monkeypatch.setattr(jit, "_state", {**jit._state, "path": None, "background": None,
                                        "why": None})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("FEM_JIT_BACKGROUND", "0")
    monkeypatch.delenv("FEM_NO_JIT", raising=False)
    return tmp_path / "cache" / "fem"


def test_the_cache_is_the_users_never_the_source_tree(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert jit.cache_dir() == tmp_path / "fem"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert jit.cache_dir() == Path.home() / ".cache" / "fem"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "nb"))
    assert jit.cache_dir() == tmp_path / "nb" / "fem"
    assert jit.PACKAGE not in jit.cache_dir().parents


def test_stamps_follow_content_and_what_a_kernel_calls_into(monkeypatch):
    """A kernel file's key changes with its content and with that of the kernel files it
    calls into, not with a file's time or with files it does not call."""
    contents = {f: f"# {f}\n".encode() for f in jit.KERNEL_SOURCES}
    monkeypatch.setattr(jit, "_content", lambda rel: contents[rel])
    loop = jit.PACKAGE / "solvers/constant_kernels.py"
    chain = jit.PACKAGE / "bodies/chain_kernels.py"
    before = {p: jit.source_stamp(p) for p in (loop, chain)}
    contents["solvers/corotation.py"] += b"x = 1\n"        # called by neither
    assert {p: jit.source_stamp(p) for p in (loop, chain)} == before
    contents["elements/floating_frame.py"] += b"x = 1\n"   # chain ← bodies ← loop
    after = {p: jit.source_stamp(p) for p in (loop, chain)}
    assert all(after[p] != before[p] for p in (loop, chain))


def test_two_versions_of_a_kernel_keep_their_compiled_code_apart(monkeypatch, tmp_path):
    """Compiled code goes to a folder of its sources' content: two checkouts of the
    package whose kernel sources differ (a user's two environments, a branch beside
    main) do not overwrite each other's cache index — which made each recompile every
    kernel, minutes, in the middle of a run that had found its kernels ready."""
    numba = pytest.importorskip("numba")
    from numba.core import caching

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    jit._install_locator(numba)
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    locator = next(c for c in impl._locator_classes if getattr(c, "_fem", False))

    def fn():                     # the locator reads a kernel's first line only
        return None

    file = jit.PACKAGE / "elements/kernels.py"
    contents = {f: f"# {f}\n".encode() for f in jit.KERNEL_SOURCES}
    monkeypatch.setattr(jit, "_content", lambda rel: contents[rel])
    first = locator(fn, str(file)).get_cache_path()
    contents["elements/kernels.py"] += b"x = 1\n"
    second = locator(fn, str(file)).get_cache_path()
    assert first != second
    for p in (first, second):
        assert Path(p).is_relative_to(tmp_path / "fem" / "kernels")


def test_every_kernel_file_is_known_and_its_calls_declared():
    """Every file with ``@compiled`` or ``njit`` is a kernel source, and every kernel
    file it imports from inside the package is declared in :data:`fem.core.jit.INLINES`
    (a change there then recompiles it)."""
    found = set()
    for f in jit.PACKAGE.rglob("*.py"):
        text = f.read_text()
        if "@compiled" in text or ".njit(" in text:
            found.add(f.relative_to(jit.PACKAGE).as_posix())
    found.discard("core/jit.py")
    assert found == set(jit.KERNEL_SOURCES)
    for rel in jit.KERNEL_SOURCES:
        text = (jit.PACKAGE / rel).read_text()
        for other in jit.KERNEL_SOURCES:
            mod = Path(other).with_suffix("").as_posix().replace("/", ".")
            name = mod.rsplit(".", 1)[1]
            same_pkg = Path(other).parent == Path(rel).parent
            imported = (f"..{mod} import" in text
                        or (same_pkg and f"from .{name} import" in text))
            if other != rel and imported and "_kernel" in text:
                assert other in jit._closure(rel), (rel, other)


def test_a_process_without_compiled_kernels_runs_numpy_and_keeps_to_it(fresh_state,
                                                                          monkeypatch):
    monkeypatch.setenv("FEM_JIT", "auto")
    assert not jit.kernels_ready()
    assert jit.path() == "numpy" and jit.numba_module() is None
    jit.mark_ready()                                  # compiled meanwhile (background)
    assert jit.kernels_ready()
    assert jit.path() == "numpy"                      # one path per process


def test_ready_kernels_give_the_compiled_path(fresh_state, monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setenv("FEM_JIT", "auto")
    jit.mark_ready()
    assert (fresh_state / "ready").is_dir()
    assert jit.path() == "compiled" and jit.numba_module() is not None


def test_the_environment_chooses(fresh_state, monkeypatch):
    monkeypatch.setenv("FEM_NO_JIT", "1")
    monkeypatch.setenv("FEM_JIT", "compiled")
    assert jit.path() == "numpy"
    monkeypatch.setattr(jit, "_state", {**jit._state, "path": None})
    monkeypatch.delenv("FEM_NO_JIT")
    monkeypatch.setenv("FEM_JIT", "numpy")
    jit.mark_ready()
    assert jit.path() == "numpy"


def test_no_background_compile_when_switched_off_or_one_runs(fresh_state, monkeypatch):
    assert not jit.start_background_compile()               # FEM_JIT_BACKGROUND=0
    monkeypatch.setattr(jit, "_state", {**jit._state, "background": None})
    monkeypatch.setenv("FEM_JIT_BACKGROUND", "1")
    fresh_state.mkdir(parents=True)
    (fresh_state / "compile.lock").write_text(f"{os.getpid()}\n")   # a live holder
    assert not jit.start_background_compile()
    with jit.compile_lock() as mine:
        assert mine                                         # its own pid: taken
    assert not (fresh_state / "compile.lock").exists()
    jit.mark_failed("a warm-up failed")                     # not again for these sources
    monkeypatch.setattr(jit, "_state", {**jit._state, "background": None})
    assert not jit.start_background_compile()


def test_compile_time_is_counted_apart(monkeypatch):
    """Compiling moves :func:`fem.core.jit.compile_seconds`, and :func:`clock` stands
    still meanwhile."""
    numba = pytest.importorskip("numba")
    with jit.use_path("compiled"):
        jit._import_numba()

        @numba.njit
        def twice(x):   # pragma: no cover - jit
            return 2 * x

        c0, t0 = jit.compile_seconds(), jit.clock()
        events = []
        remove = jit.on_compile(lambda e, s: events.append(e))
        try:
            assert twice(3.0) == 6.0
        finally:
            remove()
        took = jit.compile_seconds() - c0
        assert took > 0 and events[0] == "start" and events[-1] == "end"
        assert jit.clock() - t0 < took


def test_a_run_too_short_for_the_kernels_takes_numpy_where_the_choice_is_open(fresh_state,
                                                                             monkeypatch):
    # a case with KERNELS = "numpy" (fem.cases.run_case asks for it) takes the NumPy path
    # though the kernels are ready, and says why; FEM_JIT=compiled still forces them, and
    # a path already taken is kept (one path per process)
    pytest.importorskip("numba")
    monkeypatch.setenv("FEM_JIT", "auto")
    jit.mark_ready()
    assert jit.prefer_numpy("short") and jit.path() == "numpy" and jit.why() == "short"
    monkeypatch.setattr(jit, "_state", {**jit._state, "path": None, "why": None})
    monkeypatch.setenv("FEM_JIT", "compiled")
    assert not jit.prefer_numpy("short") and jit.path() == "compiled" and jit.why() is None
    monkeypatch.setattr(jit, "_state", {**jit._state, "path": None, "why": None})
    monkeypatch.setenv("FEM_JIT", "auto")
    assert jit.path() == "compiled" and not jit.prefer_numpy("late")
    assert jit.path() == "compiled"


def test_the_cases_declaring_numpy_kernels_are_read_and_checked(monkeypatch):
    from fem.cases import load_case

    assert load_case("cantilever_beam").KERNELS == "numpy"
    case = load_case("double_pendulum")
    monkeypatch.setattr(case, "KERNELS", "fast", raising=False)
    with pytest.raises(fem.ModelError, match="KERNELS must be 'auto' or 'numpy'"):
        fem.cases.run_case("double_pendulum", {}, None, render=False, progress=False)
