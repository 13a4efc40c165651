"""Where the resident listens and what a hook that posts to it sends.

The port is fixed when the hooks are installed (``REWIND_RESIDENT_PORT``, else
:data:`DEFAULT_PORT`) and read back from the agent's settings by the command hooks that start
the resident, so the two always agree. Each HTTP hook sends the poster's ``REWIND_HOME``,
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
HOST = "127.0.0.1"
PATH_PREFIX = "/rewind/hook/"
# The agents whose hooks may post to the resident.
AGENTS = ("claude-code",)
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
