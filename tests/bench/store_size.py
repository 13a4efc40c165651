"""store_size: what 200 turns over one 100 KB text file take in the store after ``rewind gc``.

200 turns through the Python API (``rewind.Project``: begin, track, edit, end), each changing
three lines of one 100 KB text file (lines of code-like text, all different). Then ``rewind gc``
(the command, as a process). The reference is a shadow git repository, built with git in the
same run, holding the same 201 versions (the original and the one after each turn) as 201
commits, after ``git gc --prune=now``. What is counted is said in
:mod:`tests.bench.store_measures` (a store: ``objects/``, ``refs/``, ``rewind/``).

Targets:

- store / shadow git repository <= 2.0;
- store / the versions' full copies (200 x 100 KB) <= 0.02;
- files under the store's ``objects/`` <= 30.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from tests.bench.harness import Report, Sandbox, choose, git_init, progress, standalone
from tests.bench.store_measures import (
    GIT_PARTS,
    STORE_PARTS,
    bytes_under,
    files_under,
    pack_count,
    run_gc,
    sandbox_environment,
    shadow_repository,
    store_of,
)

NAME = "store_size"
FILE_SIZE = 100 * 1024
CHANGED_LINES = 3
TARGET_AGAINST_GIT = 2.0
TARGET_AGAINST_COPIES = 0.02
TARGET_FILES = 30
PATH = "src/big_module.py"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--size-turns",
        type=int,
        default=None,
        metavar="N",
        help="turns recorded for store_size (default 200, quick 200; env REWIND_BENCH_SIZE_TURNS)",
    )


def original_lines() -> list[str]:
    lines = []
    size = 0
    number = 0
    while size < FILE_SIZE:
        number += 1
        value = number * 7919 % 10007
        line = f"    total_{number} = combine(total_{number - 1}, {value}, 'step {number}')"
        lines.append(line)
        size += len(line) + 1
    return lines


def run(options: argparse.Namespace) -> Report:
    turns = choose(options.size_turns, "REWIND_BENCH_SIZE_TURNS", 200, 200, options.quick)
    report = Report(NAME)
    with Sandbox("size", keep=options.keep) as box, sandbox_environment(box):
        workspace = box.root / "project"
        git_init(box, workspace)
        versions = _record(workspace, turns)
        progress("rewind gc")
        gc = run_gc(box, workspace)
        store = store_of(workspace)
        progress("the shadow git repository: fast-import, then git gc --prune=now")
        shadow = shadow_repository(box, box.root / "shadow.git", [{PATH: v} for v in versions])
        _report(report, store, shadow, gc.output, turns, len(versions[0]))
    return report


def _record(workspace: Path, turns: int) -> list[bytes]:
    import rewind

    lines = original_lines()
    path = workspace / PATH
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")
    versions = [path.read_bytes()]
    project = rewind.Project(workspace, session="size")
    progress(f"recording {turns} turns, each changing {CHANGED_LINES} lines of a 100 KB file")
    for number in range(1, turns + 1):
        turn = project.turn(f"turn {number}")
        turn.track(PATH)
        for k in range(CHANGED_LINES):
            at = (number * 37 + k * 101) % len(lines)
            lines[at] = f"    changed_{number}_{k} = step({at}, {number})  # turn {number}"
        path.write_text("\n".join(lines) + "\n")
        turn.end()
        versions.append(path.read_bytes())
    return versions


def _report(
    report: Report, store: Path, shadow: Path, output: str, turns: int, file_size: int
) -> None:
    store_bytes = bytes_under(store, STORE_PARTS)
    objects_bytes = bytes_under(store, ("objects",))
    shadow_bytes = bytes_under(shadow, GIT_PARTS)
    copies = turns * file_size
    objects_files = files_under(store / "objects")
    report.figure("rewind gc said", output)
    report.figure("store (objects/, refs/, rewind/)", f"{store_bytes / 1024:.1f} KiB")
    report.figure("of which objects/", f"{objects_bytes / 1024:.1f} KiB in {objects_files} files")
    report.figure("packs", str(pack_count(store)))
    report.figure("shadow git (objects/, refs/)", f"{shadow_bytes / 1024:.1f} KiB")
    report.figure(f"{turns} full copies", f"{copies / 1024:.0f} KiB")
    report.check(
        "store / shadow git repository", store_bytes / shadow_bytes, "<=", TARGET_AGAINST_GIT
    )
    report.check("store / full copies", store_bytes / copies, "<=", TARGET_AGAINST_COPIES)
    report.check("files under objects/", objects_files, "<=", TARGET_FILES)


def main(argv: Sequence[str] | None = None) -> int:
    return standalone(NAME, add_arguments, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
