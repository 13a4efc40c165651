"""tui_startup: opening the TUI on a long session, and showing the diff of a large file.

The workspace (untimed set-up) is a git work tree with a session recorded through the engine
(``rewind.history.recording.turns``: ``begin``, ``track``, the edits, ``record_after``) in one
process: 1,000 turns of 5 files each out of 50 (5,000 file versions), the last of which also
changes every third line of a 10,000-line Python file (so its diff is syntax highlighted).

Each timed process is a small Python driver that opens ``rewind.tui.app.RewindApp`` on the
project, as ``rewind tui`` does, but headless (``App.run_test(size=(100, 30))``), and leaves with
``os._exit`` as soon as it has measured what it came for, so that the app's shutdown is not timed:

* A, start-up: the driver exits right after the first full paint (the app is mounted, its
  messages are processed, the background +/- line counts of the rows in view are done and
  shown, and one more refresh has happened; the last turn is selected, its files listed and
  the first file's diff shown). Timed from this process as the wall-clock time of the whole
  process (``time.perf_counter`` around ``subprocess.run``), so interpreter start-up and
  imports count; the driver also prints the time from its launch (``time.time()`` passed in
  by this process) to the paint (information).
* B, a large diff: in a fresh driver, after the first paint (untimed), the cursor of the
  file list is put next to the 10,000-line file, then one key press moves it onto that file;
  timed in the driver (``time.perf_counter``) from the key press to the refresh that follows
  the diff view showing that file.

Rounds alternate A and B; the first is a warm-up (it writes the bytecode caches).

Targets: median(A) <= 1.5 s; median(B) <= 0.3 s.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

from tests.bench.harness import (
    PYTHON,
    BenchError,
    Report,
    Sandbox,
    choose,
    git_init,
    median,
    progress,
    settle,
    spread,
    standalone,
)

NAME = "tui_startup"
SESSION = "bench"
TURNS = 1000
FILES_PER_TURN = 5
SOURCES = 50
BIG = "data/big.py"  # Python, so that the diff is syntax highlighted as it is shown
BIG_LINES = 10_000
SIZE = (100, 30)
WARMUP = 1
START_TARGET = 1.5
DIFF_TARGET = 0.3

# Run in the workspace with the sandbox's environment: the session, through the engine.
SETUP = f"""
import sys
from pathlib import Path
from rewind.history.restoring.opening import open_current_store
from rewind.history.recording.turns import begin, record_after, track

turns = int(sys.argv[1])
store = open_current_store(create=True)
names = [f"src/mod{{i:02d}}.py" for i in range({SOURCES})]
Path("src").mkdir()
for name in names:
    Path(name).write_text("".join(f"line {{j}} of {{name}}\\n" for j in range(200)))
Path({BIG!r}).parent.mkdir()
Path({BIG!r}).write_text("".join(f"value_{{i}} = {{i}}  # big\\n" for i in range({BIG_LINES})))
for t in range(turns):
    prompt = f"turn {{t}}: please change things\\nmore"
    begin(store, {SESSION!r}, prompt=prompt, agent="claude-code")
    chosen = [names[(t * 7 + k) % {SOURCES}] for k in range({FILES_PER_TURN})]
    last = t == turns - 1
    track(store, {SESSION!r}, [c.encode() for c in chosen + ([{BIG!r}] if last else [])])
    for c in chosen:
        with open(c, "a") as handle:
            handle.write(f"added in turn {{t}}\\n")
    if last:
        Path({BIG!r}).write_text("".join(
            f"value_{{i}} = {{i * 2 if i % 3 == 0 else i}}  # big\\n"
            for i in range({BIG_LINES})
        ))
    record_after(store, {SESSION!r}, close=True)
"""

# argv: mode ("paint" or "diff"), project, session, launch time (time.time()), big file path.
DRIVER = f"""
import time
started = time.perf_counter()
import asyncio, json, os, sys
from rewind.tui.app import RewindApp

mode, project, session, launched, big = sys.argv[1:6]

def leave(**figures):
    print(json.dumps(figures), flush=True)
    os._exit(0)

async def refreshed(widget):
    done = asyncio.Event()
    widget.call_after_refresh(done.set)
    await done.wait()

async def main():
    app = RewindApp(project, session)
    async with app.run_test(size={SIZE!r}) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()  # the +/- counts of the rows in view
        await pilot.pause()
        await refreshed(app.screen)
        painted = time.time() - float(launched)
        if mode == "paint":
            leave(paint=painted, in_process=time.perf_counter() - started)
        from rewind.tui.diff_view import DiffView
        from rewind.tui.file_list import FileList
        files = app.screen.query_one(FileList)
        view = app.screen.query_one(DiffView)
        paths = list(files.paths.values())
        target = paths.index(os.fsencode(big))
        files.focus()
        files.move_cursor(row=target - 1 if target else target + 1)
        await pilot.pause()
        await refreshed(view)
        shown_before = len(view.text_lines())
        start = time.perf_counter()
        await pilot.press("down" if target else "up")
        while files.selected_path() != os.fsencode(big) or len(view.text_lines()) < {BIG_LINES}:
            await asyncio.sleep(0)
        await refreshed(view)
        leave(diff=time.perf_counter() - start, lines=len(view.text_lines()), before=shown_before)

asyncio.run(main())
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tui-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed TUI start-ups and diffs (default 9, quick 5; env REWIND_BENCH_TUI_RUNS)",
    )


def driver(box: Sandbox, mode: str, workspace: Path) -> tuple[float, dict[str, float]]:
    """One driver process: its wall-clock time and the figures it printed."""
    argv = [PYTHON, "-c", DRIVER, mode, str(workspace), SESSION, repr(time.time()), BIG]
    start = time.perf_counter()
    completed = box.run(argv, cwd=workspace)
    elapsed = time.perf_counter() - start
    lines = completed.stdout.decode(errors="replace").strip().splitlines()
    if not lines:
        raise BenchError(f"the TUI driver ({mode}) printed nothing")
    figures: dict[str, float] = json.loads(lines[-1])
    return elapsed, figures


def run(options: argparse.Namespace) -> Report:
    runs = max(5, choose(options.tui_runs, "REWIND_BENCH_TUI_RUNS", 9, 5, options.quick))
    report = Report(NAME)
    with Sandbox("tui", keep=options.keep) as box:
        workspace = box.root / "project"
        git_init(box, workspace)
        progress(f"recording a session of {TURNS} turns x {FILES_PER_TURN} files (untimed)")
        started = time.perf_counter()
        box.run([PYTHON, "-c", SETUP, str(TURNS)], cwd=workspace)
        report.figure(
            f"set-up: {TURNS} turns, {TURNS * FILES_PER_TURN} file versions + a "
            f"{BIG_LINES:,}-line file in the last turn (information)",
            f"{time.perf_counter() - started:.1f} s",
        )
        settle()
        walls: list[float] = []
        paints: list[float] = []
        in_process: list[float] = []
        diffs: list[float] = []
        progress(f"{WARMUP} warm-up + {runs} rounds of TUI start-up / large diff")
        for round_number in range(WARMUP + runs):
            wall, figures = driver(box, "paint", workspace)
            _, shown = driver(box, "diff", workspace)
            if shown.get("lines", 0) < BIG_LINES:
                raise BenchError(f"the diff view showed {shown.get('lines')} lines")
            if round_number < WARMUP:
                continue
            walls.append(wall)
            paints.append(figures["paint"])
            in_process.append(figures["in_process"])
            diffs.append(shown["diff"])
        report.figure("TUI start to first full paint, whole process (wall)", spread(walls))
        report.figure("launch to first full paint, printed by the driver", spread(paints))
        report.figure(
            "driver's first line to first full paint (imports + app, information)",
            spread(in_process),
        )
        report.figure(f"select the {BIG_LINES:,}-line file to its diff shown", spread(diffs))
        report.check("TUI start to first full paint (s)", median(walls), "<=", START_TARGET)
        report.check(
            f"select {BIG_LINES:,}-line file to diff shown (s)", median(diffs), "<=", DIFF_TARGET
        )
    return report


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
