"""The git pre-commit safety net: real ``git commit`` runs in throwaway repositories.

Each commit attempt must leave a turn of the session ``git`` holding every file git reports
changed, as it was at that moment; rewind must never decide whether a commit goes through,
and a hook that was there before must keep running, once, with its verdict intact.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import error_line, log_json, ok, run_rewind
from tests.support.git import git
from tests.support.paths import ROOT

SESSION = "git"


def commit(
    message: str, *arguments: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``git commit``, whatever its outcome (a hook may refuse it). A commit still running
    after two minutes is stopped with every process its hooks started."""
    command = ["git", "commit", "-q", "-m", message, *arguments]
    with subprocess.Popen(
        command,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    ) as process:
        try:
            output, errors = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
    return subprocess.CompletedProcess(command, process.returncode, output, errors)


def turns(cwd: Path | None = None) -> list[dict[str, Any]]:
    return [e for e in log_json("--session", SESSION, cwd=cwd) if e["kind"] == "turn"]


def branch_labels(turn: dict[str, Any]) -> list[str]:
    """The turn's labels but those a commit gives it (``commit:ID``, added by the post-commit
    hook in the background, so maybe not yet)."""
    return [label for label in turn["labels"] if not label.startswith("commit:")]


def paths_of(turn: dict[str, Any]) -> list[str]:
    return sorted(file["path"] for file in turn["files"])


def write_hook(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


def formatter_hook(counter: Path, exit_code: int) -> str:
    """A legacy hook like a formatter that rewrites code.py, counting its runs in ``counter``."""
    return (
        f"echo ran >> '{counter}'\n"
        "printf 'MANGLED BY THE FORMATTER\\n' > code.py\n"
        f"exit {exit_code}\n"
    )


@pytest.fixture
def repo(project: Path) -> Path:
    """The project with one commit on the branch ``main``."""
    git("symbolic-ref", "HEAD", "refs/heads/main")
    for name in ("tracked.txt", "staged.txt", "deleted.txt", "renamed.txt", "code.py"):
        (project / name).write_text(f"{name} as committed\n")
    (project / ".gitignore").write_text("*.log\n")
    git("add", ".")
    git("commit", "-qm", "initial")
    return project


# what a commit attempt records ------------------------------------------------------------------


def test_a_commit_records_every_changed_file_as_a_turn_of_session_git(repo: Path) -> None:
    ok("install", "git-hook")
    (repo / "tracked.txt").write_text("unstaged change\n")
    (repo / "staged.txt").write_text("staged change\n")
    git("add", "staged.txt")
    (repo / "deleted.txt").unlink()
    git("mv", "renamed.txt", "renamed-to.txt")
    (repo / "added.txt").write_text("new and staged\n")
    git("add", "added.txt")
    (repo / "new").mkdir()
    (repo / "new" / "untracked.txt").write_text("new, never added\n")
    (repo / "noise.log").write_text("ignored\n")

    done = commit("second")
    assert done.returncode == 0, done
    assert done.stdout == "" and done.stderr == ""  # the hook says nothing when all is well

    [turn] = turns()
    assert paths_of(turn) == [
        "added.txt",
        "deleted.txt",
        "new/untracked.txt",
        "renamed-to.txt",
        "renamed.txt",
        "staged.txt",
        "tracked.txt",
    ]
    assert turn["session"] == SESSION and turn["agent"] == "git"
    assert re.fullmatch(r"pre-commit on main at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", turn["prompt"])
    assert branch_labels(turn) == ["branch:main"]
    before = {file["path"]: file["before"] for file in turn["files"]}
    assert before["deleted.txt"]["kind"] == "absent"
    assert before["tracked.txt"]["size"] == len("unstaged change\n")


def test_each_commit_attempt_is_a_turn_and_a_clean_tree_records_nothing(repo: Path) -> None:
    ok("install", "git-hook")
    (repo / "tracked.txt").write_text("one\n")
    assert commit("one", "-a").returncode == 0
    assert commit("nothing changed", "--allow-empty").returncode == 0
    (repo / "staged.txt").write_text("two\n")
    assert commit("two", "-a").returncode == 0
    assert [paths_of(turn) for turn in turns()] == [["tracked.txt"], ["staged.txt"]]


def test_the_branch_label_names_a_detached_head_by_its_commit(repo: Path) -> None:
    ok("install", "git-hook")
    head = git("rev-parse", "HEAD").strip()
    git("checkout", "-q", "--detach")
    (repo / "tracked.txt").write_text("on a detached head\n")
    assert commit("detached", "-a").returncode == 0
    [turn] = turns()
    assert branch_labels(turn) == [f"branch:detached@{head[:7]}"]
    assert turn["prompt"].startswith(f"pre-commit on detached@{head[:7]} at ")


def test_the_safety_net_does_not_become_the_default_session(repo: Path) -> None:
    ok("begin", "--session", "agent", "--prompt", "the agent's turn")
    ok("install", "git-hook")
    (repo / "tracked.txt").write_text("changed\n")
    assert commit("c", "-a").returncode == 0
    assert len(turns()) == 1
    assert "session:  agent" in ok("status").stdout
    assert [entry["session"] for entry in log_json()] == ["agent"]


# getting work back ------------------------------------------------------------------------------


def test_restore_brings_back_an_unstaged_change_that_reset_hard_destroyed(repo: Path) -> None:
    ok("install", "git-hook")
    precious = bytes(range(256)) + b"\r\nno newline at the end"
    (repo / "tracked.txt").write_bytes(precious)  # not staged: not part of the commit
    (repo / "staged.txt").write_text("committed change\n")
    git("add", "staged.txt")
    assert commit("only the staged file").returncode == 0
    git("reset", "-q", "--hard")
    assert (repo / "tracked.txt").read_text() == "tracked.txt as committed\n"

    [turn] = turns()
    restored = ok("restore", str(turn["turn"]), "--session", SESSION, "--yes")
    assert "tracked.txt" in restored.stdout
    assert (repo / "tracked.txt").read_bytes() == precious
    assert (repo / "staged.txt").read_text() == "committed change\n"  # already as it was
    ok("undo", "--session", SESSION, "--yes")
    assert (repo / "tracked.txt").read_text() == "tracked.txt as committed\n"


def test_a_formatter_hook_that_fails_still_decides_and_its_damage_can_be_undone(
    repo: Path, tmp_path: Path
) -> None:
    counter = tmp_path / "runs"
    write_hook(repo / ".git" / "hooks" / "pre-commit", formatter_hook(counter, 1))
    ok("install", "git-hook")
    (repo / "code.py").write_text("def careful():\n    return 'hand formatted'\n")
    git("add", "code.py")

    refused = commit("formatted")
    assert refused.returncode != 0  # the legacy hook's verdict counts
    assert counter.read_text() == "ran\n"  # exactly once
    assert (repo / "code.py").read_text() == "MANGLED BY THE FORMATTER\n"
    assert git("rev-list", "--count", "HEAD").strip() == "1"

    [turn] = turns()  # the snapshot was taken before the formatter ran
    assert paths_of(turn) == ["code.py"]
    ok("restore", str(turn["turn"]), "--session", SESSION, "--yes")
    assert (repo / "code.py").read_text() == "def careful():\n    return 'hand formatted'\n"


def test_a_legacy_hook_that_passes_lets_the_commit_through_having_run_once(
    repo: Path, tmp_path: Path
) -> None:
    counter = tmp_path / "runs"
    write_hook(repo / ".git" / "hooks" / "pre-commit", f"echo ran >> '{counter}'\nexit 0\n")
    ok("install", "git-hook")
    (repo / "tracked.txt").write_text("changed\n")
    assert commit("c", "-a").returncode == 0
    assert counter.read_text() == "ran\n"
    assert git("rev-list", "--count", "HEAD").strip() == "2"


# where the hook goes ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["relative", "absolute"])
def test_core_hooks_path_is_honoured(repo: Path, tmp_path: Path, kind: str) -> None:
    shared = tmp_path / "shared-hooks" if kind == "absolute" else repo / "my-hooks"
    git("config", "core.hooksPath", str(shared) if kind == "absolute" else "my-hooks")
    counter = tmp_path / "runs"
    write_hook(shared / "pre-commit", f"echo ran >> '{counter}'\nexit 0\n")
    (repo / "sub").mkdir()
    installed = ok("install", "git-hook", cwd=repo / "sub")
    assert str(shared / "pre-commit") in installed.stdout
    committable = "is in the work tree and not ignored, so 'git add -A' would commit it" in (
        installed.stdout
    )
    assert committable == (kind == "relative")

    assert "rewind-git-hook v" in (shared / "pre-commit").read_text()
    assert (shared / "pre-commit.legacy").exists()
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    (repo / "tracked.txt").write_text("changed\n")
    assert commit("c", "-a").returncode == 0
    assert counter.read_text() == "ran\n"
    [turn] = turns()
    if kind == "absolute":
        assert paths_of(turn) == ["tracked.txt"]
    else:  # the hooks live in the work tree, untracked: they are recorded too
        assert paths_of(turn) == [
            "my-hooks/post-commit",
            "my-hooks/post-rewrite",
            "my-hooks/pre-commit",
            "my-hooks/pre-commit.legacy",
            "tracked.txt",
        ]

    ok("uninstall", "git-hook")
    assert (shared / "pre-commit").read_text() == f"#!/bin/sh\necho ran >> '{counter}'\nexit 0\n"
    assert not (shared / "pre-commit.legacy").exists()


def test_install_twice_chains_nothing_and_uninstall_puts_the_old_hook_back(
    repo: Path, tmp_path: Path
) -> None:
    hooks = repo / ".git" / "hooks"
    counter = tmp_path / "runs"
    original = f"#!/bin/sh\necho ran >> '{counter}'\n"
    write_hook(hooks / "pre-commit", original[len("#!/bin/sh\n") :])
    first = ok("install", "git-hook")
    installed = (hooks / "pre-commit").read_text()
    again = ok("install", "git-hook")
    assert "already installed" in again.stdout and "already installed" not in first.stdout
    assert (hooks / "pre-commit").read_text() == installed
    assert (hooks / "pre-commit.legacy").read_text() == original  # not our own hook
    (repo / "tracked.txt").write_text("changed\n")
    assert commit("c", "-a").returncode == 0
    assert counter.read_text() == "ran\n"

    ok("uninstall", "git-hook")
    assert (hooks / "pre-commit").read_text() == original
    assert os.stat(hooks / "pre-commit").st_mode & stat.S_IXUSR
    assert not (hooks / "pre-commit.legacy").exists()
    ok("uninstall", "git-hook")  # nothing left to remove: still fine
    assert (hooks / "pre-commit").read_text() == original


def test_moved_aside_by_another_hook_manager_it_still_runs_once(repo: Path, tmp_path: Path) -> None:
    """A manager like the pre-commit framework renames the hook it finds to pre-commit.legacy
    and runs that: rewind's hook must then not take itself for its own legacy hook."""
    hooks = repo / ".git" / "hooks"
    ok("install", "git-hook")
    (hooks / "pre-commit").rename(hooks / "pre-commit.legacy")
    counter = tmp_path / "runs"
    manager = f'"$(dirname -- "$0")/pre-commit.legacy" || exit $?\necho ran >> \'{counter}\'\n'
    write_hook(hooks / "pre-commit", manager)
    (repo / "tracked.txt").write_text("changed\n")
    assert commit("c", "-a").returncode == 0
    assert counter.read_text() == "ran\n"
    assert [paths_of(turn) for turn in turns()] == [["tracked.txt"]]

    ok("uninstall", "git-hook")
    assert not (hooks / "pre-commit.legacy").exists()
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\n" + manager


def test_an_older_hook_version_is_upgraded_in_place(repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    write_hook(hooks / "pre-commit", "# rewind-git-hook v0\nexit 0\n")
    write_hook(hooks / "pre-commit.legacy", "exit 0\n")
    result = ok("install", "git-hook")
    assert "upgraded" in result.stdout
    assert "# rewind-git-hook v1\n" in (hooks / "pre-commit").read_text()
    assert (hooks / "pre-commit.legacy").read_text() == "#!/bin/sh\nexit 0\n"


def test_install_refuses_to_replace_a_hook_when_a_legacy_one_exists_too(repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    write_hook(hooks / "pre-commit", "exit 0\n")
    write_hook(hooks / "pre-commit.legacy", "exit 1\n")
    result = run_rewind("install", "git-hook")
    assert result.returncode == 1, result
    assert "pre-commit.legacy" in result.stderr
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"


def test_install_outside_a_repository_says_so(tmp_path: Path) -> None:
    result = run_rewind("install", "git-hook", cwd=tmp_path)
    assert result.returncode == 1, result
    assert "not in a git work tree" in result.stderr


def test_only_the_hook_files_change_in_dot_git(repo: Path) -> None:
    def listing() -> dict[str, bytes]:
        found = {}
        for path in sorted((repo / ".git").rglob("*")):
            if path.is_file() and "hooks" not in path.parts and not path.name.startswith("ORIG"):
                found[str(path.relative_to(repo))] = path.read_bytes()
        return found

    (repo / "tracked.txt").write_text("changed\n")
    before = listing()
    ok("install", "git-hook")
    ok("hook", "git")
    ok("uninstall", "git-hook")
    assert listing() == before
    assert len(turns()) == 1


def test_doctor_reports_the_installed_hook_and_tries_it(repo: Path) -> None:
    ok("install", "git-hook")
    report = ok("doctor").stdout.splitlines()
    mine = [line.split(None, 3) for line in report if " git-hook " in f" {line} "]
    hooks = repo / ".git" / "hooks"
    installed = f"{hooks / 'pre-commit'}: pre-commit, post-commit, post-rewrite"
    assert ["ok", "git-hook", "project", installed] in mine
    [probe] = [line for line in mine if line[2] == "hook"]
    assert probe[0] == "ok" and "recorded turn 1 with probe.txt" in probe[3]
    # An install from before the hooks after a commit: doctor says how to add them.
    (hooks / "post-commit").unlink()
    (hooks / "post-rewrite").unlink()
    again = ok("doctor").stdout
    assert "missing post-commit, post-rewrite; run 'rewind install git-hook" in again


# never in the way -------------------------------------------------------------------------------


def test_rewind_failing_never_blocks_a_commit(repo: Path, tmp_path: Path) -> None:
    ok("install", "git-hook")
    not_a_directory = tmp_path / "a-file"
    not_a_directory.write_text("REWIND_HOME must be a directory\n")
    (repo / "tracked.txt").write_text("changed\n")
    direct = run_rewind("hook", "git", env={"REWIND_HOME": str(not_a_directory)})
    assert (direct.returncode, direct.stdout, direct.stderr) == (0, "", "")
    done = commit("c", "-a", env={"REWIND_HOME": str(not_a_directory)})
    assert done.returncode == 0, done
    assert done.stderr == ""
    assert git("rev-list", "--count", "HEAD").strip() == "2"


def test_a_vanished_interpreter_falls_back_to_rewind_on_path(repo: Path, tmp_path: Path) -> None:
    ok("install", "git-hook")
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        re.sub(r"(?m)^interpreter=.*$", "interpreter='/nonexistent/python3'", hook.read_text())
    )
    (repo / "tracked.txt").write_text("changed\n")

    console_script = Path(sys.executable).parent / "rewind"
    if not console_script.exists():
        pytest.skip("rewind's console script is not installed next to this interpreter")
    on_path = tmp_path / "bin"
    on_path.mkdir()
    (on_path / "rewind").symlink_to(console_script)
    search = f"{on_path}:/usr/bin:/bin"
    assert commit("c", "-a", env={"PATH": search}).returncode == 0
    assert [paths_of(turn) for turn in turns()] == [["tracked.txt"]]

    (repo / "tracked.txt").write_text("changed again\n")
    done = commit("d", "-a", env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done
    assert "were not recorded" in done.stderr  # loud, but not in the way
    assert len(turns()) == 1


def test_the_hook_reads_no_payload(repo: Path) -> None:
    (repo / "tracked.txt").write_text("changed\n")
    done = subprocess.run(
        [sys.executable, "-m", "rewind", "hook", "git"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert [paths_of(turn) for turn in turns()] == [["tracked.txt"]]


# a hooks directory the team tracks -----------------------------------------------------------

REFUSED = (
    "rewind: core.hooksPath names .githooks, a directory git tracks, and rewind does not change "
    "tracked hooks: run 'rewind install git-hook --local' to install into a private hooks "
    "directory in .git that runs rewind's hook, then these."
)


def files_under(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``directory``: its content and mode."""
    return {
        str(path.relative_to(directory)): (path.read_bytes(), path.stat().st_mode)
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def team_hooks(repo: Path, runs: Path, verdict: int = 0) -> None:
    """The team's hooks, committed in .githooks, which core.hooksPath names relatively: a
    pre-commit that logs its run to ``runs`` and exits ``verdict``, a commit-msg that logs the
    message, and a README that is no hook."""
    write_hook(repo / ".githooks" / "pre-commit", f"echo pre-commit >> '{runs}'\nexit {verdict}\n")
    write_hook(repo / ".githooks" / "commit-msg", f'echo "commit-msg $(cat "$1")" >> \'{runs}\'\n')
    (repo / ".githooks" / "README.md").write_text("Run: git config core.hooksPath .githooks\n")
    git("config", "core.hooksPath", ".githooks")
    git("add", ".githooks")
    git("commit", "-qm", "the team's hooks", "--no-verify")


@pytest.fixture
def team(repo: Path, tmp_path: Path) -> Path:
    """The repository with the team's hooks committed; returns the file they log their runs to."""
    runs = tmp_path / "runs"
    team_hooks(repo, runs)
    return runs


@pytest.mark.parametrize("tracked", ["pre-commit", "commit-msg only"])
def test_install_refuses_to_touch_a_hooks_directory_git_tracks(repo: Path, tracked: str) -> None:
    team_hooks(repo, repo.parent / "runs")
    if tracked == "commit-msg only":  # rewind would have to add an untracked pre-commit there
        git("rm", "-q", ".githooks/pre-commit")
        git("commit", "-qm", "no pre-commit")
    before = files_under(repo / ".githooks")
    config = (repo / ".git" / "config").read_bytes()

    assert error_line(run_rewind("install", "git-hook")) == REFUSED
    assert files_under(repo / ".githooks") == before  # byte for byte, modes too
    assert git("status", "--porcelain", "--ignored") == ""
    assert (repo / ".git" / "config").read_bytes() == config
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()


def test_a_hook_an_earlier_rewind_put_in_the_tracked_directory_is_given_back(
    repo: Path, team: Path
) -> None:
    hooks = repo / ".githooks"
    original = (hooks / "pre-commit").read_bytes()
    (hooks / "pre-commit").rename(hooks / "pre-commit.legacy")  # as rewind used to install
    write_hook(hooks / "pre-commit", "# rewind-git-hook v1\ninterpreter='/gone'\n")

    line = error_line(run_rewind("install", "git-hook"))
    assert "run 'rewind uninstall git-hook'" in line
    assert "then 'rewind install git-hook --local'" in line
    report = [line.split(None, 3) for line in ok("doctor").stdout.splitlines()]
    assert any(
        line[:3] == ["warn", "git-hook", "project"] and "tracked" in line[3] for line in report
    )
    ok("uninstall", "git-hook")
    assert (hooks / "pre-commit").read_bytes() == original
    assert git("status", "--porcelain", "--ignored") == ""


def test_local_install_runs_rewind_then_each_team_hook(repo: Path, team: Path) -> None:
    before = files_under(repo / ".githooks")
    installed = ok("install", "git-hook", "--local")
    private = repo / ".git" / "rewind-hooks"
    assert installed.stdout.splitlines()[:4] == [
        f"git-hook: created {private}",
        "  added    rewind's pre-commit hook, which then runs .githooks/pre-commit",
        "  added    rewind's post-commit hook, which then runs .githooks/post-commit",
        "  added    rewind's post-rewrite hook, which then runs .githooks/post-rewrite",
    ]
    assert sorted(p.name for p in private.iterdir()) == [
        "commit-msg",
        "post-commit",
        "post-rewrite",
        "pre-commit",
        "rewind-state.json",
    ]
    assert git("config", "core.hooksPath").strip() == str(private)

    (repo / "tracked.txt").write_text("changed\n")
    done = commit("second", "-a")
    assert done.returncode == 0, done
    assert done.stderr == ""
    assert team.read_text() == "pre-commit\ncommit-msg second\n"  # each once, in git's order
    assert [paths_of(turn) for turn in turns()] == [["tracked.txt"]]
    assert files_under(repo / ".githooks") == before
    assert git("status", "--porcelain", "--ignored") == ""

    again = ok("install", "git-hook", "--local")
    assert again.stdout == f"git-hook: already installed in {private}; nothing changed.\n"
    assert "already installed" in ok("install", "git-hook").stdout  # the private one, now


def test_with_local_install_the_team_pre_commit_still_decides(repo: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    team_hooks(repo, runs, verdict=1)
    ok("install", "git-hook", "--local")
    (repo / "tracked.txt").write_text("changed\n")

    refused = commit("refused", "-a")
    assert refused.returncode != 0
    assert runs.read_text() == "pre-commit\n"  # commit-msg never ran: the commit stopped there
    assert git("rev-list", "--count", "HEAD").strip() == "2"
    assert [paths_of(turn) for turn in turns()] == [["tracked.txt"]]  # recorded all the same


@pytest.mark.parametrize("before", ["relative", "absolute", "global", "unset"])
def test_local_install_chains_the_hooks_git_ran_and_uninstall_restores_the_config(
    repo: Path, tmp_path: Path, isolated_home: Path, before: str
) -> None:
    runs = tmp_path / "runs"
    if before == "relative":
        team_hooks(repo, runs)
    elif before == "absolute":
        write_hook(tmp_path / "shared" / "pre-commit", f"echo pre-commit >> '{runs}'\n")
        git("config", "core.hooksPath", str(tmp_path / "shared"))
    elif before == "global":  # ~ is expanded, as git does
        write_hook(isolated_home / "team-hooks" / "pre-commit", f"echo pre-commit >> '{runs}'\n")
        git("config", "--global", "core.hooksPath", "~/team-hooks")
    else:
        write_hook(repo / ".git" / "hooks" / "pre-commit", f"echo pre-commit >> '{runs}'\n")
    git("config", "--global", "user.useConfigOnly", "true")  # a global config in every case
    config = (repo / ".git" / "config").read_bytes()
    global_config = (isolated_home / "gitconfig").read_bytes()

    ok("install", "git-hook", "--local")
    (repo / "tracked.txt").write_text("changed\n")
    assert commit("c", "-a").returncode == 0
    assert runs.read_text().startswith("pre-commit\n")
    assert len(turns()) == 1

    removed = ok("uninstall", "git-hook")
    assert f"removed  {repo / '.git' / 'rewind-hooks'} and its hooks" in removed.stdout
    assert (repo / ".git" / "config").read_bytes() == config  # byte for byte
    assert (isolated_home / "gitconfig").read_bytes() == global_config
    assert not (repo / ".git" / "rewind-hooks").exists()
    nothing = ok("uninstall", "git-hook", "--local")
    assert "nothing changed" in nothing.stdout


def test_local_install_from_a_linked_work_tree_runs_each_work_tree_s_own_hooks(
    repo: Path, team: Path, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", "-b", "feature", str(linked))
    (linked / ".githooks" / "pre-commit").write_text(f"#!/bin/sh\necho feature >> '{team}'\n")
    git("commit", "-qam", "the feature branch's pre-commit", cwd=linked)
    team.unlink()
    ok("install", "git-hook", "--local", cwd=linked)
    assert (repo / ".git" / "rewind-hooks" / "pre-commit").exists()  # shared by both

    (linked / "tracked.txt").write_text("changed in the linked work tree\n")
    assert commit("in linked", "-a", cwd=linked).returncode == 0
    (repo / "tracked.txt").write_text("changed in the main work tree\n")
    assert commit("in main", "-a").returncode == 0
    assert team.read_text() == "feature\ncommit-msg in linked\npre-commit\ncommit-msg in main\n"
    assert [paths_of(turn) for turn in turns(cwd=linked)] == [["tracked.txt"]]
    assert [paths_of(turn) for turn in turns()] == [["tracked.txt"]]


def test_a_hook_the_team_adds_later_is_announced_until_installed_again(
    repo: Path, team: Path
) -> None:
    ok("install", "git-hook", "--local")
    hook = "prepare-commit-msg"
    write_hook(repo / ".githooks" / hook, f"echo {hook} >> '{team}'\n")
    (repo / "tracked.txt").write_text("changed\n")
    done = commit("one", "-a")
    assert done.returncode == 0
    assert "run 'rewind install git-hook --local' again" in done.stderr
    assert hook in done.stderr and hook not in team.read_text()

    again = ok("install", "git-hook", "--local")
    assert f"  added    {hook}: each runs the team's hook of that name" in again.stdout
    (repo / "tracked.txt").write_text("changed again\n")
    done = commit("two", "-a")
    assert (done.returncode, done.stderr) == (0, "")
    assert team.read_text().endswith(f"pre-commit\n{hook}\ncommit-msg two\n")


def test_after_the_repository_moved_local_install_again_repoints_it(
    repo: Path, team: Path, tmp_path: Path
) -> None:
    config = (repo / ".git" / "config").read_bytes()
    ok("install", "git-hook", "--local")
    moved = tmp_path / "moved"
    shutil.move(repo, moved)
    ok("install", "git-hook", "--local", cwd=moved)
    assert git("config", "core.hooksPath", cwd=moved).strip() == str(moved / ".git/rewind-hooks")
    (moved / "tracked.txt").write_text("changed\n")
    assert commit("c", "-a", cwd=moved).returncode == 0
    assert team.read_text() == "pre-commit\ncommit-msg c\n"
    ok("uninstall", "git-hook", cwd=moved)
    assert (moved / ".git" / "config").read_bytes() == config


def test_local_install_is_refused_when_a_later_config_overrides_it(repo: Path, team: Path) -> None:
    git("config", "extensions.worktreeConfig", "true")
    git("config", "--worktree", "core.hooksPath", ".githooks")
    config = (repo / ".git" / "config").read_bytes()

    line = error_line(run_rewind("install", "git-hook", "--local"))
    assert line.startswith("rewind: core.hooksPath is also set in .git/config.worktree, ")
    assert line.endswith("remove it there and run this again.")
    assert (repo / ".git" / "config").read_bytes() == config
    assert not (repo / ".git" / "rewind-hooks").exists()


def test_doctor_reports_the_private_hooks(repo: Path, team: Path) -> None:
    ok("install", "git-hook", "--local")
    report = [line.split(None, 3) for line in ok("doctor").stdout.splitlines()]
    mine = [line for line in report if line[1:2] == ["git-hook"]]
    hook = repo / ".git" / "rewind-hooks" / "pre-commit"
    installed = f"{hook}: pre-commit, post-commit, post-rewrite"
    assert ["ok", "git-hook", "local", installed] in mine
    assert ["ok", "git-hook", "local", "runs the hooks of .githooks after rewind's"] in mine
    assert not [line for line in mine if line[2] == "project"]

    git("config", "core.hooksPath", ".githooks")  # as a tool that sets it again would
    write_hook(repo / ".githooks" / "pre-push", "exit 0\n")
    report = [line.split(None, 3) for line in ok("doctor").stdout.splitlines()]
    warnings = [line[3] for line in report if line[:3] == ["warn", "git-hook", "local"]]
    assert any("missing pre-push" in warning for warning in warnings)
    assert any("git runs hooks from" in warning for warning in warnings)


# other layouts ----------------------------------------------------------------------------------


def test_a_linked_worktree_records_in_its_own_project_with_its_branch(
    repo: Path, tmp_path: Path
) -> None:
    ok("install", "git-hook")
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", "-b", "feature/x", str(linked))
    (linked / "tracked.txt").write_text("changed in the linked work tree\n")
    assert commit("c", "-a", cwd=linked).returncode == 0
    [turn] = turns(cwd=linked)
    assert branch_labels(turn) == ["branch:feature/x"]
    assert paths_of(turn) == ["tracked.txt"]


def test_git_dir_and_work_tree_from_the_environment(tmp_path: Path) -> None:
    git_dir, work_tree = tmp_path / "repo.git", tmp_path / "files"
    work_tree.mkdir()
    environment = {"GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(work_tree)}
    git("init", "-q", "--bare", str(git_dir))
    git("config", "core.bare", "false", env=environment)
    git("symbolic-ref", "HEAD", "refs/heads/trunk", env=environment)
    ok("install", "git-hook", cwd=work_tree, env=environment)
    assert (git_dir / "hooks" / "pre-commit").exists()
    (work_tree / "a.txt").write_text("first\n")
    git("add", "a.txt", cwd=work_tree, env=environment)
    assert commit("c", cwd=tmp_path, env=environment).returncode == 0
    [turn] = turns(cwd=work_tree)
    assert paths_of(turn) == ["a.txt"]
    assert branch_labels(turn) == ["branch:trunk"]


# the pre-commit framework -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def pre_commit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pre-commit framework: the development environment's (a dependency of the dev
    extra), else installed into a virtual environment of this test's own."""
    beside = Path(sys.executable).parent / "pre-commit"
    found = str(beside) if beside.exists() else shutil.which("pre-commit")
    if found:
        return Path(found)
    venv = tmp_path_factory.mktemp("pre-commit-venv")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "pre-commit"],
            check=True,
            capture_output=True,
            timeout=600,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"the pre-commit framework could not be installed (offline?): {error}")
    return venv / "bin" / "pre-commit"


def source_copy(destination: Path) -> str:
    """This source tree, committed in a repository of its own for the framework to clone;
    returns the commit."""
    ignored = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "rewind", destination / "rewind", ignore=ignored)
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, destination / name)
    git("init", "-q", cwd=destination)
    git("add", ".", cwd=destination)
    git("commit", "-qm", "rewind", cwd=destination)
    return git("rev-parse", "HEAD", cwd=destination).strip()


def test_the_manifest_is_valid(pre_commit: Path) -> None:
    done = subprocess.run(
        [str(pre_commit), "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done


# The framework builds its hook environment by installing rewind and its dependencies with pip
# (a dozen seconds): like the agents' clients from npm, a third-party client installed from a
# registry, so it runs in the client tier.
@pytest.mark.clients
def test_through_the_pre_commit_framework_the_staged_state_is_recorded(
    repo: Path, tmp_path: Path, pre_commit: Path
) -> None:
    source = tmp_path / "rewind-source"
    revision = source_copy(source)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {source}\n  rev: {revision}\n  hooks:\n  - id: rewind-snapshot\n"
    )
    git("add", ".pre-commit-config.yaml")
    git("commit", "-qm", "pre-commit config")
    framework = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    prepared = subprocess.run(
        [str(pre_commit), "install-hooks"],
        capture_output=True,
        text=True,
        env={**os.environ, **framework},
        timeout=600,
    )
    if prepared.returncode != 0:
        pytest.skip(f"the hook's environment could not be installed (offline?): {prepared}")
    subprocess.run([str(pre_commit), "install"], check=True, capture_output=True, timeout=120)

    (repo / "tracked.txt").write_text("staged\n")
    git("add", "tracked.txt")
    with (repo / "tracked.txt").open("a") as handle:
        handle.write("unstaged on top\n")
    (repo / "untracked.txt").write_text("new\n")
    done = commit("through the framework", env=framework)
    assert done.returncode == 0, done
    assert "rewind snapshot" in done.stdout + done.stderr

    [turn] = turns()
    assert paths_of(turn) == ["tracked.txt", "untracked.txt"]
    before = {file["path"]: file["before"] for file in turn["files"]}
    assert before["tracked.txt"]["size"] == len("staged\n")  # the framework stashed the rest
    assert (repo / "tracked.txt").read_text() == "staged\nunstaged on top\n"  # and put it back


def test_installed_before_the_framework_it_runs_as_its_legacy_hook(
    repo: Path, tmp_path: Path, pre_commit: Path
) -> None:
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: meta\n  hooks:\n  - id: identity\n"
    )
    git("add", ".pre-commit-config.yaml")
    git("commit", "-qm", "pre-commit config")
    framework = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    ok("install", "git-hook")
    subprocess.run([str(pre_commit), "install"], check=True, capture_output=True, timeout=120)
    hooks = repo / ".git" / "hooks"
    assert "rewind-git-hook v" in (hooks / "pre-commit.legacy").read_text()

    (repo / "tracked.txt").write_text("staged\n")
    git("add", "tracked.txt")
    (repo / "staged.txt").write_text("unstaged\n")
    done = commit("both", env=framework)
    assert done.returncode == 0, done
    [turn] = turns()  # the framework runs its legacy hook first, before it stashes anything
    before = {file["path"]: file["before"] for file in turn["files"]}
    assert sorted(before) == ["staged.txt", "tracked.txt"]
    assert before["staged.txt"]["size"] == len("unstaged\n")

    ok("uninstall", "git-hook")
    assert not (hooks / "pre-commit.legacy").exists()
    assert "pre-commit" in (hooks / "pre-commit").read_text()  # the framework's, left alone


@pytest.mark.parametrize(
    "manager",
    [
        ("pre-commit", "# File generated by pre-commit: https://pre-commit.com\nexit 0\n", None),
        ("pre-commit", '. "$(dirname "$0")/h"\n', "h"),
    ],
)
def test_a_hook_managers_pre_commit_is_never_moved_aside(
    repo: Path, manager: tuple[str, str, str | None]
) -> None:
    name, body, beside = manager
    hooks = repo / ".git" / "hooks"
    write_hook(hooks / name, body)
    if beside:
        write_hook(hooks / beside, "exit 0\n")
    before = {p.name: p.read_bytes() for p in hooks.iterdir()}
    message = error_line(run_rewind("install", "git-hook"))
    assert "is a hook manager's" in message and "--local" in message
    assert {p.name: p.read_bytes() for p in hooks.iterdir()} == before
    ok("install", "git-hook", "--local")  # runs the manager's hook as it is, after rewind's
    (repo / "tracked.txt").write_text("changed\n")
    done = commit("c", "-a")
    assert done.returncode == 0, done
    assert [paths_of(turn) for turn in log_json("--session", "git")] == [["tracked.txt"]]
