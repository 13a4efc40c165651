"""Where the resident listens and what a hook that posts to it sends.

The port is fixed when the hooks are installed (``REWIND_RESIDENT_PORT``, else
:data:`DEFAULT_PORT`) and read back from the agent's settings by the command hooks that start
the resident (:func:`port_for`, light: every hook of the agent looks), so the two always
agree. Each HTTP hook sends the poster's ``REWIND_HOME``,
``XDG_DATA_HOME`` and ``HOME`` as headers (Claude Code interpolates the variables a hook lists
in ``allowedEnvVars``): the resident records only events meant for its own rewind home (another
user's, or a test's, is answered and left alone), and a request without them (a web page's,
which cannot add headers without a preflight the resident never answers) is refused.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

DEFAULT_PORT = 47811
PORT_VARIABLE = "REWIND_RESIDENT_PORT"
# REWIND_RESIDENT=off: the hooks neither hand events to a resident nor start one.
SWITCH_VARIABLE = "REWIND_RESIDENT"
HOST = "127.0.0.1"
PATH_PREFIX = "/rewind/hook/"
# The agents whose hooks may post to the resident (their clients run HTTP hooks to 127.0.0.1),
# and the variable each one's hook processes name the project in.
AGENTS = ("claude-code", "qwen")
PROJECT_VARIABLES = {"claude-code": "CLAUDE_PROJECT_DIR", "qwen": "QWEN_PROJECT_DIR"}
# The agents whose command hooks hand their events to it when it runs (rewind.resident.forward).
HANDING_OVER = frozenset(
    {"codex", "gemini", "copilot", "cursor", "cline", "windsurf", "pi", "qwen", "droid", "kilo"}
    | {"opencode"}
)
# Header name -> the environment variable the hook interpolates into it.
HOME_HEADERS = {
    "X-Rewind-Home": "REWIND_HOME",
    "X-Rewind-Xdg-Data-Home": "XDG_DATA_HOME",
    "X-Rewind-User-Home": "HOME",
}


def install_port() -> int:
    """The port hooks installed now name: ``REWIND_RESIDENT_PORT`` when it is a port number,
    else the default."""
    configured = os.environ.get(PORT_VARIABLE, "").strip()
    if configured.isdigit() and 1024 <= int(configured) <= 65535:
        return int(configured)
    return DEFAULT_PORT


def url(agent: str, port: int) -> str:
    return f"http://{HOST}:{port}{PATH_PREFIX}{agent}"


def url_pattern(agent: str) -> re.Pattern[str]:
    """Matches the URL of a hook of rewind's resident for ``agent``; group 1 is the port (for
    the installers: ``re`` stays off the hook path)."""
    import re

    return re.compile(rf"http://127\.0\.0\.1:(\d{{4,5}}){re.escape(PATH_PREFIX + agent)}")


def headers() -> dict[str, str]:
    return {header: f"${{{variable}}}" for header, variable in HOME_HEADERS.items()}


def home_for(values: dict[str, str], cwd: str = "") -> str:
    """The rewind home of a process whose ``REWIND_HOME``, ``XDG_DATA_HOME`` and ``HOME`` are
    ``values`` (as rewind.store.home.rewind_home answers from its own environment; a relative
    ``REWIND_HOME`` from ``cwd``, its working directory, when known), normalised."""
    configured = values.get("REWIND_HOME", "")
    home = values.get("HOME", "")
    if configured:
        if configured.startswith("~") and home:
            configured = home + configured[1:]
        return os.path.normpath(os.path.join(cwd, configured) if cwd else configured)
    if sys.platform.startswith("linux"):
        data_home = values.get("XDG_DATA_HOME", "").strip()
        if not data_home or not os.path.isabs(data_home):
            data_home = os.path.join(home, ".local", "share")
        return os.path.normpath(os.path.join(data_home, "rewind"))
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Application Support", "rewind")
    return ""  # elsewhere, only REWIND_HOME says


SETTINGS_BYTES = 1 << 20
_PORTS: dict[tuple[str, str], int | None] = {}


def settings_files(agent: str, project: str) -> list[str]:
    """The settings files ``agent``'s client reads hooks from, for a session in ``project``."""
    if agent == "qwen":
        paths = [os.path.join(os.path.expanduser("~"), ".qwen", "settings.json")]
        return paths + ([os.path.join(project, ".qwen", "settings.json")] if project else [])
    return claude_code_settings(project)


def claude_code_settings(project: str) -> list[str]:
    """The settings files Claude Code reads hooks from, for a session in ``project``."""
    config = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    paths = [os.path.join(config, "settings.json")]
    if project:
        paths += [
            os.path.join(project, ".claude", "settings.json"),
            os.path.join(project, ".claude", "settings.local.json"),
        ]
    return paths


def port_for(agent: str) -> int | None:
    """The port a hook process of ``agent`` finds its resident on, None when it has none:
    Claude Code's and Qwen Code's, the one their settings post to (for the project their
    variable names, else the working directory); another agent's command hooks',
    :func:`install_port` once ``rewind install`` has run under this rewind home
    (:func:`wanted_path`). Looked for once per process and project."""
    if agent not in AGENTS and agent not in HANDING_OVER:
        return None
    if os.environ.get(SWITCH_VARIABLE, "").strip().lower() in ("off", "0", "false", "no"):
        return None  # every event handled by its own process
    project = os.environ.get(PROJECT_VARIABLES.get(agent, ""), "") or os.getcwd()
    key = (agent, project)
    if key not in _PORTS:
        if agent in AGENTS:
            _PORTS[key] = port_in(settings_files(agent, project), agent)
        else:
            _PORTS[key] = install_port() if os.path.exists(wanted_path()) else None
    return _PORTS[key]


def wanted_path() -> str:
    """The file ``rewind install`` leaves under the rewind home: the hooks of this home's
    agents may hand their events to a resident (those of a committed settings file on a
    machine where nobody installed rewind's hooks handle them themselves)."""
    from rewind.store.home import rewind_home

    return os.path.join(rewind_home(), "resident", "wanted")


def port_in(paths: list[str], agent: str) -> int | None:
    """The port of rewind's resident that the first of ``paths`` naming one names (read as
    text, without ``re``, which the hook path does not load)."""
    start, end = f"http://{HOST}:", PATH_PREFIX + agent
    for path in paths:
        try:
            with open(path, "rb") as handle:
                text = handle.read(SETTINGS_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        at = text.find(start)
        while at >= 0:
            digits = text[at + len(start) : at + len(start) + 6].partition("/")[0]
            after = at + len(start) + len(digits)
            usable = digits.isascii() and digits.isdigit() and 1024 <= int(digits) <= 65535
            if usable and text.startswith(end, after):
                return int(digits)
            at = text.find(start, at + 1)
    return None
