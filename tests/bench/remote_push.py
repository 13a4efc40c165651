"""remote_push: ``rewind push`` of a 1,000-turn session to an empty remote, then after one more
turn, against ``git push`` of the same refs from the same store.

One session of 1,000 turns is recorded through ``rewind.Project`` in a git project: each turn
changes a few lines of one of 30 source files of about 4 KB and appends a paragraph to a notes
file that grows to about 150 KB; the store is then packed with ``rewind gc`` (as the automatic
gc does once loose objects pile up).

Full push, timed as processes, interleaved, each run to a fresh empty bare repository:
``rewind push REMOTE --all`` (each run to a remote of its own name, with the export map
removed first, so that every run is a first push that walks the whole session), and the
reference, ``git --git-dir=STORE push EMPTY 'refs/rewind/sessions/*:refs/x/*'``: git's
transport alone, so the ratio says what rewind adds on top of it.

Incremental push: one more turn, then ``rewind push --all`` to each remote the full runs
filled, interleaved with the reference's ``git push`` of the same refs to the repositories it
filled. Both are traced (``GIT_TRACE2_EVENT``: ``pack-objects`` says how many objects it
wrote), and the remotes unpack what they receive (``receive.unpackLimit``), so that ``git
count-objects -v`` counts the objects a push added. rewind's push must send exactly what git's
sends, ``git rev-list --objects NEW ^OLD`` (the new turn's objects, and the file's content
before the turn when an earlier turn recorded it: git knows only that the remote has the old
tip), and add to the remote exactly the objects the new tip reaches and the old one does not.

Then, in a clone of the project with another ``REWIND_HOME`` (a second machine): ``rewind
fetch`` of the session and the first ``rewind log --remote`` on it (after a ``rewind remote
remove`` and ``add``, which drop what was fetched), against ``git fetch`` of the same refs into
an empty bare repository; figures only.

Then ``rewind push --all`` once more to the same remotes, with nothing left to send: what any
``rewind push`` costs whatever it sends (the start-up of a ``rewind`` command, reading the
sessions' refs and the record of the last push).

Targets: full push at most 2x the plain git push (medians); the incremental push sends exactly
the new turn's objects (no object of the history beyond what git's own push sends), and what it
costs beyond an up-to-date ``rewind push`` is at most 1.5x the plain incremental git push: the
new turn costs what git's transport of it costs, not what the 1,000 turns before it do.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.bench.harness import (
    BenchError,
    Report,
    Sandbox,
    choose,
    git_init,
    median,
    progress,
    rewind_script,
    settle,
    spread,
    standalone,
)

NAME = "remote_push"
FULL_TARGET = 2.0
INCREMENTAL_TARGET = 1.5  # (incremental - up to date) / git's incremental push
SESSION = "bench"
REFERENCE_REFSPEC = "refs/rewind/sessions/*:refs/x/*"

BUILD = """
import random
import sys
import rewind

root, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
chance = random.Random(first)
project = rewind.Project(root, session="%(session)s", agent="bench")
sources = [f"src/module{k:02d}.py" for k in range(30)]
for number in range(first, first + count):
    name = sources[chance.randrange(len(sources))]
    with open(f"{root}/{name}", encoding="utf-8") as handle:
        lines = handle.read().split("\\n")
    for _ in range(chance.randint(1, 6)):
        where = chance.randrange(len(lines))
        lines[where] = f"    value_{where} = compute({where}, 'turn {number}')"
    note = (
        f"\\n## Turn {number}\\n\\nChanged {name}: renamed a helper, adjusted {where} and the "
        f"tests that cover it; the parser now keeps {number % 17} spare slots.\\n"
    )
    with open(f"{root}/NOTES.md", encoding="utf-8") as handle:
        notes = handle.read()
    with project.turn(f"turn {number}: change {name} and note why") as turn:
        turn.write_text(name, "\\n".join(lines))
        turn.write_text("NOTES.md", notes + note)
"""

STORE_DIR = (
    "from rewind.history.restoring.opening import open_current_store\n"
    "print(open_current_store().git_dir)\n"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--push-turns",
        type=int,
        default=None,
        metavar="N",
        help="turns of the session pushed (default 1000, quick 200; env REWIND_BENCH_PUSH_TURNS)",
    )
    parser.add_argument(
        "--push-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed runs of each push (default 5, quick 3; env REWIND_BENCH_PUSH_RUNS)",
    )


def run(options: argparse.Namespace) -> Report:
    turns = choose(options.push_turns, "REWIND_BENCH_PUSH_TURNS", 1000, 200, options.quick)
    runs = choose(options.push_runs, "REWIND_BENCH_PUSH_RUNS", 5, 3, options.quick)
    report = Report(NAME)
    script = rewind_script()
    with Sandbox("push", keep=options.keep) as box:
        project = box.root / "project"
        _make_project(box, project)
        progress(f"recording {turns:,} turns")
        box.run([sys.executable, "-c", _build(), str(project), "1", str(turns)], project)
        box.run([script, "gc", "--quiet"], project)
        store = box.run([sys.executable, "-c", STORE_DIR], project).stdout.decode().strip()
        old_tip = _git(box, store, "rev-parse", f"refs/rewind/sessions/{SESSION}")
        report.figure(
            f"store after {turns:,} turns",
            f"{_objects(box, store)} objects, {_disk_kb(Path(store)) / 1024:.1f} MB",
        )
        remotes = box.root / "remotes"
        remotes.mkdir()
        for name in ("warm", *(f"r{i}" for i in range(runs))):
            box.run([script, "remote", "add", name, str(remotes / f"{name}.git")], project)

        # full push -------------------------------------------------------------------------
        full: dict[str, list[float]] = {"rewind push --all": [], "git push": []}
        export_map = Path(store) / "rewind" / "exported"
        _bare(box, remotes / "warm.git")  # a first push, untimed: bytecode, page cache
        box.run([script, "push", "warm", "--all"], project)
        progress(f"{runs} rounds of the full push: rewind push, git push")
        for i in range(runs):
            reference = remotes / f"ref{i}.git"
            _bare(box, reference)
            _bare(box, remotes / f"r{i}.git")
            export_map.unlink(missing_ok=True)  # every run is a first push
            settle()
            full["git push"].append(
                box.timed(
                    ["git", f"--git-dir={store}", "push", "-q", str(reference), REFERENCE_REFSPEC],
                    project,
                )
            )
            full["rewind push --all"].append(box.timed([script, "push", f"r{i}", "--all"], project))
            _expect_tip(box, remotes / f"r{i}.git", old_tip)
            _expect_tip(box, reference, old_tip)
        for name, values in full.items():
            report.figure(f"{name}, {turns:,} turns to an empty remote", spread(values))
        report.figure(
            "objects on the remote after the full push", str(_objects(box, str(remotes / "r0.git")))
        )
        report.check(
            "full push: rewind / git push",
            median(full["rewind push --all"]) / median(full["git push"]),
            "<=",
            FULL_TARGET,
        )

        # incremental push ------------------------------------------------------------------
        box.run([sys.executable, "-c", _build(), str(project), str(turns + 1), "1"], project)
        new_tip = _git(box, store, "rev-parse", f"refs/rewind/sessions/{SESSION}")
        # What is new to a remote that has the session's history: the new turn's objects.
        new = _object_set(box, store, new_tip) - _object_set(box, store, old_tip)
        # What git's transport sends, knowing only that the remote has the old tip: the new
        # turn's objects, and the earlier contents its tree names that the old tip's tree
        # does not (a file's "before", recorded by an earlier turn); the history is not sent.
        sendable = len(
            _git(box, store, "rev-list", "--objects", new_tip, f"^{old_tip}").split("\n")
        )
        report.figure(
            "the new turn's objects (new to the remote / git would send)",
            f"{len(new)} / {sendable}",
        )
        for i in range(runs):
            for remote in (remotes / f"r{i}.git", remotes / f"ref{i}.git"):
                _git(box, str(remote), "config", "receive.unpackLimit", "1000000000")
        incremental: dict[str, list[float]] = {"rewind push --all": [], "git push": []}
        sent: dict[str, list[tuple[int, int, int, int]]] = {"rewind push --all": [], "git push": []}
        progress(f"{runs} rounds of the incremental push: rewind push, git push")
        for i in range(runs):
            settle()
            for name, remote, argv in (
                (
                    "git push",
                    remotes / f"ref{i}.git",
                    [
                        "git",
                        f"--git-dir={store}",
                        "push",
                        "-q",
                        str(remotes / f"ref{i}.git"),
                        REFERENCE_REFSPEC,
                    ],
                ),
                ("rewind push --all", remotes / f"r{i}.git", [script, "push", f"r{i}", "--all"]),
            ):
                before = _counts(box, remote)
                trace = box.root / "trace2.json"
                trace.unlink(missing_ok=True)
                # git's trace2 events say how many objects pack-objects wrote to the remote;
                # both commands are traced, so both pay for it.
                incremental[name].append(
                    box.timed(argv, project, env=box.environment(GIT_TRACE2_EVENT=str(trace)))
                )
                after = _counts(box, remote)
                sent[name].append(
                    (
                        _objects_sent(trace),
                        after[0] - before[0],
                        after[1] - before[1],
                        after[2] - before[2],
                    )
                )
                _expect_tip(box, remote, new_tip)
        for name, values in incremental.items():
            report.figure(f"{name}, one more turn", spread(values))
            wrote, loose, size_kb, packed = sent[name][0]
            report.figure(
                f"{name}, one more turn: objects",
                f"{wrote} sent, {loose} new on the remote ({size_kb} KB loose), {packed} packed"
                + ("" if len(set(sent[name])) == 1 else f" (runs differ: {sent[name]})"),
            )
        report.check(
            "incremental push: objects beyond the new turn's",
            float(
                max(
                    abs(wrote - sendable) + abs(loose - len(new)) + packed
                    for wrote, loose, _, packed in sent["rewind push --all"]
                )
            ),
            "<=",
            0,
        )
        up_to_date = []
        for i in range(runs):
            settle()
            up_to_date.append(box.timed([script, "push", f"r{i}", "--all"], project))
        report.figure("rewind push --all, nothing to send", spread(up_to_date))
        report.figure(
            "incremental push: rewind / git push",
            f"{median(incremental['rewind push --all']) / median(incremental['git push']):.2f}",
        )
        report.check(
            "incremental push beyond an up-to-date one / git push",
            (median(incremental["rewind push --all"]) - median(up_to_date))
            / median(incremental["git push"]),
            "<=",
            INCREMENTAL_TARGET,
        )

        # fetch on a second machine ---------------------------------------------------------
        _fetch(box, report, project, remotes / "r0.git", runs, turns + 1)
    return report


def _fetch(
    box: Sandbox, report: Report, project: Path, remote: Path, runs: int, entries: int
) -> None:
    script = rewind_script()
    clone = box.root / "clone"
    box.run(["git", "clone", "-q", str(project), str(clone)], box.root)
    home = box.root / "home2"
    home.mkdir()
    second = box.environment(
        HOME=str(home), REWIND_HOME=str(box.root / "rewind-home2"), REWIND_MACHINE="laptop"
    )
    times: dict[str, list[float]] = {
        "rewind fetch": [],
        "git fetch": [],
        "first rewind log --remote": [],
        "later rewind log --remote": [],
    }
    log = [script, "--no-pager", "log", "--remote", "bench"]
    progress(f"{runs} rounds of rewind fetch, git fetch, rewind log --remote")
    for i in range(runs):
        box.run([script, "remote", "add", "bench", str(remote)], clone, env=second)
        reference = box.root / f"fetched{i}.git"
        _bare(box, reference)
        settle()
        times["git fetch"].append(
            box.timed(
                [
                    "git",
                    f"--git-dir={reference}",
                    "fetch",
                    "-q",
                    str(remote),
                    "refs/rewind/*:refs/x/*",
                ],
                box.root,
            )
        )
        times["rewind fetch"].append(box.timed([script, "fetch", "bench"], clone, env=second))
        times["first rewind log --remote"].append(box.timed(log, clone, env=second))
        times["later rewind log --remote"].append(box.timed(log, clone, env=second))
        shown = box.run([*log, "--json"], clone, env=second).stdout
        if shown.count(b'"turn"') < entries // 2:  # the log did show the fetched session
            raise BenchError(f"rewind log --remote did not show {entries} entries")
        box.run([script, "remote", "remove", "bench"], clone, env=second)
        shutil.rmtree(reference)
    for name, values in times.items():
        report.figure(f"{name}, {entries:,} entries", spread(values))
    report.figure(
        "rewind fetch / git fetch",
        f"{median(times['rewind fetch']) / median(times['git fetch']):.2f}",
    )


def _build() -> str:
    return BUILD.replace("%(session)s", SESSION)


def _make_project(box: Sandbox, project: Path) -> None:
    from tests.bench.harness import file_content

    git_init(box, project)
    (project / "src").mkdir()
    for k in range(30):
        (project / f"src/module{k:02d}.py").write_bytes(file_content(k, 4096))
    (project / "NOTES.md").write_text("# Notes\n")
    box.run(["git", "add", "-A"], project)
    box.run(["git", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "start"], project)


def _bare(box: Sandbox, path: Path) -> None:
    box.run(["git", "init", "-q", "--bare", str(path)], box.root)


def _git(box: Sandbox, git_dir: str, *arguments: str) -> str:
    return box.run(["git", f"--git-dir={git_dir}", *arguments], box.root).stdout.decode().strip()


def _counts(box: Sandbox, git_dir: Path) -> tuple[int, int, int]:
    """``git count-objects -v``: loose objects, their KB, and objects in packs."""
    fields = dict(
        line.split(": ", 1) for line in _git(box, str(git_dir), "count-objects", "-v").splitlines()
    )
    return int(fields["count"]), int(fields["size"]), int(fields["in-pack"])


def _object_set(box: Sandbox, git_dir: str, tip: str) -> set[str]:
    """Every object ``tip`` reaches (its whole history)."""
    listed = _git(box, git_dir, "rev-list", "--objects", tip)
    return {line[:40] for line in listed.splitlines()}


def _objects_sent(trace: Path) -> int:
    """The objects ``git pack-objects`` wrote in a traced run (0: no pack was sent)."""
    import json

    wrote = 0
    for line in trace.read_text().splitlines():
        event = json.loads(line)
        if event.get("category") == "pack-objects" and event.get("key") == "write_pack_file/wrote":
            wrote += int(event["value"])
    return wrote


def _objects(box: Sandbox, git_dir: str) -> int:
    loose, _, packed = _counts(box, Path(git_dir))
    return loose + packed


def _expect_tip(box: Sandbox, remote: Path, tip: str) -> None:
    """The push did its work: the remote's one session ref is the local tip."""
    refs = _git(box, str(remote), "for-each-ref", "--format=%(objectname)").split()
    if refs != [tip]:
        raise BenchError(f"{remote.name} holds {refs}, not the session's tip {tip}")


def _disk_kb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1024


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
