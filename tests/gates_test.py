"""One gate to the git program, pygit2 in the store only, and no rewind started by the store.

Every run of git goes through :mod:`rewind.store.git_program` (one recipe: the environment, a
process group killed on timeout, standard input closed); pygit2 is imported only by the store's
modules that wrap it: :mod:`rewind.store.packed` (the store's objects),
:mod:`rewind.store.line_diffs` (every diff) and :mod:`rewind.store.project_repository` (the
user's repository, for watch mode). The store starts no ``rewind``: the background jobs it asks
for (a gc, a backup push) are started by what the history hands it
(:mod:`rewind.history.background`). The sources are read with ``ast``, as tests/layers_test.py
reads them: an import inside a function, or under ``if TYPE_CHECKING:``, counts.
"""

from __future__ import annotations

import ast
import itertools
import pathlib
import sys
from collections.abc import Callable

import pytest

pytestmark = pytest.mark.unit

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "rewind"
STORE = "rewind/store/"
BACKGROUND_JOBS = "rewind/history/background.py"  # what starts the jobs the store asks for
GIT_GATE = "rewind/store/git_program.py"
PYGIT2_GATES = (
    "rewind/store/packed.py",
    "rewind/store/line_diffs.py",
    "rewind/store/project_repository.py",
)
# What the git gate may import: the quicksave and the pre-commit hook go through it.
GIT_GATE_IMPORTS = {"__future__", "collections.abc", "os", "signal", "subprocess", "rewind.errors"}
# What the other modules use of it.
GIT_GATE_API = {"run_git", "start_git", "stop_git", "GitFailed", "GitMissing", "last_error_line"}
# Calls that start a program without the subprocess module.
_STARTERS = ("system", "popen", "exec", "spawn", "posix_spawn", "create_subprocess", "startfile")
# The modules through which a process runs rewind's command line: importing one runs a command
# in this process, and runpy runs one as ``python -m rewind`` does.
REWIND_ENTRIES = ("rewind.cli", "rewind.commands", "rewind.__main__", "runpy")


def _is_type_checking(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )


def imported_modules(tree: ast.AST, at_run_time: bool = False) -> set[str]:
    """Every module ``tree`` imports, wherever the import is (with ``at_run_time``, not those
    under ``if TYPE_CHECKING:``, which only name types)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if at_run_time and _is_type_checking(node):
            assert isinstance(node, ast.If)
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def imports_pygit2(tree: ast.AST) -> bool:
    return any(name == "pygit2" or name.startswith("pygit2.") for name in imported_modules(tree))


def starts_programs(tree: ast.AST) -> bool:
    """Whether ``tree`` can start another program: it imports subprocess (or pty), or calls
    ``os.system``, ``os.exec*``, ``os.spawn*``, ``asyncio.create_subprocess_*``..."""
    if imported_modules(tree, at_run_time=True) & {"subprocess", "pty"}:
        return True
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr.startswith(_STARTERS)
        for node in ast.walk(tree)
    )


def names_git(tree: ast.AST) -> bool:
    """Whether ``tree`` names the git program: ``"git"`` (or ``b"git"``) on its own, or a shell
    command line that starts with it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            text = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
            if text == "git" or text.startswith("git "):
                return True
    return False


def runs_git(tree: ast.AST) -> bool:
    return starts_programs(tree) and names_git(tree)


def names_rewind_program(tree: ast.AST) -> bool:
    """Whether ``tree`` names rewind as a program to start: this interpreter
    (``sys.executable``, which runs ``-m rewind``), ``"-m", "rewind"``, or ``"rewind"`` (or a
    shell command line starting with it) at the head of a command line."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "executable"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        ):
            return True
        if isinstance(node, ast.List | ast.Tuple):
            words = [item.value if isinstance(item, ast.Constant) else None for item in node.elts]
            if words[:1] == ["rewind"] or any(
                pair == ("-m", "rewind") for pair in itertools.pairwise(words)
            ):
                return True
        text = node.value if isinstance(node, ast.Constant) else None
        if isinstance(text, str) and text.startswith(("rewind ", "-m rewind")):  # a shell line
            return True
    return False


def starts_rewind(tree: ast.AST) -> bool:
    """Whether ``tree`` can run rewind's command line: it imports it, or starts a program and
    names rewind as one."""
    imported = imported_modules(tree, at_run_time=True)
    imported |= {  # from rewind import cli
        f"rewind.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "rewind"
        for alias in node.names
    }
    entries = [
        name
        for name in imported
        if any(name == entry or name.startswith(entry + ".") for entry in REWIND_ENTRIES)
    ]
    return bool(entries) or (starts_programs(tree) and names_rewind_program(tree))


def gate_internals_used(tree: ast.AST) -> set[str]:
    """The names of the git gate ``tree`` uses beyond its API (a command line or an
    environment to start git with elsewhere)."""
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "rewind.store.git_program":
            used.update(alias.name for alias in node.names)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "git_program"
        ):
            used.add(node.attr)
    return used - GIT_GATE_API


def _sources() -> dict[str, ast.AST]:
    return {
        path.relative_to(PACKAGE.parent).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


SOURCES = _sources()


def _offenders(rule: Callable[[ast.AST], object], exempt: tuple[str, ...]) -> dict[str, object]:
    """Every module but ``exempt`` that ``rule`` finds something wrong with, and what it found."""
    return {
        module: found
        for module, tree in SOURCES.items()
        if module not in exempt and (found := rule(tree))
    }


def _listed(offending: dict[str, object]) -> str:
    return "".join(f"\n  {module}: {found}" for module, found in sorted(offending.items()))


def test_git_is_started_only_through_the_gate() -> None:
    offending = _offenders(runs_git, (GIT_GATE,))
    assert not offending, (
        "these modules start git themselves; go through rewind.store.git_program (run_git, "
        "start_git):" + _listed(offending)
    )


def test_only_the_gate_knows_how_git_is_started() -> None:
    offending = _offenders(lambda tree: sorted(gate_internals_used(tree)), (GIT_GATE,))
    assert not offending, "these modules use rewind.store.git_program beyond its API:" + _listed(
        offending
    )


def test_pygit2_is_imported_only_by_the_store_gates() -> None:
    offending = _offenders(imports_pygit2, PYGIT2_GATES)
    assert not offending, (
        "these modules import pygit2; use rewind.store.packed, rewind.store.line_diffs or "
        "rewind.store.project_repository:" + _listed(offending)
    )


def test_the_store_starts_no_rewind() -> None:
    offending = {
        module: found
        for module, found in _offenders(starts_rewind, ()).items()
        if module.startswith(STORE)
    }
    assert not offending, (
        "these store modules start rewind; the store asks for a background job through the "
        "starter the history hands it (rewind.history.background):" + _listed(offending)
    )


def test_the_git_gate_imports_only_the_standard_library() -> None:
    # The quicksave and the pre-commit safety net run on the hook path through this gate.
    assert imported_modules(SOURCES[GIT_GATE]) <= GIT_GATE_IMPORTS


def test_the_gates_are_there() -> None:
    # A rule about modules that do not exist holds for nothing.
    assert runs_git(SOURCES[GIT_GATE])
    assert all(imports_pygit2(SOURCES[gate]) for gate in PYGIT2_GATES)
    assert starts_rewind(SOURCES[BACKGROUND_JOBS])


OLD_GIT_STATUS = """
def changed_paths(worktree):
    import subprocess
    return subprocess.run([b"git", b"-C", worktree, b"status"], capture_output=True)
"""
OLD_FETCH = """
import subprocess
from rewind.store.git_program import GitFailed, git_command, git_environment
def run(mirror):
    return subprocess.Popen(git_command(mirror, "fetch"), env=git_environment(False))
"""
OLD_AUTO_GC = """
import subprocess
import sys
def start_detached(store, *arguments):
    subprocess.Popen([sys.executable, "-m", "rewind", "-C", store.root, *arguments])
"""
OLD_WATCH = """
TYPE_CHECKING = False
if TYPE_CHECKING:
    import pygit2
def repository(root):
    from pygit2 import Repository
    return Repository(root)
"""


def test_the_rules_see_what_they_judge() -> None:
    # A test that cannot fail is a defect: each rule must catch the code it was written against.
    assert runs_git(ast.parse(OLD_GIT_STATUS))
    assert gate_internals_used(ast.parse(OLD_FETCH)) == {"git_command", "git_environment"}
    assert runs_git(ast.parse('import os\nos.system("git status")\n'))
    assert runs_git(ast.parse('import os\nos.execvp("git", ["git", "status"])\n'))
    assert not runs_git(ast.parse('import subprocess\nsubprocess.run(["less"])\nAGENT = "cline"\n'))
    assert not runs_git(ast.parse('SESSION = "git"\n'))  # naming git is not running it
    type_only = 'if TYPE_CHECKING:\n    import subprocess\nSESSION = "git"\n'
    assert not runs_git(ast.parse(type_only))
    assert imports_pygit2(ast.parse(OLD_WATCH))
    assert imports_pygit2(ast.parse("import pygit2.enums\n"))
    assert not imports_pygit2(ast.parse("from rewind.store.packed import open_repository\n"))
    assert starts_rewind(ast.parse(OLD_AUTO_GC))
    assert starts_rewind(ast.parse('import subprocess\nsubprocess.run(["rewind", "gc"])\n'))
    assert starts_rewind(ast.parse('import os\nos.system("rewind push --background")\n'))
    assert starts_rewind(ast.parse("def gc():\n    from rewind.cli import main\n    main([])\n"))
    assert starts_rewind(ast.parse("import runpy\nrunpy.run_module('rewind')\n"))
    assert starts_rewind(ast.parse("from rewind import __main__\n"))
    assert not starts_rewind(ast.parse('STATE_DIR = "rewind"\nLOG = "rewind gc ran"\n'))
    assert not starts_rewind(ast.parse('import subprocess\nsubprocess.run(["git", "gc"])\n'))


def test_each_rule_reports_every_offending_module_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The rules judge every module in one test: two offending modules are both named.
    planted = {
        "rewind/history/journal.py": OLD_GIT_STATUS,
        "rewind/quicksave/lexer.py": OLD_GIT_STATUS,
        "rewind/history/remote/fetched.py": OLD_FETCH,
        "rewind/store/remotes.py": OLD_FETCH,
        "rewind/watch/recorder.py": OLD_WATCH,
        "rewind/tui/app.py": OLD_WATCH,
        "rewind/store/auto_gc.py": OLD_AUTO_GC,
        "rewind/store/backup_trigger.py": OLD_AUTO_GC,
    }
    judged = {module: SOURCES[module] for module in (*planted, GIT_GATE, *PYGIT2_GATES)}
    judged.update((module, ast.parse(source)) for module, source in planted.items())
    monkeypatch.setattr(sys.modules[__name__], "SOURCES", judged)  # only these, to be quick
    rules = (
        (test_git_is_started_only_through_the_gate, "journal.py", "lexer.py"),
        (test_only_the_gate_knows_how_git_is_started, "fetched.py", "remotes.py"),
        (test_pygit2_is_imported_only_by_the_store_gates, "recorder.py", "tui/app.py"),
        (test_the_store_starts_no_rewind, "auto_gc.py", "backup_trigger.py"),
    )
    for rule, first, second in rules:
        with pytest.raises(AssertionError) as failure:
            rule()
        assert first in str(failure.value) and second in str(failure.value), rule.__name__
