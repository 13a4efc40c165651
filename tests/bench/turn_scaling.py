"""turn_scaling: a 3-file turn in small and large workspaces, against shadow-git checkpoints.

A rewind turn is what an agent's hooks run: ``rewind begin``, three ``rewind track PATH``
processes (one per edit tool call), the edits themselves (three appends, in this process), and
``rewind end``: five processes, timed together from the start of begin to the end of end.

The workspaces hold N files of about 1 KB, 100 to a directory, in a git work tree (``git init``
only: nothing is added, rewind never scans the workspace). The reference is the shadow-git
technique other agent tools use for checkpoints: a separate git directory with the workspace as
its work tree, ``git --git-dir=SHADOW --work-tree=WS add -A`` then ``git commit`` per
checkpoint. Its first checkpoint (``git init`` + add + commit of the whole workspace) and a later
one (after changing one file) are measured in the same run; rewind turns and later checkpoints
are interleaved. Automatic ``git gc`` is switched off in the shadow repository (``-c gc.auto=0``)
so that a background repack does not disturb the timings, which flatters shadow git slightly.

Targets, at the largest size (100,000 files by default):
- median rewind turn at the largest size / at the smallest size <= 1.25;
- median later shadow checkpoint / median rewind turn >= 3;
- median first shadow checkpoint / median rewind turn >= 50.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from pathlib import Path

from tests.bench.harness import (
    Report,
    Sandbox,
    choose,
    env_sizes,
    git_init,
    make_tree,
    median,
    ms,
    parse_sizes,
    progress,
    rewind_script,
    settle,
    spread,
    standalone,
)

NAME = "turn_scaling"
FULL_SIZES = [2_000, 20_000, 100_000]
QUICK_SIZES = [1_000, 10_000]
FILE_SIZE = 1024
WARMUP = 1
TURN_FILES = 3
STEPS = ("begin", "track 1", "track 2", "track 3", "end")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sizes",
        type=parse_sizes,
        default=None,
        metavar="N,N,...",
        help="workspace sizes in files (default 2000,20000,100000; quick 1000,10000; "
        "env REWIND_BENCH_SIZES); targets compare the largest with the smallest",
    )
    parser.add_argument(
        "--turn-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed turns and later checkpoints per size (default 11, quick 3; "
        "env REWIND_BENCH_TURN_RUNS)",
    )
    parser.add_argument(
        "--first-runs",
        type=int,
        default=None,
        metavar="N",
        help="first shadow checkpoints per size (default 3, quick 1; env REWIND_BENCH_FIRST_RUNS)",
    )


class Workspace:
    def __init__(self, size: int, path: Path, shadow: Path, files: list[str], runs: int) -> None:
        self.size = size
        self.path = path
        self.shadow = shadow
        # Per round: three files for the turn and a fourth for the shadow checkpoint.
        picked = random.Random(size).sample(files, (TURN_FILES + 1) * runs)
        self.rounds = [picked[i : i + TURN_FILES + 1] for i in range(0, len(picked), 4)]
        self.turns: list[float] = []
        self.steps: dict[str, list[float]] = {step: [] for step in STEPS}
        self.first: list[float] = []
        self.later: list[float] = []

    def git(self, *args: str, shadow: Path | None = None) -> list[str]:
        """A git command on the shadow repository; automatic gc stays off (see the module doc)."""
        directory = shadow or self.shadow
        return [
            "git",
            "-c",
            "gc.auto=0",
            f"--git-dir={directory}",
            f"--work-tree={self.path}",
            *args,
        ]


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def shadow_checkpoint(
    box: Sandbox, ws: Workspace, number: int, shadow: Path | None = None
) -> float:
    """``add -A`` and ``commit`` into the shadow repository, timed."""
    add = box.timed(ws.git("add", "-A", shadow=shadow), cwd=ws.path)
    commit = box.timed(ws.git("commit", "-q", "-m", f"checkpoint {number}", shadow=shadow), ws.path)
    return add + commit


def first_checkpoint(box: Sandbox, ws: Workspace, shadow: Path) -> float:
    init = box.timed(["git", "init", "-q", "--bare", str(shadow)], cwd=ws.path)
    return init + shadow_checkpoint(box, ws, 1, shadow)


def rewind_turn(box: Sandbox, ws: Workspace, script: str, env: dict[str, str], number: int) -> None:
    files = ws.rounds[number][:TURN_FILES]
    steps = [box.timed([script, "begin", "--prompt", f"turn {number}"], ws.path, env)]
    for relative in files:
        steps.append(box.timed([script, "track", relative], ws.path, env))
    for relative in files:  # the agent's edits; microseconds, in this process
        _append(ws.path / relative, f"# edited in turn {number}\n")
    steps.append(box.timed([script, "end"], ws.path, env))
    ws.turns.append(sum(steps))
    for step, elapsed in zip(STEPS, steps, strict=True):
        ws.steps[step].append(elapsed)


def run(options: argparse.Namespace) -> Report:
    sizes: list[int] = (
        options.sizes
        or env_sizes("REWIND_BENCH_SIZES")
        or (QUICK_SIZES if options.quick else FULL_SIZES)
    )
    runs = choose(options.turn_runs, "REWIND_BENCH_TURN_RUNS", 11, 3, options.quick)
    first_runs = choose(options.first_runs, "REWIND_BENCH_FIRST_RUNS", 3, 1, options.quick)
    report = Report(NAME)
    script = rewind_script()
    with Sandbox("turns", keep=options.keep) as box:
        env = box.environment(REWIND_SESSION="bench")
        workspaces: list[Workspace] = []
        for size in sizes:
            progress(f"writing a {size:,}-file workspace")
            path = box.root / f"ws-{size}"
            git_init(box, path)
            files = make_tree(path, size, FILE_SIZE)
            workspaces.append(
                Workspace(size, path, box.root / f"shadow-{size}", files, WARMUP + runs)
            )
        settle()

        # Every first checkpoint gets its own shadow directory, all kept until the end:
        # deleting hundreds of thousands of objects between attempts disturbs the next ones.
        for attempt in range(first_runs):
            for ws in workspaces:
                progress(
                    f"first shadow checkpoint of {ws.size:,} files ({attempt + 1}/{first_runs})"
                )
                last = attempt == first_runs - 1
                shadow = ws.shadow if last else box.root / f"shadow-{ws.size}-first-{attempt}"
                ws.first.append(first_checkpoint(box, ws, shadow))
                settle()

        progress(
            f"{WARMUP} warm-up + {runs} interleaved rewind turns and later checkpoints per size"
        )
        for number in range(WARMUP + runs):
            order = workspaces if number % 2 == 0 else workspaces[::-1]
            for ws in order:
                rewind_turn(box, ws, script, env, number)
                box.run(ws.git("add", "-A"), cwd=ws.path)  # absorb the turn's edits, untimed
                box.run(ws.git("commit", "-q", "-m", f"sync {number}"), cwd=ws.path)
                _append(ws.path / ws.rounds[number][TURN_FILES], f"# changed {number}\n")
                later = shadow_checkpoint(box, ws, number + 2)
                ws.later.append(later)
            if number < WARMUP:
                for ws in workspaces:
                    ws.turns.clear()
                    ws.later.clear()
                    for values in ws.steps.values():
                        values.clear()

        _report(report, workspaces)
    return report


def _report(report: Report, workspaces: Sequence[Workspace]) -> None:
    smallest, largest = workspaces[0], workspaces[-1]
    for ws in workspaces:
        report.figure(f"{ws.size:>7,} files: rewind 3-file turn (5 processes)", spread(ws.turns))
        report.figure(f"{ws.size:>7,} files: shadow git later checkpoint", spread(ws.later))
        report.figure(f"{ws.size:>7,} files: shadow git first checkpoint", spread(ws.first))
    report.figure(
        f"rewind turn steps at {largest.size:,} files (medians)",
        ", ".join(f"{step} {ms(median(values))}" for step, values in largest.steps.items()),
    )
    base = median(smallest.turns)
    lines = [
        "    growth with the workspace (medians; ratios are shadow-git / rewind turn):",
        f"    {'files':>9} {'rewind turn':>12} {'vs smallest':>11} {'shadow later':>13} "
        f"{'later/turn':>10} {'shadow first':>13} {'first/turn':>10}",
    ]
    for ws in workspaces:
        turn, later, first = median(ws.turns), median(ws.later), median(ws.first)
        lines.append(
            f"    {ws.size:>9,} {ms(turn):>12} {turn / base:>10.2f}x {ms(later):>13} "
            f"{later / turn:>9.2f}x {ms(first):>13} {first / turn:>9.1f}x"
        )
    report.note("\n".join(lines))
    turn = median(largest.turns)
    if largest.size < FULL_SIZES[-1]:
        report.note(
            f"    note: the targets are set for {FULL_SIZES[-1]:,} files; at {largest.size:,} the "
            "shadow-git ratios are expected to fall short (they grow with the workspace)"
        )
    report.check(
        f"rewind turn at {largest.size:,} / at {smallest.size:,} files",
        turn / base,
        "<=",
        1.25,
    )
    report.check(
        f"shadow-git later checkpoint / rewind turn, {largest.size:,} files",
        median(largest.later) / turn,
        ">=",
        3.0,
    )
    report.check(
        f"shadow-git first checkpoint / rewind turn, {largest.size:,} files",
        median(largest.first) / turn,
        ">=",
        50.0,
    )


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
