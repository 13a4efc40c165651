"""The MCP server: the tools, and serving them over stdio for the project at ``root``.

Tools that read are marked read-only (``readOnlyHint``), safe to approve once; the tools that
change files are marked destructive, and apply only with the id of a plan they answered first
(rewind.mcp.changing). A refusal is the tool's error: the command line's one sentence.
"""

from __future__ import annotations

import json
import os
import signal
import traceback
from collections.abc import Callable
from types import FrameType
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from rewind._version import __version__
from rewind.errors import UserError, environment_problem
from rewind.mcp import changing, reading
from rewind.mcp.names import CHANGE_TOOLS, READ_TOOLS
from rewind.mcp.reading import LOG_LIMIT, Answer
from rewind.mcp.stdio import stdio_streams
from rewind.store.failure_log import log_hook_problem
from rewind.store.repository import Store

INSTRUCTIONS = (
    "rewind records every file this project's agent turns changed, turn by turn (one turn is "
    "one prompt). Read with rewind_log (the turns), rewind_show (one turn's diff), rewind_diff, "
    "rewind_history and rewind_blame (which prompt wrote which line), rewind_status. To undo "
    "work, call rewind_restore (or rewind_undo, rewind_redo) once for the plan, show it to the "
    "person, then call it again with the plan's id to apply it; every change can be undone."
)
# The most characters of structured content one answer holds: beyond, the answer is the
# (bounded) text alone, saying so (some clients send the model the structured content instead
# of the text).
STRUCTURED_LIMIT = 60_000
READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False)


# The arguments' types, strictly: "5" is no count and "yes" no force (a model's mistake is
# refused, not guessed at). A turn may come as its number.
Count = Annotated[int, Field(strict=True, ge=1, le=LOG_LIMIT)]
Line = Annotated[int, Field(strict=True, ge=1)]
Flag = Annotated[bool, Field(strict=True)]
Text = Annotated[str, Field(strict=True)]
Turn = Annotated[str, Field(strict=True)] | Annotated[int, Field(strict=True)]


def answered(root: str, tool: str, make: Callable[[], Answer]) -> CallToolResult:
    """The tool's answer: text and structured content, or a refusal's one sentence as an error.
    Anything else that goes wrong is logged with its traceback (never sent to the client or
    standard error) and answered in one sentence too."""
    try:
        answer = make()
    except UserError as refused:
        return _error(str(refused))
    except Exception as error:
        problem = environment_problem(error) if isinstance(error, OSError) else None
        if problem is not None:  # a full disk, a permission: the person can fix it
            return _error(problem)
        where = _log_crash(root, tool, error)
        return _error(
            f"{tool} failed unexpectedly ({type(error).__name__}); nothing was changed by this "
            f"call, and the details are in {where}."
        )
    if len(json.dumps(answer.data)) > STRUCTURED_LIMIT:
        note = (
            f"\n[the data of this answer is larger than {STRUCTURED_LIMIT} characters and is left "
            "out: narrow the request (fewer entries, one file, a line range)]"
        )
        return CallToolResult(content=[TextContent(type="text", text=answer.text + note)])
    return CallToolResult(
        content=[TextContent(type="text", text=answer.text)], structured_content=answer.data
    )


def _error(sentence: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=sentence)], is_error=True)


def _log_crash(root: str, tool: str, error: Exception) -> str:
    """Logs ``error`` in the project's store log (else rewind's hooks log); says where."""
    details = "".join(traceback.format_exception(error)).rstrip()
    message = f"rewind mcp: {tool} failed: {details}"
    try:
        store_log: str | None = Store.for_root(os.fsencode(root)).state_path("rewind.log")
    except Exception:
        store_log = None
    where = log_hook_problem(message, store_log)
    return where or "no log (none could be written)"


class RewindServer(MCPServer[Any]):
    """The SDK's server, with a call's mistakes told in one sentence: a tool it does not have,
    an argument it does not take (``path`` for ``paths`` would otherwise be dropped, and the
    call do more than asked), an argument of the wrong type or out of range (never a
    validation dump)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if name not in READ_TOOLS + CHANGE_TOOLS:
            tools = ", ".join(READ_TOOLS + CHANGE_TOOLS)
            return _error(f"there is no tool {name[:80]!a}; the tools are {tools}.")
        unknown, known = await self._unknown_arguments(name, arguments)
        if unknown:
            takes = f"it takes {', '.join(known)}" if known else "it takes none"
            return _error(
                f"{name} takes no argument {unknown[0][:80]!a}; {takes}, and nothing was done."
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            if isinstance(error.__cause__, ValidationError):
                return _error(_argument_sentence(name, error.__cause__))
            raise

    async def _unknown_arguments(
        self, name: str, arguments: dict[str, Any]
    ) -> tuple[list[str], list[str]]:
        """The arguments of the call the tool does not take, and those it takes (in the
        order of its input schema)."""
        for tool in await self.list_tools():
            if tool.name == name:
                known = list(tool.input_schema.get("properties", {}))
                return sorted(key for key in arguments if key not in known), known
        return [], []

    async def run_stdio_async(self) -> None:
        """Serves over rewind's own stdio transport (rewind.mcp.stdio), which answers every
        line, whatever it holds."""
        lowlevel = self._lowlevel_server  # the SDK's own run_stdio_async does the same
        async with stdio_streams() as (read_stream, write_stream):
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def _argument_sentence(tool: str, invalid: ValidationError) -> str:
    """One sentence for the first argument pydantic refused (its type or range)."""
    first = invalid.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "arguments"
    if first["type"] == "missing":
        return f"{tool} needs the argument {field}; its input schema lists what it takes."
    reason = str(first["msg"]).rstrip(".").lower()
    return (
        f"the argument {field} of {tool} is wrong ({reason}); its input schema says what it takes."
    )


def build(root: str) -> RewindServer:
    """The server of the project at ``root``."""
    server = RewindServer(
        "rewind", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    @server.tool(annotations=READ, structured_output=False)
    def rewind_log(
        count: Count = 20,
        since: Text | None = None,
        grep: Text | None = None,
        path: Text | None = None,
        session: Text | None = None,
    ) -> CallToolResult:
        """The newest turns of the session (and restores, undos, redos), oldest first, with the
        files each changed. since: '2 hours ago', '2026-12-01'; grep: text in the prompt or a
        label; path: only the entries that recorded this file (of any session)."""
        return answered(
            root, "rewind_log", lambda: reading.log(root, count, since, grep, path, session)
        )

    @server.tool(annotations=READ, structured_output=False)
    def rewind_show(
        turn: Turn, path: Text | None = None, session: Text | None = None
    ) -> CallToolResult:
        """What one turn changed, as a diff; with path, that file's numbered hunks (what
        rewind_restore's hunks take). turn: its number in the session, or its id."""
        return answered(root, "rewind_show", lambda: reading.show(root, str(turn), path, session))

    @server.tool(annotations=READ, structured_output=False)
    def rewind_diff(
        turn: Turn | None = None, turn2: Turn | None = None, session: Text | None = None
    ) -> CallToolResult:
        """The diff from before turn to the files now; with turn2, from before the earlier of
        the two to before the later one (turn='2', turn2='3' is what turn 2 did)."""
        return answered(
            root,
            "rewind_diff",
            lambda: reading.diff(root, _text(turn), _text(turn2), session),
        )

    @server.tool(annotations=READ, structured_output=False)
    def rewind_history(path: Text, count: Count = 20) -> CallToolResult:
        """Every recorded version of a file, newest first, across sessions and renames."""
        return answered(root, "rewind_history", lambda: reading.history(root, path, count))

    @server.tool(annotations=READ, structured_output=False)
    def rewind_blame(
        path: Text, start_line: Line = 1, end_line: Line | None = None
    ) -> CallToolResult:
        """For each line of a file (or of lines start_line to end_line), the turn and prompt
        that last changed it."""
        return answered(
            root, "rewind_blame", lambda: reading.blame(root, path, start_line, end_line)
        )

    @server.tool(annotations=READ, structured_output=False)
    def rewind_status() -> CallToolResult:
        """The project's store: its size, the session, the newest turn, problems."""
        return answered(root, "rewind_status", lambda: reading.status(root))

    @server.tool(annotations=CHANGE, structured_output=False)
    def rewind_restore(
        turn: Turn,
        paths: list[Text] | None = None,
        hunks: Text | None = None,
        session: Text | None = None,
        plan_id: Text | None = None,
        force: Flag = False,
    ) -> CallToolResult:
        """Put files back as they were before a turn: every file that turn and the later ones
        changed, or only paths; with hunks ('1,3', '2:1-3') only those hunks of the one path's
        diff in that turn. Without plan_id nothing changes: the answer is the plan and its id;
        call again with plan_id to apply it. force: also overwrite files changed outside
        rewind (their content is saved for undo)."""
        return answered(
            root,
            "rewind_restore",
            lambda: changing.restore(root, str(turn), paths, hunks, session, plan_id, force),
        )

    @server.tool(annotations=CHANGE, structured_output=False)
    def rewind_undo(
        session: Text | None = None, plan_id: Text | None = None, force: Flag = False
    ) -> CallToolResult:
        """Take back the newest restore still in effect (again: the one before it). Without
        plan_id, the plan; with it, applied."""
        return answered(root, "rewind_undo", lambda: changing.undo(root, session, plan_id, force))

    @server.tool(annotations=CHANGE, structured_output=False)
    def rewind_redo(
        session: Text | None = None, plan_id: Text | None = None, force: Flag = False
    ) -> CallToolResult:
        """Put back the restore the last undo took back. Without plan_id, the plan; with it,
        applied."""
        return answered(root, "rewind_redo", lambda: changing.redo(root, session, plan_id, force))

    return server


def _text(turn: str | int | None) -> str | None:
    return None if turn is None else str(turn)


def serve(root: str) -> None:
    """Serves the project at ``root`` over stdio until the client closes it, or interrupts it
    (SIGINT: KeyboardInterrupt, exit 130)."""
    interrupted = False

    def on_interrupt(signum: int, frame: FrameType | None) -> None:
        nonlocal interrupted
        interrupted = True
        signal.default_int_handler(signum, frame)

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        anyio.run(build(root).run_stdio_async)
    except BaseExceptionGroup as group:
        # Stopping, the SDK's tasks and the transport's may find a stream already closed under
        # them: that is the stop, not an error of the server.
        if group.subgroup(lambda error: not isinstance(error, _STOPPING)) is not None:
            raise
        if interrupted:
            raise KeyboardInterrupt from None
    finally:
        signal.signal(signal.SIGINT, previous)


# What a task may meet while the server stops.
_STOPPING = (
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    BrokenPipeError,
    KeyboardInterrupt,
)
