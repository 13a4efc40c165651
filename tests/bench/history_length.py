"""history_length: the same commands on a long history as on a short one.

Three projects are recorded through ``rewind.Project`` (3 small edits per turn, over 30 files):

- short: one session of 10 entries (the reference);
- long: one session of 10,000 entries;
- many: 100 sessions of 10 entries each.

In each, these commands are timed as processes, interleaved across the three projects: a turn
(``begin``, 3 ``track``, ``end``: 5 processes), ``status``, ``show N`` and
``restore N --dry-run`` of the 5th newest turn, ``restore N --yes`` followed by ``undo --yes``
of the newest turn, and ``log -n 20``. Before timing, one ``log`` reads each project once (it
brings the index up to date and counts the lines, as the first reader after a long time does).

Targets: each command on long and on many at most 1.25x the same on short (medians); the full
``log`` of the 10,000 entries within 1 s and 100 MB of memory (the child's peak RSS).
"""

from __future__ import annotations

import argparse
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from tests.bench.harness import (
    Report,
    Sandbox,
    choose,
    git_init,
    median,
    progress,
    rewind_script,
    spread,
    standalone,
)

NAME = "history_length"
TARGET = 1.25
FULL_LOG_SECONDS = 1.0
FULL_LOG_MB = 100.0
FILES = 30

BUILD = """
import sys
import rewind

root, sessions, turns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for s in range(sessions):
    project = rewind.Project(root, session=f"s{s:03d}", agent="bench")
    for t in range(turns):
        with project.turn(f"turn {t} of session {s}: change three files") as turn:
            for k in range(3):
                name = f"src/file{(t * 3 + k + s) % %(files)d:02d}.py"
                turn.write_text(name, f"# version {t} {k} {s}\\n" + "x = 1\\n" * 20)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--history-entries",
        type=int,
        default=None,
        metavar="N",
        help="entries of the long session (default 10000, quick 2000; "
        "env REWIND_BENCH_HISTORY_ENTRIES)",
    )
    parser.add_argument(
        "--history-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed runs of each command (default 9, quick 5; env REWIND_BENCH_HISTORY_RUNS)",
    )


def _build(box: Sandbox, root: Path, sessions: int, turns: int) -> None:
    git_init(box, root)
    (root / "src").mkdir()
    script = BUILD.replace("%(files)d", str(FILES))
    started = time.perf_counter()
    box.run([_python(), "-c", script, str(root), str(sessions), str(turns)], root)
    progress(
        f"  {root.name}: {sessions} session(s) of {turns:,} entries in "
        f"{time.perf_counter() - started:.0f} s"
    )


def _python() -> str:
    import sys

    return sys.executable


def _peak_rss_mb(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Seconds and peak resident memory (MB) of one process (run alone, in a fresh child)."""
    code = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
        "elapsed = time.perf_counter() - start\n"
        "assert done.returncode == 0, done\n"
        "print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run(
        [_python(), "-c", code, *argv], cwd=cwd, env=env, capture_output=True, check=True
    ).stdout.split()
    return float(out[0]), int(out[1]) / 1024


def run(options: argparse.Namespace) -> Report:
    entries = choose(
        options.history_entries, "REWIND_BENCH_HISTORY_ENTRIES", 10_000, 2_000, options.quick
    )
    runs = choose(options.history_runs, "REWIND_BENCH_HISTORY_RUNS", 9, 5, options.quick)
    report = Report(NAME)
    script = rewind_script()
    with Sandbox("history", keep=options.keep) as box:
        projects = {
            "short": (box.root / "short", "s000", 1, 10),
            "long": (box.root / "long", "s000", 1, entries),
            "many": (box.root / "many", "s099", 100, 10),
        }
        progress("recording the three histories through rewind.Project")
        for root, _, sessions, turns in projects.values():
            _build(box, root, sessions, turns)

        def env(session: str) -> dict[str, str]:
            return box.environment(REWIND_SESSION=session)

        for name, (root, session, _, _) in projects.items():
            started = time.perf_counter()
            box.run([script, "log"], root, env(session))
            progress(f"  first log of {name}: {time.perf_counter() - started:.1f} s")

        def newest(root: Path, session: str) -> int:
            out = box.run([script, "log", "-n", "1"], root, env(session)).stdout.decode()
            return int(out.splitlines()[1].split()[0])

        commands: dict[str, list[list[str]] | None] = {
            "turn (begin, 3 track, end)": None,
            "status": [[script, "status"]],
            "show N": [],
            "restore N --dry-run": [],
            "restore N + undo": [],
            "log -n 20": [[script, "log", "-n", "20"]],
        }
        times: dict[str, dict[str, list[float]]] = {
            command: {name: [] for name in projects} for command in commands
        }

        def one_round(number: int) -> None:
            for name, (root, session, _, _) in projects.items():
                environment = env(session)
                last = newest(root, session)
                fifth = str(max(last - 4, 1))
                turn = [
                    [script, "begin", "--prompt", f"timed turn {number}"],
                    *(
                        [script, "track", f"src/file{(number + k) % FILES:02d}.py"]
                        for k in range(3)
                    ),
                    [script, "end"],
                ]
                started = time.perf_counter()
                for argv in turn[:-1]:
                    box.run(argv, root, environment)
                for k in range(3):  # the agent's edits, between the tracks and the end
                    target = root / f"src/file{(number + k) % FILES:02d}.py"
                    target.write_text(f"# timed {number} {k}\n")
                box.run(turn[-1], root, environment)
                times["turn (begin, 3 track, end)"][name].append(time.perf_counter() - started)
                timed = {
                    "status": [[script, "status"]],
                    "show N": [[script, "show", fifth]],
                    "restore N --dry-run": [[script, "restore", fifth, "--dry-run"]],
                    "restore N + undo": [
                        [script, "restore", str(last + 1), "--yes"],
                        [script, "undo", "--yes"],
                    ],
                    "log -n 20": [[script, "log", "-n", "20"]],
                }
                for command, argvs in timed.items():
                    started = time.perf_counter()
                    for argv in argvs:
                        box.timed(argv, root, environment)
                    times[command][name].append(time.perf_counter() - started)

        progress(f"1 warm-up + {runs} rounds of every command on every project")
        for number in range(1 + runs):
            one_round(number)
            if number == 0:
                for per_project in times.values():
                    for values in per_project.values():
                        values.clear()

        for command, per_project in times.items():
            for name in projects:
                report.figure(f"{command}, {name}", spread(per_project[name]))
        for command, per_project in times.items():
            reference = median(per_project["short"])
            report.check(
                f"{command}: {entries:,} entries / 10",
                median(per_project["long"]) / reference,
                "<=",
                TARGET,
            )
            report.check(
                f"{command}: 100 sessions / 1",
                median(per_project["many"]) / reference,
                "<=",
                TARGET,
            )

        root, session, _, _ = projects["long"]
        full = [_peak_rss_mb([script, "log"], root, env(session)) for _ in range(3)]
        seconds = median([value[0] for value in full])
        memory = max(value[1] for value in full)
        report.figure(f"full log of {entries:,} entries", spread([value[0] for value in full]))
        report.check(f"full log of {entries:,} entries, seconds", seconds, "<=", FULL_LOG_SECONDS)
        report.check(f"full log of {entries:,} entries, peak MB", memory, "<=", FULL_LOG_MB)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
