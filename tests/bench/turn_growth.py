"""turn_growth: what one ``track`` costs when the open turn already holds 3,000 files, against
the same in a turn of 3 files.

Hooks append each record to the open turn's journal (rewind.history.journal) instead of rewriting
the turn, so a record's cost must not depend on how much the turn already holds. Two measures:

- in process: ``rewind.history.recording.turns.track`` of a fresh 10 KB file, timed alone (the
  interpreter's start-up would hide a few milliseconds of growth, so this is the strict measure);
- as a process: ``rewind track FILE``, the whole process a hook starts.

Each is taken in rotating order against a small turn (3 files recorded before) and a large one
(3,000 files recorded before), in two sessions of one project.

Target: median(track, 3,000-file turn) / median(track, 3-file turn) <= 1.25, in process.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

from rewind.history.restoring.opening import open_store
from tests.bench.harness import (
    Report,
    Sandbox,
    choose,
    file_content,
    git_init,
    median,
    progress,
    rewind_script,
    spread,
    standalone,
)

NAME = "turn_growth"
FILE_SIZE = 10 * 1024
SMALL_TURN = 3
LARGE_TURN = 3000
TARGET = 1.25


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--growth-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed tracks per turn size (default 60, quick 20; env REWIND_BENCH_GROWTH_RUNS)",
    )


def run(options: argparse.Namespace) -> Report:
    runs = choose(options.growth_runs, "REWIND_BENCH_GROWTH_RUNS", 60, 20, options.quick)
    report = Report(NAME)
    with Sandbox("growth", keep=options.keep) as box:
        workspace = box.root / "project"
        git_init(box, workspace)
        saved = dict(os.environ)
        os.environ.update(box.env)
        try:
            _measure(box, report, workspace, runs)
        finally:
            os.environ.clear()
            os.environ.update(saved)
    return report


def _measure(box: Sandbox, report: Report, workspace: Path, runs: int) -> None:
    from rewind.history.recording.turns import begin, track

    store = open_store(os.fsencode(os.path.realpath(workspace)), create=True)
    counter = iter(range(1_000_000))

    def fresh_file() -> bytes:
        index = next(counter)
        relative = f"src/{index // 500:03d}/file{index:05d}.py"
        path = workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(file_content(index, FILE_SIZE))
        return relative.encode()

    sessions = {SMALL_TURN: "small", LARGE_TURN: "large"}
    for size, session in sessions.items():
        begin(store, session, prompt=f"a turn of {size} files")
        progress(f"recording {size} files into the open turn of session {session!r}")
        for _ in range(size):
            track(store, session, [fresh_file()])

    in_process: dict[int, list[float]] = {size: [] for size in sessions}
    as_process: dict[int, list[float]] = {size: [] for size in sessions}
    script = rewind_script()
    progress(f"{runs} rounds: one track in each turn, in process and as a process")
    for round_number in range(runs):
        order = list(sessions.items())
        if round_number % 2:
            order.reverse()
        for size, session in order:
            name = fresh_file()
            start = time.perf_counter()
            track(store, session, [name])
            in_process[size].append(time.perf_counter() - start)
            env = box.environment(REWIND_SESSION=session)
            command = [script, "track", fresh_file().decode()]
            as_process[size].append(box.timed(command, workspace, env))

    for label, times in (("in process", in_process), ("as a process", as_process)):
        for size in sessions:
            report.figure(f"track {label}, turn of {size} files", spread(times[size]))
    ratio = median(in_process[LARGE_TURN]) / median(in_process[SMALL_TURN])
    measure = f"track in a {LARGE_TURN}-file turn / in a {SMALL_TURN}-file turn"
    report.check(measure, ratio, "<=", TARGET)
    process_ratio = median(as_process[LARGE_TURN]) / median(as_process[SMALL_TURN])
    report.figure("the same, as a process", f"{process_ratio:.2f}")


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
