"""The agents' clients this tier runs, each pinned at the version its docs page names."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.clients.npm_install import installed_client

DOCS = Path(__file__).resolve().parent.parent.parent / "docs" / "integrations"


@dataclass(frozen=True)
class Pinned:
    """One client on npm: its package, the version the tier runs, and the program it installs."""

    agent: str  # the name ``rewind install`` takes, and its docs page's
    package: str
    version: str
    binary: str

    @property
    def docs_page(self) -> Path:
        return DOCS / f"{self.agent}.md"

    def program(self) -> Path:
        return installed_client(self.package, self.version, self.binary)


CLAUDE_CODE = Pinned("claude-code", "@anthropic-ai/claude-code", "2.1.332", "claude")
CODEX = Pinned("codex", "@openai/codex", "0.171.0", "codex")
GEMINI = Pinned("gemini", "@google/gemini-cli", "0.61.0", "gemini")
COPILOT = Pinned("copilot", "@github/copilot", "1.0.102", "copilot")
CLINE = Pinned("cline", "cline", "3.0.65", "cline")
PI = Pinned("pi", "@mariozechner/pi-coding-agent", "0.73.1", "pi")
QWEN = Pinned("qwen", "@qwen-code/qwen-code", "0.24.4", "qwen")
# Droid's program is the binary of its platform's package: the registry holds @factory/cli
# 0.225.1, whose install script fetches the binary of its own version, which it lacks.
DROID = Pinned("droid", "@factory/cli-linux-x64", "0.225.2", "@factory/cli-linux-x64/bin/droid")
OPENCODE = Pinned("opencode", "opencode-ai", "1.18.33", "opencode")
# Kilo Code's program is the binary of its platform's package, as for Droid (the registry's
# newest @kilocode/cli, 7.8.1, names a platform package it does not hold).
KILO = Pinned("kilo", "@kilocode/cli-linux-x64", "7.7.9", "@kilocode/cli-linux-x64/bin/kilo")
PINNED = (CLAUDE_CODE, CODEX, GEMINI, COPILOT, CLINE, OPENCODE, PI, QWEN, DROID, KILO)
