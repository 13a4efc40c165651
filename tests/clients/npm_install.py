"""Each agent's own client, installed from npm at the version its docs page names, into a cache
outside the checkout that later runs reuse (``REWIND_TEST_CLIENTS``, else a folder in the
system's temporary directory). npm runs with a home and a cache of its own there, never the
user's. An install that fails fails the test with npm's reason: never a silent skip."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest


def cache_dir() -> Path:
    configured = os.environ.get("REWIND_TEST_CLIENTS")
    if configured:
        return Path(configured)
    return Path(tempfile.gettempdir()) / f"rewind-test-clients-{os.getuid()}"


def installed_client(package: str, version: str, binary: str) -> Path:
    """The path of ``binary`` of ``package@version``, installing it first when it is not yet."""
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    prefix = cache / f"{package.replace('/', '+')}@{version}"
    program = prefix / "node_modules" / ".bin" / binary
    stamp = prefix / "installed"
    with open(cache / "lock", "a") as lock:  # tests in parallel install each client once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and program.exists():
            return program
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(f"{package}@{version} cannot be installed: npm is not on PATH")
        shutil.rmtree(prefix, ignore_errors=True)
        prefix.mkdir()
        npm_home = cache / "npm-home"
        npm_home.mkdir(exist_ok=True)
        env = dict(
            os.environ,
            HOME=str(npm_home),
            npm_config_cache=str(cache / "npm-cache"),
            npm_config_update_notifier="false",
        )
        done = subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(prefix),
                f"{package}@{version}",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0 or not program.exists():
            pytest.fail(
                f"npm could not install {package}@{version} (exit {done.returncode}): "
                f"{(done.stderr or done.stdout)[-2000:]}"
            )
        stamp.write_text(version)
        return program
