"""Where the checkout's own files are (the package's sources, the docs, the agents' ready-made
hooks), for the tests that read them: found from this module, so that a test module can move
between folders without its paths changing."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The agents' ready-made hooks and the Claude Code plugin (the wheel has them as
# rewind/agent_configs/).
HOOKS = ROOT / "hooks"
