"""The dispatch tables: the word a person or an agent types leads to a module named in the code.

``rewind.commands.COMMANDS`` gives each command's ``run``, ``rewind.hooks.ADAPTERS`` each
agent's adapter (with ``handle``), ``rewind.installers.registry.TARGETS`` each install target;
each entry imports its module only when it is used. Every word the parser, the hooks and the
installers accept must lead somewhere that exists and has what is called, and no dispatcher
builds a module's name from a string at run time (a reader, or a tool, could not follow that
edge).
"""

from __future__ import annotations

import argparse
import ast
import inspect
import pathlib

import pytest

from rewind.commands import COMMANDS
from rewind.commands.parsing.parser import build_parser
from rewind.hooks import ADAPTERS
from rewind.installers import Target
from rewind.installers.registry import TARGETS

pytestmark = pytest.mark.unit

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "rewind"
DISPATCHERS = ("cli.py", "commands/__init__.py", "hooks/__init__.py", "installers/registry.py")


def parser_commands() -> list[str]:
    parser = build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(commands.choices)


def test_the_commands_are_the_parsers() -> None:
    assert list(COMMANDS) == parser_commands()


@pytest.mark.parametrize("command", parser_commands())
def test_every_command_runs_its_modules_run(command: str) -> None:
    run = COMMANDS[command]()
    assert callable(run) and run.__name__ == "run"
    assert run.__module__ == f"rewind.commands.{command}"
    parameters = inspect.signature(run).parameters.values()
    # The parser's options come as keywords (rewind.cli calls run(**options)).
    assert all(parameter.kind is inspect.Parameter.KEYWORD_ONLY for parameter in parameters)


@pytest.mark.parametrize("agent", list(ADAPTERS))
def test_every_agent_has_an_adapter_with_handle(agent: str) -> None:
    adapter = ADAPTERS[agent]()
    assert adapter.__name__.startswith("rewind.hooks.")  # type: ignore[attr-defined]
    assert callable(adapter.handle)
    assert isinstance(getattr(adapter, "NEEDS_PAYLOAD", True), bool)


def test_every_install_targets_hooks_name_an_agent_the_hooks_accept() -> None:
    agents = {name: load().hook_agent for name, load in TARGETS.items()}
    assert {name: agent for name, agent in agents.items() if agent not in ADAPTERS} == {}


@pytest.mark.parametrize("name", list(TARGETS))
def test_every_install_target_loads_its_target(name: str) -> None:
    target = TARGETS[name]()
    assert isinstance(target, Target) and target.name == name
    assert target.default_scope in target.scopes


@pytest.mark.parametrize("module", DISPATCHERS)
def test_no_dispatcher_builds_a_modules_name(module: str) -> None:
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    dynamic = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
        in ("__import__", "import_module")
    ]
    assert dynamic == [], f"rewind/{module} imports a module by a name built at run time"
