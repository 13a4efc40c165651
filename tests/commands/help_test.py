"""``rewind help``: the documentation pages, and ``--help`` texts that stand alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rewind.commands.parsing.parser import build_parser
from tests.conftest import error_line, ok, run_on_a_terminal, run_rewind
from tests.support.paths import ROOT

DOCS = ROOT / "docs"


def commands() -> list[str]:
    parser = build_parser()
    [subparsers] = [a for a in parser._actions if a.dest == "command"]
    return sorted(subparsers.choices)  # type: ignore[arg-type]


def test_the_listing_names_every_page_with_its_title() -> None:
    """Every page is listed as NAME.md, one rule (a command's name gives its reference), and
    the listing says when the .md may be left out."""
    listing = ok("help").stdout
    for page in [*DOCS.glob("*.md"), *DOCS.glob("integrations/*.md")]:
        heading = page.read_text().splitlines()[0].lstrip("# ")
        assert re.search(rf"^  {re.escape(page.name)} +{re.escape(heading)}$", listing, re.M), page
    assert "'rewind help restore' is the command, 'rewind help restore.md' the page." in listing


@pytest.mark.parametrize("page", ["restore.md", "concepts", "concepts.md", "claude-code", "git"])
def test_a_page_is_printed_whole(page: str) -> None:
    name = page.removesuffix(".md")
    [path] = [*DOCS.glob(f"{name}.md"), *DOCS.glob(f"integrations/{name}.md")]
    assert ok("help", page).stdout == path.read_text().rstrip("\n") + "\n"


@pytest.mark.parametrize("topic", ["restore", "options", "cli"])
def test_the_markers_of_the_references_generated_parts_are_not_shown(topic: str) -> None:
    """docs/cli.md's --help blocks are between lines for scripts/cli_reference.py alone."""
    text = ok("help", topic).stdout
    assert "usage: rewind" in text
    assert "<!-- BEGIN" not in text and "<!-- END" not in text
    if topic == "cli":
        lines = (DOCS / "cli.md").read_text().splitlines(keepends=True)
        assert text == "".join(
            line for line in lines if not line.startswith(("<!-- BEGIN ", "<!-- END "))
        )


def test_a_command_named_as_a_page_gives_its_reference_and_names_the_page() -> None:
    text = ok("help", "restore").stdout
    assert text.startswith("## `rewind restore`\n") and "usage: rewind restore" in text
    assert "## `rewind resume`" not in text
    assert text.rstrip().endswith("The guide to it: 'rewind help restore.md'.")


def test_on_a_terminal_the_reference_is_wrapped_to_its_width(project: Path) -> None:
    """Rendered by rich at the terminal's width, with --help formatted by argparse for it (the
    reference's own is 100 columns wide); piped, the Markdown as it is (above)."""
    for columns in ("80", "60"):
        environment = {"COLUMNS": columns, "NO_COLOR": "1", "PAGER": "cat"}
        code, shown = run_on_a_terminal(["help", "restore"], project, environment)
        assert code == 0
        lines = shown.splitlines()
        assert max(len(line) for line in lines) <= int(columns), shown
        assert lines[0].strip() == "rewind restore"  # a heading, not "## `rewind restore`"
        for group in ("[--session ID]", "[--version VERSION]", "[--hunks LIST]"):
            assert group in shown  # argparse wrapped the usage between its groups
        assert "'rewind help restore.md'" in shown


def test_a_command_topic_is_its_section_of_the_reference() -> None:
    text = ok("help", "label").stdout
    assert text.startswith("## `rewind label`\n")
    assert "usage: rewind label" in text
    assert "## `rewind sessions`" not in text  # only that section


def test_json_gathers_every_shape() -> None:
    text = ok("help", "json").stdout
    assert "## Output of `rewind log --json`" in text
    assert "## Output of the other `--json` options" in text
    assert "## `rewind" not in text


def test_an_unknown_topic_says_how_to_list_them_and_what_was_meant() -> None:
    line = error_line(run_rewind("help", "nonsense"))
    assert line == "rewind: no help topic 'nonsense' ('rewind help' lists them)."
    line = error_line(run_rewind("help", "restor"))
    assert line == (
        "rewind: no help topic 'restor'; did you mean 'restore'? ('rewind help' lists them)."
    )


@pytest.mark.parametrize("command", commands())
def test_help_texts_name_no_file_of_the_checkout(command: str) -> None:
    """An installed user has no docs/ directory: --help points to 'rewind help TOPIC'."""
    text = ok(command, "--help").stdout
    assert "docs/" not in text and ".md" not in text, text
    for topic in re.findall(r"rewind help ([a-z-]+)", text):
        assert ok("help", topic).stdout.strip(), topic


def test_the_main_help_says_where_the_documentation_is() -> None:
    text = ok("--help").stdout
    assert "'rewind help' lists the documentation" in " ".join(text.split())
    assert "docs/" not in text
