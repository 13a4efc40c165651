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
            from rewind.mcp.names import missing_sdk

            raise UserError(missing_sdk()) from None
        raise
    serve(os.fsdecode(find_root(os.getcwdb())))
    return 0
