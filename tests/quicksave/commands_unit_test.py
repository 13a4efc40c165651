"""The quicksave's reading of command lines, called in this process: each family of commands
docs/quicksave.md says it understands, the shell's structure around them, what it leaves alone
(with a warning where the page says so), and its limits. The command is read against files in a
temporary folder; nothing runs it, and no git is started (the git commands here are those that
need no answer from git).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rewind.quicksave import QuicksaveLimits, QuicksavePlan, paths_at_risk

pytestmark = pytest.mark.unit

FILES = (
    "a.txt",
    "b.txt",
    "c.md",
    "src/x.py",
    "src/y.py",
    "src/notes.txt",
    "src/sub/z.py",
    "build/out.o",
    "build/deep/more.o",
)
FIX_DIFF = "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-a\n+b\n"
CODEX_PATCH = "*** Begin Patch\n*** Update File: src/y.py\n*** End Patch\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The files above (each holds its name), a symlink to a file and one to a folder, two
    patches, and a ``.git`` folder (the top of a repository, as far as the quicksave looks)."""
    root = tmp_path / "project"
    for name in FILES:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name + "\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "link").symlink_to("a.txt")
    (root / "dir_link").symlink_to("src")
    (root / "fix.diff").write_text(FIX_DIFF)
    (root / "p.patch").write_text(CODEX_PATCH)
    return Path(os.path.realpath(root))


def plan_of(command: str, cwd: Path, limits: QuicksaveLimits | None = None) -> QuicksavePlan:
    return paths_at_risk(command, os.fsencode(cwd), limits or QuicksaveLimits())


def at_risk(command: str, project: Path, cwd: Path | None = None) -> set[str]:
    """The plan's paths relative to the project; the command must be understood, its paths
    absolute and without duplicates."""
    plan = plan_of(command, cwd or project)
    assert plan.understood, plan
    assert all(os.path.isabs(path) for path in plan.paths)
    assert len(plan.paths) == len(set(plan.paths))
    return {os.path.relpath(os.fsdecode(path), project) for path in plan.paths}


def check(command: str, expected: str, project: Path) -> None:
    assert at_risk(command, project) == set(expected.split()), command


# the shell's structure -------------------------------------------------------------------------

STRUCTURE = [
    ("rm a.txt; rm b.txt", "a.txt b.txt"),
    ("rm a.txt && rm b.txt || rm c.md", "a.txt b.txt c.md"),
    ("cat a.txt | tee out.txt", "out.txt"),
    ("rm a.txt & rm b.txt", "a.txt b.txt"),
    ("rm a.txt\nrm b.txt", "a.txt b.txt"),
    ("rm a.txt # rm b.txt", "a.txt"),
    ("(cd src && rm x.py); rm a.txt", "src/x.py a.txt"),
    ("(cd src); rm notes.txt", ""),  # a cd in a subshell does not leak out
    ("cd src && rm x.py", "src/x.py"),
    ("cd src; cd sub; rm z.py", "src/sub/z.py"),
    ("pushd src && rm x.py && popd && rm a.txt", "src/x.py a.txt"),
    ("cd src && cd - && rm a.txt", "a.txt"),
    ("F=a.txt; rm $F", "a.txt"),
    ("export D=src; rm $D/x.py ${D}/y.py", "src/x.py src/y.py"),
    ("rm $PWD/a.txt", "a.txt"),
    ("cp a.txt{,.bak}", "a.txt.bak"),
    ("touch log{1..3}", "log1 log2 log3"),
    ('for f in a.txt b.txt; do rm "$f"; done', "a.txt b.txt"),
    ('for f in *.txt; do rm "$f"; done', "a.txt b.txt"),
    ("cat > notes.md <<'EOF'\nrm a.txt\nEOF", "notes.md"),  # the body is no command
    ("cat > notes.md <<-EOF\n\trm a.txt\n\tEOF", "notes.md"),
    ("echo $(rm a.txt)", "a.txt"),
    ("diff <(rm a.txt) b.txt", "a.txt"),
    ("bash -c 'rm a.txt'", "a.txt"),
    ('sh -c "cd src && rm x.py"; rm a.txt', "src/x.py a.txt"),
    ("bash -c 'cd src'; rm a.txt", "a.txt"),  # a cd in bash -c does not leak out
    ("eval 'rm a.txt'", "a.txt"),
    ("cat a.txt > b.txt < c.md", "b.txt"),
]


@pytest.mark.parametrize(("command", "expected"), STRUCTURE)
def test_the_shells_structure(command: str, expected: str, project: Path) -> None:
    check(command, expected, project)


PREFIXES = [
    "sudo rm a.txt",
    "doas rm a.txt",
    "command rm a.txt",
    "builtin rm a.txt",
    "exec rm a.txt",
    "nohup rm a.txt",
    "time rm a.txt",
    "nice -n 5 rm a.txt",
    "timeout 5 rm a.txt",
    "stdbuf -oL rm a.txt",
    "ionice -c 3 rm a.txt",
    "LANG=C rm a.txt",
    "env LANG=C rm a.txt",
    "if true; then rm a.txt; fi",
    "while false; do rm a.txt; done",
    "! rm a.txt",
    "{ rm a.txt; }",
]


@pytest.mark.parametrize("command", PREFIXES)
def test_prefixes_and_keywords_run_the_command_after_them(command: str, project: Path) -> None:
    check(command, "a.txt", project)


@pytest.mark.parametrize("command", ["env -C src rm x.py", "sudo -D src rm x.py"])
def test_prefixes_that_change_the_directory(command: str, project: Path) -> None:
    check(command, "src/x.py", project)


def test_home_and_tilde_are_the_home_directory(project: Path) -> None:
    home = os.environ["HOME"]
    plan = plan_of('echo > "$HOME/out" && touch ~/made', project)
    assert [os.fsdecode(path) for path in plan.paths] == [f"{home}/out", f"{home}/made"]


# globs -----------------------------------------------------------------------------------------

GLOBS = [
    ("rm *.txt", "a.txt b.txt"),
    ("rm src/**/*.py", "src/x.py src/y.py src/sub/z.py"),
    ("rm ?.txt", "a.txt b.txt"),
    ("rm nomatch*.txt", ""),  # passed on as is, and no such file exists
    ("touch nomatch*.x", "nomatch*.x"),  # which touch creates under that name
    ("rm 'a.txt'", "a.txt"),
]


@pytest.mark.parametrize(("command", "expected"), GLOBS)
def test_globs_are_expanded_as_the_shell_would(command: str, expected: str, project: Path) -> None:
    check(command, expected, project)


# redirections ----------------------------------------------------------------------------------

REDIRECTIONS = [
    ("echo hi > out.txt", "out.txt"),
    ("echo hi >> b.txt", "b.txt"),
    ("echo hi >| f1", "f1"),
    ("cmd &> f2", "f2"),
    ("cmd &>> f3", "f3"),
    ("cmd >& f4", "f4"),
    ("cmd <> f5", "f5"),
    ("cmd 2> f6", "f6"),
    ("cmd 2>&1", ""),
    ("cmd > /dev/null", ""),
    ("echo x > /proc/foo", ""),
]


@pytest.mark.parametrize(("command", "expected"), REDIRECTIONS)
def test_output_redirections(command: str, expected: str, project: Path) -> None:
    check(command, expected, project)


# removing --------------------------------------------------------------------------------------

REMOVAL = [
    ("rm a.txt missing.txt", "a.txt"),  # only the operands that exist
    ("rm -r build", "build/out.o build/deep/more.o"),
    ("rm -rf build/", "build/out.o build/deep/more.o"),
    ("rm -R build", "build/out.o build/deep/more.o"),
    (
        "rm -r src build",
        "src/x.py src/y.py src/notes.txt src/sub/z.py build/out.o build/deep/more.o",
    ),
    ("rm -r dir_link", "dir_link"),  # the link itself: never followed
    ("rm -r dir_link/", "dir_link/x.py dir_link/y.py dir_link/notes.txt dir_link/sub/z.py"),
    ("rm link", "link"),
    ("rm build", ""),  # rm without -r removes no directory
    ("unlink a.txt", "a.txt"),
    ("shred -u a.txt", "a.txt"),
    ("rm -- -not-an-option", ""),
]


@pytest.mark.parametrize(("command", "expected"), REMOVAL)
def test_rm_unlink_and_shred(command: str, expected: str, project: Path) -> None:
    check(command, expected, project)


def test_walks_never_enter_git(project: Path) -> None:
    assert ".git/config" not in at_risk("rm -r .", project)
    assert at_risk("rm .git/config", project) == set()


# moving and copying ----------------------------------------------------------------------------

MOVES = [
    ("mv a.txt c.txt", "a.txt c.txt", {"c.txt": "a.txt"}),
    ("mv a.txt src", "a.txt src/a.txt", {"src/a.txt": "a.txt"}),
    (
        "mv -t src a.txt b.txt",
        "a.txt b.txt src/a.txt src/b.txt",
        {"src/a.txt": "a.txt", "src/b.txt": "b.txt"},
    ),
    ("mv -T a.txt src2", "a.txt src2", {"src2": "a.txt"}),
    ("mv tmp config", "tmp config", {"config": "tmp"}),  # even when the source is not there yet
    ("git mv a.txt c.txt", "a.txt c.txt", {"c.txt": "a.txt"}),
]


@pytest.mark.parametrize(("command", "expected", "moves"), MOVES)
def test_mv_records_both_ends_and_the_move(
    command: str, expected: str, moves: dict[str, str], project: Path
) -> None:
    check(command, expected, project)
    plan = plan_of(command, project)
    found = {
        os.path.relpath(os.fsdecode(to), project): os.path.relpath(os.fsdecode(source), project)
        for to, source in plan.moves.items()
    }
    assert found == moves


def test_a_moved_folder_is_every_file_in_it_at_both_places(project: Path) -> None:
    check("mv build out", "build/out.o build/deep/more.o out/out.o out/deep/more.o", project)


COPIES = [
    ("cp a.txt c.txt", "c.txt"),
    ("cp a.txt b.txt src", "src/a.txt src/b.txt"),
    ("cp -r build dest", "dest/out.o dest/deep/more.o"),
    ("cp -a build src", "src/build/out.o src/build/deep/more.o"),
    ("cp -R build dest", "dest/out.o dest/deep/more.o"),
    ("cp -t src a.txt", "src/a.txt"),
    ("cp build dest", ""),  # without -r, cp copies no directory
    ("install -m 755 a.txt bin/a", "bin/a"),
    ("install -t src a.txt", "src/a.txt"),
    ("ln -s a.txt l2", "l2"),
    ("ln -sf a.txt b.txt", "b.txt"),
    ("ln -s a.txt b.txt src", "src/a.txt src/b.txt"),
]


@pytest.mark.parametrize(("command", "expected"), COPIES)
def test_cp_install_and_ln_record_their_destinations(
    command: str, expected: str, project: Path
) -> None:
    check(command, expected, project)


# editing in place, writing files ---------------------------------------------------------------

IN_PLACE = [
    ("sed -i 's/a/b/' a.txt", "a.txt"),
    ("sed -i.bak -e s/a/b/ a.txt", "a.txt a.txt.bak"),
    ("sed --in-place s/x/y/ a.txt b.txt", "a.txt b.txt"),
    ("sed -f script.sed -i a.txt", "a.txt"),
    ("sed 's/a/b/' a.txt", ""),
    ("perl -pi -e 's/a/b/' a.txt", "a.txt"),
    ("perl -i.orig -pe 's/a/b/' a.txt", "a.txt a.txt.orig"),
    ("perl -e 'print 1' a.txt", ""),
    ("gawk -i inplace '{print}' a.txt", "a.txt"),
    ("awk '{print}' a.txt", ""),
]


@pytest.mark.parametrize(("command", "expected"), IN_PLACE)
def test_editing_in_place(command: str, expected: str, project: Path) -> None:
    check(command, expected, project)


WRITERS = [
    ("echo x | tee -a c.txt d.txt", "c.txt d.txt"),
    ("truncate -s 0 a.txt new.txt", "a.txt new.txt"),
    ("truncate -c -s 0 a.txt new.txt", "a.txt"),  # -c creates nothing
    ("touch a.txt new.txt", "new.txt"),  # only a new file's content changes
    ("dd if=a.txt of=out.bin", "out.bin"),
    ("chmod +x a.txt", "a.txt"),
    ("chmod -x a.txt", "a.txt"),
    ("chmod 644 link", "a.txt"),  # the file the link points to
    ("chmod -R u+w build", "build/out.o build/deep/more.o"),
    ("chmod --reference=a.txt b.txt", "b.txt"),
]


@pytest.mark.parametrize(("command", "expected"), WRITERS)
def test_tee_truncate_touch_dd_and_chmod(command: str, expected: str, project: Path) -> None:
    check(command, expected, project)


# find ------------------------------------------------------------------------------------------

FIND = [
    ("find . -name '*.o' -delete", "build/out.o build/deep/more.o"),
    ("find build -type f -delete", "build/out.o build/deep/more.o"),
    ("find . -maxdepth 1 -name '*.txt' -delete", "a.txt b.txt"),
    ("find src -mindepth 2 -delete", "src/sub/z.py"),
    ("find . -iname '*.MD' -delete", "c.md"),
    ("find . -path './src/*' -name '*.py' -delete", "src/x.py src/y.py src/sub/z.py"),
    ("find src -name '*.py' -exec rm {} ;", "src/x.py src/y.py src/sub/z.py"),
    ("find src -name '*.py' -exec sed -i s/a/b/ {} ;", "src/x.py src/y.py src/sub/z.py"),
    ("find src -name '*.py' -exec grep x {} +", ""),  # a command that reads only
    ("find src -name '*.py' -exec python fmt.py {} ;", "src/x.py src/y.py src/sub/z.py"),
    ("find src -execdir rm {} +", "src/x.py src/y.py src/notes.txt src/sub/z.py"),
    ("find src -name '*.py' -ok rm {} ;", "src/x.py src/y.py src/sub/z.py"),
    ("find . -fprint list.txt", "list.txt"),
    # with -o, every file under the starting points may match
    (
        "find src -name '*.py' -o -name '*.md' -delete",
        "src/x.py src/y.py src/notes.txt src/sub/z.py",
    ),
    ("find src -name '*.py'", ""),
]


@pytest.mark.parametrize(("command", "expected"), FIND)
def test_find(command: str, expected: str, project: Path) -> None:
    check(command, expected, project)


# git, where git need not be asked --------------------------------------------------------------

GIT = [
    ("git rm a.txt", "a.txt"),
    ("git rm -r build", "build/out.o build/deep/more.o"),
    ("git -C src rm x.py", "src/x.py"),
    ("git rm --cached a.txt", ""),
    ("git rm -n a.txt", ""),
    ("git mv -n a.txt c.txt", ""),
    ("git checkout main", ""),  # git refuses to overwrite local changes
    ("git switch main", ""),
    ("git reset --soft HEAD~1", ""),
    ("git reset --mixed", ""),
    ("git restore --staged a.txt", ""),
    ("git stash list", ""),
    ("git stash show", ""),
    ("git stash drop", ""),
    ("git clean -n", ""),
    ("git status", ""),
    ("git log --oneline", ""),
]


@pytest.mark.parametrize(("command", "expected"), GIT)
def test_git_commands_that_need_no_answer_from_git(
    command: str, expected: str, project: Path
) -> None:
    check(command, expected, project)


def test_git_with_another_git_dir_is_not_read(project: Path) -> None:
    plan = plan_of("git --git-dir=elsewhere reset --hard", project)
    assert plan.paths == [] and plan.warnings == [
        "git --git-dir: not read; nothing recorded for it"
    ]


# patches ---------------------------------------------------------------------------------------

CODEX = """*** Begin Patch
*** Add File: added.txt
+new
*** Update File: a.txt
@@
-a.txt
+changed
*** Delete File: b.txt
*** Update File: c.md
*** Move to: moved.md
*** End Patch
"""

PATCHES = [
    (f"apply_patch <<'PATCH'\n{CODEX}PATCH", "a.txt added.txt b.txt c.md moved.md"),
    (f"applypatch <<EOF\n{CODEX}EOF", "a.txt added.txt b.txt c.md moved.md"),
    (
        "cd src && apply_patch <<EOF\n*** Begin Patch\n*** Update File: x.py\n*** End Patch\nEOF",
        "src/x.py",
    ),
    (
        "bash -lc \"apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a.txt\n"
        '*** End Patch\nEOF"',
        "a.txt",
    ),
    ("apply_patch '*** Begin Patch\n*** Add File: quoted.txt\n+x\n*** End Patch'", "quoted.txt"),
    ("apply_patch < p.patch", "src/y.py"),
    (
        "patch -p1 <<'EOF'\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\nEOF",
        "a.txt a.txt.orig a.txt.rej",
    ),
    ("patch -p0 < fix.diff", "a.txt a.txt.orig a.txt.rej"),
    ("patch -p0 -i fix.diff", "a.txt a.txt.orig a.txt.rej"),
    (
        "patch <<'EOF'\n--- a/src/x.py\n+++ b/src/x.py\nEOF",
        "x.py x.py.orig x.py.rej",
    ),  # no -p: the name
    (
        "patch -p1 -d src <<'EOF'\n--- a/x.py\n+++ b/x.py\nEOF",
        "src/x.py src/x.py.orig src/x.py.rej",
    ),
    ("patch a.txt fix.diff", "a.txt a.txt.orig a.txt.rej"),
    ("patch --dry-run -p1 <<'EOF'\n--- a/a.txt\n+++ b/a.txt\nEOF", ""),
    (
        "patch -p1 -o out.txt <<'EOF'\n--- a/a.txt\n+++ b/a.txt\nEOF",
        "a.txt a.txt.orig a.txt.rej out.txt",
    ),
    (
        "patch -p1 -z .old -r rej.txt <<'EOF'\n--- a/a.txt\n+++ b/a.txt\nEOF",
        "a.txt a.txt.old a.txt.rej rej.txt",
    ),
    ("patch -p1 <<< '--- a/a.txt\n+++ b/a.txt'", "a.txt a.txt.orig a.txt.rej"),
    (
        "git apply <<'EOF'\ndiff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n+++ b/src/x.py\nEOF",
        "src/x.py",
    ),
    ("cd src && git apply <<'EOF'\n--- a/a.txt\n+++ b/a.txt\nEOF", "a.txt"),  # from the top
    ("git apply --cached <<'EOF'\n--- a/a.txt\n+++ b/a.txt\nEOF", ""),
    ("git apply --check <<'EOF'\n--- a/a.txt\n+++ b/a.txt\nEOF", ""),
    ("git apply --stat <<'EOF'\n--- a/a.txt\n+++ b/a.txt\nEOF", ""),
    ("git apply --stat --apply <<'EOF'\n--- a/a.txt\n+++ b/a.txt\nEOF", "a.txt"),
    ("git apply --reject <<'EOF'\n--- a/a.txt\n+++ b/a.txt\nEOF", "a.txt a.txt.rej"),
    ("git apply --directory=src <<'EOF'\n--- a/x.py\n+++ b/x.py\nEOF", "src/x.py"),
    ("git apply -p0 <<'EOF'\n--- src/x.py\n+++ src/x.py\nEOF", "src/x.py"),
    ("git apply <<'EOF'\nrename from old.txt\nrename to new.txt\nEOF", "old.txt new.txt"),
    ("cat > p.diff <<'EOF'\n--- a/b.txt\n+++ b/b.txt\nEOF\ngit apply p.diff", "b.txt p.diff"),
]


@pytest.mark.parametrize(("command", "expected"), PATCHES)
def test_patches_applied_through_the_shell(command: str, expected: str, project: Path) -> None:
    check(command, expected, project)


def test_a_codex_move_is_recorded_as_one(project: Path) -> None:
    plan = plan_of(f"apply_patch <<'PATCH'\n{CODEX}PATCH", project)
    assert {os.path.relpath(os.fsdecode(k), project) for k in plan.moves} == {"moved.md"}


@pytest.mark.parametrize(
    ("command", "warning"),
    [
        ("cat p.patch | apply_patch", "reads the patch from a standard input the command line"),
        ('apply_patch "$(cat p)"', "a patch only the running shell knows was not read"),
    ],
)
def test_a_patch_the_line_does_not_hold_is_not_read(
    command: str, warning: str, project: Path
) -> None:
    plan = plan_of(command, project)
    assert plan.paths == [] and warning in plan.warnings[0]


def test_a_patch_naming_a_path_outside_the_project_keeps_it_out_of_the_folder(
    project: Path,
) -> None:
    plan = plan_of(
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ../x\n*** End Patch\nEOF", project
    )
    assert [os.fsdecode(path) for path in plan.paths] == [str(project.parent / "x")]


# what is not understood ------------------------------------------------------------------------

WARNED = [
    ("tar xf a.tar", "tar x: the files it extracts are not known and were not recorded"),
    ("tar -xzf a.tgz", "tar x: the files it extracts are not known and were not recorded"),
    ("unzip a.zip", "unzip: the files it extracts are not known and were not recorded"),
    ("rsync -a src/ dest/", "rsync: the files it writes were not recorded"),
    ("ls | xargs rm", "xargs rm: the files come from standard input and were not recorded"),
    ("rm $1", "rm: a path only the running shell knows was not recorded"),
    ('rm "$@"', "rm: a path only the running shell knows was not recorded"),
    ("rm `cat list`", "rm: a path only the running shell knows was not recorded"),
    ("rm $(cat list)", "rm: a path only the running shell knows was not recorded"),
    ("read f; rm $f", "rm: a path only the running shell knows was not recorded"),
    ("rm $UNSET_ELSEWHERE", "rm: a path only the running shell knows was not recorded"),
]


@pytest.mark.parametrize(("command", "warning"), WARNED)
def test_what_is_not_understood_records_nothing_and_says_so(
    command: str, warning: str, project: Path
) -> None:
    plan = plan_of(command, project)
    assert plan.understood and plan.paths == [] and plan.warnings == [warning]


@pytest.mark.parametrize(
    "command",
    ["tar cf a.tar src", "unzip -l a.zip", "ls | xargs grep x", "python script.py", "npm install"],
)
def test_commands_that_change_no_file_the_line_names_add_nothing(
    command: str, project: Path
) -> None:
    plan = plan_of(command, project)
    assert plan.understood and plan.paths == [] and plan.warnings == []


def test_relative_paths_after_a_cd_only_the_shell_knows(project: Path) -> None:
    plan = plan_of("cd $(mktemp -d) && rm x && rm /abs/y", project)
    assert plan.warnings == [
        "cd: to a directory only the running shell knows; relative paths after it were not "
        "recorded",
        "rm: x is relative to a directory only the shell knows",
    ]
    assert plan.paths == []  # /abs/y does not exist, so rm removes nothing there


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("case x in x) rm a.txt;; esac", "a ) closes nothing"),
        ("for ((i=0; i<3; i++)); do rm a.txt; done", "a ) closes nothing"),
        ("rm 'a.txt", "No closing quotation"),
    ],
)
def test_a_line_that_cannot_be_parsed_records_nothing(
    command: str, why: str, project: Path
) -> None:
    plan = plan_of(command, project)
    assert not plan.understood and plan.paths == []
    assert plan.warnings == [f"the command could not be parsed ({why})"]


# limits ----------------------------------------------------------------------------------------


def test_expanding_folders_stops_at_max_files(project: Path) -> None:
    plan = plan_of("rm -r build src a.txt", project, QuicksaveLimits(max_files=1))
    assert {os.path.relpath(os.fsdecode(p), project) for p in plan.paths} == {
        "build/out.o",
        "a.txt",
    }
    assert plan.warnings == [
        "directory build/ has more than 1 files: recorded the first 1 (quicksave_max_files is 1)",
        "directory src/: not expanded, the quicksave limits were reached",
    ]


def test_expanding_folders_stops_at_max_bytes(project: Path) -> None:
    plan = plan_of("chmod -R +x build", project, QuicksaveLimits(max_bytes=15))
    assert len(plan.paths) == 1
    assert plan.warnings == [
        "directory build/ has more than 0 MiB in files: recorded the first 1 files "
        "(quicksave_max_bytes is 15)"
    ]


def test_no_file_found_by_expansion_with_zero_but_the_ones_named(project: Path) -> None:
    plan = plan_of("rm -r build a.txt", project, QuicksaveLimits(max_files=0))
    assert [os.path.relpath(os.fsdecode(p), project) for p in plan.paths] == ["a.txt"]


def test_a_line_longer_than_256_kib_is_read_up_to_a_command_boundary(project: Path) -> None:
    plan = plan_of("rm a.txt; " + "x" * (300 * 1024) + "; rm b.txt", project)
    assert [os.path.relpath(os.fsdecode(p), project) for p in plan.paths] == ["a.txt"]
    assert plan.warnings == [
        "the command is longer than 256 KiB: its last 307212 characters were not read "
        "(nothing in them was recorded)"
    ]


def test_at_most_30000_commands_are_read(project: Path) -> None:
    plan = plan_of("true;" * 30_000 + "rm a.txt", project)
    assert plan.paths == []
    assert plan.warnings == [
        "the command runs more than 30000 commands (a loop's once per run): the rest were not "
        "read (nothing in them was recorded)"
    ]


def test_a_loop_is_read_for_its_first_500_runs(project: Path) -> None:
    words = " ".join(f"f{number}" for number in range(600))
    plan = plan_of(f'for f in {words}; do touch "$f"; done', project)
    assert len(plan.paths) == 500
    assert os.path.basename(os.fsdecode(plan.paths[-1])) == "f499"
    assert plan.warnings == ["a loop runs more than 500 times: read the first ones"]


def test_at_most_100_warnings_then_how_many_more(project: Path) -> None:
    command = "cd $(x) && " + " && ".join(f"rm f{number}" for number in range(150))
    plan = plan_of(command, project)
    assert len(plan.warnings) == 101  # the cd's, then one per rm
    assert plan.warnings[-1] == "and 51 more warnings, not shown"
