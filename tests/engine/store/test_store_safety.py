"""A SQLite store file where uploads could be lost or misread is refused, naming the file
and the fix (engine.store._safety): a network file system (SQLite's WAL documentation:
every process on one machine), file locks that do not work, a folder this user cannot
write while others may write the file, a read-only file system with commits still in the
write-ahead log. Nothing is created or changed when a store is refused."""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_support import grid

from engine.cli import main
from engine.store import UnsafeStoreError, _connect, _safety, _store, open_store
from engine.store._viewer import open_viewer_store


@pytest.fixture(autouse=True)
def _fresh_checks() -> Iterator[None]:
    _safety.check_sqlite_file.cache_clear()
    yield
    _safety.check_sqlite_file.cache_clear()


def _forget(url: str) -> None:
    for key in (url, f"{url}#ro"):
        engine = _store._ENGINES.pop(key, None)
        if engine is not None:
            engine.dispose()


def _on_nfs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_safety, "_mount_of", lambda folder: ("/mnt/team", "nfs4"))
    _safety.check_sqlite_file.cache_clear()  # checked once per file and process


def test_a_local_store_opens_and_leaves_no_probe_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = open_store(url)
    store.import_frame(grid(["A", "B"], 3), filename="a.csv")
    store.close()
    _forget(url)
    assert sorted(p.name for p in tmp_path.iterdir() if "probe" in p.name) == []


def test_this_machines_file_systems_are_read_from_mountinfo(tmp_path: Path) -> None:
    mount = _safety._mount_of(tmp_path.resolve())
    if not Path("/proc/self/mountinfo").exists():
        pytest.skip("no /proc/self/mountinfo (not Linux)")
    assert mount is not None and str(tmp_path.resolve()).startswith(mount[0])
    assert mount[1] not in _safety.NETWORK_FILE_SYSTEMS


def test_a_store_on_a_network_file_system_is_refused(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _on_nfs(monkeypatch)
    path = tmp_path / "team" / "s.db"
    with pytest.raises(UnsafeStoreError) as caught:
        open_store(f"sqlite:///{path}")
    text = str(caught.value)
    assert str(path) in text and "nfs4" in text and "/mnt/team" in text
    assert "local disk" in text and "PostgreSQL" in text  # the fix
    assert not path.exists() and not path.parent.exists()  # nothing created


def test_file_locks_that_do_not_work_are_refused(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def no_locks(fd: int, op: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "lockf", no_locks)
    with pytest.raises(UnsafeStoreError, match=r"file locks do not work .*No locks available"):
        open_store(f"sqlite:///{tmp_path / 's.db'}")
    assert list(tmp_path.iterdir()) == []  # no store, and the scratch file removed


def test_a_lock_held_elsewhere_still_means_locks_work(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def busy(fd: int, op: int) -> None:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(fcntl, "lockf", busy)
    _safety.check_sqlite_file(tmp_path / "s.db", read_only=False)  # no error


def test_a_folder_this_user_cannot_write_on_a_writable_disk_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    open_store(url).import_frame(grid(["A", "B"], 3), filename="a.csv")
    _forget(url)
    # the tests run as root, who may write anything: the permission checks are replaced
    monkeypatch.setattr(_connect, "writable", lambda path: False)
    monkeypatch.setattr(_safety, "_can_write", lambda path: False)
    with pytest.raises(UnsafeStoreError, match="cannot be written by this user") as caught:
        open_store(url, create=False)
    assert "s.db-shm" in str(caught.value) and "write permission" in str(caught.value)
    with pytest.raises(UnsafeStoreError):
        open_viewer_store(url)
    _forget(url)


def test_a_read_only_file_system_opens_unless_its_log_holds_commits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.db"
    url = f"sqlite:///{path}"
    store = open_store(url)
    store.import_frame(grid(["A", "B"], 3), filename="a.csv")
    store.close()
    _forget(url)  # the last connection closes: the log is folded into the file
    monkeypatch.setattr(_connect, "writable", lambda path: False)
    monkeypatch.setattr(_safety, "_can_write", lambda path: False)
    monkeypatch.setattr(_safety, "_read_only_mount", lambda folder: True)
    ro = open_store(url, create=False)
    assert ro.read_only and len(ro.load_frame()) == 6
    ro.close()
    _forget(url)
    _safety.check_sqlite_file.cache_clear()
    (tmp_path / "s.db-wal").write_bytes(b"\0" * 32)  # commits not yet in the file
    with pytest.raises(UnsafeStoreError, match="write-ahead log s.db-wal holds commits"):
        open_store(url, create=False)


def test_the_command_line_refuses_with_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    open_store(url).import_frame(grid(["A", "B"], 3), filename="a.csv")
    _forget(url)
    _on_nfs(monkeypatch)
    assert main(["uploads", url]) == 2
    err = capsys.readouterr().err
    assert "network file system" in err and str(tmp_path / "s.db") in err


def test_serve_refuses_before_the_server_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    def started(*args: object) -> None:
        raise AssertionError("the server was started")

    _on_nfs(monkeypatch)
    monkeypatch.setattr(os, "execve", started)
    monkeypatch.delenv("SIGBOARD_DB_URL", raising=False)
    monkeypatch.setenv("SIGBOARD_DB_PATH", str(tmp_path / "s.db"))
    assert main(["serve"]) == 2
    assert "network file system" in capsys.readouterr().err
    assert not (tmp_path / "s.db").exists()


def test_import_refuses_the_store_s_own_files(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``import var/`` would read the store file in the process that holds it open, and
    closing that descriptor drops the process's locks on it: refused before anything opens."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    open_store(url).import_frame(grid(["A", "B"], 3), filename="a.csv")
    _forget(url)
    before = (tmp_path / "s.db").read_bytes()
    assert main(["import", str(tmp_path), "--db", url]) == 2
    assert "holds" in capsys.readouterr().err
    assert main(["import", str(tmp_path / "s.db"), "--db", url]) == 2
    assert "the results store's own file" in capsys.readouterr().err
    assert (tmp_path / "s.db").read_bytes() == before
