"""Where a SQLite store file cannot keep its data safe, and the refusal that says so.

SQLite's write-ahead log (the store's journal mode) relies on two things of the file
system holding the database: POSIX advisory locks that work, and one machine's shared
memory for the ``-shm`` index ("Write-Ahead Logging", sections 2 and 8 of SQLite's
documentation: WAL does not work over a network file system). Where either is missing, a
process that believes it is the last one checkpoints and deletes a ``-wal`` file another
process still writes to, and those commits are lost. A reader that cannot create the
``-shm`` file (a folder it cannot write) could only open the file as immutable, which
reads without any lock and ignores the ``-wal``: it would show another process's writes
torn or not at all. Each case is refused, once per file and process, with the file and
the fix.
"""

from __future__ import annotations

import errno
import fcntl
import os
from functools import cache
from pathlib import Path

__all__ = ["UnsafeStoreError", "check_sqlite_file", "check_sqlite_store"]

#: File systems on which SQLite's WAL mode is unsafe: the database is shared between
#: machines (no shared memory for ``-shm``; locks, if any, per machine or advisory only).
NETWORK_FILE_SYSTEMS = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "afs", "ceph", "glusterfs", "fuse.glusterfs",
    "lustre", "gpfs", "beegfs", "ocfs2", "gfs2", "fuse.sshfs", "sshfs", "davfs",
    "fuse.davfs2", "fuse.s3fs", "fuse.rclone", "fuse.gcsfuse", "fuse.juicefs"})
_FIX = ("put the store on a local disk (SIGBOARD_DB_PATH=/path/on/local/disk/sigboard.db, or "
        "sqlite:///… on the command line) or use PostgreSQL (SIGBOARD_DB_URL=postgresql://…)")


class UnsafeStoreError(ValueError):
    """A SQLite store file where SQLite could lose or misread committed uploads."""


def _mount_of(folder: Path) -> tuple[str, str] | None:
    """``(mount point, file system type)`` of the folder, from /proc/self/mountinfo (Linux);
    None elsewhere."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    best: tuple[str, str] | None = None
    text = str(folder)
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(fields) < 5 or not rest:
            continue
        point = fields[4].replace("\\040", " ")
        inside = text == point or text.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best[0])):
            best = (point, rest[0])
    return best


def _locks_work(folder: Path, name: str) -> str | None:
    """None when an exclusive POSIX lock can be taken on a scratch file in ``folder``, else
    the error. Never on the database or its ``-wal``/``-shm``: closing a descriptor of those
    would drop the locks this process's SQLite connections hold on them."""
    probe = folder / f".{name}.lock-probe-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return None  # cannot create a scratch file: SQLite's own open says what is wrong
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return None
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return None  # held by somebody: locks work
        return f"{exc.strerror or exc} (errno {exc.errno})"
    finally:
        os.close(fd)
        probe.unlink(missing_ok=True)


@cache
def check_sqlite_file(path: Path, *, read_only: bool) -> None:
    """Raise :class:`UnsafeStoreError` when the SQLite store at ``path`` (existing or to be
    created) could lose or misread committed uploads there (see the module docstring)."""
    path = path.resolve()
    folder = path.parent
    mount = _mount_of(folder)
    if mount is not None and mount[1] in NETWORK_FILE_SYSTEMS:
        raise UnsafeStoreError(
            f"{path}: the results store is on a network file system ({mount[1]} mounted at "
            f"{mount[0]}); SQLite's write-ahead log needs every process on one machine, with "
            f"working file locks, or uploads can be lost. Fix: {_FIX}")
    if folder.is_dir() and _can_write(folder):
        broken = _locks_work(folder, path.name)
        if broken is not None:
            raise UnsafeStoreError(
                f"{path}: file locks do not work in {folder} ({broken}); without them SQLite "
                f"cannot keep two processes from deleting each other's uncommitted log, and "
                f"uploads can be lost. Fix: {_FIX}")
        return
    if not read_only or not path.exists():
        return  # creating or writing: SQLite's own error names the folder
    wal = path.with_name(path.name + "-wal")
    if not _read_only_mount(folder):
        raise UnsafeStoreError(
            f"{path}: its folder {folder} cannot be written by this user, so SQLite cannot "
            f"create the lock files ({path.name}-shm) it needs to read the store safely "
            f"while another process writes it. Fix: give this user write permission on "
            f"{folder}, read a copy of the file, or use PostgreSQL (SIGBOARD_DB_URL=…)")
    if wal.exists() and wal.stat().st_size > 0:
        raise UnsafeStoreError(
            f"{path}: it is on a read-only file system and its write-ahead log {wal.name} "
            f"holds commits not yet in the file, which SQLite cannot read there. Fix: open "
            f"the store once where it can be written (any sigboard command folds the log "
            f"into the file when it closes), then mount it read-only again")


def check_sqlite_store(path: Path) -> None:
    """:func:`check_sqlite_file` for the store file as :func:`~engine.store.open_store` would
    open it (read-only when this user cannot write it or its folder)."""
    read_only = path.exists() and not (_can_write(path) and _can_write(path.parent))
    check_sqlite_file(path, read_only=read_only)


def _can_write(folder: Path) -> bool:
    return os.access(folder, os.W_OK)


def _read_only_mount(folder: Path) -> bool:
    """Whether the file system holding ``folder`` is mounted read-only (nobody writes it)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False
