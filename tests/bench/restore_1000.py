"""restore_1000: ``rewind restore`` of a turn that touched 1,000 files of 10 KB, against git.

Each repetition rebuilds the history from scratch (a fresh ``REWIND_HOME``, the files rewritten
with their original content): ``rewind begin``, one ``rewind track`` of all 1,000 paths, every
file modified (a line appended), ``rewind end``. Then ``rewind restore 1 --yes`` is timed as a
process: it plans (reads and fingerprints all 1,000 files), checks them again under the lock,
records the restore for undo, and replaces every file atomically. ``rewind undo --yes`` is then
timed for information.

The reference, interleaved: a scratch git repository holding the same 1,000 files, committed;
every file is modified the same way, then ``git checkout <commit> -- .`` is timed.

Target: median(rewind restore) / median(git checkout) <= 2.0. Both results are verified
byte for byte.
"""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Sequence
from pathlib import Path

from tests.bench.harness import (
    BenchError,
    Report,
    Sandbox,
    choose,
    git_init,
    make_tree,
    median,
    progress,
    rewind_script,
    settle,
    spread,
    standalone,
)

NAME = "restore_1000"
FILE_SIZE = 10 * 1024
WARMUP = 1
TARGET = 2.0
EDIT = b"# changed by the agent\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--restore-files",
        type=int,
        default=None,
        metavar="N",
        help="files touched by the turn (default 1000, quick 200; env REWIND_BENCH_RESTORE_FILES)",
    )
    parser.add_argument(
        "--restore-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed restores and checkouts (default 7, quick 3; env REWIND_BENCH_RESTORE_RUNS)",
    )


def _write_all(root: Path, contents: dict[str, bytes]) -> None:
    for relative, data in contents.items():
        (root / relative).write_bytes(data)


def _modify_all(root: Path, paths: Sequence[str]) -> None:
    for relative in paths:
        with (root / relative).open("ab") as handle:
            handle.write(EDIT)


def _verify(root: Path, contents: dict[str, bytes], what: str) -> None:
    wrong = [
        relative for relative, data in contents.items() if (root / relative).read_bytes() != data
    ]
    if wrong:
        raise BenchError(
            f"{what}: {len(wrong)} file(s) do not hold the expected content, e.g. {wrong[0]}"
        )


def run(options: argparse.Namespace) -> Report:
    count = choose(options.restore_files, "REWIND_BENCH_RESTORE_FILES", 1000, 200, options.quick)
    runs = choose(options.restore_runs, "REWIND_BENCH_RESTORE_RUNS", 7, 3, options.quick)
    report = Report(NAME)
    script = rewind_script()
    with Sandbox("restore", keep=options.keep) as box:
        progress(f"writing {count:,} files of {FILE_SIZE // 1024} KB twice (rewind, git)")
        workspace = box.root / "project"
        git_init(box, workspace)
        paths = make_tree(workspace, count, FILE_SIZE)
        original = {relative: (workspace / relative).read_bytes() for relative in paths}
        modified = {relative: data + EDIT for relative, data in original.items()}

        reference = box.root / "git-reference"
        git_init(box, reference)
        make_tree(reference, count, FILE_SIZE)
        box.run(["git", "add", "-A"], cwd=reference)
        box.run(["git", "commit", "-q", "-m", "before the turn"], cwd=reference)
        commit = box.run(["git", "rev-parse", "HEAD"], cwd=reference).stdout.decode().strip()

        times: dict[str, list[float]] = {
            "restore": [],
            "git": [],
            "track": [],
            "end": [],
            "undo": [],
        }

        def rewind_round(number: int) -> None:
            env = box.environment(
                REWIND_HOME=str(box.root / f"rewind-home-{number}"), REWIND_SESSION="bench"
            )
            if number:
                _write_all(workspace, original)
            box.run([script, "begin", "--prompt", "touch everything"], workspace, env)
            times["track"].append(box.timed([script, "track", *paths], workspace, env))
            _modify_all(workspace, paths)
            times["end"].append(box.timed([script, "end"], workspace, env))
            settle()
            times["restore"].append(box.timed([script, "restore", "1", "--yes"], workspace, env))
            _verify(workspace, original, "after rewind restore")
            times["undo"].append(box.timed([script, "undo", "--yes"], workspace, env))
            _verify(workspace, modified, "after rewind undo")
            shutil.rmtree(box.root / f"rewind-home-{number}")

        def git_round() -> None:
            _modify_all(reference, paths)
            settle()
            times["git"].append(box.timed(["git", "checkout", commit, "--", "."], reference))
            _verify(reference, original, "after git checkout")

        progress(f"{WARMUP} warm-up + {runs} interleaved rounds of rewind restore / git checkout")
        for number in range(WARMUP + runs):
            if number % 2:
                git_round()
                rewind_round(number)
            else:
                rewind_round(number)
                git_round()
            if number < WARMUP:
                for values in times.values():
                    values.clear()

        report.figure(
            f"git checkout <commit> -- . of {count:,} files (reference)", spread(times["git"])
        )
        report.figure(f"rewind restore 1 --yes of {count:,} files", spread(times["restore"]))
        report.figure("rewind undo --yes (information)", spread(times["undo"]))
        report.figure(
            f"rewind track of {count:,} paths in one process (information)", spread(times["track"])
        )
        report.figure("rewind end of that turn (information)", spread(times["end"]))
        report.check(
            f"rewind restore / git checkout, {count:,} files of 10 KB",
            median(times["restore"]) / median(times["git"]),
            "<=",
            TARGET,
        )
    return report


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
