"""Setting rewind up (completion, demo, install, uninstall, doctor) and the commands that start
another way of working with it (watch, help, tui)."""

from __future__ import annotations

import argparse

from rewind.commands.parsing.shared import (
    Commands,
    json_option,
    remote_session_option,
    session_option,
)

# What 'rewind install' takes, in the order of rewind.installers.registry.TARGETS: named here so
# that building the parser, which every command but the hooks does, imports no installer
# (tests/commands/cli_test.py keeps the two equal).
INSTALL_TARGETS = (
    "claude-code",
    "codex",
    "gemini",
    "cursor",
    "copilot",
    "cline",
    "git-hook",
    "windsurf",
    "pi",
    "qwen",
    "droid",
    "opencode",
    "kilo",
)


def add_setup_commands(commands: Commands) -> None:
    _add_completion(commands)
    _add_demo(commands)
    _add_install(commands)
    _add_uninstall(commands)
    _add_doctor(commands)
    _add_watch(commands)
    _add_help(commands)
    _add_tui(commands)
    _add_mcp(commands)


def _add_completion(commands: Commands) -> None:
    completion = commands.add_parser(
        "completion", help="print the shell completion script for bash, zsh or fish"
    )
    completion.add_argument("shell", choices=("bash", "zsh", "fish"), help="the shell")


def _add_demo(commands: Commands) -> None:
    demo = commands.add_parser(
        "demo", help="replay a scripted agent session on a throwaway project, then browse it"
    )
    demo.add_argument(
        "--no-tui",
        action="store_true",
        help="print the session's log instead of opening the TUI (also without a terminal)",
    )
    demo.add_argument(
        "--keep", action="store_true", help="keep the temporary directory and print its path"
    )


def _add_install(commands: Commands) -> None:
    install = commands.add_parser("install", help="add rewind's hooks to an agent's settings")
    _install_target(install, "edit")
    install.add_argument(
        "--mcp",
        action="store_true",
        help="also register rewind's MCP server with the agent, its read tools pre-approved "
        "(rewind help mcp)",
    )


def _add_uninstall(commands: Commands) -> None:
    uninstall = commands.add_parser(
        "uninstall", help="remove rewind's hooks from an agent's settings"
    )
    _install_target(uninstall, "edit")
    uninstall.add_argument(
        "--mcp",
        action="store_true",
        help="remove rewind's MCP server only, and keep the hooks (without it, both go)",
    )


def _add_doctor(commands: Commands) -> None:
    doctor = commands.add_parser(
        "doctor", help="check the installed hooks and try each agent's hook"
    )
    json_option(doctor, "the findings")


def _add_watch(commands: Commands) -> None:
    watch = commands.add_parser(
        "watch",
        help="record changes made outside the edit tools as they happen (rewind help watch)",
    )
    session_option(watch)
    action = watch.add_mutually_exclusive_group()
    action.add_argument(
        "--detach",
        action="store_true",
        help="run in the background (one watcher per project; --stop ends it)",
    )
    action.add_argument(
        "--stop", dest="stop_it", action="store_true", help="stop the project's watcher"
    )
    action.add_argument(
        "--status",
        action="store_true",
        help="say whether a watcher runs for the project (exit 1 if none)",
    )
    action.add_argument("--background", action="store_true", help=argparse.SUPPRESS)
    # Seconds without a hook's request after which a watcher a hook started stops.
    watch.add_argument("--idle-exit", type=float, default=None, help=argparse.SUPPRESS)


def _add_help(commands: Commands) -> None:
    help_command = commands.add_parser(
        "help", help="read the documentation: a page, a command's reference, the JSON shapes"
    )
    help_command.add_argument(
        "topic", nargs="?", metavar="TOPIC", help="a page or command (default: list the topics)"
    )


def _add_tui(commands: Commands) -> None:
    tui = commands.add_parser(
        "tui", help="browse the turns, their diffs and rewind, in the terminal (rewind help tui)"
    )
    session_option(tui)
    remote_session_option(tui)


def _add_mcp(commands: Commands) -> None:
    commands.add_parser(
        "mcp",
        help="serve the project's history to the agent over MCP, on standard input and output "
        "(needs the mcp package)",
    )


def _install_target(parser: argparse.ArgumentParser, verb: str) -> None:
    # No argparse choices: a target another module registers is accepted too; the command
    # names the known ones when given another (rewind.installers.registry.get_target).
    parser.add_argument("agent", metavar="AGENT", help=", ".join(INSTALL_TARGETS))
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--user",
        dest="scope",
        action="store_const",
        const="user",
        help=f"{verb} the settings in your home directory, for every project",
    )
    where.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help=f"{verb} the project's shared settings (the default)",
    )
    where.add_argument(
        "--local",
        dest="scope",
        action="store_const",
        const="local",
        help=f"{verb} the project's private settings (claude-code, git-hook)",
    )
