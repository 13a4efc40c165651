"""rewind's Pi extension (hooks/pi/rewind.js) under Node.js, with a stand-in of Pi's extension
API: its rewind_* tools, each answered by a ``rewind mcp`` the extension starts. A server that
never answers a call cannot hold the agent: a call Pi aborts (Esc) returns at once, and a server
that ends fails the calls waiting on it; the next call starts another server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.paths import HOOKS

# A stand-in 'rewind': 'hook' does nothing; 'mcp' answers initialize, then a call to
# rewind_log with the log, never a call to rewind_show, and ends at rewind_status.
FAKE_REWIND = r"""
import json, sys
if sys.argv[1] != "mcp":
    sys.exit(0)
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    name = message.get("params", {}).get("name")
    if message["method"] == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "x"}}
    elif name == "rewind_log":
        result = {"content": [{"type": "text", "text": "the log"}]}
    elif name == "rewind_status":
        sys.exit(0)
    else:
        continue  # no answer, ever
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""

# Loads the extension with a stand-in of Pi, then calls its tools: rewind_log, rewind_show
# aborted after 0.3 s, rewind_status (whose server ends), rewind_log again; prints what each
# returned and how long it took.
DRIVER = """
const extension = await import(process.argv[2]);
const tools = {};
extension.default({ on: () => {}, registerTool: (tool) => { tools[tool.name] = tool; } });
const ctx = { cwd: process.argv[3] };
const results = [];
async function call(name, signal) {
  const started = Date.now();
  const result = await tools[name].execute("id", {}, signal, undefined, ctx);
  const ms = Date.now() - started;
  results.push({ name, text: result.content[0].text, error: result.isError, ms });
}
await call("rewind_log");
const abort = new AbortController();
setTimeout(() => abort.abort(), 300);
await call("rewind_show", abort.signal);
await call("rewind_status");
await call("rewind_log");
console.log(JSON.stringify(results));
process.exit(0);
"""


def test_a_tool_call_never_holds_the_agent(tmp_path: Path) -> None:
    from tests.clients.npm_install import node_directory

    fake = tmp_path / "fake_rewind.py"
    fake.write_text(FAKE_REWIND)
    command = f"{sys.executable} {fake} hook pi"
    text = (HOOKS / "pi" / "rewind.js").read_text()
    extension = tmp_path / "rewind.mjs"
    extension.write_text(
        text.replace('const COMMAND = "rewind hook pi";', f"const COMMAND = {json.dumps(command)};")
    )
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    done = subprocess.run(
        [str(node_directory() / "node"), str(driver), extension.as_uri(), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    log, show, status, again = json.loads(done.stdout)
    assert (log["text"], log["error"]) == ("the log", False)
    assert show["error"] and "cancelled" in show["text"] and show["ms"] < 5000, show
    assert status["error"] and "rewind mcp ended" in status["text"], status
    assert (again["text"], again["error"]) == ("the log", False)  # another server
