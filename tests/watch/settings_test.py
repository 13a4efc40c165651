"""The size cap, exit on a signal with pending changes, and rewind.toml's watch keys."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.conftest import error_line, ok, run_rewind, store_dir
from tests.watch.conftest import SESSION, Watch, entries, external, wait_for


def test_a_file_over_max_file_size_is_recorded_without_content_and_logged(
    committed: Path,
) -> None:
    (committed / "rewind.toml").write_text("max_file_size = 1000\n")
    watch = Watch(committed, "--session", SESSION)
    try:
        (committed / "big.bin").write_bytes(b"x" * 5000)

        def recorded() -> bool:
            change = external(committed).get(b"big.bin")
            return change is not None and change.after is not None and change.after.size == 5000

        wait_for(recorded, "big.bin")
        change = external(committed)[b"big.bin"]
        assert change.after is not None and change.after.kind == "too-large"
        assert change.before is not None and change.before.kind == "absent"
        log = (store_dir(committed) / "rewind" / "rewind.log").read_text()
        assert "big.bin is larger than max_file_size" in log
    finally:
        watch.stop()


@pytest.mark.parametrize("sign", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_watcher_cleanly_and_records_what_is_pending(
    committed: Path, sign: int
) -> None:
    """A long quiet period keeps the change pending; the stop records it before exiting 0."""
    (committed / "rewind.toml").write_text("watch_quiet_ms = 60000\nwatch_max_delay_ms = 60000\n")
    watch = Watch(committed, "--session", SESSION)
    (committed / "pending.txt").write_text("not quiet yet\n")
    assert b"pending.txt" not in external(committed)
    output = watch.stop(sign)
    assert "stopped watching (1 change(s) recorded)" in output
    assert b"pending.txt" in external(committed)
    assert not (store_dir(committed) / "rewind" / "watch.json").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('watch_exclude = "node_modules"', "watch_exclude must be a list of globs"),
        ("watch_storm_files = -1", "watch_storm_files must be a number of files"),
        ('watch_quiet_ms = "soon"', "watch_quiet_ms must be a number of milliseconds"),
        ("watch_on_session_start = 1", "watch_on_session_start must be true or false"),
    ],
)
def test_wrong_watch_keys_are_refused_with_the_file_named(
    committed: Path, text: str, message: str
) -> None:
    (committed / "rewind.toml").write_text(text + "\n")
    line = error_line(run_rewind("watch", "--status"))
    assert message in line and "rewind.toml" in line


def test_entries_without_a_watcher_have_no_unrecorded_key(committed: Path) -> None:
    ok("end", "--session", SESSION)
    [entry] = entries(committed)
    assert entry.unrecorded == [] and "unrecorded" not in entry.to_json()


def test_a_closed_output_pipe_does_not_stop_the_recording(committed: Path) -> None:
    """'rewind watch | head': once nobody reads its lines, it goes on recording, quietly."""
    watch = Watch(committed, "--session", SESSION)
    assert watch.process.stderr is not None
    watch.process.stderr.close()
    for name in ("one.txt", "two.txt"):
        (committed / name).write_text(name)
        wait_for(lambda name=name: name.encode() in external(committed), name)  # type: ignore[misc]
    watch.process.send_signal(signal.SIGTERM)
    assert watch.process.wait(timeout=60) == 0
    log = store_dir(committed) / "rewind" / "rewind.log"
    assert not log.exists() or "could not be recorded" not in log.read_text()
