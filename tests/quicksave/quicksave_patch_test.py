"""Patches applied through a shell: Codex's ``apply_patch`` (which Codex 0.171.0 tells a model
its catalog does not know to send through the shell tool, then intercepts and applies itself),
GNU ``patch`` and ``git apply``. The quicksave reads the patch on the command line and records
every file it adds, changes, deletes or moves, before it applies.

The hook tests send the events the agents send through real ``rewind hook`` processes, apply the
patch as Codex does, and restore through the CLI, comparing every file byte for byte."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rewind.hooks.codex import shell_command
from rewind.quicksave.patch_commands import MAX_PATCH_FILES
from tests.conftest import files_by_path, hook, log_json, ok, snapshot, store_dir
from tests.quicksave.quicksave_test import (
    assert_restored,
    at_risk,
    commit_all,
    plan_of,
    quicksave_and_run,
    relative,
    write,
)
from tests.support.agent_payloads import ClaudeCode, Codex, Gemini

PATCH = """*** Begin Patch
*** Add File: added.txt
+a new file
*** Update File: updated.txt
@@
-old line
+new line
*** Delete File: deleted.txt
*** Update File: old_name.txt
*** Move to: new_name.txt
@@
-moved
+moved and changed
*** End Patch
"""
NAMED = {"added.txt", "updated.txt", "deleted.txt", "old_name.txt", "new_name.txt"}


def workspace(base: Path) -> None:
    """The files PATCH changes (in ``base``), and one it leaves alone."""
    base.mkdir(parents=True, exist_ok=True)
    (base / "updated.txt").write_text("old line\n")
    (base / "deleted.txt").write_text("deleted by the patch\n")
    (base / "old_name.txt").write_text("moved\n")
    (base / "kept.txt").write_text("never named\n")


def apply_as_codex(base: Path) -> None:
    """What Codex does with PATCH in ``base`` once it has intercepted the command."""
    (base / "added.txt").write_text("a new file\n")
    (base / "updated.txt").write_text("new line\n")
    (base / "deleted.txt").unlink()
    (base / "new_name.txt").write_text("moved and changed\n")
    (base / "old_name.txt").unlink()


def heredoc(patch: str = PATCH, opening: str = "<<'PATCH'", delimiter: str = "PATCH") -> str:
    return f"apply_patch {opening}\n{patch}{delimiter}"


def moves_of(command: str, project: Path, cwd: Path | None = None) -> dict[str, str]:
    plan = plan_of(command, cwd or project)
    return {
        relative(destination, project): relative(source, project)
        for destination, source in plan.moves.items()
    }


# the forms of apply_patch -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        heredoc(),
        heredoc(opening='<<"EOF"', delimiter="EOF"),
        heredoc(opening="<<END_OF_PATCH", delimiter="END_OF_PATCH\n"),
        heredoc(opening="<< 'x y'", delimiter="x y"),
        heredoc().replace("apply_patch", "applypatch", 1),
        "apply_patch <<-'EOF'\n" + "".join(f"\t{line}\n" for line in PATCH.splitlines()) + "\tEOF",
        heredoc().replace("\n", "\r\n"),
        'bash -lc "' + heredoc(opening="<<'EOF'", delimiter="EOF") + '"',
        shell_command(["bash", "-lc", heredoc()]),
        shell_command(["apply_patch", PATCH]),  # Codex's argv form: the patch as the operand
        "apply_patch --preserve-crlf " + shell_command([PATCH]),
        "apply_patch <<< " + shell_command([PATCH]),
        "sudo apply_patch " + heredoc()[len("apply_patch ") :],
        "(apply_patch) " + heredoc()[len("apply_patch ") :],
    ],
    ids=[
        "quoted",
        "double-quoted",
        "unquoted",
        "spaced-delimiter",
        "applypatch",
        "tabs-stripped",
        "crlf",
        "bash-lc",
        "argv-bash-lc",
        "argv-operand",
        "preserve-crlf",
        "here-string",
        "sudo",
        "subshell",
    ],
)
def test_every_file_the_patch_names_is_recorded(project: Path, command: str) -> None:
    workspace(project)
    assert at_risk(command, project) == NAMED
    assert moves_of(command, project) == {"new_name.txt": "old_name.txt"}


def test_the_patch_applies_in_the_directory_the_command_runs_in(project: Path) -> None:
    workspace(project / "sub dir")
    inside = {f"sub dir/{name}" for name in NAMED}
    assert at_risk("cd 'sub dir' && " + heredoc(), project) == inside
    assert at_risk("cd sub\\ dir && " + heredoc(), project) == inside
    assert at_risk(heredoc(), project, cwd=project / "sub dir") == inside
    assert moves_of("cd 'sub dir' && " + heredoc(), project) == {
        "sub dir/new_name.txt": "sub dir/old_name.txt"
    }


def test_markers_are_read_as_codex_reads_them(project: Path) -> None:
    """Codex trims a header line (``  *** Add File: x`` counts) and keeps what follows the
    marker; a line of added content that looks like a header is content."""
    patch = (
        "*** Begin Patch\n"
        "  *** Add File: indented.txt\n"
        "+*** Delete File: content.txt\n"
        "*** Add File:  two spaces.txt\n"
        "+x\n"
        "*** End Patch\n"
    )
    assert at_risk(heredoc(patch), project) == {"indented.txt", " two spaces.txt", "two spaces.txt"}


def test_the_rest_of_the_line_is_read_too(project: Path) -> None:
    workspace(project)
    write(project, "removed.txt")
    assert at_risk(heredoc() + "\nrm removed.txt", project) == NAMED | {"removed.txt"}
    two = f"cat > notes.md <<'A'; apply_patch <<'B'\nsome notes\nA\n{PATCH}B\necho done > log"
    assert at_risk(two, project) == NAMED | {"notes.md", "log"}


def test_a_patch_the_line_does_not_hold_is_left_out_with_a_warning(project: Path) -> None:
    for command in (
        "cat fix.patch | apply_patch",
        'apply_patch "$(cat fix.patch)"',
        'apply_patch "$PATCH"',
        "apply_patch < missing.patch",
        "apply_patch < /dev/zero",  # never read: it has no end
        "apply_patch < .",
    ):
        plan = plan_of(command, project)
        assert plan.understood, command
        assert plan.paths == [], command
        assert any("apply_patch" in warning for warning in plan.warnings), (command, plan)


def test_a_patch_file_is_read_even_when_the_line_writes_it_first(project: Path) -> None:
    workspace(project)
    (project / "fix.patch").write_text(PATCH)
    assert at_risk("apply_patch < fix.patch", project) == NAMED
    (project / "fix.patch").unlink()
    written = f"cat > fix.patch <<'EOF'\n{PATCH}EOF\napply_patch < fix.patch && rm fix.patch"
    assert at_risk(written, project) == NAMED | {"fix.patch"}


def test_a_patch_naming_many_files_is_cut_with_a_warning(project: Path) -> None:
    names = "".join(f"*** Delete File: f{number}\n" for number in range(MAX_PATCH_FILES + 5))
    started = time.monotonic()
    plan = plan_of(heredoc(f"*** Begin Patch\n{names}*** End Patch\n"), project)
    assert time.monotonic() - started < 10
    assert len(plan.paths) == MAX_PATCH_FILES
    assert any(f"more than {MAX_PATCH_FILES} files" in warning for warning in plan.warnings)


# patch and git apply ----------------------------------------------------------------------------

DIFF = """diff --git a/sub/s.txt b/sub/s.txt
--- a/sub/s.txt
+++ b/sub/s.txt
@@ -1 +1 @@
-s
+changed
diff --git a/sub/new.txt b/sub/new.txt
new file mode 100644
--- /dev/null
+++ b/sub/new.txt
@@ -0,0 +1 @@
+new
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone.txt
"""


def test_patch_records_the_files_a_unified_diff_names(project: Path) -> None:
    write(project, "sub/s.txt", "gone.txt", content="")
    (project / "fix.diff").write_text(DIFF)
    p1 = {"sub/s.txt", "sub/new.txt", "gone.txt"}
    with_leftovers = p1 | {f"{name}{end}" for name in p1 for end in (".orig", ".rej")}
    assert at_risk(f"patch -p1 <<'EOF'\n{DIFF}EOF", project) == with_leftovers
    assert at_risk("patch -p1 < fix.diff", project) == with_leftovers
    assert at_risk("patch -Np1 -i fix.diff", project) == with_leftovers
    assert at_risk("patch --strip=1 --input=fix.diff -z .bak", project) == {
        *p1,
        *(f"{name}{end}" for name in p1 for end in (".bak", ".rej")),
    }
    # Without -p, GNU patch takes the last component of each name.
    assert at_risk("patch < fix.diff", project) >= {"s.txt", "new.txt", "gone.txt"}
    assert at_risk("patch -d sub -p2 -i ../fix.diff", project) >= {"sub/s.txt", "sub/new.txt"}
    assert at_risk("patch sub/s.txt fix.diff", project) == {
        "sub/s.txt",
        "sub/s.txt.orig",
        "sub/s.txt.rej",
    }
    assert at_risk("patch -p1 -o out.txt < fix.diff", project) == with_leftovers | {"out.txt"}
    assert at_risk("patch --dry-run -p1 < fix.diff", project) == set()


def test_git_apply_reads_names_from_the_top_of_the_work_tree(project: Path) -> None:
    write(project, "sub/s.txt", "gone.txt", content="")
    (project / "fix.diff").write_text(DIFF)
    named = {"sub/s.txt", "sub/new.txt", "gone.txt"}
    assert at_risk("git apply fix.diff", project) == named
    assert at_risk("git apply ../fix.diff", project, cwd=project / "sub") == named
    assert at_risk(f"cd sub && git apply <<'EOF'\n{DIFF}EOF", project) == named
    assert at_risk("git apply --reject --index - < fix.diff", project) == named | {
        f"{name}.rej" for name in named
    }
    assert at_risk("git apply --directory=lib fix.diff", project) == {f"lib/{n}" for n in named}
    assert at_risk("git -C sub apply -p2 ../fix.diff", project) == {"s.txt", "new.txt"}
    assert at_risk("git apply --stat --apply fix.diff", project) == named
    for read_only in ("--cached", "--check", "--stat", "--numstat", "--summary"):
        assert at_risk(f"git apply {read_only} fix.diff", project) == set(), read_only


def test_git_apply_renames_binary_and_quoted_names(project: Path) -> None:
    diff = (
        "diff --git a/old name.txt b/new name.txt\n"
        "similarity index 100%\n"
        "rename from old name.txt\n"
        "rename to new name.txt\n"
        "diff --git a/logo.png b/logo.png\n"
        "index 1111111..2222222 100644\n"
        "GIT binary patch\n"
        "literal 1\n"
        "Ic${Nk000310RR91\n"
        "\n"
        'diff --git "a/caf\\303\\251\\t.txt" "b/caf\\303\\251\\t.txt"\n'
        '--- "a/caf\\303\\251\\t.txt"\n'
        '+++ "b/caf\\303\\251\\t.txt"\n'
        "@@ -1 +1 @@\n"
        "-a\n"
        "+b\n"
    )
    assert at_risk(f"git apply <<'EOF'\n{diff}EOF", project) == {
        "old name.txt",
        "new name.txt",
        "logo.png",
        "café\t.txt",
    }


@pytest.mark.unit
def test_git_apply_and_patch_record_nothing_outside_a_repository_top(tmp_path: Path) -> None:
    """Outside a repository, git apply applies like patch -p1, in its directory."""
    (tmp_path / "fix.diff").write_text(DIFF)
    assert at_risk("git apply fix.diff", tmp_path) == {"sub/s.txt", "sub/new.txt", "gone.txt"}


@pytest.mark.parametrize(
    "command",
    ["git apply fix.diff", "patch -p1 < fix.diff", "cd sub && git apply ../fix.diff"],
    ids=["git-apply", "patch", "git-apply-in-subdirectory"],
)
def test_real_patches_are_restored_byte_for_byte(project: Path, command: str) -> None:
    write(project, "sub/s.txt", content="s\n")
    write(project, "gone.txt")
    write(project, "kept.txt")
    commit_all(project)
    (project / "fix.diff").write_text(DIFF)
    before = snapshot(project)
    quicksave_and_run(project, command)
    assert snapshot(project) != before
    assert_restored(project, before)


# through the hooks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "where"),
    [
        (heredoc(), ""),
        ("cd sub && " + heredoc(opening='<<"EOF"', delimiter="EOF"), "sub"),
        (heredoc(opening="<<PATCH"), ""),
    ],
    ids=["quoted", "cd-double-quoted", "unquoted"],
)
def test_a_patch_codex_intercepts_from_its_shell_tool_is_restored(
    project: Path, command: str, where: str
) -> None:
    """Codex sends only a PreToolUse of Bash (no PostToolUse), then applies the patch."""
    workspace(project / where)
    before = snapshot(project)
    agent = Codex(project)
    hook("codex", agent.prompt("Patch through the shell"))
    hook("codex", agent.intercepted_patch(command))
    apply_as_codex(project / where)
    hook("codex", agent.end())
    recorded = files_by_path(log_json("--session", agent.session)[0])
    ok("restore", "1", "--yes", "--session", agent.session)
    assert snapshot(project) == before
    assert {path: file["source"] for path, file in recorded.items()} == {
        os.path.join(where, name): "shell" for name in NAMED
    }


@pytest.mark.parametrize("agent_name", ["claude-code", "gemini"])
def test_other_agents_shells_running_apply_patch_are_restored(
    project: Path, agent_name: str
) -> None:
    """Models of other agents send the same command through Bash or run_shell_command."""
    workspace(project)
    before = snapshot(project)
    agent = ClaudeCode(project) if agent_name == "claude-code" else Gemini(project)
    hook(agent_name, agent.prompt("Patch through the shell"))
    pre, post = agent.shell(heredoc())
    hook(agent_name, pre)
    apply_as_codex(project)
    hook(agent_name, post)
    hook(agent_name, agent.end())
    ok("restore", "1", "--yes", "--session", agent.session)
    assert snapshot(project) == before
    assert set(files_by_path(log_json("--session", agent.session)[0])) == NAMED


def test_a_patch_naming_files_outside_the_project_records_and_writes_nothing_there(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("not the project's\n")
    (project / "escape").symlink_to(outside)
    (project / "inside.txt").write_text("inside\n")
    patch = (
        "*** Begin Patch\n"
        "*** Delete File: ../outside/victim.txt\n"
        f"*** Add File: {outside}/new.txt\n+x\n"
        "*** Update File: escape/victim.txt\n*** Move to: ../../escaped.txt\n@@\n-a\n+b\n"
        "*** Add File: .git/hooks/pre-commit\n+x\n"
        f"*** Update File: {project}/inside.txt\n@@\n-inside\n+changed\n"
        "*** End Patch\n"
    )
    outside_before = snapshot(tmp_path)
    agent = Codex(project)
    hook("codex", agent.prompt("Reach out"))
    hook("codex", agent.intercepted_patch(heredoc(patch)))
    hook("codex", agent.end())
    assert set(files_by_path(log_json("--session", agent.session)[0])) == {"inside.txt"}
    assert snapshot(tmp_path) == outside_before  # the store lives under REWIND_HOME, not here
    logged = (store_dir(project) / "rewind" / "rewind.log").read_text()
    assert logged.count("outside the project root") == 4, logged


def test_a_huge_heredoc_is_read_quickly(project: Path) -> None:
    workspace(project)
    lines = "".join(
        f"+line {number}: *** not a marker, PATCH neither\n" for number in range(400_000)
    )
    patch = PATCH.replace("+a new file\n", lines)
    command = heredoc(patch)
    assert len(command) > 16 * 1024 * 1024
    agent = Codex(project)
    hook("codex", agent.prompt("A big file"))
    started = time.monotonic()
    hook("codex", agent.intercepted_patch(command))
    took = time.monotonic() - started
    assert took < 15, took  # about 1 s here
    assert set(files_by_path(log_json("--session", agent.session)[0])) == NAMED
