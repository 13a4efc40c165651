"""``rewind help``: the documentation pages, and ``--help`` texts that stand alone."""

from __future__ import annotations

import re

import pytest

from rewind.commands.parsing.parser import build_parser
from tests.conftest import error_line, ok, run_rewind
from tests.support.paths import ROOT

DOCS = ROOT / "docs"


def commands() -> list[str]:
    parser = build_parser()
    [subparsers] = [a for a in parser._actions if a.dest == "command"]
    return sorted(subparsers.choices)  # type: ignore[arg-type]


def test_the_listing_names_every_page_with_its_title() -> None:
    listing = ok("help").stdout
    for page in [*DOCS.glob("*.md"), *DOCS.glob("integrations/*.md")]:
        heading = page.read_text().splitlines()[0].lstrip("# ")
        assert re.search(rf"^  {re.escape(page.stem)} +{re.escape(heading)}$", listing, re.M), page


@pytest.mark.parametrize("page", ["restore", "concepts", "claude-code", "git"])
def test_a_page_is_printed_whole(page: str) -> None:
    [path] = [*DOCS.glob(f"{page}.md"), *DOCS.glob(f"integrations/{page}.md")]
    assert ok("help", page).stdout == path.read_text().rstrip("\n") + "\n"


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


def test_an_unknown_topic_says_how_to_list_them() -> None:
    line = error_line(run_rewind("help", "nonsense"))
    assert line == "rewind: no help topic 'nonsense'; run 'rewind help' to list the topics."


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
