"""``rewind help [TOPIC]``: the documentation pages, readable where rewind is installed.

The pages are docs/*.md and docs/integrations/*.md: the build copies them into the package as
``rewind/docs/`` (setup.py), and a checkout (an editable install) reads them from its docs/.
A topic is a page's name (``restore``, ``claude-code``), a command's section of the command-line
reference (``rewind help log``), or one of :data:`SECTIONS` of it. Printed as Markdown, through
the pager on a terminal.
"""

from __future__ import annotations

import re
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


def title(path: Path) -> str:
    with open(path, encoding="utf-8") as handle:
        first = handle.readline()
    return first.lstrip("#").strip()


def sections(reference: str) -> dict[str, str]:
    """The reference's ``## `` sections by title (the text before the first is left out)."""
    parts = _HEADING.split(reference)[1:]
    return {part.split("\n", 1)[0].strip(): "## " + part for part in parts}


def topic_text(topic: str, directory: Path) -> str:
    found = pages(directory)
    if topic in found:
        return found[topic].read_text(encoding="utf-8")
    reference = sections(found[REFERENCE].read_text(encoding="utf-8"))
    starts = SECTIONS[topic][0] if topic in SECTIONS else (f"`rewind {topic}`",)
    chosen = [text for heading, text in reference.items() if heading.startswith(starts)]
    if chosen:
        return "\n".join(chosen)
    raise UserError(f"no help topic {topic!r}; run 'rewind help' to list the topics.")


def listing(directory: Path) -> str:
    found = pages(directory)
    width = max(len(name) for name in [*found, *SECTIONS])
    lines = ["Usage: rewind help TOPIC", "", "Pages:"]
    lines += [
        f"  {name:<{width}}  {title(path)}"
        for name, path in found.items()
        if path.parent == directory
    ]
    lines += ["", "Setting up each agent, and git:"]
    lines += [
        f"  {name:<{width}}  {title(path)}"
        for name, path in found.items()
        if path.parent != directory
    ]
    lines += ["", "Parts of the command-line reference:"]
    lines += [f"  {name:<{width}}  {about}" for name, (_, about) in SECTIONS.items()]
    lines += [
        f"  {'COMMAND':<{width}}  one command's reference: options, behaviour, exit codes",
        "",
        "'rewind COMMAND --help' prints a command's options in short.",
    ]
    return "\n".join(lines)


def run(*, topic: str | None) -> int:
    directory = docs_directory()
    text = listing(directory) if topic is None else topic_text(topic, directory)
    print(text.rstrip("\n"))
    return 0
