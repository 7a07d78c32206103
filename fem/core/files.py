"""Writing files so that a kill, a full disk or a second writer leaves nothing misleading.

* :func:`atomic_write_text` / :func:`temporary_path` — a file appears under its final name
  only when complete; the temporary name is private to the writing process (its pid), so
  two runs into one folder never share one.
* :func:`writer` and :func:`process_alive` — who is writing (pid, host, process start
  time), recorded in ``summary.json`` and a streamed result's ``meta.json``, so a later
  reader can tell a run still going from one that died without a word (SIGKILL, power
  loss): :func:`run_status`.
* :class:`OutputLock` — one run per output folder: a second ``fem run`` into the same
  ``--out`` is refused with a message naming the run that holds it.
* :func:`overwrite_in_place` — the last resort when the disk is full: a status written
  over the bytes of an existing file, which needs no new block.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from pathlib import Path

from .errors import ModelError

__all__ = ["temporary_path", "atomic_write_text", "writer", "process_alive", "run_status",
           "OutputLock", "overwrite_in_place", "writable_folder", "LOCK_NAME"]

LOCK_NAME = ".fem.lock"


def temporary_path(path: str | Path, keep_suffix: bool = False) -> Path:
    """A hidden name beside ``path`` private to this process: ``.name.<pid>.tmp``, or with
    ``keep_suffix`` ``.stem.<pid>.partial.mp4`` (writers that choose the format by
    extension, such as ffmpeg)."""
    path = Path(path)
    if keep_suffix:
        return path.with_name(f".{path.stem}.{os.getpid()}.partial{path.suffix}")
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to a private temporary file and rename it to ``path``; on failure
    (a full disk) the temporary file is removed and ``path`` keeps its old content."""
    path = Path(path)
    tmp = temporary_path(path)
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def overwrite_in_place(path: str | Path, text: str) -> bool:
    """Write ``text`` over the start of an existing file and cut it there (JSON allows the
    trailing blanks a padded file may keep).  Needs no new disk block when ``text`` is not
    longer than the file, so it works on a full disk; returns False if it could not."""
    path = Path(path)
    data = text.encode()
    try:
        if not path.is_file() or path.stat().st_size < len(data):
            return False
        with open(path, "r+b") as fh:
            fh.write(data)
            fh.truncate(len(data))
        return True
    except OSError:
        return False


def _short(path: Path) -> str:
    s = str(path)
    return s if len(s) <= 120 else s[:60] + " … " + s[-40:]


def writable_folder(path: str | Path, what: str = "--out") -> Path:
    """``path`` as a folder this process can write into: made if missing, probed with a
    small file.  A file in its place, a read-only place, a full disk or a name too long
    for the filesystem is a :class:`~fem.ModelError` saying so, before any work."""
    path = Path(path)
    try:
        if path.exists() and not path.is_dir():
            raise ModelError(f"{what} {_short(path)} is a file, not a folder; choose a "
                             "folder name")
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".fem_write_test"
        probe.write_text("ok")
        probe.unlink(missing_ok=True)       # another run may have removed it
    except OSError as err:
        raise ModelError(f"cannot write into {_short(path)} ({what}): "
                         f"{err.strerror or err}; choose another folder") from None
    return path


# ---------------------------------------------------------------------- processes
def _start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (Linux), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    try:
        return int(fields[19])      # field 22 of stat, counted after "pid (comm)"
    except (IndexError, ValueError):
        return None


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:][:1] == "Z"


def writer() -> dict:
    """This process as a writer: ``pid``, ``host`` and (Linux) ``pid_start``."""
    out = {"pid": os.getpid(), "host": socket.gethostname()}
    start = _start_time(os.getpid())
    if start is not None:
        out["pid_start"] = start
    return out


def process_alive(info: dict) -> bool | None:
    """Whether the writer ``info`` (from :func:`writer`) still runs: True, False, or None
    when this cannot be told (another host, no pid recorded)."""
    pid = info.get("pid")
    if not isinstance(pid, int) or pid <= 0 or info.get("host") != socket.gethostname():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass                        # exists, owned by someone else
    except OSError:
        return None
    if _zombie(pid):
        return False
    start = info.get("pid_start")
    if start is not None and _start_time(pid) not in (None, start):
        return False                # the pid was reused by another process
    return True


def run_status(folder: str | Path) -> dict:
    """The status of the run that wrote ``folder`` (its ``summary.json``): the summary's
    ``status`` — or ``"died"`` when it says "running" but its writer no longer exists —
    with ``detail``, a sentence for the user.  ``{"status": None}`` without a summary."""
    path = Path(folder) / "summary.json"
    try:
        summary = json.loads(path.read_text())
    except (OSError, ValueError):
        return {"status": None, "detail": ""}
    if not isinstance(summary, dict):
        return {"status": None, "detail": ""}
    status = summary.get("status")
    if status != "running":
        return {"status": status, "detail": summary.get("error", "") or ""}
    alive = process_alive(summary)
    who = f"process {summary.get('pid')} on {summary.get('host')}"
    if alive is False:
        return {"status": "died", "detail": f"the run that wrote {folder} died without "
                f"finishing ({who} no longer exists); what it recorded before is kept"}
    if alive is None:
        return {"status": "running", "detail": f"summary.json says running ({who}; cannot "
                "tell from this host whether it still does)"}
    return {"status": "running", "detail": f"the run is still going ({who})"}


class OutputLock:
    """One writer per output folder: ``folder/.fem.lock`` holds the writer's identity.

    Re-entrant within a process (``fem run`` holds it while ``run_case`` does too).  A
    lock whose writer died (a killed run) is taken over.  A live writer's lock makes
    :meth:`acquire` raise :class:`~fem.ModelError` naming it.
    """

    _held: dict[str, int] = {}

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self._key = str(self.path.resolve())

    def acquire(self) -> OutputLock:
        if self._held.get(self._key):
            self._held[self._key] += 1
            return self
        me = json.dumps(writer())
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                try:
                    other = json.loads(self.path.read_text() or "{}")
                except (OSError, ValueError):
                    other = {}
                alive = process_alive(other) if other else False
                if alive is False or (other.get("pid") == os.getpid()
                                      and other.get("host") == socket.gethostname()):
                    with contextlib.suppress(OSError):
                        self.path.unlink()      # a dead run's lock (or ours, leaked)
                    continue
                who = (f"process {other.get('pid')} on {other.get('host')}" if other
                       else "another run")
                raise ModelError(f"{self.folder} is in use: another fem run ({who}) is "
                                 f"writing into it; wait for it to finish or choose another "
                                 f"--out folder (remove {self.path} only if no such run "
                                 "exists)") from None
            except OSError as err:
                raise ModelError(f"cannot write into {self.folder}: "
                                 f"{err.strerror or err}") from None
            with os.fdopen(fd, "w") as fh:
                fh.write(me)
            self._held[self._key] = 1
            return self
        raise ModelError(f"{self.folder}: cannot take the lock {self.path}")

    def release(self) -> None:
        n = self._held.get(self._key, 0)
        if n > 1:
            self._held[self._key] = n - 1
            return
        self._held.pop(self._key, None)
        with contextlib.suppress(OSError):
            self.path.unlink()

    def __enter__(self) -> OutputLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
