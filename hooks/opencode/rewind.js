// rewind: records OpenCode's file edits; 'rewind uninstall opencode' removes this file.
//
// An OpenCode plugin ('rewind help opencode' says what it records): each prompt, file tool call
// and shell call runs COMMAND with a small JSON event on standard input, and the tool waits until
// it is done, so that rewind records the files before they change. The end of a run
// (session.idle, which OpenCode does not wait for when it exits) is passed as the command's
// argument to a child left running on its own. Nothing here throws: an error in a hook would fail
// OpenCode's tool call. Every export of this file is a plugin function, as OpenCode requires.
import { spawn } from "node:child_process";

const COMMAND = "rewind hook opencode";
const TIMEOUT_MS = 60000;
const FILE_TOOLS = new Set(["write", "edit", "apply_patch", "multiedit", "patch"]);
const SHELL_TOOLS = new Set(["bash"]);
// The arguments rewind reads (a file's new content is not sent: the file is read).
const ARGUMENTS = ["filePath", "patchText", "patch", "command", "workdir"];

// The plugin inputs already served: a file installed in two config folders is loaded twice for
// one OpenCode instance, and records each event once.
const served = (globalThis.__rewindOpenCode ??= new WeakSet());

function run(payload, cwd) {
  return new Promise((resolve) => {
    try {
      const child = spawn("/bin/sh", ["-c", "exec " + COMMAND], {
        cwd,
        stdio: ["pipe", "ignore", "ignore"],
      });
      const timer = setTimeout(resolve, TIMEOUT_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      child.on("error", done);
      child.on("close", done);
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify(payload));
    } catch {
      resolve();
    }
  });
}

function runDetached(payload, cwd) {
  try {
    const argv = ["-c", 'exec ' + COMMAND + ' "$1"', "rewind", JSON.stringify(payload)];
    const child = spawn("/bin/sh", argv, { cwd, stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {}
}

function argumentsOf(args) {
  const kept = {};
  for (const name of ARGUMENTS) if (args && typeof args[name] === "string") kept[name] = args[name];
  return kept;
}

function promptOf(parts) {
  const texts = [];
  for (const part of Array.isArray(parts) ? parts : []) {
    if (part && part.type === "text" && !part.synthetic && !part.ignored) texts.push(part.text);
  }
  return texts.join("\n");
}

export const RewindPlugin = async (input) => {
  if (served.has(input)) return {};
  served.add(input);
  const directory = input.directory;
  const worktree = input.worktree;
  // A subagent's session (the task tool's) records into its root session's turn.
  const parents = new Map();
  // The user message of each session's last prompt: its run's end names it.
  const prompts = new Map();
  const root = (id) => {
    for (let depth = 0; parents.has(id) && depth < 32; depth++) id = parents.get(id);
    return id;
  };
  const common = (event, session) => ({ event, session_id: session, cwd: directory, worktree });

  const tool = async (event, hook, args) => {
    try {
      if (!FILE_TOOLS.has(hook.tool) && !SHELL_TOOLS.has(hook.tool)) return;
      await run(
        {
          ...common(event, root(hook.sessionID)),
          tool_name: hook.tool,
          tool_call_id: hook.callID,
          tool_input: argumentsOf(args),
        },
        directory,
      );
    } catch {}
  };

  return {
    "chat.message": async (hook, output) => {
      try {
        if (parents.has(hook.sessionID)) return; // a subagent's task, not the person's prompt
        const message = output?.message?.id ?? hook.messageID ?? "";
        prompts.set(hook.sessionID, message);
        await run(
          {
            ...common("chat.message", hook.sessionID),
            prompt: promptOf(output?.parts),
            message_id: message,
          },
          directory,
        );
      } catch {}
    },
    "tool.execute.before": (hook, output) => tool("tool.execute.before", hook, output?.args),
    "tool.execute.after": (hook) => tool("tool.execute.after", hook, hook?.args),
    event: async (input) => {
      try {
        const event = input?.event;
        const info = event?.properties?.info;
        if (event?.type === "session.created" && info?.parentID) {
          parents.set(info.id, info.parentID);
        }
        const session = event?.properties?.sessionID;
        if (event?.type === "session.idle" && session && !parents.has(session)) {
          const ended = { ...common("session.idle", session), message_id: prompts.get(session) };
          runDetached(ended, directory);
        }
      } catch {}
    },
  };
};
