"""hunk_diff: the hunks of a long file of repeated lines, against ``git diff --no-index``.

For each size (2,000, 8,000 and 60,000 lines), one file whose every third line is changed by one
turn recorded through ``rewind.Project``; the two other lines of three are all alike (``pass``),
the case that made the old matcher (difflib's, cubic on repeated lines) take minutes. The same
two contents are written as plain files, the reference.

Timed as processes, interleaved: ``rewind show 1 --path FILE`` (the turn's diff of the file cut
into numbered hunks), ``rewind restore 1 --path FILE --hunks 1-N --dry-run`` (every hunk put
back: the diff, then the merge, which diffs the file now against the turn's after-state) and
``git diff --no-index BEFORE AFTER`` (every output goes to /dev/null).

Targets: at 60,000 lines, ``show`` and the ``--hunks`` dry run each within 2 s (the issue's
target). The ratios to ``git diff`` are figures: at the small sizes they are mostly Python's
start-up against git's.
"""

from __future__ import annotations

import argparse
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from tests.bench.harness import (
    BenchError,
    Report,
    Sandbox,
    choose,
    env_sizes,
    git_init,
    median,
    parse_sizes,
    progress,
    rewind_script,
    settle,
    spread,
    standalone,
)

NAME = "hunk_diff"
SECONDS_TARGET = 2.0
FILE = "long.py"
SIZES = [2000, 8000, 60000]
QUICK_SIZES = [2000, 8000]

BUILD = """
import sys
import rewind

root, before, after = sys.argv[1:4]
with open(before, "rb") as handle:
    old = handle.read()
with open(after, "rb") as handle:
    new = handle.read()
with open(root + "/%(file)s", "wb") as handle:
    handle.write(old)
project = rewind.Project(root, session="bench", agent="bench")
with project.turn("change every third line") as turn:
    turn.write_bytes("%(file)s", new)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hunk-sizes",
        type=parse_sizes,
        default=None,
        metavar="N,N,...",
        help="lines of the files (default 2000,8000,60000, quick 2000,8000; env "
        "REWIND_BENCH_HUNK_SIZES)",
    )
    parser.add_argument(
        "--hunk-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed runs of each command (default 7, quick 3; env REWIND_BENCH_HUNK_RUNS)",
    )


def contents(lines: int) -> tuple[bytes, bytes]:
    """A ``lines``-line file before and after the turn: every third line changed, the others
    all the same line."""
    before = [
        f"    value_{n} = compute({n})\n" if n % 3 == 0 else "    pass\n" for n in range(lines)
    ]
    after = [
        f"    value_{n} = compute({n}, again=True)\n" if n % 3 == 0 else "    pass\n"
        for n in range(lines)
    ]
    return "".join(before).encode(), "".join(after).encode()


def run(options: argparse.Namespace) -> Report:
    sizes = options.hunk_sizes or env_sizes("REWIND_BENCH_HUNK_SIZES")
    sizes = sizes or (QUICK_SIZES if options.quick else SIZES)
    runs = choose(options.hunk_runs, "REWIND_BENCH_HUNK_RUNS", 7, 3, options.quick)
    report = Report(NAME)
    script = rewind_script()
    with Sandbox("hunks", keep=options.keep) as box:
        for lines in sizes:
            _measure(box, report, script, lines, runs)
    return report


def _measure(box: Sandbox, report: Report, script: str, lines: int, runs: int) -> None:
    project = box.root / f"project-{lines}"
    git_init(box, project)
    before, after = contents(lines)
    old, new = box.root / f"before-{lines}.py", box.root / f"after-{lines}.py"
    old.write_bytes(before)
    new.write_bytes(after)
    build = BUILD.replace("%(file)s", FILE)
    box.run([_python(), "-c", build, str(project), str(old), str(new)], project)
    hunks = (lines + 2) // 3
    _check_output(box, project, script, hunks, before)
    settle()

    show = [script, "--no-pager", "show", "1", "--path", FILE]
    put_back = [script, "--no-pager", "restore", "1", "--path", FILE, "--dry-run"]
    put_back += ["--hunks", f"1-{hunks}"]
    git_diff = ["git", "diff", "--no-index", str(old), str(new)]
    for argv in (show, put_back):  # warm-up: bytecode, the index, the page cache
        box.timed(argv, project)
    _timed_git_diff(box, git_diff, project)
    progress(f"{runs} rounds at {lines:,} lines ({hunks:,} hunks)")
    times: dict[str, list[float]] = {"show": [], "restore --hunks": [], "git diff": []}
    for _ in range(runs):
        times["show"].append(box.timed(show, project))
        times["restore --hunks"].append(box.timed(put_back, project))
        times["git diff"].append(_timed_git_diff(box, git_diff, project))
    reference = median(times["git diff"])
    report.figure(f"git diff --no-index, {lines:,} lines", spread(times["git diff"]))
    for name in ("show", "restore --hunks"):
        seconds = median(times[name])
        report.figure(
            f"rewind {name}, {lines:,} lines",
            f"{spread(times[name])}, {seconds / reference:.1f}x git diff",
        )
        if lines >= 60000:
            report.check(f"rewind {name}, {lines:,} lines, seconds", seconds, "<=", SECONDS_TARGET)


def _timed_git_diff(box: Sandbox, argv: list[str], cwd: Path) -> float:
    """``git diff --no-index`` exits 1 when the files differ, as they do here."""
    start = time.perf_counter()
    completed = subprocess.run(
        argv,
        cwd=cwd,
        env=box.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if completed.returncode != 1:
        raise BenchError(f"git diff --no-index exited with {completed.returncode}")
    return elapsed


def _check_output(box: Sandbox, project: Path, script: str, hunks: int, before: bytes) -> None:
    """The timed commands must do the work: every hunk shown, and putting all of them back
    gives the file as it was before the turn."""
    shown = box.run([script, "--no-pager", "show", "1", "--path", FILE], project).stdout
    if f"hunk {hunks}/{hunks} of {FILE}".encode() not in shown:
        raise AssertionError(f"rewind show did not list {hunks} hunks")
    code = (
        "import sys, rewind\n"
        "plan = rewind.Project('.', session='bench').plan_hunks(1, sys.argv[1], sys.argv[2])\n"
        "sys.stdout.buffer.write(plan.files[0].content)\n"
    )
    put_back = box.run([_python(), "-c", code, FILE, f"1-{hunks}"], project).stdout
    if put_back != before:
        raise AssertionError("putting every hunk back did not give the file before the turn")


def _python() -> str:
    import sys

    return sys.executable


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
