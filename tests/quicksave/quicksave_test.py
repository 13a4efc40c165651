"""The quicksave of a shell command: which files it may create, overwrite or delete.

Each test builds real files in a real git repository and asks ``paths_at_risk`` for the exact
set of paths. The end-to-end tests record those paths through a real store, run the real
command with bash, restore the turn through the CLI, and compare every file byte for byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rewind.errors import UserError
from rewind.history.recording.turns import begin, record_after, track
from rewind.history.restoring.opening import open_store
from rewind.quicksave import QuicksaveLimits, QuicksavePlan, limits_from, paths_at_risk
from rewind.store.config import load_config
from tests.conftest import hook, ok, snapshot
from tests.support.agent_payloads import ClaudeCode
from tests.support.git import git

SESSION = "s"
BASH = "/bin/bash"


# helpers ---------------------------------------------------------------------------------------


def write(root: Path, *names: str, content: str | None = None) -> None:
    """Files named relative to ``root`` (directories made as needed), holding their name."""
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name + "\n" if content is None else content)


def commit_all(project: Path, message: str = "commit") -> None:
    git("add", "-A", cwd=project)
    git("commit", "-qm", message, cwd=project)


def plan_of(command: str, cwd: Path, limits: QuicksaveLimits | None = None) -> QuicksavePlan:
    return paths_at_risk(command, os.fsencode(cwd), limits or QuicksaveLimits())


def relative(path: bytes, project: Path) -> str:
    """``path`` relative to the project (symlinked parent directories resolved, as git's
    paths are), or absolute when outside it."""
    text = os.fsdecode(path)
    parent, name = os.path.split(text)
    real = os.path.join(os.path.realpath(parent), name)
    top = os.path.realpath(project)
    return os.path.relpath(real, top) if real.startswith(top + "/") else real


def at_risk(command: str, project: Path, cwd: Path | None = None) -> set[str]:
    """The paths of the plan, relative to the project; the command must be understood."""
    plan = plan_of(command, cwd or project)
    assert plan.understood, plan
    assert all(os.path.isabs(path) for path in plan.paths)
    assert len(plan.paths) == len(set(plan.paths))
    return {relative(path, project) for path in plan.paths}


# structure of the command line ---------------------------------------------------------------


def test_commands_that_touch_nothing_add_nothing(project: Path) -> None:
    write(project, "a.txt", "script.py")
    for command in (
        "ls -la",
        "grep -r x .",
        "cat a.txt",
        "python script.py",
        "npm test",
        "git status",
        "git log --oneline",
        "git diff",
        "echo hello",
        "true && false || true",
        "made-up-command a.txt --force",
    ):
        assert at_risk(command, project) == set(), command


def test_sequences_pipelines_and_subshells(project: Path) -> None:
    write(project, "a", "b", "c", "d", "e")
    assert at_risk("rm a && rm b || rm c; rm d | cat & (rm e)", project) == set("abcde")


def test_cd_changes_where_later_paths_resolve(project: Path) -> None:
    write(project, "sub/f", "f", "sub/deeper/g")
    assert at_risk("cd sub && rm f", project) == {"sub/f"}
    assert at_risk("cd sub; cd deeper; rm g ../f", project) == {"sub/deeper/g", "sub/f"}
    assert at_risk("cd sub && cd - && rm f", project) == {"f"}
    assert at_risk("pushd sub && rm f; popd; rm f", project) == {"sub/f", "f"}
    assert at_risk("rm f", project, cwd=project / "sub") == {"sub/f"}


def test_cd_in_a_subshell_does_not_leak_out(project: Path) -> None:
    write(project, "sub/f", "f")
    assert at_risk("(cd sub && rm f) && rm f", project) == {"sub/f", "f"}
    assert at_risk("bash -c 'cd sub && rm f'; rm f", project) == {"sub/f", "f"}


def test_cd_to_an_unknown_directory_leaves_relative_paths_out(project: Path) -> None:
    write(project, "f")
    plan = plan_of(f"cd $(mktemp -d) && rm f && rm {project}/f", project)
    assert plan.understood
    assert [relative(path, project) for path in plan.paths] == ["f"]  # the absolute one
    assert any("cd" in warning for warning in plan.warnings)


def test_prefixes_and_assignments(project: Path) -> None:
    write(project, *"abcdefghi")
    assert at_risk("env FOO=1 -u BAR rm a", project) == {"a"}
    assert at_risk("FOO=1 BAR=2 rm b", project) == {"b"}
    assert at_risk("sudo -u root -E rm c", project) == {"c"}
    assert at_risk("command rm d", project) == {"d"}
    assert at_risk("nohup rm e &", project) == {"e"}
    assert at_risk("time rm f", project) == {"f"}
    assert at_risk("nice -n 5 timeout -s KILL 10 rm g", project) == {"g"}
    assert at_risk("if true; then rm h; fi", project) == {"h"}
    assert at_risk("! rm i", project) == {"i"}
    assert at_risk("command -v rm", project) == set()


def test_env_and_sudo_can_change_directory(project: Path) -> None:
    write(project, "sub/f", "f")
    assert at_risk("env -C sub rm f", project) == {"sub/f"}
    assert at_risk("env --chdir=sub rm f && rm f", project) == {"sub/f", "f"}


def test_variables_set_on_the_command_line_are_expanded(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project, "build/x.o", "out/y", "home-file")
    monkeypatch.setenv("OUT", "out")
    assert at_risk("D=build; rm -rf $D", project) == {"build/x.o"}
    assert at_risk("export D=build && rm -rf ${D}", project) == {"build/x.o"}
    assert at_risk('rm -r "$OUT"', project) == {"out/y"}
    assert at_risk('rm "$PWD/home-file"', project) == {"home-file"}
    monkeypatch.setenv("HOME", str(project))
    assert at_risk("rm ~/home-file", project) == {"home-file"}


def test_paths_only_the_shell_knows_are_left_out_with_a_warning(project: Path) -> None:
    write(project, "a")
    for command in ('rm "$NOT_SET_ANYWHERE"', "rm $(cat list)", "rm `cat list`", 'rm "$1"'):
        plan = plan_of(command, project)
        assert plan.understood, command
        assert plan.paths == [], command
        assert plan.warnings, command


def test_command_substitutions_are_read_too(project: Path) -> None:
    write(project, "a", "b")
    assert at_risk("echo $(rm a) > /dev/null", project) == {"a"}
    assert at_risk("diff <(rm b) a", project) == {"b"}


def test_quoting_and_escapes(project: Path) -> None:
    write(project, "with space.txt", "it's", "semi;colon")
    assert at_risk('rm "with space.txt"', project) == {"with space.txt"}
    assert at_risk("rm with\\ space.txt", project) == {"with space.txt"}
    assert at_risk("rm \"it's\" 'semi;colon'", project) == {"it's", "semi;colon"}
    assert at_risk("git commit -m 'rm -rf everything; > x'", project) == set()


def test_comments_newlines_and_line_continuations(project: Path) -> None:
    write(project, "a", "b", "sub/c")
    assert at_risk("# rm a\nrm b # and not a", project) == {"b"}
    assert at_risk("cd sub\nrm c", project) == {"sub/c"}
    assert at_risk("rm \\\n  a \\\n  b", project) == {"a", "b"}
    assert at_risk("echo a#b; echo '# rm a'", project) == set()


def test_globs_are_expanded_as_the_shell_would(project: Path) -> None:
    write(project, "a.txt", "b.txt", "c.md", "src/x.py", "src/deep/y.py", ".hidden.txt")
    assert at_risk("rm *.txt", project) == {"a.txt", "b.txt"}
    assert at_risk("rm src/**/*.py", project) == {"src/x.py", "src/deep/y.py"}
    assert at_risk("rm ?.md", project) == {"c.md"}
    assert at_risk("rm *.nothing", project) == set()  # passed on as is: no such file


def test_brace_expansion(project: Path) -> None:
    write(project, "a.txt", "b.txt", "config")
    assert at_risk("rm {a,b}.txt", project) == {"a.txt", "b.txt"}
    assert at_risk("cp config{,.bak}", project) == {"config.bak"}
    assert at_risk("mv config{,.orig}", project) == {"config", "config.orig"}
    assert at_risk("touch log{1..3}", project) == {"log1", "log2", "log3"}


def test_for_loops_read_the_body_once_per_word(project: Path) -> None:
    write(project, "a.txt", "b.txt")
    expected = {"a.txt", "a.txt.bak", "b.txt", "b.txt.bak"}
    assert at_risk('for f in *.txt; do mv "$f" "$f.bak"; done', project) == expected
    assert at_risk("for f in a.txt c.txt\ndo\n  sed -i s/a/b/ $f\ndone", project) == {"a.txt"}


def test_shell_strings_and_eval(project: Path) -> None:
    write(project, "a", "b")
    assert at_risk("sh -c 'rm a'", project) == {"a"}
    assert at_risk('bash -ec "rm b"', project) == {"b"}
    assert at_risk("eval rm a", project) == {"a"}
    assert at_risk("bash script.sh", project) == set()


def test_shell_strings_keep_what_the_outer_shell_cannot_expand(project: Path) -> None:
    write(project, "a.txt", "b.txt", "c.md")
    command = "bash -c 'for f in *.txt; do rm \"$f\"; done'"
    assert at_risk(command, project) == {"a.txt", "b.txt"}
    assert at_risk('sh -c "D=c.md; rm $D"', project) == {"c.md"}


def test_a_command_line_that_cannot_be_parsed_is_not_understood(project: Path) -> None:
    write(project, "a")
    for command in ("rm a 'unbalanced", 'echo "open', "(rm a", "rm a)", "rm a >", "echo \\"):
        plan = plan_of(command, project)
        assert not plan.understood, command
        assert plan.paths == [], command
        assert plan.warnings, command


def test_nothing_inside_git_is_returned(project: Path) -> None:
    write(project, "a", "sub/b")
    commit_all(project)
    assert at_risk("rm -rf .", project) == {"a", "sub/b"}
    assert at_risk("rm .git/config; echo x > .git/hooks/pre-commit", project) == set()
    assert at_risk("find . -delete", project) == {"a", "sub/b"}
    assert at_risk("chmod -R u+w .", project) == {"a", "sub/b"}


# rm, mv, cp, ln ... ----------------------------------------------------------------------------


def test_rm_records_files_and_expands_directories_only_when_recursive(project: Path) -> None:
    write(project, "a", "dir/b", "dir/sub/c")
    assert at_risk("rm a missing", project) == {"a"}
    assert at_risk("rm dir", project) == set()  # rm refuses
    assert at_risk("rm -rf dir", project) == {"dir/b", "dir/sub/c"}
    assert at_risk("rm -R dir", project) == {"dir/b", "dir/sub/c"}
    assert at_risk("rm --recursive --force -- dir", project) == {"dir/b", "dir/sub/c"}
    assert at_risk("rm dir -r", project) == {"dir/b", "dir/sub/c"}
    assert at_risk("unlink a", project) == {"a"}
    assert at_risk("shred -u -n 3 a", project) == {"a"}


def test_rm_does_not_follow_symlinks_unless_given_dir_slash(project: Path) -> None:
    write(project, "real/x", "outside/y")
    (project / "link").symlink_to("real")
    (project / "real" / "inner").symlink_to("../outside")
    assert at_risk("rm -rf link", project) == {"link"}
    assert at_risk("rm -rf real", project) == {"real/x", "real/inner"}
    # rm -r link/ goes through the link (GNU rm deletes what is inside)
    assert at_risk("rm -rf link/", project) == {"real/x", "real/inner"}


def test_mv_records_both_ends(project: Path) -> None:
    write(project, "a", "b", "c", "dir/old", "tree/x", "tree/sub/y")
    assert at_risk("mv a b", project) == {"a", "b"}
    assert at_risk("mv a new", project) == {"a", "new"}
    assert at_risk("mv a b dir", project) == {"a", "b", "dir/a", "dir/b"}
    assert at_risk("mv -t dir a c", project) == {"a", "c", "dir/a", "dir/c"}
    assert at_risk("mv --target-directory=dir a", project) == {"a", "dir/a"}
    assert at_risk("mv -T a dir/old", project) == {"a", "dir/old"}
    assert at_risk("mv tree moved", project) == {
        "tree/x",
        "tree/sub/y",
        "moved/x",
        "moved/sub/y",
    }
    assert at_risk("mv tree dir", project) == {
        "tree/x",
        "tree/sub/y",
        "dir/tree/x",
        "dir/tree/sub/y",
    }
    # a source made earlier on the line: the destination is at risk all the same
    assert at_risk("jq . b > tmp.json && mv tmp.json b", project) == {"tmp.json", "b"}
    assert at_risk("mv missing b", project) == {"missing", "b"}


def test_cp_records_the_destination(project: Path) -> None:
    write(project, "x", "existing", "dir/keep", "tree/a", "tree/sub/b")
    assert at_risk("cp x existing", project) == {"existing"}
    assert at_risk("cp x new", project) == {"new"}
    assert at_risk("cp x existing dir", project) == {"dir/x", "dir/existing"}
    assert at_risk("cp -t dir x", project) == {"dir/x"}
    assert at_risk("cp tree dir", project) == set()  # cp omits directories without -r
    assert at_risk("cp -r tree copy", project) == {"copy/a", "copy/sub/b"}
    assert at_risk("cp -a tree dir", project) == {"dir/tree/a", "dir/tree/sub/b"}
    assert at_risk("cp -rT tree dir", project) == {"dir/a", "dir/sub/b"}
    assert at_risk("cp -f x{,.orig}", project) == {"x.orig"}
    assert at_risk("make out.bin && cp out.bin existing", project) == {"existing"}


def test_ln_records_the_link_path(project: Path) -> None:
    write(project, "target", "dir/f")
    (project / "dirlink").symlink_to("dir")
    assert at_risk("ln -sf target link", project) == {"link"}
    assert at_risk("ln -s ../target dir", project) == {"dir/target"}
    assert at_risk("ln -s dir/f", project) == {"f"}
    assert at_risk("ln -sfn target dirlink", project) == {"dirlink"}
    assert at_risk("ln -sf target dirlink", project) == {"dir/target"}
    assert at_risk("ln -s -t dir target", project) == {"dir/target"}


def test_install_touch_dd(project: Path) -> None:
    write(project, "src", "exists", "bin/old")
    assert at_risk("install -m 755 src bin/tool", project) == {"bin/tool"}
    assert at_risk("install -D -t bin src", project) == {"bin/src"}
    assert at_risk("install -d newdir", project) == set()
    assert at_risk("touch exists new -d yesterday", project) == {"new"}
    assert at_risk("touch -c new", project) == set()
    assert at_risk("dd if=/dev/zero of=disk.img bs=1k count=1", project) == {"disk.img"}
    assert at_risk("dd if=src of=/dev/null", project) == set()


def test_tee_truncate_chmod(project: Path) -> None:
    write(project, "a", "b", "tree/x", "tree/sub/y")
    (project / "link").symlink_to("a")
    assert at_risk("echo x | tee -a a new", project) == {"a", "new"}
    assert at_risk("echo x | tee /dev/stderr", project) == set()
    assert at_risk("truncate -s 0 a new", project) == {"a", "new"}
    assert at_risk("truncate --no-create --size=0 a new", project) == {"a"}
    assert at_risk("chmod +x a", project) == {"a"}
    assert at_risk("chmod -x a b", project) == {"a", "b"}  # a mode, not an option
    assert at_risk("chmod 644 -- a", project) == {"a"}
    assert at_risk("chmod u+x link", project) == {"a"}  # chmod changes the link's target
    assert at_risk("chmod 755 tree", project) == set()  # a directory's mode is not recorded
    assert at_risk("chmod -R go-w tree", project) == {"tree/x", "tree/sub/y"}
    assert at_risk("chmod --reference=a b", project) == {"b"}


# sed, perl, awk ------------------------------------------------------------------------------


def test_sed_in_place(project: Path) -> None:
    write(project, "a", "b", "script.sed")
    assert at_risk("sed -i 's/x/y/' a b", project) == {"a", "b"}
    assert at_risk("sed --in-place -e s/x/y/ -e s/z/w/ a", project) == {"a"}
    assert at_risk("sed -i -f script.sed b", project) == {"b"}
    assert at_risk("sed -Ei 's/(x)/y/' a", project) == {"a"}
    assert at_risk("sed -n -i p a", project) == {"a"}
    assert at_risk("sed -ie 's/x/y/' a", project) == {"a", "ae"}  # -i takes "e" as suffix
    assert at_risk("sed -i.bak 's/x/y/' a", project) == {"a", "a.bak"}
    assert at_risk("sed --in-place=.orig --expression=s/x/y/ b", project) == {"b", "b.orig"}
    assert at_risk("sed -i 'bak/*' s/x/y/ a", project) == {"a"}
    assert at_risk("sed 's/x/y/' a > b", project) == {"b"}
    assert at_risk("sed -n '/x/p' a", project) == set()


def test_perl_and_awk_in_place(project: Path) -> None:
    write(project, "a", "b", "fix.pl")
    assert at_risk("perl -pi -e 's/x/y/' a b", project) == {"a", "b"}
    assert at_risk("perl -i.bak -pe 's/x/y/' a", project) == {"a", "a.bak"}
    assert at_risk("perl -0777 -p -i -e 's/x/y/' b", project) == {"b"}
    assert at_risk("perl -i fix.pl a", project) == {"a"}
    assert at_risk("perl -ne 'print if /x/' a", project) == set()
    assert at_risk("gawk -i inplace '{ print }' a", project) == {"a"}
    assert at_risk("awk '{ print }' a", project) == set()


# redirections ------------------------------------------------------------------------------


def test_output_redirections(project: Path) -> None:
    write(project, "a", "sub/b")
    assert at_risk("echo x > out", project) == {"out"}
    assert at_risk("echo x >> a", project) == {"a"}
    assert at_risk("echo x >| a", project) == {"a"}
    assert at_risk("make &> build.log", project) == {"build.log"}
    assert at_risk("make &>> build.log", project) == {"build.log"}
    assert at_risk("make 2> errors.log", project) == {"errors.log"}
    assert at_risk("make 2>errors.log 1>>out.log", project) == {"errors.log", "out.log"}
    assert at_risk("make >& both.log", project) == {"both.log"}
    assert at_risk("cd sub && echo x > b", project) == {"sub/b"}
    assert at_risk("(echo a; echo b) > grouped", project) == {"grouped"}


def test_redirections_that_write_no_file(project: Path) -> None:
    write(project, "a")
    for command in (
        "make > /dev/null 2>&1",
        "make 2>&1 | tee /dev/null",
        "echo x >&2",
        "exec 3>&-",
        "wc -l < a",
        "cat <<< 'text'",
    ):
        assert at_risk(command, project) == set(), command


def test_heredocs(project: Path) -> None:
    write(project, "a")
    command = "cat > notes.md <<'EOF'\nit's 'unbalanced\" and has > redirects; rm a\nEOF\n"
    assert at_risk(command, project) == {"notes.md"}
    command = "cat <<-EOF > out.txt\n\tbody\n\tEOF\nrm a"
    assert at_risk(command, project) == {"out.txt", "a"}
    command = "cat > one <<A; cat > two <<B\nfirst\nA\nsecond\nB\necho done > three"
    assert at_risk(command, project) == {"one", "two", "three"}


# find ----------------------------------------------------------------------------------------


def test_find_delete_records_what_the_expression_may_match(project: Path) -> None:
    write(project, "a.tmp", "keep.txt", "sub/b.tmp", "sub/c.txt", "sub/deeper/d.tmp")
    assert at_risk("find . -name '*.tmp' -delete", project) == {
        "a.tmp",
        "sub/b.tmp",
        "sub/deeper/d.tmp",
    }
    assert at_risk("find sub -maxdepth 1 -name '*.tmp' -delete", project) == {"sub/b.tmp"}
    assert at_risk("find . -mindepth 2 -iname '*.TMP' -delete", project) == {
        "sub/b.tmp",
        "sub/deeper/d.tmp",
    }
    assert at_risk("find . -path './sub/*' -type f -delete", project) == {
        "sub/b.tmp",
        "sub/c.txt",
        "sub/deeper/d.tmp",
    }
    assert at_risk("find . ! -name '*.tmp' -name 'a*' -delete", project) == {"a.tmp"}
    # with -o, every file may match
    everything = {"a.tmp", "keep.txt", "sub/b.tmp", "sub/c.txt", "sub/deeper/d.tmp"}
    assert at_risk("find . -name '*.tmp' -o -name '*.txt' -delete", project) == everything
    assert at_risk("find -name '*.tmp' -newer keep.txt -delete", project) >= {"a.tmp"}
    assert at_risk("find . -name '*.tmp'", project) == set()
    assert at_risk("find . -name '*.tmp' -print | wc -l", project) == set()


def test_find_exec_reads_the_command_per_match(project: Path) -> None:
    write(project, "a.py", "sub/b.py", "sub/c.txt", "cache/x/y.pyc")
    assert at_risk("find . -name '*.py' -exec rm {} \\;", project) == {"a.py", "sub/b.py"}
    assert at_risk("find . -name '*.py' -exec sed -i s/x/y/ {} +", project) == {"a.py", "sub/b.py"}
    assert at_risk("find . -name '*.py' -exec mv {} {}.bak \\;", project) == {
        "a.py",
        "a.py.bak",
        "sub/b.py",
        "sub/b.py.bak",
    }
    assert at_risk("find sub -name '*.py' -execdir rm {} \\;", project) == {"sub/b.py"}
    assert at_risk("find . -name '*.py' -exec grep x {} \\;", project) == set()
    assert at_risk("find . -name cache -type d -exec rm -rf {} +", project) == {"cache/x/y.pyc"}


def test_find_exec_of_an_unknown_command_may_change_every_match(project: Path) -> None:
    write(project, "a.py", "sub/b.py", "sub/c.txt", "pkg/x/y.txt")
    assert at_risk("find . -name '*.py' -exec black {} +", project) == {"a.py", "sub/b.py"}
    # a matching directory: everything inside it
    assert at_risk("find . -name pkg -exec python clean.py {} \\;", project) == {"pkg/x/y.txt"}


def test_find_writes_its_output_files(project: Path) -> None:
    write(project, "a")
    assert at_risk("find . -name a -fprint found.txt", project) == {"found.txt"}


# git -----------------------------------------------------------------------------------------


@pytest.fixture
def repository(project: Path) -> Path:
    """A repository with history and every kind of change.

    Commit 1: tracked.txt, src/a.py, src/b.py, .gitignore (ignores *.log and build/).
    Commit 2: src/a.py changed, src/c.py added. Then: src/b.py modified, staged.txt added to
    the index, untracked.txt and src/new.py untracked, debug.log and build/out.o ignored.
    """
    write(project, "tracked.txt", "src/a.py", "src/b.py")
    (project / ".gitignore").write_text("*.log\nbuild/\n")
    commit_all(project, "one")
    write(project, "src/a.py", content="version 2\n")
    write(project, "src/c.py")
    commit_all(project, "two")
    write(project, "src/b.py", content="local change\n")
    write(project, "staged.txt")
    git("add", "staged.txt", cwd=project)
    write(project, "untracked.txt", "src/new.py", "debug.log", "build/out.o")
    return project


CHANGED = {"src/b.py", "staged.txt", "untracked.txt", "src/new.py"}
IGNORED = {"debug.log", "build/out.o"}


def test_git_reset_hard_records_every_changed_file(repository: Path) -> None:
    assert at_risk("git reset --hard", repository) == CHANGED
    assert at_risk("git reset --hard HEAD", repository) == CHANGED
    assert at_risk("git reset --merge", repository) == CHANGED
    # with another commit: also the files that differ from it
    assert at_risk("git reset --hard HEAD~1", repository) == CHANGED | {"src/a.py", "src/c.py"}
    assert at_risk("git reset --soft HEAD~1", repository) == set()
    assert at_risk("git reset HEAD~1", repository) == set()


def test_git_checkout_and_restore_of_paths(repository: Path) -> None:
    assert at_risk("git checkout -- src/b.py", repository) == {"src/b.py"}
    assert at_risk("git checkout .", repository) == CHANGED
    assert at_risk("git checkout -- src", repository) == {"src/b.py", "src/new.py"}
    assert at_risk("git checkout -- '*.py'", repository) == {"src/b.py", "src/new.py"}
    assert at_risk("git checkout HEAD~1 -- src", repository) == {
        "src/a.py",
        "src/b.py",
        "src/c.py",
        "src/new.py",
    }
    assert at_risk("git checkout -- .", repository, cwd=repository / "src") == {
        "src/b.py",
        "src/new.py",
    }
    assert at_risk("git restore src/b.py", repository) == {"src/b.py"}
    assert at_risk("git restore --source=HEAD~1 src/a.py", repository) == {"src/a.py"}
    assert at_risk("git restore -s HEAD~1 -- .", repository) == CHANGED | {"src/a.py", "src/c.py"}
    assert at_risk("git restore --staged staged.txt", repository) == set()
    assert at_risk("git restore --staged --worktree src/b.py", repository) == {"src/b.py"}


def test_git_checkout_of_a_branch_only_with_force(repository: Path) -> None:
    git("branch", "other", "HEAD~1", cwd=repository)
    assert at_risk("git checkout other", repository) == set()
    assert at_risk("git checkout -b feature", repository) == set()
    assert at_risk("git switch other", repository) == set()
    forced = CHANGED | {"src/a.py", "src/c.py"}
    assert at_risk("git checkout -f other", repository) == forced
    assert at_risk("git switch --discard-changes other", repository) == forced
    assert at_risk("git switch -f other", repository) == forced


def test_git_clean(repository: Path) -> None:
    assert at_risk("git clean -fd", repository) == CHANGED
    assert at_risk("git clean -fdx", repository) == CHANGED | IGNORED
    assert at_risk("git clean -fX", repository) == CHANGED | IGNORED
    assert at_risk("git clean -fd src", repository) == {"src/b.py", "src/new.py"}
    assert at_risk("git clean -n", repository) == set()
    assert at_risk("git clean --dry-run -x", repository) == set()


def test_git_stash(repository: Path) -> None:
    assert at_risk("git stash", repository) == CHANGED
    assert at_risk("git stash -u", repository) == CHANGED
    assert at_risk("git stash push --include-untracked -m wip", repository) == CHANGED
    assert at_risk("git stash save wip", repository) == CHANGED
    assert at_risk("git stash push -- src", repository) == {"src/b.py", "src/new.py"}
    assert at_risk("git stash --all", repository) == CHANGED | IGNORED
    for command in ("git stash list", "git stash show", "git stash drop", "git stash clear"):
        assert at_risk(command, repository) == set(), command


def test_git_stash_pop_records_the_stashed_files(repository: Path) -> None:
    git("stash", "push", "-u", cwd=repository)
    assert at_risk("git stash pop", repository) == {
        "src/b.py",
        "staged.txt",
        "untracked.txt",
        "src/new.py",
    }
    assert at_risk("git stash apply stash@{0}", repository) == {
        "src/b.py",
        "staged.txt",
        "untracked.txt",
        "src/new.py",
    }


def test_git_rm_and_mv(repository: Path) -> None:
    assert at_risk("git rm tracked.txt", repository) == {"tracked.txt"}
    assert at_risk("git rm -r src", repository) == {
        "src/a.py",
        "src/b.py",
        "src/c.py",
        "src/new.py",
    }
    assert at_risk("git rm --cached tracked.txt", repository) == set()
    assert at_risk("git mv tracked.txt moved.txt", repository) == {"tracked.txt", "moved.txt"}


def test_git_dash_c_changes_the_repository_and_directory(repository: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert at_risk(f"git -C {repository} reset --hard", repository, cwd=elsewhere) == CHANGED
    assert at_risk("git -C src checkout -- .", repository) == {"src/b.py", "src/new.py"}
    assert at_risk("cd src && git checkout -- .", repository) == {"src/b.py", "src/new.py"}
    assert at_risk("git --no-pager -c core.x=y reset --hard", repository) == CHANGED


def test_git_pathspecs_from_a_directory_reached_through_a_symlink(
    repository: Path, tmp_path: Path
) -> None:
    (tmp_path / "alias").symlink_to(repository)
    alias = tmp_path / "alias"
    assert at_risk("git checkout -- src", repository, cwd=alias) == {"src/b.py", "src/new.py"}
    assert at_risk("git clean -f .", repository, cwd=alias / "src") == {"src/b.py", "src/new.py"}


def test_plans_hold_no_directories(repository: Path) -> None:
    """git reports an untracked nested repository as a directory: it is not a path to record."""
    write(repository, "nested/file")
    git("init", "-q", cwd=repository / "nested")
    write(repository, "dir/x")
    paths = at_risk("git clean -fd && mv -T untracked.txt dir", repository)
    assert paths == CHANGED | {"dir/x"}  # not nested/, not dir
    assert not any((repository / path).is_dir() for path in paths)


@pytest.mark.unit
def test_git_outside_a_repository_records_nothing(tmp_path: Path) -> None:
    write(tmp_path, "a")
    plan = plan_of("git reset --hard && git clean -fdx", tmp_path)
    assert plan.understood
    assert plan.paths == []


# limits ---------------------------------------------------------------------------------------


def test_a_directory_over_max_files_is_cut_with_a_warning(project: Path) -> None:
    write(project, *(f"build/{number:02}.o" for number in range(50)))
    plan = plan_of("rm -rf build", project, QuicksaveLimits(max_files=10))
    assert plan.understood
    assert [relative(path, project) for path in plan.paths] == [
        f"build/{number:02}.o" for number in range(10)
    ]
    assert plan.warnings == [
        "directory build/ has more than 10 files: recorded the first 10 (quicksave_max_files is 10)"
    ]


def test_a_glob_that_matches_a_directory_and_its_files_counts_them_once(project: Path) -> None:
    write(project, "build/a", "build/sub/b", "build/sub/c")
    plan = plan_of("rm -rf build/**", project, QuicksaveLimits(max_files=3))
    assert {relative(path, project) for path in plan.paths} == {
        "build/a",
        "build/sub/b",
        "build/sub/c",
    }
    assert plan.warnings == []


def test_rm_rf_of_the_whole_file_system_stays_within_the_limits(project: Path) -> None:
    plan = plan_of("rm -rf / ~", project, QuicksaveLimits(max_files=5))
    assert plan.understood
    assert len(plan.paths) == 5
    assert plan.warnings[0].startswith("directory / has more than 5 files")


def test_the_limits_hold_for_the_whole_command(project: Path) -> None:
    write(project, *(f"one/{number}" for number in range(6)), *(f"two/{n}" for n in range(6)))
    plan = plan_of("rm -rf one; rm -rf two", project, QuicksaveLimits(max_files=8))
    assert len(plan.paths) == 8
    assert any(
        warning.startswith("directory two/ has more than 2 files") for warning in plan.warnings
    )
    # explicitly named files are not counted: the shell names them anyway
    plan = plan_of("rm one/0 one/1 one/2", project, QuicksaveLimits(max_files=0))
    assert len(plan.paths) == 3


def test_max_bytes_stops_the_expansion(project: Path) -> None:
    for number in range(5):
        write(project, f"data/{number}.bin", content="x" * 1000)
    plan = plan_of("rm -r data", project, QuicksaveLimits(max_bytes=2500))
    assert len(plan.paths) == 2
    assert "quicksave_max_bytes" in plan.warnings[0]
    assert plan.warnings[0].startswith("directory data/ has more than")


def test_the_limits_apply_to_find_and_git_clean_x(repository: Path) -> None:
    write(repository, *(f"build/{number:02}.o" for number in range(20)))
    plan = plan_of("git clean -fdx", repository, QuicksaveLimits(max_files=5))
    assert set(CHANGED) <= {relative(path, repository) for path in plan.paths}
    assert len(plan.paths) == len(CHANGED) + 5
    assert any("ignored files" in warning for warning in plan.warnings)
    plan = plan_of("find build -delete", repository, QuicksaveLimits(max_files=5))
    assert len(plan.paths) == 5
    assert plan.warnings


@pytest.mark.unit
def test_limits_come_from_rewind_toml(tmp_path: Path) -> None:
    assert vars_of(limits_from(load_config(os.fsencode(tmp_path), str(tmp_path)))) == (
        2000,
        200 << 20,
    )
    (tmp_path / "rewind.toml").write_text("quicksave_max_files = 10\nquicksave_max_bytes = 4096\n")
    assert vars_of(limits_from(load_config(os.fsencode(tmp_path), str(tmp_path)))) == (10, 4096)
    for bad in (
        'quicksave_max_files = "many"',
        "quicksave_max_bytes = -1",
        "quicksave_max_files = true",
    ):
        (tmp_path / "rewind.toml").write_text(bad + "\n")
        with pytest.raises(UserError, match="quicksave_max_"):
            load_config(os.fsencode(tmp_path), str(tmp_path))


def vars_of(limits: QuicksaveLimits) -> tuple[int, int]:
    return limits.max_files, limits.max_bytes


def test_unknown_extractors_are_left_alone_with_a_warning(project: Path) -> None:
    for command in (
        "tar xzf archive.tgz",
        "tar -xf a.tar -C out",
        "unzip a.zip",
        "xargs rm < list",
    ):
        plan = plan_of(command, project)
        assert plan.understood, command
        assert plan.paths == [], command
        assert plan.warnings, command
    for command in ("tar czf archive.tgz src", "unzip -l a.zip", "xargs grep x < list"):
        plan = plan_of(command, project)
        assert (plan.paths, plan.warnings) == ([], []), command


def test_the_module_loads_only_os_shlex_and_glob(tmp_path: Path) -> None:
    # find walks the folder cd names: this test's, as /tmp can hold a million entries
    program = (
        "import sys, os\n"
        "before = set(sys.modules)\n"
        "from rewind.quicksave import paths_at_risk, QuicksaveLimits\n"
        f"command = 'cd {tmp_path} && rm -rf x; sed -i s/a/b/ y > z; find . -name q -delete'\n"
        "command += '; git apply - <<E\\n--- a/q\\n+++ b/q\\nE\\n'\n"
        "command += 'apply_patch <<E\\n*** Add File: q\\nE'\n"
        "paths_at_risk(command, os.getcwdb(), QuicksaveLimits())\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    # re (and enum, which re imports) come with shlex and glob
    unwanted = {"subprocess", "json", "typing", "dataclasses", "pathlib", "tomllib", "argparse"}
    assert not loaded & unwanted, loaded & unwanted


# end to end: real commands, real restores ---------------------------------------------------


def quicksave_and_run(project: Path, command: str, cwd: Path | None = None) -> QuicksavePlan:
    """What the hook does before the command (record the plan's paths), then the command."""
    store = open_store(os.path.realpath(bytes(project)), create=True)
    begin(store, SESSION, prompt=command)
    plan = paths_at_risk(command, os.fsencode(cwd or project), QuicksaveLimits())
    assert plan.understood, plan
    track(store, SESSION, [store.root.stored_name(path) for path in plan.paths])
    subprocess.run(command, shell=True, executable=BASH, cwd=cwd or project, check=True)
    record_after(store, SESSION, close=True)
    return plan


def assert_restored(project: Path, before: dict[bytes, tuple[str, bytes, int]]) -> None:
    ok("restore", "1", "--yes", "--session", SESSION, cwd=project)
    assert snapshot(project) == before


@pytest.mark.parametrize(
    ("command", "cwd"),
    [
        ("rm -rf dir", ""),
        ("sed -i 's/txt/TXT/' a.txt sub/b.txt", ""),
        ("echo replaced > a.txt && echo new > fresh.txt", ""),
        ("mv a.txt sub/b.txt", ""),
        ("cp a.txt sub/b.txt", ""),
        ("find . -name '*.tmp' -delete", ""),
        ("cd sub && rm b.txt", ""),
        ("cat > a.txt <<'EOF'\nheredoc's content\nEOF", ""),
        ("rm b.txt", "sub"),
        ("chmod 600 a.txt && find dir -type f -exec chmod 700 {} + && ln -sf a.txt dir/alias", ""),
        ("mv dir moved", ""),
        ("cp -r dir sub", ""),
        ("sort a.txt > tmp && mv tmp sub/b.txt", ""),
    ],
    ids=[
        "rm-rf",
        "sed-i",
        "redirect",
        "mv",
        "cp-existing",
        "find-delete",
        "cd-rm",
        "heredoc",
        "in-subdirectory",
        "chmod-find-ln",
        "mv-dir",
        "cp-r-dir",
        "write-then-mv",
    ],
)
def test_quicksave_restores_what_real_commands_changed(
    project: Path, command: str, cwd: str
) -> None:
    write(project, "a.txt", "sub/b.txt", "dir/x.tmp", "dir/deep/y.txt", "keep.tmp")
    (project / "dir" / "run.sh").write_text("#!/bin/sh\n")
    (project / "dir" / "run.sh").chmod(0o755)
    (project / "dir" / "alias").symlink_to("x.tmp")
    before = snapshot(project)
    quicksave_and_run(project, command, project / cwd)
    assert snapshot(project) != before
    assert_restored(project, before)


@pytest.mark.parametrize(
    "command",
    [
        "git reset --hard",
        "git clean -fdx",
        "git stash -u",
        "git checkout -f HEAD~1",
        "git clean -fdX",
    ],
)
def test_quicksave_restores_what_real_git_commands_destroyed(
    repository: Path, command: str
) -> None:
    before = snapshot(repository)
    quicksave_and_run(repository, command)
    assert snapshot(repository) != before
    assert_restored(repository, before)


def test_a_submodule_git_file_does_not_use_up_the_limits(project: Path) -> None:
    (project / "vendor" / "lib").mkdir(parents=True)
    (project / "vendor" / "lib" / ".git").write_text("gitdir: ../../.git/modules/lib\n")
    (project / "vendor" / "lib" / "code.py").write_text("x = 1\n")
    plan = paths_at_risk("rm -rf vendor", bytes(project), QuicksaveLimits(max_files=1))
    assert plan.paths == [bytes(project / "vendor" / "lib" / "code.py")]
    assert plan.warnings == []


def test_the_files_mv_moves_are_named_with_their_source(project: Path) -> None:
    (project / "a.txt").write_text("a")
    (project / "b.txt").write_text("b")
    (project / "dir").mkdir()
    plan = plan_of("mv a.txt c.txt && mv b.txt dir && cp a.txt d.txt", project)
    root = os.fsencode(project)
    assert plan.moves == {
        root + b"/c.txt": root + b"/a.txt",
        root + b"/dir/b.txt": root + b"/b.txt",
    }


def test_the_log_shows_a_move_as_one_rename(project: Path) -> None:
    """``mv a.txt b.txt`` through the agent's shell: one ``R`` line, diffed from a.txt's
    content, not a D and an A; ``--path`` still lists the one path asked for."""
    (project / "a.txt").write_text("one\n")
    agent = ClaudeCode(project)
    hook("claude-code", agent.prompt("rename a to b"))
    before, after = agent.shell("mv a.txt b.txt")
    hook("claude-code", before)
    (project / "a.txt").rename(project / "b.txt")
    hook("claude-code", after)
    hook("claude-code", agent.end())
    shown = ok("log").stdout
    assert "        R a.txt -> b.txt  +0 -0  (shell quicksave)\n" in shown, shown
    assert "D a.txt" not in shown and "A b.txt" not in shown
    assert "        D a.txt  +0 -1  (shell quicksave)\n" in ok("log", "--path", "a.txt").stdout
