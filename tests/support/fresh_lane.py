"""The fresh lane: the tests whose ``rewind`` commands run as fresh interpreters
(``REWIND_TEST_FRESH=1``), as people and agents run them, instead of forked from the tests'
server (:mod:`tests.support.forked_rewind`).

A forked command starts from a process that has imported rewind, argparse and pygit2 already:
what that hides (a module that works only because the server imported another first, state a
module sets when it loads, what a library read of the environment when it started) would hide
it from every test. So these tests, between them, run every command of the grammar at least
once fresh (``tests/fresh_lane_test.py`` checks it against the parser), each names the commands
it must be seen to start as a fresh interpreter (``tests/conftest.py`` checks that at its end),
and the other tests keep the server's speed. Chosen for the number of commands they run per
second: the test that runs every reporting command with ``--json``, then one short test per
command it leaves out.
"""

from __future__ import annotations

# Each test (its node id, without the parameters: every case of it) and the commands it runs.
LANE: dict[str, tuple[str, ...]] = {
    "tests/commands/json_everywhere_test.py::test_every_json_output_carries_its_format": (
        "begin",
        "track",
        "end",
        "hook",
        "log",
        "history",
        "blame",
        "show",
        "diff",
        "restore",
        "resume",
        "undo",
        "redo",
        "apply",
        "label",
        "sessions",
        "remote",
        "push",
        "fetch",
        "status",
        "stats",
        "check",
        "gc",
        "doctor",
    ),
    "tests/history/restoring/extract_test.py::test_a_local_turn_one_path_into_an_empty_folder": (
        "extract",
    ),
    "tests/commands/cli_test.py::"
    "test_forgetting_the_recent_session_falls_back_to_the_newest_left": ("forget",),
    "tests/commands/completion_test.py::test_every_command_is_in_every_script": ("completion",),
    "tests/commands/demo_test.py::test_kept_demo_rewinds_to_the_initial_files": ("demo",),
    "tests/installers/installers_test.py::"
    "test_installing_again_retires_the_events_an_earlier_version_subscribed_to": (
        "install",
        "uninstall",
    ),
    "tests/watch/background_test.py::test_detach_status_and_stop": ("watch",),
    "tests/commands/help_test.py::test_the_listing_names_every_page_with_its_title": ("help",),
    "tests/tui/command_test.py::"
    "test_rewind_tui_on_a_project_with_nothing_recorded_says_how_to_start": ("tui",),
    "tests/mcp/server_test.py::test_the_reading_tools_answer_text_and_the_commands_json": ("mcp",),
}


def command_started(arguments: list[str]) -> str | None:
    """The ``rewind`` command a program's arguments start (``python -m rewind [-C DIR] COMMAND
    ...``, behind a wrapper such as setpriv), or None when they start none."""
    for at in range(len(arguments) - 1):
        if arguments[at : at + 2] == ["-m", "rewind"]:
            words = iter(arguments[at + 2 :])
            for word in words:
                if word == "-C":
                    next(words, None)
                elif not word.startswith("-"):
                    return word
    return None
