"""A burst past the cap is summarised in one record; the watcher keeps up with it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ok, store_dir
from tests.watch.conftest import SESSION, Watch, entries, external, recorded_with, wait_for

FILES = 50_000
# Like a package manager: 50 directories of 1,000 small files, as fast as Python writes them.
WRITER = """
import os, sys
for d in range(50):
    folder = os.path.join("vendor", f"pkg{d:02d}")
    os.makedirs(folder)
    for f in range(1000):
        with open(os.path.join(folder, f"f{f:04d}.js"), "w") as handle:
            handle.write(f"module.exports = {d * 1000 + f};\\n")
"""


def test_a_50000_file_burst_is_summarised_and_a_following_edit_is_recorded(
    committed: Path,
) -> None:
    # One burst is events less than max(1 s, 2 x watch_quiet_ms) apart. On a loaded machine
    # (the suite runs in parallel) the writer can stall for over a second, which would rightly
    # start a second burst with a cap of its own: a 3 s gap keeps this burst one.
    (committed / "rewind.toml").write_text("watch_quiet_ms = 1500\n")
    watching = Watch(committed, "--session", SESSION)
    try:
        _burst_then_edit(committed)
    finally:
        if watching.process.poll() is None:
            watching.stop()


def _burst_then_edit(committed: Path) -> None:
    writer = subprocess.Popen([sys.executable, "-c", WRITER], cwd=committed)
    # Meanwhile the agent's hooks still record promptly: the watcher holds the store lock
    # only for the bookkeeping of one batch at a time.
    slowest = 0.0
    while writer.poll() is None:
        started = time.monotonic()
        ok("track", "--session", SESSION, "config.ini")
        slowest = max(slowest, time.monotonic() - started)
    assert writer.returncode == 0
    assert slowest < 10.0  # a hook gives up waiting for the lock after 20 s

    def summarised() -> bool:
        return any(entry.unrecorded for entry in entries(committed))

    wait_for(summarised, "the storm's summary", timeout=240)
    [turn] = entries(committed)
    [storm] = turn.unrecorded
    assert turn.file(b"config.ini") is not None  # tracked during the storm
    recorded = [c for c in turn.files if c.path.startswith(b"vendor/")]
    assert len(recorded) == 1000  # watch_storm_files: the first ones, file by file
    assert storm.files == FILES - 1000  # and every other one counted: no event was lost
    assert storm.cap == 1000
    assert storm.directories == {"vendor/": FILES - 1000}

    log = ok("log").stdout
    assert (
        "+ 49,000 more files changed outside the agent, not recorded (watch_storm_files is "
        "1000): vendor/ 49,000" in log
    )
    problems = (store_dir(committed) / "rewind" / "rewind.log").read_text()
    assert "storm: + 49,000 more files" in problems and "overflow" not in problems

    # The watcher kept up: each change of a following normal edit is recorded.
    (committed / "notes.txt").write_text("after the storm\n")
    (committed / "src" / "new.py").write_text("x = 1\n")
    (committed / "doomed.txt").unlink()
    wait_for(lambda: recorded_with(committed, "notes.txt", b"after the storm\n"), "notes.txt")
    wait_for(lambda: recorded_with(committed, "src/new.py", b"x = 1\n"), "new.py")
    wait_for(lambda: recorded_with(committed, "doomed.txt", None), "doomed.txt")
    assert len(external(committed)) == 1003  # config.ini was the hook's: an edit


def test_a_storm_does_not_hide_edits_to_files_rewind_knows(committed: Path) -> None:
    """Past the cap, new files are counted, but a file the session recorded is still recorded."""
    (committed / "rewind.toml").write_text("watch_storm_files = 10\n")
    ok("track", "--session", SESSION, "notes.txt")
    ok("end", "--session", SESSION)
    watch = Watch(committed, "--session", SESSION)
    try:
        script = (
            "import os\nos.makedirs('out')\n"
            "for i in range(200):\n    open(f'out/{i}.txt', 'w').write(str(i))\n"
            "open('notes.txt', 'w').write('during the storm\\n')\n"
        )
        subprocess.run([sys.executable, "-c", script], cwd=committed, check=True)
        wait_for(lambda: any(e.unrecorded for e in entries(committed)), "the summary")
        changes = external(committed)
        assert b"notes.txt" in changes
        assert len([path for path in changes if path.startswith(b"out/")]) == 10
        [storm] = entries(committed)[-1].unrecorded
        assert storm.files == 190
    finally:
        watch.stop()
