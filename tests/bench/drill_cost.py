"""drill_cost: ``rewind check --drill`` against ``rewind check`` on the same store.

``rewind check`` reads the object of every stored state; the drill reads each distinct object
once and rebuilds it in a scratch directory (written, captured again, fingerprinted), so its cost
should follow the distinct contents, not the number of states. Two projects, each with the same
number of turns of the same number of 10 KB files:

- shared: every file takes one of a few contents in turn, so thousands of states share a few
  dozen objects;
- distinct: every turn writes new contents, so every state has an object of its own.

Both commands are timed as processes, interleaved, on each store.

Targets: median(drill) / median(check) <= 1.25 on the shared store (the drill does more per
object, but reads far fewer of them), and <= 3.0 on the distinct store (one write, one read
back and one fingerprint more per object).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from tests.bench.harness import (
    Report,
    Sandbox,
    choose,
    file_content,
    git_init,
    median,
    progress,
    rewind_script,
    settle,
    spread,
    standalone,
)

NAME = "drill_cost"
FILE_SIZE = 10 * 1024
FILES = 20
POOL = 3  # contents each file cycles through in the shared store
SHARED_TARGET = 1.25
DISTINCT_TARGET = 3.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--drill-turns",
        type=int,
        default=None,
        metavar="N",
        help="turns of 20 files per store (default 150, quick 30; env REWIND_BENCH_DRILL_TURNS)",
    )
    parser.add_argument(
        "--drill-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed runs of each command (default 7, quick 3; env REWIND_BENCH_DRILL_RUNS)",
    )


def run(options: argparse.Namespace) -> Report:
    turns = choose(options.drill_turns, "REWIND_BENCH_DRILL_TURNS", 150, 30, options.quick)
    runs = choose(options.drill_runs, "REWIND_BENCH_DRILL_RUNS", 7, 3, options.quick)
    report = Report(NAME)
    with Sandbox("drill", keep=options.keep) as box:
        saved = dict(os.environ)
        os.environ.update(box.env)
        try:
            projects = {}
            for kind in ("shared", "distinct"):
                workspace = box.root / kind
                git_init(box, workspace)
                progress(f"recording {turns} turns of {FILES} files ({kind} contents)")
                _record(workspace, turns, shared=kind == "shared")
                projects[kind] = workspace
        finally:
            os.environ.clear()
            os.environ.update(saved)
        settle()
        _measure(box, report, projects, runs, turns)
    return report


def _record(workspace: Path, turns: int, shared: bool) -> None:
    import rewind

    history = rewind.Project(workspace, session="bench", agent="bench")
    for turn_number in range(turns):
        with history.turn(f"turn {turn_number}") as turn:
            for index in range(FILES):
                salt = str(turn_number % POOL) if shared else str(turn_number)
                turn.write_bytes(f"src/file{index:02d}.py", file_content(index, FILE_SIZE, salt))


def _measure(
    box: Sandbox, report: Report, projects: dict[str, Path], runs: int, turns: int
) -> None:
    script = rewind_script()
    states = 2 * turns * FILES
    for kind, workspace in projects.items():
        box.run([script, "check", "--drill"], cwd=workspace)  # warm-up (bytecode, page cache)
        times: dict[str, list[float]] = {"check": [], "check --drill": []}
        progress(f"{runs} rounds of 'rewind check' and 'rewind check --drill' ({kind})")
        for round_number in range(runs):
            order = list(times)
            if round_number % 2:
                order.reverse()
            for command in order:
                times[command].append(box.timed([script, *command.split()], workspace))
        for command, values in times.items():
            report.figure(f"{command}, {states} states ({kind} contents)", spread(values))
        ratio = median(times["check --drill"]) / median(times["check"])
        target = SHARED_TARGET if kind == "shared" else DISTINCT_TARGET
        report.check(f"drill / check, {kind} contents", ratio, "<=", target)


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
