"""The MCP server's name in the agents' settings, and the names of its tools: what
``rewind install AGENT --mcp`` writes and approves, apart from the server itself (which needs
the ``mcp`` package)."""

from __future__ import annotations

import shlex
import sys

# rewind.mcp.server registers the tools; tests/mcp checks that these lists are what it serves.
# Install pre-approves the read tools where an agent allows it, never the tools that change
# files.
SERVER_NAME = "rewind"
READ_TOOLS = (
    "rewind_log",
    "rewind_show",
    "rewind_diff",
    "rewind_history",
    "rewind_blame",
    "rewind_status",
)
CHANGE_TOOLS = ("rewind_restore", "rewind_undo", "rewind_redo")


# The MCP SDK the server is built on: the extra ``mcp`` of pyproject.toml.
SDK_REQUIREMENT = "mcp>=2.3"


def missing_sdk(then: str = "") -> str:
    """The sentence for a server that cannot start here: the SDK is not installed for the
    Python running rewind. The way to install it names that Python (the package itself is on
    no index a person can reach: ``rewind-files[mcp]`` would fail); ``then``: what to do after."""
    python = shlex.quote(sys.executable or "python3")
    after = f", then {then}" if then else ""
    return (
        f"rewind's MCP server needs the 'mcp' package, which the Python running rewind "
        f"({sys.executable}) does not have: install it with '{python} -m pip install "
        f"\"{SDK_REQUIREMENT}\"' (for a pipx install, 'pipx inject rewind-files mcp'){after}."
    )
