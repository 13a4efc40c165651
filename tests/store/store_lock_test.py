"""The store lock: exclusive between processes, and bounded for hooks."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from rewind.store.repository import StoreBusy, StoreLock

HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def hold(path: Path, seconds: float) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline() == "held\n"
    return process


def test_a_bounded_wait_gives_up_with_a_clear_error(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    holder = hold(lock, 5)
    started = time.monotonic()
    with pytest.raises(StoreBusy, match="gave up after waiting"), StoreLock(str(lock), timeout=0.3):
        pass
    assert 0.25 < time.monotonic() - started < 3
    holder.kill()
    holder.wait()


def test_a_bounded_wait_gets_the_lock_once_released(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    holder = hold(lock, 0.3)
    with StoreLock(str(lock), timeout=10) as held:
        assert held.fd >= 0
    holder.wait()


def test_the_lock_is_released_when_its_holder_dies(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    holder = hold(lock, 60)
    holder.kill()
    holder.wait()
    with StoreLock(str(lock), timeout=1):
        pass
