"""``rewind help [TOPIC]``: the documentation pages, readable where rewind is installed.

The pages are docs/*.md and docs/integrations/*.md: the build copies them into the package as
``rewind/docs/`` (setup.py), and a checkout (an editable install) reads them from its docs/.
A topic is a command, whose section of the command-line reference it gives (``rewind help
restore``), a page's name (``claude-code``; a page named as a command is ``NAME.md``:
``restore.md``), or one of :data:`SECTIONS` of the reference. On a terminal the Markdown is
rendered by rich, wrapped to the terminal's width, through the pager; elsewhere (a pipe, a file)
it is printed as it is.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

from rewind.errors import UserError

PACKAGE = Path(__file__).resolve().parent.parent
REFERENCE = "cli"
# Topics that are sections of the command-line reference: the starts of the titles of the
# sections they gather, and what they are.
SECTIONS = {
    "json": (("Output of",), "the shape of every --json output"),
    "exit-codes": (("Exit codes",), "what each exit code means"),
    "options": (("Global options",), "the options every command takes, and the environment"),
}
_HEADING = re.compile(r"^## ", re.MULTILINE)
# The lines around the reference's generated parts (scripts/cli_reference.py): not for people.
_GENERATED = re.compile(r"^<!-- (BEGIN|END) [^\n]*-->\n", re.MULTILINE)


def docs_directory() -> Path:
    """Where the pages are: in the installed package, else in the checkout it runs from."""
    for candidate in (PACKAGE / "docs", PACKAGE.parent / "docs"):
        if (candidate / f"{REFERENCE}.md").is_file():
            return candidate
    raise UserError(
        "this rewind was installed without its documentation; read it at the project's "
        "home page, or reinstall rewind from a wheel or a checkout."
    )


def pages(directory: Path) -> dict[str, Path]:
    """Every page by topic name: ``docs/NAME.md`` and ``docs/integrations/NAME.md``."""
    found: dict[str, Path] = {}
    for path in sorted(directory.glob("*.md")) + sorted(directory.glob("integrations/*.md")):
        found.setdefault(path.stem, path)
    return found


def read(path: Path) -> str:
    """A page as people read it: without the markers of its generated parts."""
    return _GENERATED.sub("", path.read_text(encoding="utf-8"))


def title(path: Path) -> str:
    with open(path, encoding="utf-8") as handle:
        first = handle.readline()
    return first.lstrip("#").strip()


def sections(reference: str) -> dict[str, str]:
    """The reference's ``## `` sections by title (the text before the first is left out)."""
    parts = _HEADING.split(reference)[1:]
    return {part.split("\n", 1)[0].strip(): "## " + part for part in parts}


def topic_text(topic: str, directory: Path) -> str:
    """A command's reference first, then a page (``NAME`` or ``NAME.md``), then a part of the
    reference."""
    found = pages(directory)
    reference = sections(read(found[REFERENCE]))
    command = reference.get(f"`rewind {topic}`")
    if command is not None:
        if topic in found:
            command += f"\nThe guide to it: 'rewind help {topic}.md'.\n"
        return command
    page = found.get(topic.removesuffix(".md"))
    if page is not None:
        return read(page)
    if topic in SECTIONS:
        starts = SECTIONS[topic][0]
        return "\n".join(text for heading, text in reference.items() if heading.startswith(starts))
    from rewind.errors import did_you_mean

    suggestion = did_you_mean(topic, topic_names(directory))
    raise UserError(f"no help topic {topic!r}{suggestion} ('rewind help' lists them).")


def topic_names(directory: Path) -> list[str]:
    """Every topic 'rewind help' takes (for completion and suggestions): commands, pages, and
    the parts of the reference."""
    found = pages(directory)
    reference = sections(read(found[REFERENCE]))
    commands = [h[len("`rewind ") : -1] for h in reference if h.startswith("`rewind ")]
    listed = [_page_topic(name, set(commands)) for name in found]
    return sorted({*commands, *listed, *SECTIONS})


def _page_topic(name: str, commands: set[str]) -> str:
    """How a page is asked for: its name, or ``NAME.md`` when a command has that name."""
    return f"{name}.md" if name in commands else name


def listing(directory: Path) -> str:
    found = pages(directory)
    topics = {name: f"{name}.md" for name in found}  # one rule: a page is NAME.md
    width = max(len(name) for name in [*topics.values(), *SECTIONS])
    lines = ["Usage: rewind help TOPIC", "", "Pages:"]
    lines += [
        f"  {topics[name]:<{width}}  {title(path)}"
        for name, path in found.items()
        if path.parent == directory
    ]
    lines += ["", "Setting up each agent, and git:"]
    lines += [
        f"  {topics[name]:<{width}}  {title(path)}"
        for name, path in found.items()
        if path.parent != directory
    ]
    lines += ["", "Parts of the command-line reference:"]
    lines += [f"  {name:<{width}}  {about}" for name, (_, about) in SECTIONS.items()]
    lines += [
        f"  {'COMMAND':<{width}}  one command's reference: options, behaviour, exit codes",
        "",
        "A page may be asked for without its .md, unless a command has its name:",
        "'rewind help restore' is the command, 'rewind help restore.md' the page.",
        "'rewind COMMAND --help' prints a command's options in short.",
    ]
    return "\n".join(lines)


def run(*, topic: str | None) -> int:
    directory = docs_directory()
    if topic is None:
        print(listing(directory))
        return 0
    text = topic_text(topic, directory).rstrip("\n")
    if sys.__stdout__ is not None and sys.__stdout__.isatty():
        # Through the pager, when there is one (sys.stdout is its pipe then).
        _render(_with_help_for_this_width(text, topic))
    else:
        print(text)
    return 0


def _with_help_for_this_width(text: str, topic: str) -> str:
    """A command's reference with its ``--help`` (the section's first block, formatted at 100
    columns) formatted again by argparse for the terminal's width."""
    start = text.find("```text\n")
    end = text.find("\n```", start + 8)
    if not text.startswith(f"## `rewind {topic}`") or start < 0 or end < 0:
        return text
    from rewind.commands.parsing.parser import build_parser
    from rewind.commands.parsing.shared import subparser

    found = subparser(build_parser(only=topic), topic)
    if found is None:
        return text
    return text[: start + 8] + found.format_help().rstrip("\n") + text[end:]


def _render(text: str) -> None:
    """The Markdown as rich renders it, wrapped to the terminal's width (in colour unless
    NO_COLOR, or the pager, says otherwise)."""
    from rich.console import Console
    from rich.markdown import Markdown

    from rewind.commands.output.render import use_colour

    terminal = sys.__stdout__
    assert terminal is not None
    columns = shutil.get_terminal_size().columns
    colour = use_colour(terminal)
    console = Console(
        file=sys.stdout,
        width=max(40, columns),
        force_terminal=colour,
        no_color=not colour,
        highlight=False,
        soft_wrap=False,
    )
    console.print(Markdown(text, code_theme="ansi_dark", hyperlinks=False))
