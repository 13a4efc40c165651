"""Whether the resident listens on a port, and starting it when it does not: called after an
event a hook's process handled itself (rewind.hooks.answer_event), so the events after it are
posted or handed to it. Light imports only: this is on the hook path (``_socket``, not
``socket``, which loads ``enum``).

The port is bound here, before the resident is started, and handed to it: when this returns,
the port accepts connections (they wait in the listen queue while the resident loads), so no
event posted right after is refused. Two hooks starting one at once: the second bind fails and
that hook leaves it to the first. A port another program holds is never taken (logged once a
day). The resident's file (``$REWIND_HOME/resident/PORT.json``, this user's alone) names its pid
and the secret a handed-over event must carry; a pid counts only while ``/proc`` shows it
running the resident.
"""

from __future__ import annotations

import _socket
import errno
import os
import time

from rewind.resident.address import HOST
from rewind.store.home import rewind_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

CONNECT_TIMEOUT = 0.2
# How often a port held by another program is written to the log.
CONFLICT_NOTE_EVERY = 24 * 3600.0
STATE_DIR = "resident"
MODULE = b"rewind.resident.server"


def state_path(*parts: str) -> str:
    return os.path.join(rewind_home(), STATE_DIR, *parts)


def info_path(port: int) -> str:
    return state_path(f"{port}.json")


# True in the resident itself, which needs no check that it listens.
IN_RESIDENT = False


def ensure(port: int, log: Callable[[str], None]) -> bool:
    """Makes sure rewind's resident listens on ``port``; True when it does (or is starting).
    A port another program holds is logged (at most once a day), never taken."""
    if IN_RESIDENT:
        return True
    probe = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    probe.settimeout(CONNECT_TIMEOUT)
    try:
        probe.connect((HOST, port))
    except OSError:
        pass  # nobody listens: start it
    else:
        return _ours_listening(port, log)
    finally:
        probe.close()
    return _start(port, log)


def _ours_listening(port: int, log: Callable[[str], None]) -> bool:
    """Something listens on ``port``: rewind's resident of this rewind home, when the pid its
    file names is alive."""
    if running_pid(port) is not None or _starting(port):
        return True
    _note_conflict(port, log)
    return False


def _starting(port: int) -> bool:
    """Whether a hook wrote the file of a resident it is starting, a moment ago."""
    try:
        with open(info_path(port), encoding="utf-8") as handle:
            text = handle.read(4096)
        return _field(text, "ready") == "false" and time.time() - float(_field(text, "started")) < 5
    except (OSError, ValueError):
        return False


def running_pid(port: int) -> int | None:
    """The pid of rewind's resident on ``port`` for this rewind home, if its file names a
    process that is alive."""
    found = running(port)
    return found[0] if found is not None else None


def running(port: int) -> tuple[int, str] | None:
    """The pid and secret of rewind's resident on ``port`` for this rewind home, if its file
    names a process that is alive (read without a JSON parser: the file is rewind's own)."""
    try:
        with open(info_path(port), encoding="utf-8") as handle:
            text = handle.read(4096)
        pid = int(_field(text, "pid"))
        if pid <= 0:
            return None
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    if not _a_resident(pid):
        return None
    return pid, _field(text, "secret").strip('"')


def _a_resident(pid: int) -> bool:
    """Whether ``pid`` runs rewind's resident (where /proc says: a pid a killed resident left in
    its file may be another program's since), and has not ended unreaped (a zombie)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = handle.read(4096)
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read(512).rpartition(b")")[2].split()[:1]
    except FileNotFoundError:
        return not os.path.isdir("/proc/self")  # no /proc here: the pid is all there is
    except OSError:
        return False
    return state != [b"Z"] and (MODULE in command or os.getpid() == pid)


def _field(text: str, name: str) -> str:
    """The raw value of ``name`` in the flat JSON object of the resident's file."""
    after = text.partition(f'"{name}":')[2]
    return after.partition(",")[0].partition("}")[0].strip()


def _start(port: int, log: Callable[[str], None]) -> bool:
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
        listener.bind((HOST, port))
        listener.listen(128)
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            return True  # another hook started it a moment ago (or a program took it)
        log(f"the resident recorder could not listen on {HOST}:{port}: {error}")
        return False
    try:
        # Named before the port is handed over: from the bind on, whoever finds it taken
        # finds it rewind's (this process's, then the resident's, which writes it again).
        write_info(port, os.getpid())
        _spawn(listener)
    except OSError as error:
        log(f"the resident recorder could not be started: {error}")
        return False
    finally:
        listener.close()
    return True


def _spawn(listener: _socket.socket) -> None:
    import subprocess
    import sys

    os.makedirs(state_path(), mode=0o700, exist_ok=True)
    descriptor = listener.fileno()
    arguments = [sys.executable, "-m", "rewind.resident.server", str(descriptor)]
    with open(state_path("resident.out"), "ab") as output:
        process = subprocess.Popen(
            arguments,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            pass_fds=(descriptor,),
            start_new_session=True,
            cwd="/",
        )
    port = listener.getsockname()[1]
    if running(port) is None or running_pid(port) == os.getpid():
        write_info(port, process.pid)  # unless the resident wrote its own (with its secret)


def write_info(port: int, pid: int, secret: str = "", ready: bool = False) -> None:
    """The resident's file: which process listens on ``port`` for this rewind home, the secret
    a forwarded event must carry (rewind.resident.forward), and whether it has begun serving
    (``ready``). The file and its folder are this user's alone."""
    from rewind.store.atomic import replace_file
    from rewind.store.fastjson import dumps

    os.makedirs(state_path(), mode=0o700, exist_ok=True)
    info = {"pid": pid, "port": port, "secret": secret, "started": time.time(), "ready": ready}
    replace_file(os.fsencode(info_path(port)), dumps(info).encode(), 0o600)


def _note_conflict(port: int, log: Callable[[str], None]) -> None:
    marker = state_path(f"{port}.conflict")
    try:
        if time.time() - os.stat(marker).st_mtime < CONFLICT_NOTE_EVERY:
            return
    except OSError:
        pass
    try:
        os.makedirs(state_path(), mode=0o700, exist_ok=True)
        with open(marker, "w", encoding="utf-8"):
            pass
    except OSError:
        pass
    log(
        f"{HOST}:{port}, where rewind's HTTP hooks post, is held by another program (or another "
        f"user's rewind): the events sent there are recorded late, at the next prompt; set "
        f"REWIND_RESIDENT_PORT to a free port and run 'rewind install' again"
    )
