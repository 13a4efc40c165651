"""The package's layers: rewind.store at the bottom, rewind.history on it, the action layer
(rewind.actions) on the history, the interfaces on top; inside the history, its core below the
parts that build on it. The interfaces restore, undo and redo only through the action layer.

Imports go only downward, and no module imports itself through others (an import inside a
function counts: it is a dependency all the same; one under ``if TYPE_CHECKING:`` does not).
"""

from __future__ import annotations

import ast
import pathlib

import pytest

pytestmark = pytest.mark.unit

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "rewind"
# What each lower layer may import, besides itself.
ALLOWED = {
    "rewind.errors": (),
    "rewind.store": ("rewind.errors",),
    "rewind.history": ("rewind.errors", "rewind.store"),
    # Whether the watcher runs, for a project's status: its pid file, nothing else of it.
    "rewind.actions": ("rewind.errors", "rewind.store", "rewind.history", "rewind.watch.pidfile"),
}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(tree: ast.AST, modules: set[str]) -> set[str]:
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("rewind"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rewind"):
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in modules else node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(path) for path in paths}
    return {
        _module_name(path): _imports(ast.parse(path.read_text(encoding="utf-8")), modules)
        for path in paths
    }


GRAPH = _graph()


def _layer(module: str) -> str | None:
    for layer in ALLOWED:
        if module == layer or module.startswith(layer + "."):
            return layer
    return None


def upward_imports(module: str) -> list[str]:
    """What ``module``, of a lower layer, imports from above it."""
    layer = _layer(module)
    assert layer is not None
    allowed = (layer, *ALLOWED[layer])
    return sorted(
        imported
        for imported in GRAPH[module]
        if imported != "rewind"
        and not any(imported == ok or imported.startswith(ok + ".") for ok in allowed)
    )


def test_a_lower_layer_imports_nothing_above_it() -> None:
    offending = {
        module: upward
        for module in sorted(name for name in GRAPH if _layer(name))
        if (upward := upward_imports(module))
    }
    assert not offending, "imports above their layer: " + _listed(offending)


def _listed(offending: dict[str, list[str]]) -> str:
    """Every offending module and what it imports, one per line."""
    return "".join(f"\n  {module} imports {names}" for module, names in offending.items())


# Inside the history: its core (entries, sessions, journals, the index) at the top of the package,
# and the parts that build on it. Each part may import the core and the parts named here.
HISTORY = "rewind.history"
HISTORY_PARTS = {
    "rewind.history.recording": (),
    "rewind.history.insight": (),
    # The backup pushes the authorship notes with the sessions.
    "rewind.history.remote": ("rewind.history.attribution",),
    "rewind.history.conversation": (),
    # Authorship notes: the blame of a commit's files, and the after-states of the turns open
    # when it was made.
    "rewind.history.attribution": ("rewind.history.insight", "rewind.history.recording"),
    "rewind.history.restoring": ("rewind.history.recording", "rewind.history.insight"),
    "rewind.history.upkeep": (
        "rewind.history.recording",
        "rewind.history.insight",
        "rewind.history.restoring",
        "rewind.history.remote",
    ),
}


def _history_part(module: str) -> str | None:
    """The part of the history ``module`` is in ("rewind.history" for the core), or None."""
    for part in HISTORY_PARTS:
        if module == part or module.startswith(part + "."):
            return part
    return HISTORY if module == HISTORY or module.startswith(HISTORY + ".") else None


def parts_beyond(module: str) -> list[str]:
    """The parts of the history ``module`` imports that are not below its own part."""
    own = _history_part(module)
    assert own is not None
    allowed = (HISTORY, own, *HISTORY_PARTS.get(own, ()))
    return sorted(
        imported
        for imported in GRAPH[module]
        if (part := _history_part(imported)) is not None and part not in allowed
    )


def test_a_part_of_the_history_imports_only_the_core_and_the_parts_below_it() -> None:
    offending = {
        module: beyond
        for module in sorted(name for name in GRAPH if _history_part(name))
        if (beyond := parts_beyond(module))
    }
    assert not offending, "imports of parts not below their own: " + _listed(offending)


# The interfaces, side by side above the history: none borrows from another. ``rewind.commands``
# is the one that starts the others (``rewind tui``, ``rewind hook``, ``rewind watch``,
# ``rewind install``), a hook may start or stop the watcher through its pid file and speak to
# it through its channel (rewind.watch.capture), as the API's Turn.run does, and the installers
# name the MCP server's tools they pre-approve.
INTERFACES = (
    "rewind.tui",
    "rewind.hooks",
    "rewind.watch",
    "rewind.installers",
    "rewind.api",
    "rewind.mcp",
)
MAY_ALSO_IMPORT = {
    "rewind.hooks": ("rewind.watch.pidfile", "rewind.watch.capture"),
    "rewind.api": ("rewind.watch.capture",),
    "rewind.installers": ("rewind.mcp.names",),
}


def _interface(module: str) -> str | None:
    for interface in INTERFACES:
        if module == interface or module.startswith(interface + "."):
            return interface
    return None


def borrowed_from_interfaces(module: str) -> list[str]:
    """What ``module``, of an interface, imports from another interface (or the commands)."""
    own = _interface(module)
    allowed = MAY_ALSO_IMPORT.get(own or "", ())
    return sorted(
        imported
        for imported in GRAPH[module]
        if _interface(imported) not in (None, own)
        or imported == "rewind.commands"
        or imported.startswith("rewind.commands.")
        if imported not in allowed
    )


def test_an_interface_imports_no_other_interface() -> None:
    offending = {
        module: borrowed
        for module in sorted(name for name in GRAPH if _interface(name))
        if (borrowed := borrowed_from_interfaces(module))
    }
    assert not offending, "imports of another interface's modules: " + _listed(offending)


# The restore engine (plans, the journal, undo and redo) and the conversation's resume: the
# action layer alone carries them out, with the rules every interface shares (the open turn's
# files, conflicts, the stats).
RESTORING = ("rewind.history.restoring", "rewind.history.conversation.resume")


def restoring_imported(module: str) -> list[str]:
    """What ``module``, of an interface (the commands and the CLI included), imports of the
    restore engine or the resume."""
    return sorted(
        imported
        for imported in GRAPH[module]
        if imported in RESTORING or imported.startswith(tuple(f"{name}." for name in RESTORING))
    )


def test_the_interfaces_restore_only_through_the_action_layer() -> None:
    interface = (*INTERFACES, "rewind.commands", "rewind.cli")
    offending = {
        module: imported
        for module in sorted(GRAPH)
        if module.startswith(interface) and (imported := restoring_imported(module))
    }
    assert not offending, (
        "imports of the restore engine outside the action layer; go through rewind.actions: "
        + _listed(offending)
    )


def test_no_module_imports_itself_through_others() -> None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for imported in sorted(GRAPH.get(module, ())):
            if imported not in GRAPH or imported == "rewind" or imported == module:
                continue
            if state.get(imported) == 1:
                cycles.append([*path[path.index(imported) :], imported])
            elif imported not in state:
                visit(imported, [*path, imported])
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in cycles)


def test_the_graph_is_read_at_all() -> None:
    # A test that cannot fail is a defect: the graph must see the imports it judges.
    assert "rewind.store.objects" in GRAPH["rewind.store.repository"]
    assert "rewind.history.session" in GRAPH["rewind.history.sessions"]
    assert "rewind.history.recording.turns" in GRAPH["rewind.history.restoring.restore"]
    assert _history_part("rewind.history.restoring.restore") == "rewind.history.restoring"
    assert _history_part("rewind.history.index") == HISTORY
    assert "rewind.watch.pidfile" in GRAPH["rewind.hooks.claude_code"]
    assert "rewind.history.restoring.restore" in GRAPH["rewind.actions.changes"]
    assert any(name.startswith("rewind.actions") for name in GRAPH["rewind.commands.restore"])


def test_each_rule_reports_every_offending_module_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The rules judge the graph as a whole: two offending modules are both named, in one failure.
    for module, imported in (
        ("rewind.store.objects", "rewind.history.session"),
        ("rewind.store.atomic", "rewind.commands.log"),
        ("rewind.history.recording.drift", "rewind.history.restoring.restore"),
        ("rewind.history.insight.blame", "rewind.history.upkeep.retention"),
        ("rewind.tui.app", "rewind.hooks.claude_code"),
        ("rewind.mcp.server", "rewind.commands.log"),
        ("rewind.actions.reading", "rewind.mcp.server"),
        ("rewind.commands.undo", "rewind.history.restoring.restore"),
        ("rewind.api", "rewind.history.conversation.resume"),
    ):
        monkeypatch.setitem(GRAPH, module, GRAPH[module] | {imported})
    rules = (
        (
            test_a_lower_layer_imports_nothing_above_it,
            "rewind.store.objects",
            "rewind.store.atomic",
        ),
        (test_a_lower_layer_imports_nothing_above_it, "rewind.store.atomic", "rewind.actions"),
        (
            test_a_part_of_the_history_imports_only_the_core_and_the_parts_below_it,
            "rewind.history.recording.drift",
            "rewind.history.insight.blame",
        ),
        (test_an_interface_imports_no_other_interface, "rewind.tui.app", "rewind.mcp.server"),
        (
            test_the_interfaces_restore_only_through_the_action_layer,
            "rewind.commands.undo",
            "rewind.api",
        ),
    )
    for rule, first, second in rules:
        with pytest.raises(AssertionError) as failure:
            rule()
        assert first in str(failure.value) and second in str(failure.value), rule.__name__
