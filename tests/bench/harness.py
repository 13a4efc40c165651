"""What the benchmarks share: sandboxes, process timing, generated workspaces and the table.

Every benchmark runs in a temporary directory with ``HOME``, ``REWIND_HOME`` and git's global
configuration pointed inside it, and removes it afterwards. Timings are wall-clock times of
whole processes measured from this process (``time.perf_counter`` around ``subprocess.run``),
so a reference and its subject pay the same process-creation cost.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

PYTHON = sys.executable


class BenchError(Exception):
    """A benchmark could not run (a command failed, the console script is missing...)."""


def rewind_script() -> str:
    """The ``rewind`` console script installed next to this interpreter (hooks run it)."""
    script = Path(PYTHON).parent / "rewind"
    if not script.exists():
        raise BenchError(
            f"no console script 'rewind' next to {PYTHON}; run the benchmarks with the project's "
            "virtualenv ('make .venv/.installed', then '.venv/bin/python -m tests.bench')."
        )
    return str(script)


# options -------------------------------------------------------------------------------------


def env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def env_int(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    return int(value) if value else None


def env_sizes(name: str) -> list[int] | None:
    value = os.environ.get(name, "").strip()
    return parse_sizes(value) if value else None


def parse_sizes(text: str) -> list[int]:
    sizes = sorted({int(part.replace("_", "")) for part in text.split(",") if part.strip()})
    if len(sizes) < 2:
        raise argparse.ArgumentTypeError("give at least two sizes, like 2000,100000")
    return sizes


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quick",
        action="store_true",
        default=env_flag("REWIND_BENCH_QUICK"),
        help="small sizes and few repetitions, for a smoke run (env REWIND_BENCH_QUICK=1)",
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        default=env_flag("REWIND_BENCH_KEEP"),
        help="keep the temporary directories for inspection (env REWIND_BENCH_KEEP=1)",
    )
    parser.add_argument(
        "--capture-off",
        action="store_true",
        help="what programs change not captured (capture_programs = false): no watcher, no "
        "barriers, in the benchmarks of hooks (hook_events, real_clients)",
    )


def choose(value: int | None, env: str, full: int, quick: int, is_quick: bool) -> int:
    """A count: the flag, else the environment variable, else the full or quick default."""
    if value is not None:
        return value
    from_env = env_int(env)
    if from_env is not None:
        return from_env
    return quick if is_quick else full


def progress(message: str) -> None:
    print(f"  .. {message}", file=sys.stderr, flush=True)


# sandbox -------------------------------------------------------------------------------------


class Sandbox:
    """A temporary directory with an isolated environment for rewind and git."""

    def __init__(self, name: str, keep: bool = False) -> None:
        self.name = name
        self.keep = keep
        self.root = Path()
        self.env: dict[str, str] = {}

    def __enter__(self) -> Sandbox:
        self.root = Path(tempfile.mkdtemp(prefix=f"rewind-bench-{self.name}-"))
        home = self.root / "home"
        home.mkdir()
        from tests.support.watchers import free_port

        env = dict(os.environ)
        # PYTHONDONTWRITEBYTECODE would make every process compile the rewind modules changed
        # since their .pyc was written: measure what an installed rewind does, with cached
        # bytecode (the warm-up runs write it).
        for name in (
            "PYTHONDONTWRITEBYTECODE",
            "REWIND_SESSION",
            "XDG_DATA_HOME",
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
        ):
            env.pop(name, None)
        env.update(
            HOME=str(home),
            REWIND_HOME=str(self.root / "rewind-home"),
            NO_COLOR="1",
            GIT_CONFIG_GLOBAL=str(home / "gitconfig"),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_AUTHOR_NAME="Bench",
            GIT_AUTHOR_EMAIL="bench@example.com",
            GIT_COMMITTER_NAME="Bench",
            GIT_COMMITTER_EMAIL="bench@example.com",
            # Claude Code's HTTP hooks installed here post to a resident of this sandbox's own.
            REWIND_RESIDENT_PORT=str(free_port()),
        )
        self.env = env
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        from tests.support.watchers import stop_residents, stop_watchers

        stop_watchers(self.root / "rewind-home")  # the watchers the hooks started
        stop_residents(self.root / "rewind-home")  # and the resident recorders
        if self.keep:
            print(f"  .. kept {self.root}", file=sys.stderr)
        else:
            shutil.rmtree(self.root, ignore_errors=True)

    def environment(self, **extra: str) -> dict[str, str]:
        return {**self.env, **extra}

    def run(
        self,
        argv: Sequence[str],
        cwd: Path,
        env: dict[str, str] | None = None,
        stdin: bytes | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Runs a command that must succeed; its output is returned, not shown. ``stdin``, when
        given, is written to its standard input (a hook's payload)."""
        completed = subprocess.run(
            list(argv),
            cwd=cwd,
            env=self.env if env is None else env,
            input=stdin,
            stdin=subprocess.DEVNULL if stdin is None else None,
            capture_output=True,
            check=False,
        )
        if completed.returncode != 0:
            raise BenchError(
                f"{' '.join(argv[:4])}{' ...' if len(argv) > 4 else ''} exited with "
                f"{completed.returncode}: {completed.stderr.decode(errors='replace').strip()}"
            )
        return completed

    def timed(
        self,
        argv: Sequence[str],
        cwd: Path,
        env: dict[str, str] | None = None,
        stdin: bytes | None = None,
    ) -> float:
        """The wall-clock time of one process that must succeed, in seconds (``stdin`` as for
        :meth:`run`: writing it through a pipe is part of the time, as it is for an agent)."""
        start = time.perf_counter()
        completed = subprocess.run(
            list(argv),
            cwd=cwd,
            env=self.env if env is None else env,
            input=stdin,
            stdin=subprocess.DEVNULL if stdin is None else None,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            check=False,
        )
        elapsed = time.perf_counter() - start
        if completed.returncode != 0:
            raise BenchError(
                f"{' '.join(argv[:4])}{' ...' if len(argv) > 4 else ''} exited with "
                f"{completed.returncode}: {completed.stderr.decode(errors='replace').strip()}"
            )
        return elapsed


def git_init(sandbox: Sandbox, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    sandbox.run(["git", "init", "-q", str(directory)], cwd=directory)


def settle() -> None:
    """Flushes dirty pages so that the writes of a set-up phase do not load the next timing."""
    os.sync()


# generated files -----------------------------------------------------------------------------

_BODY = "".join(
    f"    value_{i} = combine(value_{i - 1}, {i * 7 % 13}, 'step {i}')  # keep {i % 10}\n"
    for i in range(1, 600)
)


def file_content(index: int, size: int, salt: str = "") -> bytes:
    """``size`` bytes of code-like text, different for every ``index`` (no shared blobs)."""
    header = f"# generated file {index} {salt}\n"
    body = _BODY
    while len(body) < size:
        body += _BODY
    return (header + body[: max(0, size - len(header))]).encode()


def tree_path(index: int) -> str:
    """Nested like a source tree: 100 files per directory, 10 directories per package."""
    return f"pkg{index // 1000:03d}/mod{index // 100 % 10}/file{index:06d}.py"


def make_tree(root: Path, count: int, size: int) -> list[str]:
    """Writes ``count`` files of ``size`` bytes under ``root``; returns their relative paths."""
    paths = []
    for index in range(count):
        relative = tree_path(index)
        if index % 100 == 0:
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(file_content(index, size))
        paths.append(relative)
    return paths


# statistics and results ----------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def spread(values: Sequence[float]) -> str:
    """Median with the range, in milliseconds: ``41.2 ms [39.8-47.0, n=30]``."""
    return (
        f"{median(values) * 1000:.1f} ms "
        f"[{min(values) * 1000:.1f}-{max(values) * 1000:.1f}, n={len(values)}]"
    )


@dataclass(frozen=True)
class Check:
    """One target: ``value op limit`` (a ratio of medians measured in the same run)."""

    benchmark: str
    measure: str
    value: float
    op: str
    limit: float

    @property
    def passed(self) -> bool:
        return self.value <= self.limit if self.op == "<=" else self.value >= self.limit

    @property
    def target(self) -> str:
        return f"{self.op} {self.limit:g}"


@dataclass
class Report:
    benchmark: str
    figures: list[tuple[str, str]] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def figure(self, label: str, value: str) -> None:
        self.figures.append((label, value))
        print(f"  {label}: {value}", flush=True)

    def check(self, measure: str, value: float, op: str, limit: float) -> Check:
        check = Check(self.benchmark, measure, value, op, limit)
        self.checks.append(check)
        print(
            f"  {measure}: {value:.2f} (target {check.target}) "
            f"{'PASS' if check.passed else 'FAIL'}",
            flush=True,
        )
        return check

    def note(self, text: str) -> None:
        self.notes.append(text)
        print(text, flush=True)


def machine_line() -> str:
    try:
        git = subprocess.run(
            ["git", "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        git = "git: not found"
    return (
        f"{os.cpu_count()} cores, {platform.system()} {platform.release()} {platform.machine()}, "
        f"Python {platform.python_version()} ({platform.python_implementation()}), {git}"
    )


def print_table(reports: Sequence[Report]) -> bool:
    """The summary: every target with its measured value; True when all passed."""
    rows = [
        (c.benchmark, c.measure, f"{c.value:.2f}", c.target, "PASS" if c.passed else "FAIL")
        for report in reports
        for c in report.checks
    ]
    header = ("benchmark", "target measure", "value", "target", "result")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    line = "  ".join("-" * width for width in widths)
    print()
    print("  ".join(text.ljust(width) for text, width in zip(header, widths, strict=True)))
    print(line)
    for row in rows:
        print("  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)))
    print(line)
    passed = all(c.passed for report in reports for c in report.checks)
    failed = sum(not c.passed for report in reports for c in report.checks)
    print(
        f"{len(rows) - failed}/{len(rows)} targets met" + ("" if passed else f", {failed} FAILED")
    )
    return passed


def standalone(
    name: str,
    add_arguments: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], Report],
    argv: Sequence[str] | None = None,
) -> int:
    """``python -m tests.bench.<name>``: one benchmark, then its table."""
    parser = argparse.ArgumentParser(prog=f"python -m tests.bench.{name}")
    add_common_arguments(parser)
    add_arguments(parser)
    options = parser.parse_args(argv)
    print(f"machine: {machine_line()}")
    print(f"\n== {name}")
    report = run(options)
    return 0 if print_table([report]) else 1
