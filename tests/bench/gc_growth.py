"""gc_growth: a store after months of use: 10,000 entries in one session, and what a gc costs.

10,000 turns through the Python API (``rewind.Project``), each making 3 small edits (one line
each, with ``Turn.write_text``) to 3 of 40 files of about 2 KB; ``begin`` starts gcs in the
background by itself along the way, as it does for people. Then, each ``rewind gc`` a process
whose time and peak memory (its own ``ru_maxrss``, from os.wait4) are measured:

1. ``rewind gc`` once the background gcs are done: how many packs, and the store's size
   against a shadow git repository of the same history (every turn's 3 changed files as one
   commit, written by ``git fast-import`` in the same run, then ``git gc --prune=now``);
2. ``rewind gc --full``: a full repack of the whole history, the reference;
3. 100 more turns, then ``rewind gc``: what an ordinary gc costs on a long history.

Targets:

- packs after gc 1 <= 5;
- store / shadow git repository <= 2.0 (after gc 1; what is counted: tests.bench.store_measures);
- peak memory of every gc <= 200 MB;
- time of gc 3 / time of the full repack <= 0.1.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from tests.bench.harness import Report, Sandbox, choose, git_init, progress, standalone
from tests.bench.store_measures import (
    GIT_PARTS,
    STORE_PARTS,
    GcRun,
    bytes_under,
    pack_count,
    run_gc,
    sandbox_environment,
    shadow_repository,
    store_of,
    wait_for_gc,
)

NAME = "gc_growth"
FILES = 40
LINES = 60  # about 2 KB a file
EDITS = 3
MORE_TURNS = 100
TARGET_PACKS = 5
TARGET_AGAINST_GIT = 2.0
TARGET_MEGABYTES = 200
TARGET_TIME_RATIO = 0.1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--gc-entries",
        type=int,
        default=None,
        metavar="N",
        help="entries recorded for gc_growth (default 10000, quick 3000; "
        "env REWIND_BENCH_GC_ENTRIES)",
    )


class Workspace:
    """The project's files as lists of lines, and every turn's changed files."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = {
            f"pkg/module_{n:02d}.py": [
                f"    value_{n}_{i} = compute({n}, {i * 7919 % 10007}, 'line {i} of file {n}')"
                for i in range(LINES)
            ]
            for n in range(FILES)
        }
        self.turns: list[dict[str, bytes]] = []
        for name, lines in self.files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(self.text(lines))
        self.turns.append({name: self.text(lines) for name, lines in self.files.items()})

    @staticmethod
    def text(lines: list[str]) -> bytes:
        return ("\n".join(lines) + "\n").encode()

    def record(self, project: object, count: int) -> None:
        import rewind

        assert isinstance(project, rewind.Project)
        names = list(self.files)
        for _ in range(count):
            number = len(self.turns)
            turn = project.turn(f"turn {number}")
            changed = {}
            for k in range(EDITS):
                name = names[(number * EDITS + k) % FILES]
                lines = self.files[name]
                at = (number * 13 + k * 7) % LINES
                lines[at] = f"    edited_{number}_{k} = revise({at}, {number})  # turn {number}"
                changed[name] = self.text(lines)
                turn.write_text(name, changed[name].decode())
            turn.end()
            self.turns.append(changed)


def run(options: argparse.Namespace) -> Report:
    entries = choose(options.gc_entries, "REWIND_BENCH_GC_ENTRIES", 10_000, 3_000, options.quick)
    report = Report(NAME)
    with Sandbox("gc-growth", keep=options.keep) as box, sandbox_environment(box):
        import rewind

        workspace = box.root / "project"
        git_init(box, workspace)
        files = Workspace(workspace)
        project = rewind.Project(workspace, session="long")
        progress(f"recording {entries} turns of {EDITS} edits (gcs start in the background)")
        files.record(project, entries)
        store = store_of(workspace)
        wait_for_gc(store)
        progress("rewind gc, then rewind gc --full")
        first = run_gc(box, workspace)
        packs = pack_count(store)
        store_bytes = bytes_under(store, STORE_PARTS)
        full = run_gc(box, workspace, "--full")
        progress(f"{MORE_TURNS} more turns, then rewind gc")
        files.record(project, MORE_TURNS)
        later = run_gc(box, workspace)
        progress("the shadow git repository: fast-import, then git gc --prune=now")
        shadow = shadow_repository(box, box.root / "shadow.git", files.turns[: entries + 1])
        shadow_bytes = bytes_under(shadow, GIT_PARTS)
        _report(report, entries, first, full, later, packs, store_bytes, shadow_bytes)
    return report


def _report(
    report: Report,
    entries: int,
    first: GcRun,
    full: GcRun,
    later: GcRun,
    packs: int,
    store_bytes: int,
    shadow_bytes: int,
) -> None:
    for label, gc in (
        (f"gc after {entries} entries", first),
        ("gc --full", full),
        (f"gc after {MORE_TURNS} more turns", later),
    ):
        report.figure(
            label, f"{gc.seconds:.2f} s, peak {gc.peak_bytes / 2**20:.0f} MiB: {gc.output}"
        )
    report.figure("store (objects/, refs/, rewind/)", f"{store_bytes / 2**20:.2f} MiB")
    report.figure("shadow git (objects/, refs/)", f"{shadow_bytes / 2**20:.2f} MiB")
    report.check(f"packs after a gc of {entries} entries", packs, "<=", TARGET_PACKS)
    report.check(
        "store / shadow git repository", store_bytes / shadow_bytes, "<=", TARGET_AGAINST_GIT
    )
    peak = max(gc.peak_bytes for gc in (first, full, later)) / 1e6
    report.check("gc peak memory (MB)", peak, "<=", TARGET_MEGABYTES)
    report.check(
        f"gc after {MORE_TURNS} turns / full gc (time)",
        later.seconds / full.seconds,
        "<=",
        TARGET_TIME_RATIO,
    )


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
