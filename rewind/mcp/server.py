"""The MCP server: the tools, and serving them over stdio for the project at ``root``.

Tools that read are marked read-only (``readOnlyHint``), safe to approve once; the tools that
change files are marked destructive, and apply only with the id of a plan they answered first
(rewind.mcp.changing). A refusal is the tool's error: the command line's one sentence.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from rewind._version import __version__
from rewind.errors import UserError
from rewind.mcp import changing, reading
from rewind.mcp.reading import Answer, CommandFailed

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


def answered(make: Callable[[], Answer]) -> CallToolResult:
    """The tool's answer: text and structured content, or the refusal's sentence as an error."""
    try:
        answer = make()
    except (UserError, CommandFailed) as refused:
        return CallToolResult(content=[TextContent(type="text", text=str(refused))], is_error=True)
    if len(json.dumps(answer.data)) > STRUCTURED_LIMIT:
        note = (
            f"\n[the data of this answer is larger than {STRUCTURED_LIMIT} characters and is left "
            "out: narrow the request (fewer entries, one file, a line range)]"
        )
        return CallToolResult(content=[TextContent(type="text", text=answer.text + note)])
    return CallToolResult(
        content=[TextContent(type="text", text=answer.text)], structured_content=answer.data
    )


def build(root: str) -> MCPServer[Any]:
    """The server of the project at ``root``."""
    server: MCPServer[Any] = MCPServer(
        "rewind", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    @server.tool(annotations=READ, structured_output=False)
    def rewind_log(
        count: int = 20,
        since: str | None = None,
        grep: str | None = None,
        path: str | None = None,
        session: str | None = None,
    ) -> CallToolResult:
        """The newest turns of the session (and restores, undos, redos), oldest first, with the
        files each changed. since: '2 hours ago', '2026-12-01'; grep: text in the prompt or a
        label; path: only the entries that recorded this file (of any session)."""
        return answered(lambda: reading.log(root, count, since, grep, path, session))

    @server.tool(annotations=READ, structured_output=False)
    def rewind_show(
        turn: str, path: str | None = None, session: str | None = None
    ) -> CallToolResult:
        """What one turn changed, as a diff; with path, that file's numbered hunks (what
        rewind_restore's hunks take). turn: its number in the session, or its id."""
        return answered(lambda: reading.show(root, turn, path, session))

    @server.tool(annotations=READ, structured_output=False)
    def rewind_diff(
        turn: str | None = None, turn2: str | None = None, session: str | None = None
    ) -> CallToolResult:
        """The diff from before turn to the files now (with turn2: to after turn2)."""
        return answered(lambda: reading.diff(root, turn, turn2, session))

    @server.tool(annotations=READ, structured_output=False)
    def rewind_history(path: str, count: int = 20) -> CallToolResult:
        """Every recorded version of a file, newest first, across sessions and renames."""
        return answered(lambda: reading.history(root, path, count))

    @server.tool(annotations=READ, structured_output=False)
    def rewind_blame(path: str, start_line: int = 1, end_line: int | None = None) -> CallToolResult:
        """For each line of a file (or of lines start_line to end_line), the turn and prompt
        that last changed it."""
        return answered(lambda: reading.blame(root, path, start_line, end_line))

    @server.tool(annotations=READ, structured_output=False)
    def rewind_status() -> CallToolResult:
        """The project's store: its size, the session, the newest turn, problems."""
        return answered(lambda: reading.status(root))

    @server.tool(annotations=CHANGE, structured_output=False)
    def rewind_restore(
        turn: str,
        paths: list[str] | None = None,
        hunks: str | None = None,
        session: str | None = None,
        plan_id: str | None = None,
        force: bool = False,
    ) -> CallToolResult:
        """Put files back as they were before a turn: every file that turn and the later ones
        changed, or only paths; with hunks ('1,3', '2:1-3') only those hunks of the one path's
        diff in that turn. Without plan_id nothing changes: the answer is the plan and its id;
        call again with plan_id to apply it. force: also overwrite files changed outside
        rewind (their content is saved for undo)."""
        return answered(lambda: changing.restore(root, turn, paths, hunks, session, plan_id, force))

    @server.tool(annotations=CHANGE, structured_output=False)
    def rewind_undo(
        session: str | None = None, plan_id: str | None = None, force: bool = False
    ) -> CallToolResult:
        """Take back the newest restore still in effect (again: the one before it). Without
        plan_id, the plan; with it, applied."""
        return answered(lambda: changing.undo(root, session, plan_id, force))

    @server.tool(annotations=CHANGE, structured_output=False)
    def rewind_redo(
        session: str | None = None, plan_id: str | None = None, force: bool = False
    ) -> CallToolResult:
        """Put back the restore the last undo took back. Without plan_id, the plan; with it,
        applied."""
        return answered(lambda: changing.redo(root, session, plan_id, force))

    return server


def serve(root: str) -> None:
    """Serves the project at ``root`` over stdio until the client closes it."""
    build(root).run("stdio")
