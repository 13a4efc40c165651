"""rewind's MCP server in Codex's ``config.toml`` (the user's, in ``$CODEX_HOME`` else
``~/.codex``; a project's ``.codex/config.toml``, which Codex reads in a trusted project only).

Read from Codex 0.171.0 (codex-rs/config/src/mcp_types.rs, core/src/mcp_tool_call.rs): a
server is a ``[mcp_servers.NAME]`` table; a tool's ``approval_mode`` is ``auto`` (the default:
asks for a tool marked destructive, not for one marked read-only), ``prompt``, ``writes`` or
``approve`` (never asks). Codex starts the server with a few variables of the environment only,
so ``REWIND_HOME`` is passed on by ``env_vars``. Install appends one block of tables at the
end of the file; the read tools get ``approve``, the tools that change files keep ``auto``.
Uninstall takes out exactly that block's text; a block someone edited is left for them. The
block's lines end as the file's do (CRLF when it has one); a byte order mark stays where it is.
"""

from __future__ import annotations

import json
import os
import stat

from rewind.errors import UserError
from rewind.installers import Change, Context, record
from rewind.installers.codex_trust import codex_home
from rewind.installers.mcp_json import is_rewind_server
from rewind.installers.mcp_registration import McpFound, McpRegistration, server_command
from rewind.installers.settings_file import delete_created, missing_directories
from rewind.mcp.names import READ_TOOLS, SERVER_NAME
from rewind.store.atomic import replace_file
from rewind.store.input_limits import TOML_BYTES, BeyondLimit, loads_toml, read_at_most

PART = "mcp"
BOM = "\ufeff"
HEADER = "# rewind's MCP server (rewind install codex --mcp; rewind uninstall codex --mcp)"


def config_path(scope: str, context: Context) -> str:
    if scope == "user":
        return os.path.join(codex_home(context.home), "config.toml")
    return os.path.join(context.project, ".codex", "config.toml")


def block(command: str, newline: str = "\n") -> str:
    """The tables install appends, each line ended with ``newline``."""
    lines = [
        HEADER,
        f"[mcp_servers.{SERVER_NAME}]",
        f"command = {json.dumps(command, ensure_ascii=False)}",  # TOML's basic string
        'args = ["mcp"]',
        'env_vars = ["REWIND_HOME"]',
    ]
    for tool in READ_TOOLS:
        lines += ["", f"[mcp_servers.{SERVER_NAME}.tools.{tool}]", 'approval_mode = "approve"']
    return newline.join(lines) + newline


def _newline(text: str) -> str:
    """The line ending of a file's text: CRLF when a line ends so, else LF."""
    return "\r\n" if "\r\n" in text else "\n"


def _read(path: str) -> tuple[str | None, dict[str, object]]:
    """The file's text (None: no file; a byte order mark kept) and its tables; a file that is
    not TOML, or is past the limits (rewind.store.input_limits), is refused."""
    try:
        raw = read_at_most(path, TOML_BYTES, "a TOML file")
    except FileNotFoundError:
        return None, {}
    except BeyondLimit as error:
        raise UserError(f"{error.of(path)}; make it smaller, then run again.") from None
    except OSError as error:
        reason = error.strerror
        raise UserError(f"{path} could not be read ({reason}); fix it and run again.") from None
    try:
        text = raw.decode("utf-8")
        return text, loads_toml(text)
    except BeyondLimit as error:
        raise UserError(f"{error.of(path)}; fix it, then run again.") from None
    except ValueError as error:  # not UTF-8, or not TOML
        raise UserError(f"{path} is not valid TOML ({error}); fix it, then run again.") from None


def _parsed(text: str) -> dict[str, object] | None:
    """The tables of ``text`` (None: it is not TOML, or is past the limits)."""
    try:
        return loads_toml(text)
    except ValueError:
        return None


def _server(data: dict[str, object]) -> object:
    servers = data.get("mcp_servers")
    return servers.get(SERVER_NAME) if isinstance(servers, dict) else None


def _write(path: str, text: str, mode: int | None) -> list[str]:
    target = os.path.realpath(path)
    created = missing_directories(os.path.dirname(target))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    replace_file(os.fsencode(target), text.encode("utf-8"), mode if mode is not None else 0o600)
    return created


class CodexMcp(McpRegistration):
    scopes = ("user", "project")
    shared_scopes = ("project",)
    advice = (
        "start Codex again to load the server ('/mcp' lists it); a project's .codex/ is read "
        "only once the project is trusted"
    )

    def check(self, scope: str, context: Context) -> None:
        self._planned(scope, context)

    def _planned(self, scope: str, context: Context) -> tuple[str, str | None, str]:
        """The file's path, its text (None: none) and what install appends ("" when rewind's
        server is there already); a user error when the result would not be the server, as
        TOML reads it (a server of that name that is not rewind's, ``mcp_servers`` written as
        an inline table or a value)."""
        path = config_path(scope, context)
        text, data = _read(path)
        existing = _server(data)
        if existing is not None:
            if not is_rewind_server(existing):
                raise UserError(
                    f"{path} already has [mcp_servers.{SERVER_NAME}], which is not rewind's MCP "
                    "server; rename or remove it, then run the command again."
                )
            return path, text, ""
        before = text or ""
        newline = _newline(before)
        if not before.lstrip(BOM) or before.endswith(("\n\n", "\n\r\n")):
            separator = ""
        else:  # a blank line before the block
            separator = newline if before.endswith("\n") else newline * 2
        added = separator + block(server_command(context, scope in self.shared_scopes), newline)
        after = _parsed(before + added)
        if after is None or not is_rewind_server(_server(after)):
            raise UserError(
                f"{path} writes mcp_servers in a form a [mcp_servers.{SERVER_NAME}] table cannot "
                "join (an inline table or a value); add the server by hand (rewind help mcp), "
                "then run the command again."
            )
        return path, text, added

    def install(self, scope: str, context: Context) -> list[Change]:
        path, text, added = self._planned(scope, context)
        if not added:
            return [Change(path)]
        change = Change(path, created=text is None)
        mode = stat.S_IMODE(os.stat(path).st_mode) if text is not None else None
        directories = _write(path, (text or "") + added, mode)
        made = {"created_file": text is None, "created_directories": directories, "added": added}
        record.save_part(path, PART, made)
        change.items.append(("added", f"[mcp_servers.{SERVER_NAME}], its read tools approved"))
        return [change]

    def uninstall(self, scope: str, context: Context, recorded_only: bool = False) -> list[Change]:
        path = config_path(scope, context)
        change = Change(path)
        made = record.load_part(path, PART)
        if made is None and recorded_only:
            return [change]
        text, data = _read(path)
        if text is None or _server(data) is None:
            record.forget_part(path, PART)
            return [change]
        added = (made or {}).get("added")
        if not isinstance(added, str) or added not in text:  # installed elsewhere, or edited
            server = _server(data)
            command = server.get("command") if isinstance(server, dict) else None
            newline = _newline(text)
            added = newline + block(str(command), newline)
            if added not in text:
                added = added[len(newline) :]
        if added not in text:
            raise UserError(
                f"[mcp_servers.{SERVER_NAME}] in {path} is not as rewind wrote it; take it out "
                "by hand."
            )
        start = text.rindex(added)
        left = text[:start] + text[start + len(added) :]
        rest = _parsed(left)
        if rest is None or _server(rest) is not None:  # None: what followed belonged to it
            raise UserError(
                f"[mcp_servers.{SERVER_NAME}] in {path} has more than rewind wrote (or text after "
                "it that belongs to it); take it out by hand."
            )
        change.items.append(("removed", f"[mcp_servers.{SERVER_NAME}]"))
        if made and made.get("created_file") and not left.strip():
            delete_created(path, made.get("created_directories"))
            change.items.append(("deleted", path))
        else:
            _write(path, left, stat.S_IMODE(os.stat(path).st_mode))
        record.forget_part(path, PART)
        return [change]

    def inspect(self, scope: str, context: Context) -> McpFound:
        path = config_path(scope, context)
        found = McpFound([path], registered=False)
        try:
            _, data = _read(path)
        except UserError as error:
            found.problem = str(error)
            return found
        server = _server(data)
        if not is_rewind_server(server):
            return found
        assert isinstance(server, dict)
        found.registered = True
        found.command = [str(server["command"]), *(str(word) for word in server["args"])]
        tools = server.get("tools")
        tools = tools if isinstance(tools, dict) else {}
        modes = {tool: tools[tool] for tool in tools if isinstance(tools[tool], dict)}
        asks = [t for t in READ_TOOLS if modes.get(t, {}).get("approval_mode") != "approve"]
        if asks:
            found.notes.append(("info", f"{path}: not pre-approved: {', '.join(asks)}"))
        return found
