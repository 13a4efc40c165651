// rewind: records Pi's file edits; 'rewind uninstall pi' removes this file.
//
// A Pi extension (docs/extensions.md of @mariozechner/pi-coding-agent). Each event rewind needs
// runs COMMAND once, the event as rewind's own small JSON on its standard input, and waits for
// it: a prompt begins a turn, a write, edit or bash call is recorded before it runs (Pi runs
// the tool only once this returns), the agent's run's end closes the turn. Nothing here ever
// throws (an error in a tool_call handler would block the tool) or prints; rewind writes what
// goes wrong to its own log. The rewind_* tools give the agent rewind's MCP tools (Pi has no
// MCP): each call is answered by 'rewind mcp', started once per session when first needed.
import { spawn } from "node:child_process";

const COMMAND = "rewind hook pi";
const WAIT_MS = 60000; // an event's hook never holds Pi longer than this
const RECORDED_TOOLS = new Set(["write", "edit", "bash"]);
const TOOL_WAIT_MS = 120000; // the most a rewind_* tool call waits for its answer

function run(command, payload, cwd) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn("/bin/sh", ["-c", "exec " + command], { cwd, stdio: ["pipe", "ignore", "ignore"] });
    } catch {
      resolve();
      return;
    }
    const timer = setTimeout(resolve, WAIT_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    child.on("error", done);
    child.on("close", done);
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

function session(ctx) {
  const manager = ctx.sessionManager;
  return {
    session_id: manager.getSessionId() ?? "",
    session_file: manager.getSessionFile() ?? "",
    cwd: ctx.cwd,
  };
}

async function send(event, ctx, fields) {
  try {
    await run(COMMAND, { event, ...session(ctx), ...fields }, ctx.cwd);
  } catch {
    // never the agent's problem: rewind logs its own failures
  }
}

export default function rewind(pi) {
  if (globalThis.__rewindPi) return; // installed in both scopes: Pi loads it twice
  globalThis.__rewindPi = true;
  pi.on("session_start", async (event, ctx) => {
    await send("session_start", ctx, { reason: String(event.reason ?? "") });
  });
  pi.on("before_agent_start", async (event, ctx) => {
    const leaf = ctx.sessionManager.getLeafId() ?? "";
    // Pi's script (its process title hides it from /proc), whose package names its version.
    const script = String(process.argv[1] ?? "");
    await send("prompt", ctx, { prompt: String(event.prompt ?? ""), leaf_id: leaf, script });
  });
  pi.on("tool_call", async (event, ctx) => {
    if (!RECORDED_TOOLS.has(event.toolName)) return;
    await send("tool_call", ctx, {
      tool_name: event.toolName,
      tool_call_id: event.toolCallId,
      tool_input: event.input,
    });
  });
  pi.on("tool_result", async (event, ctx) => {
    if (!RECORDED_TOOLS.has(event.toolName)) return;
    await send("tool_result", ctx, {
      tool_name: event.toolName,
      tool_call_id: event.toolCallId,
      tool_input: event.input,
      is_error: Boolean(event.isError),
    });
  });
  pi.on("agent_end", async (_event, ctx) => {
    await send("agent_end", ctx, {});
  });
  pi.on("session_shutdown", async (_event, ctx) => {
    // /new, /resume, /fork and /reload load the extensions again in this process, after this
    globalThis.__rewindPi = false;
    await send("session_shutdown", ctx, {});
    mcp.close();
  });
  registerTools(pi);
}

// rewind's MCP tools, as Pi tools -------------------------------------------------------------

// BEGIN TOOLS
// scripts/pi_tools.py writes this list
const TOOLS = [
  {
    "name": "rewind_log",
    "description": "The newest turns of the session (and restores, undos, redos), oldest first, with the\n        files each changed. since: '2 hours ago', '2026-12-01'; grep: text in the prompt or a\n        label; path: only the entries that recorded this file (of any session).",
    "inputSchema": {
      "properties": {
        "count": {
          "default": 20,
          "maximum": 200,
          "minimum": 1,
          "title": "Count",
          "type": "integer"
        },
        "since": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Since"
        },
        "grep": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Grep"
        },
        "path": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Path"
        },
        "session": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Session"
        }
      },
      "title": "rewind_logArguments",
      "type": "object"
    }
  },
  {
    "name": "rewind_show",
    "description": "What one turn changed, as a diff; with path, that file's numbered hunks (what\n        rewind_restore's hunks take). turn: its number in the session, or its id.",
    "inputSchema": {
      "properties": {
        "turn": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "integer"
            }
          ],
          "title": "Turn"
        },
        "path": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Path"
        },
        "session": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Session"
        }
      },
      "required": [
        "turn"
      ],
      "title": "rewind_showArguments",
      "type": "object"
    }
  },
  {
    "name": "rewind_diff",
    "description": "The diff from before turn to the files now; with turn2, from before the earlier of\n        the two to before the later one (turn='2', turn2='3' is what turn 2 did).",
    "inputSchema": {
      "properties": {
        "turn": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "integer"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Turn"
        },
        "turn2": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "integer"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Turn2"
        },
        "session": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Session"
        }
      },
      "title": "rewind_diffArguments",
      "type": "object"
    }
  },
  {
    "name": "rewind_history",
    "description": "Every recorded version of a file, newest first, across sessions and renames.",
    "inputSchema": {
      "properties": {
        "path": {
          "title": "Path",
          "type": "string"
        },
        "count": {
          "default": 20,
          "maximum": 200,
          "minimum": 1,
          "title": "Count",
          "type": "integer"
        }
      },
      "required": [
        "path"
      ],
      "title": "rewind_historyArguments",
      "type": "object"
    }
  },
  {
    "name": "rewind_blame",
    "description": "For each line of a file (or of lines start_line to end_line), the turn and prompt\n        that last changed it.",
    "inputSchema": {
      "properties": {
        "path": {
          "title": "Path",
          "type": "string"
        },
        "start_line": {
          "default": 1,
          "minimum": 1,
          "title": "Start Line",
          "type": "integer"
        },
        "end_line": {
          "anyOf": [
            {
              "minimum": 1,
              "type": "integer"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "End Line"
        }
      },
      "required": [
        "path"
      ],
      "title": "rewind_blameArguments",
      "type": "object"
    }
  },
  {
    "name": "rewind_status",
    "description": "The project's store: its size, the session, the newest turn, problems.",
    "inputSchema": {
      "properties": {},
      "title": "rewind_statusArguments",
      "type": "object"
    }
  },
  {
    "name": "rewind_restore",
    "description": "Put files back as they were before a turn: every file that turn and the later ones\n        changed, or only paths; with hunks ('1,3', '2:1-3') only those hunks of the one path's\n        diff in that turn. Without plan_id nothing changes: the answer is the plan and its id;\n        call again with plan_id to apply it. force: also overwrite files changed outside\n        rewind (their content is saved for undo).",
    "inputSchema": {
      "properties": {
        "turn": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "integer"
            }
          ],
          "title": "Turn"
        },
        "paths": {
          "anyOf": [
            {
              "items": {
                "type": "string"
              },
              "type": "array"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Paths"
        },
        "hunks": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Hunks"
        },
        "session": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Session"
        },
        "plan_id": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Plan Id"
        },
        "force": {
          "default": false,
          "title": "Force",
          "type": "boolean"
        }
      },
      "required": [
        "turn"
      ],
      "title": "rewind_restoreArguments",
      "type": "object"
    }
  },
  {
    "name": "rewind_undo",
    "description": "Take back the newest restore still in effect (again: the one before it). Without\n        plan_id, the plan; with it, applied.",
    "inputSchema": {
      "properties": {
        "session": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Session"
        },
        "plan_id": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Plan Id"
        },
        "force": {
          "default": false,
          "title": "Force",
          "type": "boolean"
        }
      },
      "title": "rewind_undoArguments",
      "type": "object"
    }
  },
  {
    "name": "rewind_redo",
    "description": "Put back the restore the last undo took back. Without plan_id, the plan; with it,\n        applied.",
    "inputSchema": {
      "properties": {
        "session": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Session"
        },
        "plan_id": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "null"
            }
          ],
          "default": null,
          "title": "Plan Id"
        },
        "force": {
          "default": false,
          "title": "Force",
          "type": "boolean"
        }
      },
      "title": "rewind_redoArguments",
      "type": "object"
    }
  }
];
// END TOOLS

class McpServer {
  constructor() {
    this.child = null;
    this.pending = new Map();
    this.next = 1;
    this.buffer = "";
    this.ready = null;
  }

  start(cwd) {
    if (this.ready) return this.ready;
    const command = COMMAND.replace(/ hook pi$/, " mcp");
    const child = spawn("/bin/sh", ["-c", "exec " + command], { cwd, stdio: ["pipe", "pipe", "ignore"] });
    this.child = child;
    this.buffer = "";
    // Only the server of now: one ended since (given up, or closed) changes nothing.
    child.on("error", () => this.child === child && this.fail("rewind mcp could not be started"));
    child.on("close", () => this.child === child && this.fail("rewind mcp ended"));
    child.stdin.on("error", () => {});
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (data) => this.child === child && this.read(data));
    this.ready = this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "rewind-pi", version: "1" },
    }).then(() => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n"));
    return this.ready;
  }

  read(data) {
    this.buffer += data;
    let end;
    while ((end = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      const waiting = this.pending.get(message.id);
      if (!waiting) continue;
      this.pending.delete(message.id);
      if (message.error) waiting.reject(new Error(String(message.error.message ?? "rewind mcp failed")));
      else waiting.resolve(message.result);
    }
  }

  // A request Pi aborts (Esc) is given up, its answer ignored when it comes (a restore under
  // way finishes); one no answer ends within TOOL_WAIT_MS ends the server, which may be stuck:
  // the next call starts another.
  request(method, params, signal) {
    const id = this.next++;
    const child = this.child;
    return new Promise((resolve, reject) => {
      const giveUp = (why, stuck) => {
        if (!this.pending.has(id)) return;
        if (stuck && this.child === child) this.close(true);
        else this.pending.get(id).reject(new Error(why));
      };
      const timer = setTimeout(() => giveUp("rewind mcp did not answer in time", true), TOOL_WAIT_MS);
      const aborted = () => giveUp("the call was cancelled", false);
      signal?.addEventListener?.("abort", aborted, { once: true });
      const settle = (then) => (value) => {
        clearTimeout(timer);
        signal?.removeEventListener?.("abort", aborted);
        this.pending.delete(id);
        then(value);
      };
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
      if (signal?.aborted) aborted();
    });
  }

  fail(why) {
    for (const waiting of [...this.pending.values()]) waiting.reject(new Error(why));
    this.pending.clear();
    this.ready = null;
    this.child = null;
  }

  // Ends the server: its standard input closed (it exits), or killed when it may be stuck;
  // what still waits on it fails.
  close(stuck = false) {
    const child = this.child;
    if (!child) return;
    this.fail(stuck ? "rewind mcp did not answer" : "rewind mcp was closed");
    child.stdin.end();
    if (stuck) child.kill();
  }
}

const mcp = new McpServer();

async function callTool(name, params, signal, ctx) {
  try {
    await mcp.start(ctx.cwd);
    const result = await mcp.request("tools/call", { name, arguments: params ?? {} }, signal);
    const content = Array.isArray(result?.content) ? result.content : [];
    const text = content.filter((part) => part?.type === "text").map((part) => part.text).join("\n");
    return { content: [{ type: "text", text: text || "(no output)" }], details: {}, isError: Boolean(result?.isError) };
  } catch (error) {
    return { content: [{ type: "text", text: `rewind: ${error?.message ?? error}` }], details: {}, isError: true };
  }
}

function registerTools(pi) {
  for (const tool of TOOLS) {
    try {
      pi.registerTool({
        name: tool.name,
        label: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
        async execute(_id, params, signal, _update, ctx) {
          return callTool(tool.name, params, signal, ctx);
        },
      });
    } catch {
      // a Pi without custom tools: the recording above still works
    }
  }
}
