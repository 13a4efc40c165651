"""``rewind stats`` and the stats files behind it: the figures are checked against counts made
here, independently (git reading the store, the file system, the hook processes this test ran).
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import rewind
from rewind.errors import ConflictError
from rewind.store.event_log import OLD_SUFFIX, ROTATE_AT, read_events
from rewind.store.hook_calls import HookWindow, write_hook_call
from rewind.store.storage_check import human_size as size_text
from tests.conftest import error_line, ok, run_rewind, store_dir
from tests.support.agent_payloads import ClaudeCode, Payload
from tests.support.git import git

MAX_FILE_SIZE = 100


def unprivileged() -> list[str]:
    """What runs a command so that it cannot read a file it has no permission for, even as
    root (see tests/conftest.without_read_permission)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root and setpriv (util-linux) is not installed")
    dropped = "-dac_override,-dac_read_search"
    return ["setpriv", f"--inh-caps={dropped}", f"--bounding-set={dropped}"]


class Hooks:
    """Runs Claude Code's hook events as real processes, and counts them."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, payload: Payload | None) -> None:
        assert payload is not None
        command = [*unprivileged(), sys.executable, "-m", "rewind", "hook", "claude-code"]
        done = subprocess.run(
            command, input=json.dumps(payload), capture_output=True, text=True, timeout=60
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        self.calls += 1


def git_entries(store: Path) -> list[dict[str, Any]]:
    """Every entry of every session, as git reads the store's commits (not rewind)."""
    entries = []
    refs = git("for-each-ref", "--format=%(refname)", "refs/rewind/sessions/", git_dir=store)
    for ref in refs.split():
        for commit in git("rev-list", ref, git_dir=store).split():
            entries.append(json.loads(git("show", f"{commit}:turn.json", git_dir=store)))
    return entries


def bytes_on_disk(directory: Path) -> int:
    total = 0
    for folder, _, names in os.walk(directory):
        for name in names:
            total += os.lstat(os.path.join(folder, name)).st_blocks * 512
    return total


def nearest_rank(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(len(ordered) * fraction)) - 1]


def stats_json(*arguments: str, cwd: Path | None = None) -> Any:
    return json.loads(ok("stats", "--json", *arguments, cwd=cwd).stdout)


def build_history(root: Path) -> tuple[Hooks, str]:
    """Two turns through real hook processes (an edit, a too-large file, an unreadable file),
    a restore refused, a restore, an undo and a gc. Returns the hooks run and what gc printed."""
    (root / "rewind.toml").write_text(f"max_file_size = {MAX_FILE_SIZE}\n")
    (root / "a.txt").write_text("one\n")
    (root / "big.txt").write_text("x" * (MAX_FILE_SIZE * 10))
    (root / "secret.txt").write_text("hidden\n")
    (root / "secret.txt").chmod(0)
    agent, hook = ClaudeCode(root), Hooks()

    hook(agent.prompt("Edit three files"))
    before, after = agent.edit("a.txt", "one", "two")
    hook(before)
    (root / "a.txt").write_text("two\n")
    hook(after)
    before, after = agent.write("big.txt", "y" * (MAX_FILE_SIZE * 20))
    hook(before)
    (root / "big.txt").write_text("y" * (MAX_FILE_SIZE * 20))
    hook(after)
    before, _ = agent.edit("secret.txt", "hidden", "shown")
    hook(before)
    hook(agent.end())

    hook(agent.prompt("Edit a.txt again"))
    before, after = agent.edit("a.txt", "two", "three")
    hook(before)
    (root / "a.txt").write_text("three\n")
    hook(after)
    hook(agent.end())

    (root / "a.txt").write_text("by hand\n")
    assert "changed outside rewind" in error_line(run_rewind("restore", "2", "--yes"))
    (root / "a.txt").write_text("three\n")
    ok("restore", "2", "--yes")
    assert (root / "a.txt").read_text() == "two\n"
    ok("undo", "--yes")
    assert (root / "a.txt").read_text() == "three\n"
    return hook, ok("gc").stdout


def test_stats_equal_counts_made_independently(project: Path) -> None:
    hook, gc_output = build_history(project)
    store = store_dir(project)
    entries = git_entries(store)
    on_disk = bytes_on_disk(store)

    figures = stats_json()

    assert bytes_on_disk(store) == on_disk  # stats wrote nothing into the store
    kinds = [entry["kind"] for entry in entries]
    assert sorted(kinds) == ["restore", "turn", "turn", "undo"]
    assert figures["sessions"] == 1
    assert figures["entries"] == {
        "total": len(entries),
        "turns": kinds.count("turn"),
        "restores": kinds.count("restore"),
        "undos": kinds.count("undo"),
        "redos": kinds.count("redo"),
        "damaged": 0,
    }
    files = [item for entry in entries for item in entry["files"]]
    in_turns = [
        item.get("source", "edit")
        for entry in entries
        if entry["kind"] == "turn"
        for item in entry["files"]
    ]
    by_source = {name: in_turns.count(name) for name in ("edit", "shell", "external", "program")}
    assert figures["files"] == {"records": len(files), "paths": 3, "by_source": by_source}
    assert {item["path"] for item in files} == {"a.txt", "big.txt", "secret.txt"}
    recorded = sum(
        state["size"]
        for item in files
        for state in (item["before"], item["after"])
        if state is not None and "oid" in state
    )
    # a.txt's states (the only ones with content): one->two, two->three, restore, undo.
    assert recorded == (4 + 4) + (4 + 6) + (6 + 4) + (4 + 6)
    assert figures["bytes"] == {"recorded": recorded, "on_disk": on_disk}

    day, week = figures["hooks"]["day"], figures["hooks"]["week"]
    lines = (store / "rewind" / "stats" / "hook-calls.log").read_text().splitlines()
    latencies = [float(line.split(" ms=")[1].split()[0]) for line in lines]
    assert day["calls"] == week["calls"] == hook.calls == len(lines)
    assert day["p50_ms"] == pytest.approx(
        nearest_rank(latencies, 0.5), abs=0.06
    )  # --json rounds to 0.1 ms
    assert day["p95_ms"] == pytest.approx(
        nearest_rank(latencies, 0.95), abs=0.06
    )  # --json rounds to 0.1 ms
    assert 0 < day["p50_ms"] <= day["p95_ms"] < 60_000
    failures = {key: day[key] for key in ("unreadable", "too_large", "special", "spooled")}
    assert failures == {"unreadable": 1, "too_large": 1, "special": 0, "spooled": 0}
    assert (day["lock_timeouts"], day["errors"], day["complete"]) == (0, 0, True)

    assert figures["restores"]["done"] == 1
    assert figures["restores"]["refused"] == 1
    assert figures["restores"]["undone"] == 1

    gc = figures["last_gc"]
    # The default retention keeps a history this young whole.
    assert gc is not None and gc["retention_dropped"] == {"sessions": 0, "entries": 0, "bytes": 0}
    sizes = f"{size_text(gc['size_before'])} -> {size_text(gc['size_after'])},"
    assert sizes in gc_output.splitlines()[0]
    assert gc["seconds"] >= 0

    text = ok("stats").stdout
    assert f"entries       {len(entries)}: 2 turn(s), 1 restore(s), 1 undo(s)\n" in text
    assert f"files         {len(files)} record(s) of 3 path(s)\n" in text
    assert "restores      1 done, 1 refused (conflicts), 1 undone\n" in text
    assert "retention dropped: none" in text
    assert f"  {'calls':<18}{hook.calls:>11}{hook.calls:>11}\n" in text


def test_restores_through_the_python_api_count_too(project: Path) -> None:
    (project / "a.txt").write_text("one\n")
    api = rewind.Project(project, session="api")
    with api.turn("change") as turn:
        turn.write_text("a.txt", "two\n")
    (project / "a.txt").write_text("by hand\n")
    with pytest.raises(ConflictError):
        api.restore(1)
    api.restore(1, force=True)
    api.undo()
    assert stats_json()["restores"] == {
        "done": 1,
        "refused": 1,
        "undone": 1,
        "undo_refused": 0,
        "since": stats_json()["restores"]["since"],
    }
    assert stats_json()["restores"]["since"].endswith("Z")


def test_the_hook_calls_log_stays_bounded(tmp_path: Path) -> None:
    path = str(tmp_path / "stats" / "hook-calls.log")
    line_length = len("1796000000.000 ms=12.34 agent=claude-code event=PreToolUse spooled=1\n")
    written = 3 * ROTATE_AT // line_length
    for _ in range(written):
        assert write_hook_call(path, 12.34, "claude-code", "PreToolUse", {"spooled": 1})
    # A log is rotated once it has reached ROTATE_AT, the line that finds it so going in last.
    assert os.path.getsize(path) < ROTATE_AT + 2 * line_length
    assert os.path.getsize(path + OLD_SUFFIX) < ROTATE_AT + 2 * line_length
    assert sorted(os.listdir(tmp_path / "stats")) == ["hook-calls.log", "hook-calls.log.old"]
    log = read_events(path)
    assert ROTATE_AT // line_length < len(log.events) < written  # the oldest were dropped
    window = HookWindow(log, start=0.0)
    assert not window.complete  # and the figures say so
    assert window.counts["spooled"] == window.calls == len(log.events)
    assert window.p50_ms == window.p95_ms == pytest.approx(12.34)


LOADED_LONG_BEFORE = 2.0  # seconds between loading rewind and running a hook's command


def test_a_hook_calls_latency_is_its_own_in_a_process_that_loaded_rewind_long_before(
    project: Path,
) -> None:
    """The latency runs from when the command began, not from when its process loaded rewind:
    a process forked from one that loaded it (the tests' server) is a call of its own."""
    later = (
        "import sys, time, rewind.cli; "
        f"time.sleep({LOADED_LONG_BEFORE}); sys.exit(rewind.cli.main(['hook', 'claude-code']))"
    )
    payload = json.dumps(ClaudeCode(project).prompt("Edit a.txt"))
    done = subprocess.run(
        [sys.executable, "-c", later], input=payload, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    [line] = (store_dir(project) / "rewind" / "stats" / "hook-calls.log").read_text().splitlines()
    assert 0 < float(line.split(" ms=")[1].split()[0]) < LOADED_LONG_BEFORE * 1000 / 2, line


def test_a_log_that_cannot_be_written_is_skipped_quietly(tmp_path: Path) -> None:
    blocker = tmp_path / "stats"
    blocker.write_text("a file where the folder should be\n")
    assert not write_hook_call(str(blocker / "hook-calls.log"), 1.0, "x", "y", {})


def status_size(project: Path) -> str:
    line = next(line for line in ok("status").stdout.splitlines() if line.startswith("store:"))
    return line.split("(about ", 1)[1].split(",", 1)[0]


def test_status_takes_the_size_from_the_gc_record_not_from_the_store(project: Path) -> None:
    (project / "a.txt").write_text("one\n")
    ok("begin", "--session", "s")
    ok("track", "a.txt")
    ok("end")
    assert "last gc:  none yet" in ok("status").stdout
    ok("gc")
    store = store_dir(project)
    record = json.loads((store / "rewind" / "stats" / "gc.json").read_text())
    assert status_size(project) == size_text(record["size_after"])

    (store / "rewind" / "unrelated.bin").write_bytes(os.urandom(4 * 1024 * 1024))
    assert status_size(project) == size_text(record["size_after"])

    record["size_after"] = 123_456_789
    (store / "rewind" / "stats" / "gc.json").write_text(json.dumps(record))
    assert status_size(project) == "117.7 MiB"
    assert "last gc:  " in ok("status").stdout


def test_status_estimates_loose_objects_written_since_the_last_gc(project: Path) -> None:
    ok("begin", "--session", "s")
    ok("gc")
    after_gc = json.loads((store_dir(project) / "rewind" / "stats" / "gc.json").read_text())
    for number in range(300):  # many new objects: the estimate must grow with them
        (project / f"f{number}.txt").write_bytes(os.urandom(8192))
    ok("track", *(f"f{number}.txt" for number in range(300)))
    estimate = status_size(project)
    assert estimate.endswith("MiB") and float(estimate.split()[0]) >= 1.5, estimate
    assert after_gc["size_after"] < 1024 * 1024


def test_all_covers_every_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert ok("stats", "--all", "--json").stdout.strip() == "[]"
    assert ok("stats", "--all").stdout.startswith("rewind has recorded no project yet")
    roots = []
    for name, turns in (("first", 1), ("second", 3)):
        root = tmp_path / name
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        for _ in range(turns):
            ok("begin", "--session", "s", cwd=root)
        roots.append(os.path.realpath(root))

    stray = Path(os.environ["REWIND_HOME"]) / "stores" / "moved-0123456789ab"
    (stray / "rewind").mkdir(parents=True)
    (stray / "HEAD").write_text("ref: refs/heads/main\n")
    (stray / "rewind" / "project.json").write_text('{"root": "/a/root/of/another/store"}')

    figures = stats_json("--all")
    [unreadable] = [item for item in figures if item["store"] == str(stray)]
    assert "does not name the root" in unreadable["problem"] and unreadable["entries"] is None
    figures.remove(unreadable)
    assert sorted(item["project"] for item in figures) == sorted(roots)
    counted = {item["project"]: item["entries"]["turns"] for item in figures}
    assert counted == {roots[0]: 1, roots[1]: 3}
    text = ok("stats", "--all").stdout
    assert all(f"project       {root}\n" in text for root in roots)
    assert "3 projects: 2 session(s), 4 entries" in text
    assert "problem       its rewind/project.json does not name the root" in text


def test_json_shape(project: Path) -> None:
    ok("begin", "--session", "s")
    figures = stats_json()
    assert list(figures) == [
        "format",
        "project",
        "store",
        "problem",
        "sessions",
        "unreadable_sessions",
        "entries",
        "files",
        "bytes",
        "hooks",
        "restores",
        "last_gc",
        "backup",
        "fetched_bytes",
    ]
    assert figures["backup"] is None and figures["fetched_bytes"] == 0
    assert figures["project"] == os.path.realpath(project)
    assert figures["store"] == str(store_dir(project))
    assert figures["problem"] is None and figures["last_gc"] is None
    assert list(figures["entries"]) == ["total", "turns", "restores", "undos", "redos", "damaged"]
    assert list(figures["bytes"]) == ["recorded", "on_disk"]
    assert list(figures["hooks"]) == ["day", "week"]
    assert list(figures["hooks"]["day"]) == [
        "from",
        "complete",
        "calls",
        "p50_ms",
        "p95_ms",
        "lock_timeouts",
        "spooled",
        "errors",
        "ignored",
        "unreadable",
        "too_large",
        "special",
        "unwatched",
    ]
    assert figures["hooks"]["week"]["p50_ms"] is None  # no hook ran
    assert figures["hooks"]["week"]["from"].endswith("Z")
    assert list(figures["restores"]) == ["done", "refused", "undone", "undo_refused", "since"]
    ok("gc")
    assert list(stats_json()["last_gc"]) == [
        "time",
        "seconds",
        "size_before",
        "size_after",
        "packed",
        "loose_removed",
        "retention_dropped",
    ]


def test_without_a_store_stats_says_so(project: Path) -> None:
    line = error_line(run_rewind("stats"))
    assert line.startswith("rewind: nothing is recorded for ") and "rewind: rewind" not in line


def test_a_record_spooled_for_want_of_the_journals_lock_is_counted(project: Path) -> None:
    """Waits the hooks' 5 s for the journal's lock, as a busy journal makes a real hook do."""
    (project / "a.txt").write_text("one\n")
    agent, hook = ClaudeCode(project), Hooks()
    hook(agent.prompt("Edit a.txt"))
    [journal] = [
        path
        for path in (store_dir(project) / "rewind" / "journal").iterdir()
        if path.is_file() and ".." not in path.name
    ]
    before, _ = agent.edit("a.txt", "one", "two")
    fd = os.open(journal, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another process holds the journal, and does not let go
    try:
        hook(before)
    finally:
        os.close(fd)
    day = stats_json()["hooks"]["day"]
    assert (day["calls"], day["spooled"], day["lock_timeouts"], day["errors"]) == (2, 1, 0, 0)
    lines = (store_dir(project) / "rewind" / "stats" / "hook-calls.log").read_text().splitlines()
    assert lines[-1].endswith(" event=PreToolUse spooled=1")


def test_status_says_its_size_is_an_estimate_and_stats_that_its_is_measured(
    project: Path,
) -> None:
    (project / "a.txt").write_text("one\n")
    ok("begin", "--session", "s")
    ok("track", "a.txt")
    ok("end")
    store_line = next(
        line for line in ok("status").stdout.splitlines() if line.startswith("store:")
    )
    assert "(about " in store_line and ", estimated" in store_line
    disk = next(line for line in ok("stats").stdout.splitlines() if line.startswith("on disk"))
    assert " measured, " in disk
