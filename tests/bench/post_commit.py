"""post_commit: what an authorship note costs a 200-file commit.

A repository of 200 committed Python files of 50 lines, with ``[attribution] notes = true`` in
its committed rewind.toml and ``rewind install git-hook`` installed. Each round (untimed set-up)
records one agent turn that appends 10 lines to every file (``rewind begin``/``track``/``end``,
the hooks' own path) and stages them; then, timed:

- the reference: ``git commit`` of those 200 files, with git's hooks switched off
  (``-c core.hooksPath=/dev/null``): the commit itself;
- the note's work, done in the foreground: ``rewind hook git-post-commit '{"commit": SHA}'``
  as one process (what the hook starts in the background: read the commit with libgit2, blame
  each file against the recorded versions, write the note with ``git notes``), on the new
  commit, whose note it writes for the first time;
- what the commit waits for: the installed ``post-commit`` script run as git runs it (``sh
  .git/hooks/post-commit``: one ``git rev-parse``, then the background process started), after
  the note above is removed; the round waits (untimed) until the background process has written
  the note again, and checks it names 2,000 lines of 200 files.

Target: median(post-commit hook) / median(git commit) <= 0.5. The foreground work's ratio is
given as information: it runs after the commit, in the background, one at a time per repository.
"""

from __future__ import annotations

import argparse
import json
import time
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

NAME = "post_commit"
FILES = 200
LINES = 50
ADDED = 10
WARMUP = 1
TARGET = 0.5
NOTE_WAIT = 60.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--post-commit-runs",
        type=int,
        default=None,
        metavar="N",
        help="timed rounds (default 15, quick 3; env REWIND_BENCH_POST_COMMIT_RUNS)",
    )


def _note_lines(box: Sandbox, repo: Path, sha: str) -> tuple[int, int] | None:
    """The files and lines the note of ``sha`` names; None without a note."""
    import subprocess

    done = subprocess.run(
        ["git", "notes", "--ref=ai", "show", sha],
        cwd=repo,
        env=box.env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return None
    from rewind.history.attribution.note_format import parse

    note = parse(done.stdout)
    return len(note.files), sum(len(v) for f in note.files for v in f.entries.values())


def run(options: argparse.Namespace) -> Report:
    runs = choose(options.post_commit_runs, "REWIND_BENCH_POST_COMMIT_RUNS", 15, 3, options.quick)
    report = Report(NAME)
    script = rewind_script()
    with Sandbox("post-commit", keep=options.keep) as box:
        repo = box.root / "repo"
        git_init(box, repo)
        names = [f"module_{i:03}.py" for i in range(FILES)]
        for name in names:
            body = "".join(f"value_{n} = {n}  # {name}\n" for n in range(LINES))
            (repo / name).write_text(body)
        (repo / "rewind.toml").write_text("[attribution]\nnotes = true\n")
        box.run(["git", "add", "-A"], cwd=repo)
        box.run(["git", "commit", "-q", "-m", "the project"], cwd=repo)
        box.run([script, "install", "git-hook"], cwd=repo)
        times: dict[str, list[float]] = {"commit": [], "work": [], "hook": []}
        progress(f"{WARMUP} warm-up + {runs} rounds of a {FILES}-file commit and its note")
        for number in range(WARMUP + runs):
            session = ["--session", "bench"]
            box.run(
                [script, "begin", *session, "--agent", "claude-code", "--prompt", f"r{number}"],
                cwd=repo,
            )
            box.run([script, "track", *session, *names], cwd=repo)
            for name in names:
                with (repo / name).open("a") as handle:
                    handle.writelines(f"round_{number}_{n} = {n}\n" for n in range(ADDED))
            box.run([script, "end", *session], cwd=repo)
            box.run(["git", "add", "-A"], cwd=repo)
            settle()
            commit = ["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", f"r{number}"]
            times["commit"].append(box.timed(commit, repo))
            sha = box.run(["git", "rev-parse", "HEAD"], cwd=repo).stdout.decode().strip()
            payload = json.dumps({"commit": sha})
            times["work"].append(box.timed([script, "hook", "git-post-commit", payload], repo))
            if _note_lines(box, repo, sha) != (FILES, FILES * ADDED):
                raise BenchError(f"the note of round {number} is {_note_lines(box, repo, sha)}")
            box.run(["git", "notes", "--ref=ai", "remove", sha], cwd=repo)
            times["hook"].append(box.timed(["sh", ".git/hooks/post-commit"], repo))
            deadline = time.monotonic() + NOTE_WAIT
            while _note_lines(box, repo, sha) != (FILES, FILES * ADDED):
                if time.monotonic() > deadline:
                    raise BenchError(f"the background note of round {number} never came")
                time.sleep(0.02)
            if number < WARMUP:
                for values in times.values():
                    values.clear()
        med = {label: median(values) for label, values in times.items()}
        report.figure(
            f"git commit of {FILES} changed files, no hooks (reference)", spread(times["commit"])
        )
        report.figure(
            "post-commit hook as git runs it (what the commit waits for)", spread(times["hook"])
        )
        report.figure(
            f"the note's work in the foreground ({FILES} files, {FILES * ADDED} lines noted; "
            "information)",
            spread(times["work"]),
        )
        report.figure("work / git commit (information)", f"{med['work'] / med['commit']:.2f}")
        report.check("post-commit hook / git commit", med["hook"] / med["commit"], "<=", TARGET)
    return report


if __name__ == "__main__":
    raise SystemExit(standalone(NAME, add_arguments, run))
