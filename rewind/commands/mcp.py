"""``rewind mcp``: serve the project's history to the agent over MCP, on standard input and
output (rewind.mcp; docs/mcp.md)."""

from __future__ import annotations

import os

from rewind.errors import UserError
from rewind.store.root import find_root


def run() -> int:
    try:
        from rewind.mcp.server import serve
    except ImportError as missing:
        if missing.name is not None and missing.name.split(".")[0] == "mcp":
            raise UserError(
                "the MCP server needs the 'mcp' package: install rewind with it "
                "(pip install 'rewind-files[mcp]', or pipx inject rewind-files mcp)."
            ) from None
        raise
    serve(os.fsdecode(find_root(os.getcwdb())))
    return 0
