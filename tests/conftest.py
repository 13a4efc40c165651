"""Shared fixtures: every test runs with a temporary home and rewind home, and a real project."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No test reads or writes the real home directory or the real rewind store."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("REWIND_HOME", str(home / "rewind-home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("REWIND_SESSION", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    # git's own identity and config, for tests that make real repositories.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.com")
    yield home


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git work tree, made the current directory."""
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


class RewindResult:
    def __init__(self, completed: subprocess.CompletedProcess[str]) -> None:
        self.returncode = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr

    def __repr__(self) -> str:
        return f"<rc={self.returncode} stdout={self.stdout!r} stderr={self.stderr!r}>"


def run_rewind(*args: str, cwd: Path | str | None = None, input: str | None = None,
               env: dict[str, str] | None = None) -> RewindResult:
    """``rewind ARGS`` as a real process, the way an agent's hook or a person runs it."""
    completed = subprocess.run(
        [sys.executable, "-m", "rewind", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )
    return RewindResult(completed)


@pytest.fixture
def rewind() -> object:
    return run_rewind
