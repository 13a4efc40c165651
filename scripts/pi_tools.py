#!/usr/bin/env python3
"""Brings the ``TOOLS`` list of Pi's extension (hooks/pi/rewind.js) up to date with the tools
``rewind mcp`` serves: each one's name, description and input schema, between the extension's
``// BEGIN TOOLS`` and ``// END TOOLS`` lines. Pi has no MCP; the extension registers these as
its own tools and has ``rewind mcp`` answer them.

Run it after changing a tool of rewind/mcp/server.py::

    python scripts/pi_tools.py

tests/installers/pi_test.py fails while the list is out of date.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "hooks" / "pi" / "rewind.js"
BLOCK = re.compile(r"^// BEGIN TOOLS\n.*?^// END TOOLS$", re.M | re.S)


def tools() -> list[dict[str, object]]:
    """The tools ``rewind mcp`` lists, as Pi's ``registerTool`` takes them."""
    sys.path.insert(0, str(ROOT))
    from rewind.mcp.server import build

    listed = asyncio.run(build(str(ROOT)).list_tools())
    return [
        {"name": tool.name, "description": tool.description or "", "inputSchema": tool.input_schema}
        for tool in listed
    ]


def block() -> str:
    listed = json.dumps(tools(), indent=2, ensure_ascii=False)
    head = "// BEGIN TOOLS\n// scripts/pi_tools.py writes this list\n"
    return f"{head}const TOOLS = {listed};\n// END TOOLS"


def updated(text: str) -> str:
    if not BLOCK.search(text):
        raise SystemExit(f"{EXTENSION} has no // BEGIN TOOLS ... // END TOOLS block")
    return BLOCK.sub(lambda _: block(), text, count=1)


def main() -> None:
    text = EXTENSION.read_text(encoding="utf-8")
    new = updated(text)
    if new != text:
        EXTENSION.write_text(new, encoding="utf-8")
        print(f"updated {EXTENSION.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
