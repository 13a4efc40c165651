"""The wheel built from this checkout, installed into a fresh virtual environment: what a user
runs, shared by the tests of the installed package and by the real agents' tier (built once per
test run)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.watchers import free_port

LOCAL_ONLY = (".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", "wt-*")
LEAKS = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_PYTHON")
UNREACHABLE = ("No matching distribution found", "Could not find a version that satisfies")


@dataclass
class Installed:
    """A fresh virtual environment holding the wheel, and the environment to run it in."""

    wheel: Path
    venv: Path
    home: Path
    env: dict[str, str]

    @property
    def rewind(self) -> str:
        return str(self.venv / "bin" / "rewind")

    def run(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.rewind, *args],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )

    def ok(self, *args: str, cwd: Path) -> str:
        result = self.run(*args, cwd=cwd)
        assert result.returncode == 0, (args, result.stdout, result.stderr)
        return result.stdout

    def package(self) -> Path:
        """The folder of the rewind package the venv's interpreter imports."""
        where = subprocess.run(
            [str(self.venv / "bin" / "python"), "-c", "import rewind; print(rewind.__file__)"],
            cwd=self.home,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return Path(where).parent

    def with_home(self, home: Path) -> Installed:
        """The same install, run with another home (and rewind home) of its own, and a port of
        its own for the resident recorder of the Claude Code hooks it installs."""
        env = dict(self.env, HOME=str(home), REWIND_HOME=str(home / "rewind-home"))
        env["REWIND_RESIDENT_PORT"] = str(free_port())
        env["GIT_CONFIG_GLOBAL"] = str(home / "gitconfig")
        return replace(self, home=home, env=env)


def install_wheel(base: Path) -> Installed:
    """Builds the wheel from a copy of the checkout and installs it into a fresh venv in
    ``base``, with a home of its own there."""
    # A copy of the checkout, as a clone has it: setuptools leaves build/ and *.egg-info behind
    # in the tree it builds, and a stale build/ would put deleted modules in the wheel.
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*LOCAL_ONLY))
    # pip and the venv's interpreter must see neither the checkout (PYTHONPATH) nor this venv.
    clean = {key: value for key, value in os.environ.items() if key not in LEAKS}
    dist = base / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), "."],
        cwd=source,
        env=clean,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    [wheel] = dist.glob("rewind_files-*.whl")
    venv = base / "venv"
    # Without pip of its own (ensurepip costs seconds): this interpreter's pip installs into it.
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], env=clean, check=True
    )
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
    install = subprocess.run(
        # With the extra that 'rewind mcp' needs (tests/clients/mcp_test.py runs it).
        [*pip, "install", "--quiet", "--disable-pip-version-check", f"{wheel}[mcp]"],
        cwd=base,
        env=clean,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if install.returncode != 0 and any(words in install.stderr for words in UNREACHABLE):
        pytest.skip(f"rewind's dependencies are neither reachable nor cached: {install.stderr}")
    assert install.returncode == 0, install.stderr
    home = base / "home"
    home.mkdir()
    env = {key: value for key, value in clean.items() if not key.startswith("REWIND_")}
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', os.defpath)}",
        HOME=str(home),
        REWIND_HOME=str(home / "rewind-home"),
        GIT_CONFIG_GLOBAL=str(home / "gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
        NO_COLOR="1",
        TERM="xterm-256color",
    )
    env.pop("XDG_DATA_HOME", None)
    return Installed(wheel=wheel, venv=venv, home=home, env=env)


def install_wheel_once(shared: Path, home: Path) -> Installed:
    """The wheel installed once for every process of a test run (the parallel workers share
    ``shared``, their common temporary folder), run with ``home`` of the caller's own."""
    shared.mkdir(parents=True, exist_ok=True)
    record = shared / "installed.json"
    with open(shared / "installed.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the first worker builds; the others wait, then reuse
        if not record.exists():
            built = install_wheel(shared / "wheel")
            fields = {"wheel": str(built.wheel), "venv": str(built.venv), "home": str(built.home)}
            record.write_text(json.dumps({**fields, "env": built.env}))
        data = json.loads(record.read_text())
    installed = Installed(Path(data["wheel"]), Path(data["venv"]), Path(data["home"]), data["env"])
    home.mkdir(parents=True, exist_ok=True)
    return installed.with_home(home)
