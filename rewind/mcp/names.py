"""The MCP server's name in the agents' settings, and the names of its tools: what
``rewind install AGENT --mcp`` writes and approves, apart from the server itself (which needs
the ``mcp`` package)."""

from __future__ import annotations

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
