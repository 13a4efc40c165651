"""watch_idle: what a watcher costs while nothing changes, on a 100,000-file project.

The workspace (untimed set-up) is a plain directory (no git: start-up then does not include
``git status``) of 100,000 files of 200 bytes in 1,100 directories (100 files each, as
``harness.make_tree`` lays them out), with a session begun. Each round starts
``rewind watch --background --session bench`` (the installed console script) and times it until
its pid file says it is watching (start-up: reading the session, one inotify watch per
directory, and, outside git, listing the files that exist; information), waits one second, then
reads the watcher's CPU time (utime + stime from ``/proc/PID/stat``) at the start and the end of
a 10-second window in which nothing changes.

3 rounds (quick: 1 round of 5 s on 20,000 files).

Target: the median CPU share while idle <= 0.01 (1 % of one core).
"""

from __future__ import annotations

import argparse
import os
import time

from tests.bench.harness import (
    Report,
    Sandbox,
    choose,
    make_tree,
    median,
    progress,
    rewind_script,
    settle,
    standalone,
)
from tests.bench.watch_latency import SESSION, Watcher

NAME = "watch_idle"
TARGET = 0.01


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--idle-files",
        type=int,
        default=None,
        metavar="N",
        help="files in the idle project (default 100000, quick 20000; env REWIND_BENCH_IDLE_FILES)",
    )


def run(options: argparse.Namespace) -> Report:
    files = choose(options.idle_files, "REWIND_BENCH_IDLE_FILES", 100_000, 20_000, options.quick)
    rounds = 1 if options.quick else 3
    window = 5.0 if options.quick else 10.0
    report = Report(NAME)
    with Sandbox("watch-idle", keep=options.keep) as box:
        workspace = box.root / "project"
        workspace.mkdir()
        progress(f"writing {files:,} files (untimed)")
        make_tree(workspace, files, 200)
        box.run([rewind_script(), "begin", "--session", SESSION], cwd=workspace)
        settle()
        startups: list[float] = []
        shares: list[float] = []
        progress(f"{rounds} round(s): start a watcher, then {window:.0f} s idle")
        for _ in range(rounds):
            watcher = Watcher(box, workspace)
            try:
                startups.append(watcher.startup)
                time.sleep(1.0)
                cpu_start, wall_start = watcher.cpu_seconds(), time.perf_counter()
                time.sleep(window)
                cpu = watcher.cpu_seconds() - cpu_start
                shares.append(cpu / (time.perf_counter() - wall_start))
            finally:
                watcher.stop()
        directories = sum(1 for path in workspace.rglob("*") if path.is_dir())
        report.figure(
            f"start-up to watching, {files:,} files in {directories:,} directories (information)",
            f"{median(startups):.2f} s [" + ", ".join(f"{v:.2f}" for v in startups) + "]",
        )
        resolution = 1 / os.sysconf("SC_CLK_TCK") / window * 100
        report.figure(
            f"CPU while idle over {window:.0f} s, share of one core "
            f"(resolution {resolution:.2f} %: one clock tick)",
            f"{median(shares) * 100:.2f} % [" + ", ".join(f"{v * 100:.2f}" for v in shares) + "]",
        )
        report.check("idle CPU, share of one core", median(shares), "<=", TARGET)
    return report


if __name__ == "__main__":
    raise SystemExit(standalone(NAME, add_arguments, run))
